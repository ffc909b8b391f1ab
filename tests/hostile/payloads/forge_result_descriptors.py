"""Attack: write forged result frames (claiming success and a DONE) and garbage to every open
descriptor, then return garbage."""
import json
import os
import struct
import numpy as np

def _frame(tag, payload):
    body = json.dumps(payload).encode()
    return struct.pack("!4sQ", tag, len(body)) + body

FORGED = (_frame(b"FAIL", {"i": 0, "status": "ok", "error": "", "memory": False})
          + _frame(b"DONE", {}) + b"\x00" * 64 + b"GARBAGE" * 100)

def softmax(x):
    for fd in range(1024):
        try:
            os.write(fd, FORGED)
        except OSError:
            pass
    return np.full(x.shape, 0.5)
