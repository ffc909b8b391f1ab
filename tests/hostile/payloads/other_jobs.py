"""Attack: look for other jobs: foreign processes (anything but PID 1 and itself), files other jobs
left in /tmp or the working directory, other slots' cgroups."""
import os
import numpy as np

def softmax(x):
    mine = {1, os.getpid()}
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in mine]
    leftovers = os.listdir("/tmp") + os.listdir(os.getcwd())
    try:
        leftovers += os.listdir("/sys/fs/cgroup")
    except OSError:
        pass
    if others or leftovers:
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
