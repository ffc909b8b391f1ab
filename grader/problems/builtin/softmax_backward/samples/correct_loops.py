import numpy as np


def softmax_backward(y, dy, axis=-1):
    y_m = np.moveaxis(np.asarray(y, dtype=float), axis, -1)
    dy_m = np.moveaxis(np.asarray(dy, dtype=float), axis, -1)
    dx = np.empty_like(y_m)
    for index in np.ndindex(*y_m.shape[:-1]):
        row, grad = y_m[index], dy_m[index]
        s = sum(float(a) * float(b) for a, b in zip(row, grad))
        dx[index] = [a * (b - s) for a, b in zip(row, grad)]
    return np.moveaxis(dx, -1, axis)
