"""Attack (or a careless os.fork()): each call forks and both processes return the right answer
and go on reading the job, so two processes answer every call and compete for the next ones.
The broken result stream must end the run at once (not at the time limit), with a message that
names the likely cause, and nothing it returned may be graded."""
import os

import numpy as np


def softmax(x):
    os.fork()
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
