"""The cases of ``scaled_dot_product_attention(Q, K, V, mask=None)``, each with the constructor
that draws it.

What isolates the categories: value checks outside ``scaling`` use d_k = 1 (where 1/sqrt(d_k) =
1/d_k = sqrt(d_k) = 1) or scale-free properties, so a scaling mistake costs the scaling points only
(scaling cases use d_k that are not perfect squares, so an integer square root is caught; one
scaling case has a mask, which catches code that scales only when no mask is given; one stability
case has a mask, which catches code that subtracts the maximum only without one; a masking
mistake costs those two cases too); ``shapes`` judges shapes only. Every draw has the condition
its case is named after (asserted when it is drawn; grader/problems/conditions.py): scaling cases
have Lq != Lk, d_v != d_k and scores spread so that every wrong scale changes every row; values V
reveal the weights (singular values >= 1); masks block and allow keys in every row; stability
logits overflow a naive exp.
"""
from __future__ import annotations

import math

import numpy as np

from grader.problems import conditions, reference
from grader.problems.conditions import require
from grader.problems.base import Rule
from grader.problems.rules import crashes_only_with
from grader.problems.spec import Inputs, draw, example, hidden, inputs


def call(Q, K, V, mask=None) -> tuple[tuple, dict]:
    """The call ``f(Q, K, V)`` or ``f(Q, K, V, mask)``."""
    return ((Q, K, V) if mask is None else (Q, K, V, mask)), {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``batched`` (a leading axis) or ``unbatched`` (Q is (Lq, d_k)), ``heads`` (two),
    ``cross`` (Lq != Lk), ``masked``."""
    Q, K = args[0], args[1]
    mask = args[3] if len(args) > 3 else None
    found = set()
    found.add("batched" if Q.ndim > 2 else "unbatched")
    if Q.ndim > 3:
        found.add("heads")
    if Q.shape[-2] != K.shape[-2]:
        found.add("cross")
    if mask is not None:
        found.add("masked")
    return frozenset(found)


def rows(args: tuple, kwargs: dict) -> np.ndarray | None:
    """The checked query rows (..., Lq): those whose mask allows some key (None: no mask)."""
    Q, K = np.asarray(args[0]), np.asarray(args[1])
    mask = args[3] if len(args) > 3 else None
    if mask is None:
        return None
    scores = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2]) + (Q.shape[-2], K.shape[-2])
    return reference.attended_rows(mask, np.broadcast_shapes(scores, np.shape(mask)))


def named_shapes(name: str, args: tuple, kwargs: dict) -> None:
    """The shape conditions a case's name states hold: "Lq != Lk" and "cross-attention",
    "d_v != d_k", "odd d_k", "not a perfect square", "no batch axis", "heads axis"."""
    Q, K, V = args[:3]
    d_k = Q.shape[-1]
    for phrase, holds in (("Lq != Lk", Q.shape[-2] != K.shape[-2]),
                          ("cross-attention", Q.shape[-2] != K.shape[-2]),
                          ("d_v != d_k", V.shape[-1] != d_k),
                          ("odd d_k", d_k % 2 == 1),
                          ("not a perfect square", math.isqrt(d_k) ** 2 != d_k),
                          ("no batch axis", Q.ndim == 2),
                          ("heads axis", Q.ndim >= 4)):
        if phrase in name:
            require(holds, phrase)


def _n(rng, *shape, dtype=np.float64):
    """Bounded standard normal draws (see :func:`grader.problems.conditions.bounded`)."""
    return conditions.bounded(rng, *shape, dtype=dtype)


#: Scales of the scores that are common mistakes (attention-bugs.md entries 1, 2, 4, d_v for d_k,
#: an integer square root of d_k, and the query length Lq for d_k, as ``Q.shape[-2]`` or, with one
#: batch axis, ``Q.shape[1]``), as functions of (d_k, d_v, Lq); a scaling case must tell each from
#: 1/sqrt(d_k) in every row, so its d_k is not a perfect square.
WRONG_SCALES = {"1/d_k": lambda d_k, d_v, Lq: 1.0 / d_k, "1": lambda d_k, d_v, Lq: 1.0,
                "sqrt(d_k)": lambda d_k, d_v, Lq: float(np.sqrt(d_k)),
                "1/sqrt(d_v)": lambda d_k, d_v, Lq: 1.0 / np.sqrt(d_v),
                "1/isqrt(d_k)": lambda d_k, d_v, Lq: 1.0 / math.isqrt(d_k),
                "1/round(sqrt(d_k))": lambda d_k, d_v, Lq: 1.0 / round(np.sqrt(d_k)),
                "1/sqrt(Lq)": lambda d_k, d_v, Lq: 1.0 / np.sqrt(Lq)}


def require_distinct_scales(d_k: int, d_v: int, Lq: int) -> None:
    """1/sqrt(d_k) and the scales of :data:`WRONG_SCALES` are pairwise at least 5% apart for these
    sizes, so a scale diagnosis on this case names one mistake (e.g. Lq != d_v, d_v is not the
    square of isqrt(d_k)); the two integer square roots are one mistake and may coincide."""
    scales = {"1/sqrt(d_k)": 1.0 / np.sqrt(d_k)} | {
        what: f(d_k, d_v, Lq) for what, f in WRONG_SCALES.items()}
    integer = {"1/isqrt(d_k)", "1/round(sqrt(d_k))"}
    ratios = [max(a, b) / min(a, b) for i, (x, a) in enumerate(scales.items())
              for y, b in list(scales.items())[i + 1:] if not {x, y} <= integer]
    require(min(ratios) >= 1.05, "sizes whose wrong scales all differ")


def require_scale_matters(Q, K, V, mask=None) -> None:
    """Each wrong scale of :data:`WRONG_SCALES` moves some weight of every row by at least 0.01
    (1000 times the tolerance), under ``mask`` when one is given. (All the scales' weights are
    computed at once: one softmax over a leading axis of scales.)"""
    d_k, d_v, Lq = Q.shape[-1], V.shape[-1], Q.shape[-2]
    require_distinct_scales(d_k, d_v, Lq)
    scales = np.array([1.0 / np.sqrt(d_k)] + [f(d_k, d_v, Lq) for f in WRONG_SCALES.values()])
    product = np.asarray(Q, np.float64) @ np.swapaxes(np.asarray(K, np.float64), -1, -2)
    scores = scales.reshape((-1,) + (1,) * product.ndim) * product
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = reference.softmax(scores, axis=-1)
    for index, what in enumerate(WRONG_SCALES, start=1):
        require(np.abs(weights[index] - weights[0]).max(axis=-1).min() >= 0.01,
                f"weights that change in every row with the scale {what}")


def smallest_scale(Q, V) -> float:
    """The smallest scale of the scores among 1/sqrt(d_k) and :data:`WRONG_SCALES`."""
    d_k, d_v, Lq = Q.shape[-1], V.shape[-1], Q.shape[-2]
    return min([1.0 / np.sqrt(d_k)] + [f(d_k, d_v, Lq) for f in WRONG_SCALES.values()])


def scaled_logits(rng, batch: tuple[int, ...], Lq: int, Lk: int, d_k: int):
    """Q (*batch, Lq, d_k) and K (*batch, Lk, d_k), Lk <= d_k, whose scaled scores
    Q K^T / sqrt(d_k) are, in every row, Lk values spread over exactly [-2, 2] at least 0.5 apart
    (random order): the weights are neither flat nor one-hot, so every wrong scale moves them a
    lot. K = sqrt(d_k) times orthonormal rows; Q = Z K / sqrt(d_k) plus a random part orthogonal to
    the keys, which changes no score."""
    keys = conditions.orthonormal_rows(rng, Lk, d_k, tuple(batch))
    Z = conditions.spaced(rng, Lk, -2.0, 2.0, 0.5, (*batch, Lq))
    noise = _n(rng, *batch, Lq, d_k)
    Q = Z @ keys + noise - noise @ np.swapaxes(keys, -1, -2) @ keys
    return Q, np.sqrt(d_k) * keys


def unit_logits(rng, batch: tuple[int, ...], Lq: int, Lk: int, dtype=np.float64):
    """Q (*batch, Lq, 1) and K (*batch, Lk, 1) (d_k = 1, so every scale of sqrt(d_k) or d_k is 1):
    |q| in [0.5, 1.5] and the keys of each example spread over [-1.5, 1.5], at least
    3 / (2 (Lk - 1)) apart, so every row's scores span at least 1.5 and every weight is at least
    e^-4.5 / Lk: a blocked key carries real weight when it is not blocked."""
    Q = conditions.away_from_zero(rng, *batch, Lq, 1)
    K = conditions.spaced(rng, Lk, -1.5, 1.5, 1.5 / (Lk - 1), tuple(batch))[..., None]
    return Q.astype(dtype), K.astype(dtype)


def revealing_values(rng, batch: tuple[int, ...], Lk: int, d_v: int, dtype=np.float64):
    """V (*batch, Lk, d_v), d_v >= Lk, with singular values >= 1, so wrong weights always show in
    the output (:func:`grader.problems.conditions.revealing`)."""
    return conditions.revealing(rng, *batch, Lk, d_v, dtype=dtype)


def identity_values(batch: tuple[int, ...], Lk: int) -> np.ndarray:
    """V = the identity (*batch, Lk, Lk): the output then IS the weight matrix."""
    return np.broadcast_to(np.eye(Lk), (*batch, Lk, Lk)).copy()


def require_cross(Q, K) -> None:
    require(Q.shape[-2] != K.shape[-2], "Lq != Lk")


def require_masks_some_keys(Q, K, mask, fully_blocked=None, open_rows=None) -> None:
    """Every query row allows at least one key and blocks at least one, except the
    ``fully_blocked`` rows (boolean (..., Lq)), which must block every key and exist, and the
    ``open_rows``, which must allow every key (the last row of a causal mask)."""
    shape = np.broadcast_shapes(Q.shape[:-1] + (K.shape[-2],), np.shape(mask))
    full = np.broadcast_to(np.asarray(mask, bool), shape)
    skip = np.zeros(shape[:-1], dtype=bool)
    for picked, actual, what in ((fully_blocked, ~full.any(axis=-1), "block every key"),
                                 (open_rows, full.all(axis=-1), "allow every key")):
        if picked is not None:
            picked = np.broadcast_to(picked, shape[:-1])
            require(bool(picked.any() and np.array_equal(picked, actual)),
                    f"rows that {what} exactly where intended")
            skip |= picked
    require(conditions.rows_mixed(full, skip=skip),
            "a mask that blocks at least one key and allows at least one in every row")


def normal_inputs(rng, shapes) -> Inputs:
    """Q, K, V of the three ``shapes``, bounded standard normal entries."""
    return inputs(call(*(_n(rng, *shape) for shape in shapes)))


def scaling(rng, batch, Lq, Lk, d_k, d_v) -> Inputs:
    """Logits of :func:`scaled_logits`, revealing values, Lq != Lk, every wrong scale changing
    every row."""
    Q, K = scaled_logits(rng, batch, Lq, Lk, d_k)
    V = revealing_values(rng, batch, Lk, d_v)
    require_cross(Q, K)
    require_scale_matters(Q, K, V)
    return inputs(call(Q, K, V))


def scaled_mask(rng, shape) -> np.ndarray:
    """A boolean mask (..., R, C), C >= 3, in which every row allows at least two keys (so the
    scale of its scores matters) and blocks at least one."""
    *batch, R, C = shape
    out = np.zeros(shape, dtype=bool)
    for index in np.ndindex(*batch, R):
        out[index][rng.permutation(C)[:int(rng.integers(2, C))]] = True
    require(bool((out.sum(-1) >= 2).all() and (~out).any(-1).all()),
            "at least two allowed and one blocked key in every row")
    return out


def masked_scaling(rng, batch, Lq, Lk, d_k, d_v) -> Inputs:
    """A scaling case with a mask: code that scales the scores only when no mask is given fails
    it (and every other scaling case passes). A masking mistake fails it too: the one case
    outside ``masking`` that a masking mistake costs (traits ``scaled-mask``, ``mask-elsewhere``;
    see the samples' expectations)."""
    Q, K = scaled_logits(rng, batch, Lq, Lk, d_k)
    V = revealing_values(rng, batch, Lk, d_v)
    mask = scaled_mask(rng, (*batch, Lq, Lk))
    require_cross(Q, K)
    require_masks_some_keys(Q, K, mask)
    require_scale_matters(Q, K, V, mask)
    return inputs(call(Q, K, V, mask), traits={"scaled-mask", "mask-elsewhere"})


def key_axis(rng, batch, Lq, Lk) -> Inputs:
    """Softmax axis: V = identity makes the output equal to the weights, whatever is returned;
    Lq != Lk and a batch axis make every wrong axis change the sums of the rows."""
    Q, K = unit_logits(rng, batch, Lq, Lk)
    require_cross(Q, K)
    return inputs(call(Q, K, identity_values(batch, Lk)))


def identical_keys(rng, batch=(2,)) -> Inputs:
    """Identical keys give uniform weights: the output is the mean of the values (``batch``:
    the leading axes, () for none). Degenerate: uniform weights that ignore the inputs pass it,
    so it unlocks no property points (:mod:`grader.problems.credit`, trait ``degenerate``)."""
    K = np.broadcast_to(_n(rng, *(1,) * len(batch), 1, 6), (*batch, 5, 6)).copy()
    return inputs(call(_n(rng, *batch, 4, 6), K, revealing_values(rng, tuple(batch), 5, 6)),
                  traits={"degenerate"})


def dominant_keys(rng, batch=(2,)):
    """K (*batch, 4, 8): keys of norm 2, orthogonal within each example; Q (*batch, 5, 8): each
    query is 48 times one of the keys, so its score on that key is 192 and 0 on the others: 24
    apart even when divided by d_k = 8 (the smallest of the common scales), i.e. one-hot to
    within e^-24."""
    K = 2.0 * conditions.orthonormal_rows(rng, 4, 8, tuple(batch))
    targets = rng.integers(0, 4, size=(*batch, 5))
    Q = 48.0 * np.take_along_axis(K, targets[..., None], axis=-2)
    gaps = conditions.row_gaps(Q @ np.swapaxes(K, -1, -2))
    require(gaps.min() / 8 >= 20, "one score per row at least 20 above the others at scale 1/d_k")
    return K, Q


def dominant_key(rng, batch=(2,)) -> Inputs:
    """A dominant key selects its value vector (:func:`dominant_keys`)."""
    K, Q = dominant_keys(rng, batch)
    return inputs(call(Q, K, revealing_values(rng, tuple(batch), 4, 5)))


def dominant_score(rng, batch=(2,)) -> Inputs:
    """One dominant score gives a one-hot weight row (:func:`dominant_keys`, 3 queries, V = I)."""
    K, Q = dominant_keys(rng, batch)
    return inputs(call(Q[..., :3, :], K, identity_values(tuple(batch), 4)))


def random_mask(rng, shape):
    """A random boolean mask in which every row and every column allow and block at least one
    key (:func:`grader.problems.conditions.mixed_mask`)."""
    return conditions.mixed_mask(rng, shape)


def padding_mask(rng, B, Lk):
    """(B, 1, 1, Lk) key-padding mask: the examples' lengths are 2, 3, ..., Lk - 1 (cycled to B
    examples) in random order, the rest is padding. So every example is padded and keeps at least
    two keys, and with B >= Lk - 2 both an example with one padded key and one with two or more
    (two or more real keys) occur on every draw."""
    lengths = rng.permutation(np.resize(np.arange(2, Lk), B))
    return (np.arange(Lk)[None, :] < lengths[:, None])[:, None, None, :]


def masking(rng, batch, Lq, Lk, d_v, mask) -> Inputs:
    """Unit logits (d_k = 1, so scaling mistakes do not interfere), revealing values and a mask:
    ``"causal"`` (L, L), ``"padding"`` (B, 1, 1, Lk), ``"fully_blocked"`` (random rows, one row
    per example blocking every key) or the shape of a random mask."""
    Q, K = unit_logits(rng, batch, Lq, Lk)
    V = revealing_values(rng, batch, Lk, d_v)
    fully, open_rows = None, None
    if mask == "causal":
        mask, open_rows = reference.causal_mask(Lq), np.arange(Lq) == Lq - 1
    elif mask == "padding":
        mask = padding_mask(rng, batch[0], Lk)
    elif mask == "fully_blocked":
        mask, fully = fully_blocked_mask(rng, batch[0], Lq, Lk)
    else:
        mask = random_mask(rng, mask)
    require_masks_some_keys(Q, K, mask, fully, open_rows)
    return inputs(call(Q, K, V, mask))


def fully_blocked_mask(rng, B, Lq, Lk):
    """A (B, Lq, Lk) mask with one row per example that blocks every key (at a random row), the
    other rows mixed; and the boolean (B, Lq) of those rows."""
    at = rng.integers(0, Lq, size=B)
    mask = np.stack([np.insert(m, row, False, axis=0)
                     for m, row in zip(random_mask(rng, (B, Lq - 1, Lk)), at)])
    fully = np.zeros((B, Lq), dtype=bool)
    fully[np.arange(B), at] = True
    return mask, fully


def stability_inputs(rng, high: tuple[float, float], low: tuple[float, float], dtype,
                     both_signs: bool = False):
    """Q (2, 4, 1), K (2, 5, 1) and V (2, 5, 3), d_k = 1, so the scores are q_i k_j.

    Each example has the keys +10 and -10 and three more with magnitudes spread over [2.5, 7] at
    least 2 apart and random signs (with ``both_signs``, the first positive and the second
    negative, so every query has a key of each sign besides +-10). Each example has two "high"
    queries, |q| in ``high`` (one of the four of the batch within 0.5 of its top, the others at
    least 3 below), and two "low" ones, |q| in ``low``, one of each sign per pair; a row that is
    high in one example is low in the other. Returns Q, K, V and the boolean (2, 4) high rows."""
    top = rng.uniform(high[1] - 0.5, high[1])
    high_q = rng.permutation(np.concatenate([[top], rng.uniform(high[0], top - 3.0, 3)]))
    high_q = high_q.reshape(2, 2)
    high_rows = rng.permutation(4)[:2]
    q = np.empty((2, 4, 1))
    k = np.empty((2, 5, 1))
    is_high = np.empty((2, 4), dtype=bool)
    for b in range(2):
        is_high[b] = np.isin(np.arange(4), high_rows) != bool(b)
        q[b, is_high[b], 0] = high_q[b] * rng.permutation([1.0, -1.0])
        q[b, ~is_high[b], 0] = rng.uniform(*low, 2) * rng.permutation([1.0, -1.0])
        signs = np.array([1.0, -1.0, rng.choice([-1.0, 1.0])]) if both_signs \
            else rng.choice([-1.0, 1.0], 3)
        others = conditions.spaced(rng, 3, 2.5, 7.0, 2.0) * signs
        k[b, :, 0] = rng.permutation(np.concatenate([[10.0, -10.0], others]))
    V = _n(rng, 2, 5, 3, dtype=dtype)
    return q.astype(dtype), k.astype(dtype), V, is_high


def stability(rng, high: tuple[float, float], low: tuple[float, float], dtype) -> Inputs:
    """Inputs of :func:`stability_inputs`. Guaranteed on every draw: a naive exp overflows (in
    float64, so in float32 too); the rows' maxima spread wider than twice exp's range for
    ``dtype``, the high rows lie well within that range of one another and the low rows far below
    them, so one global maximum keeps exactly the high rows; every row, every column (queries)
    and every position across the batch has one clear winner, so the weights are one-hot (within
    e^-15 after any common scale) along any axis a softmax may wrongly take, which also makes the
    result insensitive to float32 rounding of the scores."""
    Q, K, V, _ = stability_inputs(rng, high, low, dtype)
    logits = Q.astype(np.float64) @ np.swapaxes(K, -1, -2).astype(np.float64)
    dtypes = (np.float64,) if dtype == np.float64 else (np.float64, dtype)
    exp_range = conditions.EXP_OVERFLOW[np.dtype(dtype)] + conditions.EXP_UNDERFLOW[np.dtype(dtype)]
    smallest = smallest_scale(Q, V)
    require(conditions.overflows_exp(logits), "a naive exp that overflows")
    require(conditions.maxima_spread(logits) > 2 * exp_range,
            "row maxima spread wider than twice exp's range")
    require(conditions.exp_outcomes_clear(logits, -1, dtypes),
            "rows clearly in or out of exp's range")
    for axis, what in ((-1, "row"), (-2, "column"), (0, "batch position")):
        require(conditions.row_gaps(logits, axis).min() * smallest >= 15,
                f"one clear winner per {what} at every common scale")
    require(conditions.row_gaps(logits.reshape(-1), 0) * smallest >= 15,
            "one clear winner over the whole array")
    return inputs(call(Q, K, V))


def unbatched_stability(rng, high: tuple[float, float], low: tuple[float, float],
                        dtype) -> Inputs:
    """The first example of a :func:`stability` draw, without its batch axis: Q (4, 1), K (5, 1),
    V (5, 3), two high and two low rows. Guaranteed on every draw (checked again on the one
    example): a naive exp overflows, the rows' maxima spread wider than exp's range for
    ``dtype`` (one global maximum underflows the low rows), every row's fate under a naive exp
    is clear-cut, and every row and column has one clear winner at every common scale."""
    Q, K, V = (np.ascontiguousarray(a[0]) for a in stability(rng, high, low, dtype).calls[0][0])
    logits = Q.astype(np.float64) @ K.T.astype(np.float64)
    dtypes = (np.float64,) if dtype == np.float64 else (np.float64, dtype)
    exp_range = conditions.EXP_OVERFLOW[np.dtype(dtype)] + conditions.EXP_UNDERFLOW[np.dtype(dtype)]
    require(conditions.overflows_exp(logits), "a naive exp that overflows")
    require(conditions.maxima_spread(logits) > exp_range, "row maxima spread wider than exp's range")
    require(conditions.exp_outcomes_clear(logits, -1, dtypes),
            "rows clearly in or out of exp's range")
    for axis, what in ((-1, "row"), (-2, "column")):
        require(conditions.row_gaps(logits, axis).min() * smallest_scale(Q, V) >= 15,
                f"one clear winner per {what} at every common scale")
    return inputs(call(Q, K, V))


def unbatched_masked_stability(rng) -> Inputs:
    """The first example of a :func:`masked_stability` draw with its (4, 5) mask, without the
    batch axis: the high rows overflow a naive exp, one low row allows only scores far below
    0, every row blocks and allows keys (checked again on the one example)."""
    Q, K, V, mask = (np.ascontiguousarray(a[0]) for a in masked_stability(rng).calls[0][0])
    logits = np.where(mask, Q @ K.T, -np.inf)
    require(conditions.rows_mixed(mask),
            "a mask that blocks at least one key and allows at least one in every row")
    require(conditions.overflows_exp(logits), "a naive exp that overflows")
    require(bool((logits.max(axis=-1) < -15).any()), "a row whose allowed scores are all far below 0")
    require(conditions.row_gaps(logits).min() * smallest_scale(Q, V) >= 15,
            "one clear allowed winner per row at every common scale")
    return inputs(call(Q, K, V, mask), traits={"mask-elsewhere"})


def _stability_mask(rng, Q, K, is_high) -> np.ndarray:
    """The mask of :func:`masked_stability`: high rows allow their winner and block 1-3 other
    keys; low rows block their winner, and one low row per example allows only keys of the
    opposite sign."""
    mask = np.ones((2, 4, 5), dtype=bool)
    for b in range(2):
        negative_row = rng.choice(np.flatnonzero(~is_high[b]))
        for i in range(4):
            scores = Q[b, i, 0] * K[b, :, 0]
            others = np.delete(np.arange(5), int(np.argmax(scores)))
            if is_high[b, i]:  # block 1 to 3 of the four other keys
                mask[b, i, rng.permutation(others)[:int(rng.integers(1, 4))]] = False
                continue
            candidates = np.flatnonzero(scores < 0) if i == negative_row else others
            allowed = rng.permutation(candidates)[:int(rng.integers(1, candidates.size + 1))]
            mask[b, i] = np.isin(np.arange(5), allowed)
    return mask


def masked_stability(rng) -> Inputs:
    """Logits in the thousands under a (2, 4, 5) mask (:func:`stability_inputs` with keys of both
    signs, |q| in [540, 600] for the high rows and [20, 25] for the low ones, float64): code that
    subtracts the row maximum only when no mask is given overflows here. The high rows allow
    their winner (a score of at least 5400: a naive exp overflows) and block other keys; the low
    rows block their winner, at most 500 above what they allow (so masking after the softmax and
    renormalising stays exact, while every masking mistake moves the weight: the mask's second
    case outside ``masking``, trait ``mask-elsewhere``), and one low row per example allows only
    keys of the opposite sign (its allowed scores are all below -50, so filling blocked scores
    with 0 moves its weight). Guaranteed on every draw: every row blocks and allows keys, a
    naive exp overflows in the high rows and is finite in the low ones (clear of both limits),
    one global maximum underflows the low rows (0/0), and each row's allowed winner leads by at
    least 15 at every common scale."""
    Q, K, V, is_high = stability_inputs(rng, (540.0, 600.0), (20.0, 25.0), np.float64,
                                        both_signs=True)
    mask = _stability_mask(rng, Q, K, is_high)
    scores = Q @ np.swapaxes(K, -1, -2)
    logits = np.where(mask, scores, -np.inf)
    winner_allowed = np.take_along_axis(mask, np.argmax(scores, -1)[..., None], -1)[..., 0]
    require(conditions.rows_mixed(mask),
            "a mask that blocks at least one key and allows at least one in every row")
    require(bool(np.array_equal(winner_allowed, is_high)),
            "the winner allowed in the high rows and blocked in the low ones")
    require(bool((scores.max(-1) - logits.max(-1) <= 500).all()),
            "allowed maxima at most 500 below the rows' maxima")
    require(bool((logits.max(axis=-1) < -15).any(axis=-1).all()),
            "a row per example whose allowed scores are all far below 0")
    require(conditions.overflows_exp(logits), "a naive exp that overflows")
    naive = conditions.naive_exp_outcomes(logits)
    require("unclear" not in naive and "overflow" in naive, "rows clearly in or out of exp's range")
    require("underflow" in conditions.naive_exp_outcomes(logits - logits.max()),
            "rows that one global maximum underflows")
    require(conditions.row_gaps(logits).min() * smallest_scale(Q, V) >= 15,
            "one clear allowed winner per row at every common scale")
    require_masks_some_keys(Q, K, mask)
    return inputs(call(Q, K, V, mask), traits={"mask-elsewhere"})


def equivariance(rng) -> Inputs:
    """f(P Q, S K, S V) == P f(Q, K, V): permuting queries permutes the output rows, permuting the
    key/value pairs together changes nothing. Judged on the learner's own two outputs. P and S
    move every position (random cycles)."""
    Q, K, V = (_n(rng, 2, L, d) for L, d in ((5, 4), (6, 4), (6, 3)))
    p, s = conditions.derangement(rng, 5), conditions.derangement(rng, 6)
    require(conditions.moves_every_position(p) and conditions.moves_every_position(s),
            "permutations that move every position")
    require_cross(Q, K)
    return inputs(call(Q, K, V), call(Q[:, p], K[:, s], V[:, s]), perm=p)


def unbatched_equivariance(rng) -> Inputs:
    """:func:`equivariance` without a batch axis: Q (5, 4), K (6, 4), V (6, 3)."""
    Q, K, V = (_n(rng, L, d) for L, d in ((5, 4), (6, 4), (6, 3)))
    p, s = conditions.derangement(rng, 5), conditions.derangement(rng, 6)
    require(conditions.moves_every_position(p) and conditions.moves_every_position(s),
            "permutations that move every position")
    require_cross(Q, K)
    return inputs(call(Q, K, V), call(Q[p], K[s], V[s]), perm=p)


def length_one(rng, batch=(3,)) -> Inputs:
    """One query and one key: the single weight is 1, so the output is v_1 whatever the scale.
    |v| >= 0.5 per entry, so a weight other than 1 always shows. Degenerate: uniform weights
    that ignore the inputs pass it (trait ``degenerate``: it unlocks no property points)."""
    Q, K = _n(rng, *batch, 1, 4), _n(rng, *batch, 1, 4)
    return inputs(call(Q, K, conditions.away_from_zero(rng, *batch, 1, 2)), traits={"degenerate"})


def float32(rng, batch=(2,)) -> Inputs:
    """Unit logits and revealing values in float32."""
    Q, K = unit_logits(rng, tuple(batch), 3, 4, dtype=np.float32)
    V = revealing_values(rng, tuple(batch), 4, 5, dtype=np.float32)
    require(all(a.dtype == np.float32 for a in (Q, K, V)), "float32 arrays")
    return inputs(call(Q, K, V))


def unmodified(rng, batch=(2,)) -> Inputs:
    """Q, K, V bounded, under a causal mask (the inputs-not-modified test)."""
    Q, K, V = _n(rng, *batch, 5, 4), _n(rng, *batch, 5, 4), _n(rng, *batch, 5, 3)
    return inputs(call(Q, K, V, reference.causal_mask(5)))


def _examples() -> tuple:
    """Three fixed examples learners can run themselves (inputs rounded to one decimal). Every
    size of the scaled one differs from the others (and d_k is not a perfect square), so a scale
    taken from the wrong size is named as that size's mistake, never as another's."""
    rng = np.random.default_rng(20240601)
    r = lambda *s: np.round(rng.standard_normal(s), 1)  # noqa: E731
    scaled = (r(2, 5), r(3, 5), r(3, 6))
    masked = (r(3, 1), r(3, 1), r(3, 2), reference.causal_mask(3))
    batched = (r(2, 2, 1), r(2, 3, 1), r(2, 3, 4))
    require_scale_matters(*scaled)
    return (
        example("example: cross-attention, Lq=2, Lk=3, d_k=5, d_v=6, no mask", "scaling",
                call(*scaled), traits={"scaled"}),
        example("example: causal mask, L=3, d_k=1", "masking", call(*masked)),
        example("example: batch of 2, Lq=2, Lk=3, d_k=1, d_v=4", "softmax", call(*batched)),
    )


def _scaling(name, **sizes):
    return hidden(name, "scaling", draw(scaling, **sizes), traits={"scaled"})


def _masking(name, **params):
    return hidden(name, "masking", draw(masking, **params))


CASES = _examples() + (
    hidden("shapes: batch axis, Lq != Lk, d_v != d_k", "shapes",
           draw(normal_inputs, shapes=((3, 5, 6), (3, 7, 6), (3, 7, 4))), check="shapes"),
    hidden("shapes: batch and heads axes (B, H, Lq, Lk)", "shapes",
           draw(normal_inputs, shapes=((3, 4, 5, 6), (3, 4, 7, 6), (3, 4, 7, 2))),
           check="shapes"),
    hidden("shapes: no batch axis", "shapes",
           draw(normal_inputs, shapes=((5, 6), (7, 6), (7, 3))), check="shapes"),
    _scaling("scaling: batched cross-attention with a large d_k", batch=(2,), Lq=4, Lk=6, d_k=21,
             d_v=8),
    _scaling("scaling: heads axis with an odd d_k", batch=(2, 3), Lq=5, Lk=4, d_k=7, d_v=6),
    _scaling("scaling: no batch axis, d_k not a perfect square", batch=(), Lq=3, Lk=5, d_k=13,
             d_v=6),
    hidden("scaling: the scores are scaled under a mask too (d_k = 6)", "scaling",
           draw(masked_scaling, batch=(2,), Lq=3, Lk=6, d_k=6, d_v=10), traits={"scaled"}),
    hidden("softmax: weights normalised over the key axis (batch, Lq != Lk)", "softmax",
           draw(key_axis, batch=(3,), Lq=5, Lk=7)),
    hidden("softmax: rows sum to 1 with batch and heads axes", "softmax",
           draw(key_axis, batch=(2, 3), Lq=4, Lk=6)),
    hidden("softmax: weights normalised over the key axis, no batch axis, Lq != Lk", "softmax",
           draw(key_axis, batch=(), Lq=5, Lk=7)),
    hidden("values: identical keys give the mean of the values", "values", draw(identical_keys)),
    hidden("values: a dominant key selects its value vector", "values", draw(dominant_key)),
    hidden("values: a dominant key selects its value vector, no batch axis", "values",
           draw(dominant_key, batch=())),
    _masking("masking: causal mask (L, L) with a batch axis", batch=(3,), Lq=6, Lk=6, d_v=8,
             mask="causal"),
    _masking("masking: key-padding mask (B, 1, 1, Lk) with heads", batch=(3, 2), Lq=5, Lk=5,
             d_v=6, mask="padding"),
    _masking("masking: per-example mask (B, Lq, Lk), Lq != Lk", batch=(3,), Lq=4, Lk=6, d_v=7,
             mask=(3, 4, 6)),
    _masking("masking: mask (B, 1, Lq, Lk) shared by the heads", batch=(2, 3), Lq=4, Lk=5, d_v=6,
             mask=(2, 1, 4, 5)),
    _masking("masking: rows with every key blocked are left out", batch=(2,), Lq=5, Lk=6, d_v=7,
             mask="fully_blocked"),
    _masking("masking: causal mask (L, L), no batch axis", batch=(), Lq=6, Lk=6, d_v=8,
             mask="causal"),
    _masking("masking: mask (Lq, Lk), no batch axis, Lq != Lk", batch=(), Lq=4, Lk=6, d_v=7,
             mask=(4, 6)),
    hidden("stability: logits in the thousands (float64)", "stability",
           draw(stability, high=(540.0, 600.0), low=(100.0, 120.0), dtype=np.float64)),
    hidden("stability: logits in the hundreds (float32)", "stability",
           draw(stability, high=(92.5, 99.5), low=(10.0, 12.0), dtype=np.float32)),
    hidden("stability: logits in the thousands under a mask", "stability",
           draw(masked_stability)),
    hidden("stability: logits in the thousands, no batch axis", "stability",
           draw(unbatched_stability, high=(540.0, 600.0), low=(100.0, 120.0), dtype=np.float64)),
    hidden("stability: logits in the thousands under a mask, no batch axis", "stability",
           draw(unbatched_masked_stability)),
    hidden("properties: permutation equivariance", "properties", draw(equivariance),
           check="relation", relation="permuted_rows", what="permutation equivariance"),
    hidden("properties: a sequence of length 1 returns v_1", "properties", draw(length_one)),
    hidden("properties: one dominant score gives a one-hot weight row", "properties",
           draw(dominant_score)),
    hidden("properties: permutation equivariance, no batch axis", "properties",
           draw(unbatched_equivariance), check="relation", relation="permuted_rows",
           what="permutation equivariance"),
    hidden("properties: one dominant score gives a one-hot weight row, no batch axis",
           "properties", draw(dominant_score, batch=())),
    hidden("dtypes: float32 inputs", "dtypes", draw(float32)),
    hidden("dtypes: float32 inputs, no batch axis", "dtypes", draw(float32, batch=())),
    hidden("inputs: Q, K, V and mask are not modified in place", "inputs", draw(unmodified),
           check="inputs"),
    hidden("inputs: Q, K, V and mask are not modified in place, no batch axis", "inputs",
           draw(unmodified, batch=()), check="inputs"),
)


#: Cross-case rules that read the ranks of the cases (beside ``mistakes.RULES``): code that runs
#: only when the inputs have a batch axis ("works only without a batch axis" is
#: ``fails_with_batch_axes``).
RULES = (
    Rule(tag="fails_without_batch_axis", explains=crashes_only_with("unbatched"),
         message=('Your code works only with a batch axis: it fails whenever Q, K and V are (L, d) '
                  'arrays without one. Write it for (..., L, d) arrays: transpose only the last two '
                  'axes with np.swapaxes(K, -1, -2) (not K.transpose(0, 2, 1)) and normalise over '
                  'axis=-1.')),
)
