"""Attack: talk to Redis on 127.0.0.1:6379 (TCP) and through its usual Unix socket paths."""
import socket
import numpy as np

def _pong(family, address):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            s.connect(address)
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False

def softmax(x):
    targets = [(socket.AF_INET, ("127.0.0.1", 6379)), (socket.AF_INET6, ("::1", 6379)),
               (socket.AF_UNIX, "/run/redis/redis-server.sock"), (socket.AF_UNIX, "/var/run/redis/redis.sock")]
    if any(_pong(family, address) for family, address in targets):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
