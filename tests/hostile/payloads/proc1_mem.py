"""Attack: open /proc/1/mem (the server every job is forked from) to read or patch it."""
import os
import numpy as np

def softmax(x):
    opened = 0
    for path in ("/proc/1/mem", f"/proc/{os.getppid()}/mem", "/proc/1/environ", "/proc/1/root/etc/shadow"):
        for flags in (os.O_RDWR, os.O_RDONLY):
            try:
                fd = os.open(path, flags)
                os.close(fd)
                opened += 1
            except OSError:
                pass
    if opened:
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
