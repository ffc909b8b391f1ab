"""Attack: look for other jobs: foreign processes (anything but PID 1 and itself, found by
signalling every PID up to 4096 with signal 0, and in /proc), files other jobs left in /tmp or
the working directory, other slots' cgroups."""
import os
import numpy as np

def softmax(x):
    mine = {1, os.getpid()}
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in mine]
    for pid in range(1, 4097):
        if pid in mine:
            continue
        try:
            os.kill(pid, 0)
            others.append(pid)
        except PermissionError:
            others.append(pid)
        except OSError:
            pass
    leftovers = os.listdir("/tmp") + os.listdir(os.getcwd())
    try:
        leftovers += os.listdir("/sys/fs/cgroup")
    except OSError:
        pass
    if others or leftovers:
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
