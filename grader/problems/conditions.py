"""Hidden inputs that meet, on every draw, the condition their test case is named after.

Hidden inputs are drawn per submission from a seed. A case named after a condition ("rows at very
different offsets", "Lq != Lk", "a mask that blocks some keys in every row", "one dominant entry")
must have that condition on every draw, or two learners with the same code get different scores.
So the inputs are *constructed* to have it (never drawn and hoped for), and the case builders call
:func:`require` with the condition, so an edit that breaks it fails loudly when the case is built,
before any learner code runs (:class:`CaseConditionError`, a bug in the problem definition).

The constructors below give the guarantees the problems share: bounded draws, well separated
values, permutations that move every position, boolean masks whose every row (and column) both
allows and blocks, and the exp limits a stability case must reach.
"""
from __future__ import annotations

import numpy as np

#: np.exp overflows to inf above these (log of the largest finite number of the dtype).
EXP_OVERFLOW = {np.dtype(np.float64): 709.79, np.dtype(np.float32): 88.73}
#: np.exp underflows to exactly 0 below minus these (half the smallest subnormal).
EXP_UNDERFLOW = {np.dtype(np.float64): 745.14, np.dtype(np.float32): 103.98}
#: The width of the range of arguments whose exp is finite and non-zero in float64: inputs whose
#: slices (rows) have maxima spread wider than this cannot all be brought into range by
#: subtracting one number (one global maximum, say).
EXP_RANGE_FLOAT64 = EXP_OVERFLOW[np.dtype(np.float64)] + EXP_UNDERFLOW[np.dtype(np.float64)]


class CaseConditionError(AssertionError):
    """A hidden case's inputs lack the condition the case is named after (a problem-definition
    bug, never a learner's fault)."""


def require(ok: bool, condition: str) -> None:
    """Raise :class:`CaseConditionError` naming ``condition`` unless ``ok`` (the case drawing it
    adds its own name, :func:`grader.problems.draws.draw_inputs`)."""
    if not ok:
        raise CaseConditionError(f"its inputs must guarantee {condition}")


def bounded(rng: np.random.Generator, *shape: int, limit: float = 3.0,
            dtype=np.float64) -> np.ndarray:
    """Standard normal draws clipped to [-limit, limit], of ``shape``: O(1) values whose exp,
    products and sums stay far from every floating-point limit."""
    return np.clip(rng.standard_normal(shape), -limit, limit).astype(dtype)


def float32_exact(x) -> np.ndarray:
    """``x`` rounded to multiples of 1/256, which float32 holds exactly for |x| < 32768: entries in
    the thousands then lose nothing when correct code casts them to float32, so such code is
    judged on its arithmetic, never on the rounding of its inputs (a float32 spacing of 2.4e-4 at
    3000 would move a weight by more than the tolerance on some draws)."""
    return np.round(np.asarray(x, dtype=np.float64) * 256.0) / 256.0


def exact_in_float32(x) -> bool:
    """True when every entry of ``x`` is a float32 number."""
    x = np.asarray(x, dtype=np.float64)
    return bool((x.astype(np.float32).astype(np.float64) == x).all())


def away_from_zero(rng: np.random.Generator, *shape: int, low: float = 0.5, high: float = 1.5,
                   dtype=np.float64) -> np.ndarray:
    """Values of random sign with magnitude uniform in [low, high] (``low`` > 0), of ``shape``."""
    magnitude = rng.uniform(low, high, shape)
    return (magnitude * rng.choice([-1.0, 1.0], shape)).astype(dtype)


def spaced(rng: np.random.Generator, n: int, low: float, high: float,
           min_gap: float, size: tuple[int, ...] = ()) -> np.ndarray:
    """``n`` values in [low, high] in random order, every two at least ``min_gap`` apart: an even
    grid over [low, high] with a jitter smaller than half the room left; ``size`` such rows at
    once, (*size, n), each drawn and ordered on its own. ValueError when ``min_gap`` does not
    fit."""
    if n == 1:
        return rng.uniform(low, high, (*size, 1))
    step = (high - low) / (n - 1)
    if step < min_gap:
        raise ValueError(f"{n} values {min_gap} apart do not fit in [{low}, {high}]")
    room = (step - min_gap) / 2
    grid = np.broadcast_to(np.linspace(low, high, n), (*size, n)).copy()
    grid[..., 1:-1] += rng.uniform(-room, room, (*size, n - 2))
    return rng.permuted(grid, axis=-1)


def min_gap(values) -> float:
    """The smallest distance between two of ``values`` (inf for fewer than two)."""
    v = np.sort(np.ravel(np.asarray(values, dtype=np.float64)))
    return float(np.diff(v).min()) if v.size > 1 else float("inf")


def derangement(rng: np.random.Generator, n: int) -> np.ndarray:
    """A random permutation of range(n) (n >= 2) that moves every position: a random n-cycle
    (conjugate of the shift by one), so ``x[p]`` differs from ``x`` in every place."""
    if n < 2:
        raise ValueError("a permutation of fewer than 2 positions cannot move any")
    order = rng.permutation(n)
    p = np.empty(n, dtype=np.int64)
    p[order] = np.roll(order, -1)
    return p


def moves_every_position(p) -> bool:
    """True when the permutation ``p`` has no fixed point."""
    p = np.asarray(p)
    return bool(p.size >= 2 and not (p == np.arange(p.size)).any())


def mixed_mask(rng: np.random.Generator, shape: tuple[int, ...],
               columns: bool = True) -> np.ndarray:
    """A random boolean mask of ``shape`` (..., R, C), R >= 2, C >= 3: in every (R, C) slice,
    every row allows at least one key and blocks at least one, the numbers of allowed keys per
    row run through 1 .. C-1 (so one-key rows and rows with several allowed and several blocked
    keys both occur once R >= C - 1), and with ``columns`` every column, too, is allowed by some
    row and blocked by another (so no key is blocked for every query)."""
    *batch, R, C = shape
    if R < 2 or C < 3:
        raise ValueError(f"mixed_mask needs at least 2 rows and 3 columns, got {shape}")
    out = np.zeros(shape, dtype=bool)
    for index in np.ndindex(*batch):
        counts = rng.permutation(np.resize(np.arange(1, C), R))
        slice_ = np.zeros((R, C), dtype=bool)
        for row, count in enumerate(counts):
            slice_[row, rng.permutation(C)[:count]] = True
        if columns:
            _mix_columns(rng, slice_)
        out[index] = slice_
    require(rows_mixed(out), "every row allows and blocks at least one key")
    if columns:
        require(columns_mixed(out), "every column is allowed and blocked somewhere")
    return out


def _mix_columns(rng: np.random.Generator, mask: np.ndarray) -> None:
    """Give every all-blocked column one allowed entry (in a row with two or more blocked keys)
    and every all-allowed column one blocked entry (in a row with two or more allowed keys):
    each row stays mixed."""
    for column in rng.permutation(mask.shape[1]):
        if mask[:, column].any() and not mask[:, column].all():
            continue
        value = not mask[:, column].any()
        rows = [r for r in rng.permutation(mask.shape[0]) if (mask[r] != value).sum() >= 2]
        if not rows:
            raise ValueError(f"cannot mix column {column} of a {mask.shape} mask")
        mask[rows[0], column] = value


def rows_mixed(mask, shape: tuple[int, ...] | None = None, skip=None) -> bool:
    """True when every row (last axis) of ``mask``, broadcast to ``shape``, has at least one True
    and one False; rows where ``skip`` (boolean, shape[:-1]) is True are not looked at."""
    m = np.asarray(mask, dtype=bool)
    if shape is not None:
        m = np.broadcast_to(m, shape)
    mixed = m.any(axis=-1) & ~m.all(axis=-1)
    if skip is not None:
        mixed = mixed | np.asarray(skip, dtype=bool)
    return bool(mixed.all())


def columns_mixed(mask) -> bool:
    """True when every column (second-to-last axis) of ``mask`` has at least one True and one
    False."""
    m = np.asarray(mask, dtype=bool)
    return bool((m.any(axis=-2) & ~m.all(axis=-2)).all())


def overflows_exp(x) -> bool:
    """True when a naive ``np.exp(x)`` overflows in float64 (and therefore in float32 too)."""
    return bool(np.max(np.asarray(x, dtype=np.float64)) > EXP_OVERFLOW[np.dtype(np.float64)])


def maxima_spread(x, axis: int = -1) -> float:
    """How far apart the maxima of the slices of ``x`` along ``axis`` are (max minus min)."""
    peaks = np.max(np.asarray(x, dtype=np.float64), axis=axis)
    return float(peaks.max() - peaks.min())


def row_gaps(x, axis: int = -1) -> np.ndarray:
    """Per slice along ``axis``: the largest entry minus the second largest."""
    top2 = -np.sort(-np.asarray(x, dtype=np.float64), axis=axis)
    top2 = np.moveaxis(top2, axis, -1)
    return top2[..., 0] - top2[..., 1]


#: exp(x) is subnormal (imprecise) below minus these: a slice whose every entry is there is
#: neither cleanly finite nor cleanly zero.
_EXP_NORMAL = {np.dtype(np.float64): 708.39, np.dtype(np.float32): 87.33}
_CLEAR = 10.0  # how far from each limit a slice's maximum must stay to count as clear


def naive_exp_outcomes(x, axis: int = -1, dtype=np.float64) -> np.ndarray:
    """What ``exp(x) / exp(x).sum(axis)`` does to each slice of ``x`` along ``axis`` when computed
    in ``dtype``: ``"overflow"`` (an entry is inf, the slice turns NaN), ``"underflow"`` (every
    entry is 0, 0/0 is NaN), ``"finite"`` (computed correctly), or ``"unclear"`` when the slice's
    maximum lies within 10 of a limit (subnormal results, a sum that may overflow), where the
    outcome would depend on rounding. Subtracting one global maximum first is
    ``naive_exp_outcomes(x - x.max())``."""
    dtype = np.dtype(dtype)
    x = np.asarray(x, dtype=np.float64)
    peaks = np.max(x, axis=axis)
    n = x.shape[axis]
    over, under, normal = EXP_OVERFLOW[dtype], EXP_UNDERFLOW[dtype], _EXP_NORMAL[dtype]
    out = np.full(peaks.shape, "unclear", dtype=object)
    out[peaks > over + _CLEAR] = "overflow"
    out[peaks < -under - _CLEAR] = "underflow"
    out[(peaks > -normal + _CLEAR) & (peaks < over - _CLEAR - np.log(n))] = "finite"
    return out


def exp_outcomes_clear(x, axis: int = -1, dtypes=(np.float64,)) -> bool:
    """True when a naive exp and a softmax with one global maximum subtracted have a clear
    outcome (:func:`naive_exp_outcomes`, no ``"unclear"`` slice) in every dtype of ``dtypes``."""
    x = np.asarray(x, dtype=np.float64)
    return all("unclear" not in naive_exp_outcomes(shifted, axis, dtype)
               for dtype in dtypes for shifted in (x, x - x.max()))


def orthonormal_rows(rng: np.random.Generator, n: int, d: int,
                     batch: tuple[int, ...] = ()) -> np.ndarray:
    """(*batch, n, d) with orthonormal rows (n <= d) in every (n, d) slice, uniformly oriented
    (QR of Gaussian matrices, all slices at once)."""
    if n > d:
        raise ValueError(f"{n} orthonormal rows do not fit in {d} dimensions")
    q, r = np.linalg.qr(rng.standard_normal((*batch, d, d)))
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]
    return (q * signs)[..., :n, :]


def revealing(rng: np.random.Generator, *shape: int, dtype=np.float64) -> np.ndarray:
    """A random-looking (..., n, m) matrix, m >= n, whose singular values are all at least 1:
    ``[I_n | R] @ O`` with R bounded and O a random rotation. For attention values V (rows =
    keys) this means ``|delta @ V| >= |delta|`` for every change ``delta`` of a weight row: any
    wrong weights show in the output at least as much as in the weights themselves."""
    *batch, n, m = shape
    if m < n:
        raise ValueError(f"a revealing matrix needs at least as many columns as rows, got {shape}")
    identity = np.broadcast_to(np.eye(n), (*batch, n, n))
    block = np.concatenate([identity, bounded(rng, *batch, n, m - n, limit=1.5)], axis=-1)
    return (block @ orthonormal_rows(rng, m, m, tuple(batch))).astype(dtype)


def smallest_singular_value(matrix) -> float:
    """The smallest singular value over the (n, m) slices of ``matrix``."""
    return float(np.linalg.svd(np.asarray(matrix, dtype=np.float64), compute_uv=False).min())
