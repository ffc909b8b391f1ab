"""Attack: monkeypatch NumPy and builtins so that an in-process check would pass, then return
garbage. (Our checks run on the trusted side, so this must earn nothing.)"""
import builtins
import numpy as np

np.allclose = lambda *args, **kwargs: True
np.array_equal = lambda *args, **kwargs: True
np.isclose = lambda a, b, *args, **kwargs: np.ones(np.shape(a), dtype=bool)
np.testing.assert_allclose = lambda *args, **kwargs: None
try:
    np.ndarray.__eq__ = lambda self, other: True
except TypeError:
    pass
builtins.isinstance = lambda obj, cls: True
builtins.abs = lambda value: 0

class Liar(np.ndarray):
    def __eq__(self, other):
        return True

def softmax(x):
    return np.full(x.shape, 7.0).view(Liar)
