"""Attack: five processes, each under the per-process limit, together far above it.
Earns the answer only if all five children held their memory at the same time."""
import os
import time
import numpy as np

def softmax(x):
    read_end, write_end = os.pipe()
    children = []
    for _ in range(5):
        pid = os.fork()
        if pid == 0:
            block = np.ones(200 << 20, dtype=np.uint8)  # touched: really resident
            os.write(write_end, b"1")
            time.sleep(3)
            os._exit(int(block[0]))
        children.append(pid)
    os.close(write_end)
    got = b""
    deadline = time.monotonic() + 1.5
    while len(got) < 5 and time.monotonic() < deadline:
        chunk = os.read(read_end, 5)
        if not chunk:
            break
        got += chunk
    if len(got) == 5:
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
