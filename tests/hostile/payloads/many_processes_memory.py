"""Attack: five processes, each under the per-process limit, together far above it.
Earns the answer only if all five children of this call held their memory at the same time (each
says so with a file in /tmp: a job has no pipes). The files are named for the call: /tmp lives as
long as the job, so a file left by a child of an earlier call (whose memory may be gone) must not
count (it did: on a loaded machine two earlier survivors and three of this call's made five)."""
import os
import time
import numpy as np

def softmax(x):
    tag = f"holding-{time.monotonic_ns()}-"
    for n in range(5):
        if os.fork() == 0:
            block = np.ones(200 << 20, dtype=np.uint8)  # touched: really resident
            open(f"/tmp/{tag}{n}", "w").close()
            time.sleep(3)
            os._exit(int(block[0]))
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        if len([name for name in os.listdir("/tmp") if name.startswith(tag)]) == 5:
            e = np.exp(x - x.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
        time.sleep(0.01)
    return np.zeros_like(x)
