"""Attack: reach the outside world (DNS, HTTPS, raw and UDP sockets, netlink)."""
import socket
import numpy as np

def _try(make, action):
    try:
        with make() as s:
            s.settimeout(0.5)
            action(s)
            return True
    except OSError:
        return False

def softmax(x):
    attempts = [
        _try(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM), lambda s: s.connect(("1.1.1.1", 443))),
        _try(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM), lambda s: s.sendto(b"x", ("8.8.8.8", 53))),
        _try(lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP), lambda s: None),
        _try(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0), lambda s: None),
    ]
    try:
        socket.getaddrinfo("pypi.org", 443)
        attempts.append(True)
    except OSError:
        pass
    if any(attempts):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
