"""Attack: five processes, each under the per-process limit, together far above it.
Earns the answer only if all five children held their memory at the same time."""
import os
import select
import time
import numpy as np

def softmax(x):
    read_end, write_end = os.pipe()
    for _ in range(5):
        if os.fork() == 0:
            block = np.ones(200 << 20, dtype=np.uint8)  # touched: really resident
            os.write(write_end, b"1")
            time.sleep(3)
            os._exit(int(block[0]))
    os.close(write_end)
    got = b""
    deadline = time.monotonic() + 1.0
    while len(got) < 5 and time.monotonic() < deadline:
        ready, _, _ = select.select([read_end], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(read_end, 5)
        if not chunk:
            break
        got += chunk
    if len(got) == 5:
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
