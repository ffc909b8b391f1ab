"""Attack: stash data for a later job in System V shared memory / message queues / POSIX
semaphores, objects that would outlive the job's processes."""
import ctypes
import numpy as np

IPC_CREAT = 0o1000

def softmax(x):
    libc = ctypes.CDLL(None, use_errno=True)
    created = [libc.shmget(0x5EED, 4096, IPC_CREAT | 0o666), libc.msgget(0x5EED, IPC_CREAT | 0o666),
               libc.semget(0x5EED, 1, IPC_CREAT | 0o666)]
    try:
        import multiprocessing.synchronize
        multiprocessing.synchronize.Lock(ctx=None)
        created.append(0)
    except Exception:
        pass
    if any(result >= 0 for result in created):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
