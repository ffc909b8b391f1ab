"""Attack: connect to PostgreSQL on 127.0.0.1:5432 or its Unix socket."""
import socket
import numpy as np

def _connects(family, address):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            s.connect(address)
            return True
    except OSError:
        return False

def softmax(x):
    if _connects(socket.AF_INET, ("127.0.0.1", 5432)) or _connects(socket.AF_UNIX, "/run/postgresql/.s.PGSQL.5432"):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
