"""Attack: allocate far more memory than the limit, in one go and then in a growing list."""
import numpy as np

def softmax(x):
    hoard = []
    try:
        hoard.append(np.ones(8 << 30, dtype=np.uint8))
    except MemoryError:
        pass
    while True:
        hoard.append(np.ones(64 << 20, dtype=np.uint8))
