"""Attack: read /etc/shadow and /etc/passwd-style secrets of the host."""
import numpy as np

def softmax(x):
    for path in ("/etc/shadow", "/etc/gshadow", "/root/.ssh/id_rsa", "/root/.bash_history"):
        try:
            with open(path, "rb") as handle:
                if handle.read(1):
                    e = np.exp(x - x.max(axis=-1, keepdims=True))
                    return e / e.sum(axis=-1, keepdims=True)
        except OSError:
            pass
    return np.zeros_like(x)
