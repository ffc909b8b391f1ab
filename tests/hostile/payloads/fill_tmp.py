"""Attack: fill /tmp (and the working directory). Earns the answer only if it wrote more than the
16 MiB /tmp allowance."""
import os
import numpy as np

def softmax(x):
    written = 0
    chunk = b"\0" * (1 << 20)
    for index in range(64):
        for directory in ("/tmp", os.getcwd(), "/dev/shm", "/var/tmp"):
            try:
                with open(os.path.join(directory, f"fill-{index}.bin"), "wb") as handle:
                    for _ in range(16):
                        handle.write(chunk)
                        written += len(chunk)
            except OSError:
                pass
    if written > (48 << 20):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
