"""Problem ``scaled_dot_product_attention(Q, K, V, mask=None)``.

Categories and what isolates them: value checks outside the ``scaling`` category use d_k = 1 (where
1/sqrt(d_k) = 1/d_k = sqrt(d_k) = 1) or scale-free properties, so a scaling mistake costs the scaling
points only (scaling cases use d_k that are not perfect squares, so an integer square root is
caught; one scaling case has a mask, which catches code that scales only when no mask is given; one
stability case has a mask, which catches code that subtracts the maximum only without one; a
masking mistake costs those two cases too); ``shapes`` judges shapes only. Mistakes are recognised by refitting the learner's numbers
to the buggy variants of :mod:`grader.problems.attention_variants` (attention-bugs.md, entries 1-2, 4-15,
22, 23) and by cross-case rules.
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from grader.problems import checks, conditions, inputs, reference
from grader.problems.base import CREDIT_NOTE, Case, CodeProblem
from grader.problems.sdpa_mistakes import RULES, VARIANTS, describe

FUNCTION = "scaled_dot_product_attention"

CONTRACT = """\
def scaled_dot_product_attention(Q, K, V, mask=None)

Q: (..., Lq, d_k), K: (..., Lk, d_k), V: (..., Lk, d_v) NumPy arrays (float32 or float64). Leading
batch axes (e.g. a batch axis, or batch and heads) broadcast. Lq may differ from Lk, d_v from d_k.
mask: None, or a boolean array broadcastable to (..., Lq, Lk): True where the query MAY attend to the
key, False where it is blocked. Masks of shape (Lq, Lk), (B, Lq, Lk), (B, 1, Lq, Lk) and (B, 1, 1, Lk)
occur.
Compute softmax(Q K^T / sqrt(d_k)) over the key axis (rows of the weights sum to 1), blocked
positions getting exactly zero weight, and return the output (..., Lq, d_v) = weights @ V, or the
tuple (output, weights) with weights (..., Lq, Lk); returned weights are checked too.
Query rows whose mask blocks every key are not checked (any value, NaN included, is accepted).
The result must be finite for logits in the thousands. Do not modify the inputs. Use NumPy only.
Outputs are compared in float64 with rtol 1e-4, atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Q (..., Lq, d_k), K (..., Lk, d_k), V (..., Lk, d_v); mask boolean, True = may attend.

    Returns the output (..., Lq, d_v), or (output, weights) with weights (..., Lq, Lk).
    """
    raise NotImplementedError
'''

CATEGORIES = {"shapes": 1.0, "scaling": 2.0, "softmax": 1.5, "values": 1.0, "masking": 2.0,
              "stability": 1.0, "properties": 0.5, "dtypes": 0.5, "inputs": 0.5}


def _traits(Q, K, mask) -> frozenset[str]:
    traits = set()
    if Q.ndim > 2:
        traits.add("batched")
    if Q.ndim > 3:
        traits.add("heads")
    if Q.shape[-2] != K.shape[-2]:
        traits.add("cross")
    if mask is not None:
        traits.add("masked")
    return frozenset(traits)


def _args(Q, K, V, mask):
    return ((Q, K, V) if mask is None else (Q, K, V, mask)), {}


def _require_named_shapes(name: str, Q, K, V) -> None:
    """The shape conditions a case's name states hold: "Lq != Lk" and "cross-attention",
    "d_v != d_k", "odd d_k", "not a perfect square", "no batch axis", "heads axis"."""
    d_k = Q.shape[-1]
    for phrase, holds in (("Lq != Lk", Q.shape[-2] != K.shape[-2]),
                          ("cross-attention", Q.shape[-2] != K.shape[-2]),
                          ("d_v != d_k", V.shape[-1] != d_k),
                          ("odd d_k", d_k % 2 == 1),
                          ("not a perfect square", math.isqrt(d_k) ** 2 != d_k),
                          ("no batch axis", Q.ndim == 2),
                          ("heads axis", Q.ndim >= 4)):
        if phrase in name:
            conditions.require(holds, name, phrase)


def value_case(name: str, category: str, Q, K, V, mask=None, visible: bool = False) -> Case:
    """A case comparing output (and returned weights) with the reference on one call."""
    _require_named_shapes(name, Q, K, V)
    out, weights = reference.attention(Q, K, V, mask)
    rows = reference.attended_rows(mask, weights.shape)
    traits = _traits(Q, K, mask) | ({"scaled"} if category == "scaling" else set())
    case = Case(name=name, category=category, calls=[_args(Q, K, V, mask)],
                check=checks.values([(out, weights)], [rows]), rows=[rows],
                traits=traits, visible=visible)
    if visible:
        inputs = {"Q": Q, "K": K, "V": V} | ({} if mask is None else {"mask": mask})
        case.public = {"inputs": {k: np.asarray(v).tolist() for k, v in inputs.items()},
                       "expected_output": np.round(out, 6).tolist(),
                       "expected_weights": np.round(weights, 6).tolist()}
    return case


def shape_case(name: str, Q, K, V, mask=None) -> Case:
    _require_named_shapes(name, Q, K, V)
    out, weights = reference.attention(Q, K, V, mask)
    return Case(name=name, category="shapes", calls=[_args(Q, K, V, mask)],
                check=checks.shapes([(out.shape, weights.shape)]), traits=_traits(Q, K, mask))


def _n(rng, *shape, dtype=np.float64):
    """Bounded standard normal draws (see :func:`grader.problems.conditions.bounded`)."""
    return conditions.bounded(rng, *shape, dtype=dtype)


def visible_cases() -> list[Case]:
    """Three fixed examples learners can run themselves (inputs rounded to one decimal)."""
    rng = np.random.default_rng(20240601)
    r = lambda *s: np.round(rng.standard_normal(s), 1)  # noqa: E731
    examples = [
        value_case("example: cross-attention, Lq=2, Lk=3, d_k=5, d_v=6, no mask", "scaling",
                   r(2, 5), r(3, 5), r(3, 6), visible=True),
        value_case("example: causal mask, L=3, d_k=1", "masking",
                   r(3, 1), r(3, 1), r(3, 2), reference.causal_mask(3), visible=True),
        value_case("example: batch of 2, Lq=2, Lk=3, d_k=1, d_v=4", "softmax",
                   r(2, 2, 1), r(2, 3, 1), r(2, 3, 4), visible=True),
    ]
    # Every size differs from the others (and d_k is not a perfect square), so a scale taken
    # from the wrong size is named as that size's mistake, never as another's.
    scaled = examples[0]
    Q, K, V = scaled.calls[0][0]
    _require_scale_matters(scaled.name, Q, K, V)
    return examples


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


def _require_distinct_scales(name: str, d_k: int, d_v: int, Lq: int) -> None:
    """1/sqrt(d_k) and the scales of :data:`WRONG_SCALES` are pairwise at least 5% apart for these
    sizes, so a scale diagnosis on this case names one mistake (e.g. Lq != d_v, d_v is not the
    square of isqrt(d_k)); the two integer square roots are one mistake and may coincide."""
    scales = {"1/sqrt(d_k)": 1.0 / np.sqrt(d_k)} | {
        what: f(d_k, d_v, Lq) for what, f in WRONG_SCALES.items()}
    integer = {"1/isqrt(d_k)", "1/round(sqrt(d_k))"}
    ratios = [max(a, b) / min(a, b) for i, (x, a) in enumerate(scales.items())
              for y, b in list(scales.items())[i + 1:] if not {x, y} <= integer]
    conditions.require(min(ratios) >= 1.05, name, "sizes whose wrong scales all differ")


def _scaled_logits(rng, batch: tuple[int, ...], Lq: int, Lk: int, d_k: int):
    """Q (*batch, Lq, d_k) and K (*batch, Lk, d_k), Lk <= d_k, whose scaled scores
    Q K^T / sqrt(d_k) are, in every row, Lk values spread over exactly [-2, 2] at least 0.5 apart
    (random order): the weights are neither flat nor one-hot, so every wrong scale moves them a
    lot. K = sqrt(d_k) times orthonormal rows; Q = Z K / sqrt(d_k) plus a random part orthogonal to
    the keys, which changes no score."""
    Q, K = np.empty((*batch, Lq, d_k)), np.empty((*batch, Lk, d_k))
    for index in np.ndindex(*batch):
        rows = conditions.orthonormal_rows(rng, Lk, d_k)
        Z = np.stack([conditions.spaced(rng, Lk, -2.0, 2.0, 0.5) for _ in range(Lq)])
        noise = _n(rng, Lq, d_k)
        Q[index] = Z @ rows + noise - noise @ rows.T @ rows
        K[index] = np.sqrt(d_k) * rows
    return Q, K


def _unit_logits(rng, batch: tuple[int, ...], Lq: int, Lk: int, dtype=np.float64):
    """Q (*batch, Lq, 1) and K (*batch, Lk, 1) (d_k = 1, so every scale of sqrt(d_k) or d_k is 1):
    |q| in [0.5, 1.5] and the keys of each example spread over [-1.5, 1.5], at least
    3 / (2 (Lk - 1)) apart, so every row's scores span at least 1.5 and every weight is at least
    e^-4.5 / Lk: a blocked key carries real weight when it is not blocked."""
    Q = conditions.away_from_zero(rng, *batch, Lq, 1)
    K = np.empty((*batch, Lk, 1))
    for index in np.ndindex(*batch):
        K[index] = conditions.spaced(rng, Lk, -1.5, 1.5, 1.5 / (Lk - 1))[:, None]
    return Q.astype(dtype), K.astype(dtype)


def _values(rng, batch: tuple[int, ...], Lk: int, d_v: int, dtype=np.float64):
    """V (*batch, Lk, d_v), d_v >= Lk, with singular values >= 1, so wrong weights always show in
    the output (:func:`grader.problems.conditions.revealing`)."""
    return conditions.revealing(rng, *batch, Lk, d_v, dtype=dtype)


def _random_mask(rng, shape):
    """A random boolean mask in which every row and every column allow and block at least one
    key (:func:`grader.problems.conditions.mixed_mask`)."""
    return conditions.mixed_mask(rng, shape)


def _padding_mask(rng, B, Lk):
    """(B, 1, 1, Lk) key-padding mask: the examples' lengths are 2, 3, ..., Lk - 1 (cycled to B
    examples) in random order, the rest is padding. So every example is padded and keeps at least
    two keys, and with B >= Lk - 2 both an example with one padded key and one with two or more
    (two or more real keys) occur on every draw."""
    lengths = rng.permutation(np.resize(np.arange(2, Lk), B))
    return (np.arange(Lk)[None, :] < lengths[:, None])[:, None, None, :]


def _require_cross(name: str, Q, K) -> None:
    conditions.require(Q.shape[-2] != K.shape[-2], name, "Lq != Lk")


def _require_masks_some_keys(name: str, Q, K, mask, fully_blocked=None, open_rows=None) -> None:
    """Every query row allows at least one key and blocks at least one, except the
    ``fully_blocked`` rows (boolean (..., Lq)), which must block every key and exist, and the
    ``open_rows``, which must allow every key (the last row of a causal mask)."""
    shape = np.broadcast_shapes(Q.shape[:-1] + (K.shape[-2],), np.shape(mask))
    full = np.broadcast_to(np.asarray(mask, bool), shape)
    skip = np.zeros(shape[:-1], dtype=bool)
    for rows, actual, what in ((fully_blocked, ~full.any(axis=-1), "block every key"),
                               (open_rows, full.all(axis=-1), "allow every key")):
        if rows is not None:
            rows = np.broadcast_to(rows, shape[:-1])
            conditions.require(bool(rows.any() and np.array_equal(rows, actual)), name,
                               f"rows that {what} exactly where intended")
            skip |= rows
    conditions.require(conditions.rows_mixed(full, skip=skip), name,
                       "a mask that blocks at least one key and allows at least one in every row")


def _require_scale_matters(name: str, Q, K, V, mask=None) -> None:
    """Each wrong scale of :data:`WRONG_SCALES` moves some weight of every row by at least 0.01
    (1000 times the tolerance), under ``mask`` when one is given."""
    d_k, d_v, Lq = Q.shape[-1], V.shape[-1], Q.shape[-2]
    _require_distinct_scales(name, d_k, d_v, Lq)
    _, weights = reference.attention(Q, K, V, mask)
    for what, scale in WRONG_SCALES.items():
        _, other = reference.attention(Q, K, V, mask, scale=scale(d_k, d_v, Lq))
        conditions.require(np.abs(other - weights).max(axis=-1).min() >= 0.01, name,
                           f"weights that change in every row with the scale {what}")


def _scaling_case(name: str, rng, batch, Lq, Lk, d_k, d_v) -> Case:
    Q, K = _scaled_logits(rng, batch, Lq, Lk, d_k)
    V = _values(rng, batch, Lk, d_v)
    _require_cross(name, Q, K)
    _require_scale_matters(name, Q, K, V)
    return value_case(name, "scaling", Q, K, V)


def _scaled_mask(rng, shape) -> np.ndarray:
    """A boolean mask (..., R, C), C >= 3, in which every row allows at least two keys (so the
    scale of its scores matters) and blocks at least one."""
    *batch, R, C = shape
    out = np.zeros(shape, dtype=bool)
    for index in np.ndindex(*batch, R):
        out[index][rng.permutation(C)[:int(rng.integers(2, C))]] = True
    conditions.require(bool((out.sum(-1) >= 2).all() and (~out).any(-1).all()), "scaled mask",
                       "at least two allowed and one blocked key in every row")
    return out


def _masked_scaling_case(name: str, rng, batch, Lq, Lk, d_k, d_v) -> Case:
    """A scaling case with a mask: code that scales the scores only when no mask is given fails
    it (and every other scaling case passes). A masking mistake fails it too: the one case
    outside ``masking`` that a masking mistake costs (trait ``scaled-mask``; see
    tests/problems/expectations.py)."""
    Q, K = _scaled_logits(rng, batch, Lq, Lk, d_k)
    V = _values(rng, batch, Lk, d_v)
    mask = _scaled_mask(rng, (*batch, Lq, Lk))
    _require_cross(name, Q, K)
    _require_masks_some_keys(name, Q, K, mask)
    _require_scale_matters(name, Q, K, V, mask)
    case = value_case(name, "scaling", Q, K, V, mask)
    case.traits = case.traits | {"scaled-mask", "mask-elsewhere"}
    return case


def _masking_case(name: str, Q, K, V, mask, fully_blocked=None, open_rows=None) -> Case:
    _require_masks_some_keys(name, Q, K, mask, fully_blocked, open_rows)
    return value_case(name, "masking", Q, K, V, mask)


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    """The hidden cases for one submission, drawn from ``rng``. Each draw has the condition its
    case is named after (asserted when the case is built; grader/problems/conditions.py): scaling
    cases have Lq != Lk, d_v != d_k, a d_k that is not a perfect square and scores spread so that
    every wrong scale changes every row; cases outside ``scaling`` use d_k = 1; values V reveal the weights (singular values >= 1);
    masks block and allow keys in every row; stability logits overflow a naive exp."""
    n = partial(_n, rng)
    cases = [
        shape_case("shapes: batch axis, Lq != Lk, d_v != d_k", n(3, 5, 6), n(3, 7, 6), n(3, 7, 4)),
        shape_case("shapes: batch and heads axes (B, H, Lq, Lk)",
                   n(3, 4, 5, 6), n(3, 4, 7, 6), n(3, 4, 7, 2)),
        shape_case("shapes: no batch axis", n(5, 6), n(7, 6), n(7, 3)),
        _scaling_case("scaling: batched cross-attention with a large d_k", rng, (2,), 4, 6, 21, 8),
        _scaling_case("scaling: heads axis with an odd d_k", rng, (2, 3), 5, 4, 7, 6),
        _scaling_case("scaling: no batch axis, d_k not a perfect square", rng, (), 3, 5, 13, 6),
        _masked_scaling_case("scaling: the scores are scaled under a mask too (d_k = 6)",
                             rng, (2,), 3, 6, 6, 10),
    ]
    # Softmax axis: V = identity makes the output equal to the weights, whatever is returned;
    # Lq != Lk and a batch axis make every wrong axis change the sums of the rows.
    name = "softmax: weights normalised over the key axis (batch, Lq != Lk)"
    Q, K = _unit_logits(rng, (3,), 5, 7)
    _require_cross(name, Q, K)
    cases.append(value_case(name, "softmax", Q, K, np.broadcast_to(np.eye(7), (3, 7, 7)).copy()))
    name = "softmax: rows sum to 1 with batch and heads axes"
    Q, K = _unit_logits(rng, (2, 3), 4, 6)
    _require_cross(name, Q, K)
    cases.append(value_case(name, "softmax", Q, K,
                            np.broadcast_to(np.eye(6), (2, 3, 6, 6)).copy()))
    # Values: identical keys give uniform weights (mean of V); a dominant key selects its value.
    K_same = np.broadcast_to(n(1, 1, 6), (2, 5, 6)).copy()
    K_orth, Q_dom = _dominant_keys(rng)
    cases += [
        value_case("values: identical keys give the mean of the values", "values",
                   n(2, 4, 6), K_same, _values(rng, (2,), 5, 6)),
        value_case("values: a dominant key selects its value vector", "values",
                   Q_dom, K_orth, _values(rng, (2,), 4, 5)),
    ]
    # Masking, d_k = 1 so that scaling mistakes do not interfere.
    B, L = 3, 6
    fully_at = rng.integers(0, 5, size=2)
    fully = np.stack([np.insert(m, row, False, axis=0)
                      for m, row in zip(_random_mask(rng, (2, 4, 6)), fully_at)])
    fully_rows = np.zeros((2, 5), dtype=bool)
    fully_rows[[0, 1], fully_at] = True
    cases += [
        _masking_case("masking: causal mask (L, L) with a batch axis",
                      *_unit_logits(rng, (B,), L, L), _values(rng, (B,), L, L + 2),
                      reference.causal_mask(L), open_rows=np.arange(L) == L - 1),
        _masking_case("masking: key-padding mask (B, 1, 1, Lk) with heads",
                      *_unit_logits(rng, (3, 2), 5, 5), _values(rng, (3, 2), 5, 6),
                      _padding_mask(rng, 3, 5)),
        _masking_case("masking: per-example mask (B, Lq, Lk), Lq != Lk",
                      *_unit_logits(rng, (3,), 4, 6), _values(rng, (3,), 6, 7),
                      _random_mask(rng, (3, 4, 6))),
        _masking_case("masking: mask (B, 1, Lq, Lk) shared by the heads",
                      *_unit_logits(rng, (2, 3), 4, 5), _values(rng, (2, 3), 5, 6),
                      _random_mask(rng, (2, 1, 4, 5))),
        _masking_case("masking: rows with every key blocked are left out",
                      *_unit_logits(rng, (2,), 5, 6), _values(rng, (2,), 6, 7), fully,
                      fully_rows),
    ]
    cases += [
        _stability_case("stability: logits in the thousands (float64)", rng, (540.0, 600.0),
                        (100.0, 120.0), np.float64),
        _stability_case("stability: logits in the hundreds (float32)", rng, (92.5, 99.5),
                        (10.0, 12.0), np.float32),
        _masked_stability_case(rng),
    ]
    cases += [_equivariance_case(rng), _length_one_case(rng), value_case(
        "properties: one dominant score gives a one-hot weight row", "properties",
        Q_dom[:, :3], K_orth, np.broadcast_to(np.eye(4), (2, 4, 4)).copy())]
    name = "dtypes: float32 inputs"
    Q, K = _unit_logits(rng, (2,), 3, 4, dtype=np.float32)
    V = _values(rng, (2,), 4, 5, dtype=np.float32)
    conditions.require(all(a.dtype == np.float32 for a in (Q, K, V)), name, "float32 arrays")
    cases.append(value_case(name, "dtypes", Q, K, V))
    Q, K, V = n(2, 5, 4), n(2, 5, 4), n(2, 5, 3)
    cases.append(inputs.case("inputs: Q, K, V and mask are not modified in place",
                             _args(Q, K, V, reference.causal_mask(5)), ("Q", "K", "V", "mask"),
                             _traits(Q, K, True)))
    return cases


def _dominant_keys(rng):
    """K (2, 4, 8): keys of norm 2, orthogonal within each example; Q (2, 5, 8): each query is
    48 times one of the keys, so its score on that key is 192 and 0 on the others: 24 apart even
    when divided by d_k = 8 (the smallest of the common scales), i.e. one-hot to within e^-24."""
    K = np.stack([2.0 * conditions.orthonormal_rows(rng, 4, 8) for _ in range(2)])
    targets = rng.integers(0, 4, size=(2, 5))
    Q = 48.0 * np.take_along_axis(K, targets[..., None], axis=1)
    gaps = conditions.row_gaps(Q @ np.swapaxes(K, -1, -2))
    conditions.require(gaps.min() / 8 >= 20, "values: a dominant key",
                       "one score per row at least 20 above the others at scale 1/d_k")
    return K, Q


def _stability_inputs(rng, high: tuple[float, float], low: tuple[float, float], dtype,
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


def _smallest_scale(Q, V) -> float:
    """The smallest scale of the scores among 1/sqrt(d_k) and :data:`WRONG_SCALES`."""
    d_k, d_v, Lq = Q.shape[-1], V.shape[-1], Q.shape[-2]
    return min([1.0 / np.sqrt(d_k)] + [f(d_k, d_v, Lq) for f in WRONG_SCALES.values()])


def _stability_case(name: str, rng, high: tuple[float, float], low: tuple[float, float],
                    dtype) -> Case:
    """Inputs of :func:`_stability_inputs`. Guaranteed on every draw: a naive exp overflows (in
    float64, so in float32 too); the rows' maxima spread wider than twice exp's range for
    ``dtype``, the high rows lie well within that range of one another and the low rows far below
    them, so one global maximum keeps exactly the high rows; every row, every column (queries)
    and every position across the batch has one clear winner, so the weights are one-hot (within
    e^-15 after any common scale) along any axis a softmax may wrongly take, which also makes the
    result insensitive to float32 rounding of the scores."""
    Q, K, V, _ = _stability_inputs(rng, high, low, dtype)
    logits = Q.astype(np.float64) @ np.swapaxes(K, -1, -2).astype(np.float64)
    dtypes = (np.float64,) if dtype == np.float64 else (np.float64, dtype)
    exp_range = conditions.EXP_OVERFLOW[np.dtype(dtype)] + conditions.EXP_UNDERFLOW[np.dtype(dtype)]
    smallest_scale = _smallest_scale(Q, V)
    conditions.require(conditions.overflows_exp(logits), name, "a naive exp that overflows")
    conditions.require(conditions.maxima_spread(logits) > 2 * exp_range, name,
                       "row maxima spread wider than twice exp's range")
    conditions.require(conditions.exp_outcomes_clear(logits, -1, dtypes), name,
                       "rows clearly in or out of exp's range")
    for axis, what in ((-1, "row"), (-2, "column"), (0, "batch position")):
        conditions.require(conditions.row_gaps(logits, axis).min() * smallest_scale >= 15, name,
                           f"one clear winner per {what} at every common scale")
    conditions.require(conditions.row_gaps(logits.reshape(-1), 0) * smallest_scale >= 15, name,
                       "one clear winner over the whole array")
    return value_case(name, "stability", Q, K, V)


def _masked_stability_case(rng) -> Case:
    """Logits in the thousands under a (2, 4, 5) mask (:func:`_stability_inputs` with keys of both
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
    name = "stability: logits in the thousands under a mask"
    Q, K, V, is_high = _stability_inputs(rng, (540.0, 600.0), (20.0, 25.0), np.float64,
                                         both_signs=True)
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
    scores = Q @ np.swapaxes(K, -1, -2)
    logits = np.where(mask, scores, -np.inf)
    winner_allowed = np.take_along_axis(mask, np.argmax(scores, -1)[..., None], -1)[..., 0]
    conditions.require(conditions.rows_mixed(mask), name,
                       "a mask that blocks at least one key and allows at least one in every row")
    conditions.require(bool(np.array_equal(winner_allowed, is_high)), name,
                       "the winner allowed in the high rows and blocked in the low ones")
    conditions.require(bool((scores.max(-1) - logits.max(-1) <= 500).all()), name,
                       "allowed maxima at most 500 below the rows' maxima")
    conditions.require(bool((logits.max(axis=-1) < -15).any(axis=-1).all()), name,
                       "a row per example whose allowed scores are all far below 0")
    conditions.require(conditions.overflows_exp(logits), name, "a naive exp that overflows")
    naive = conditions.naive_exp_outcomes(logits)
    conditions.require("unclear" not in naive and "overflow" in naive, name,
                       "rows clearly in or out of exp's range")
    conditions.require("underflow" in conditions.naive_exp_outcomes(logits - logits.max()), name,
                       "rows that one global maximum underflows")
    conditions.require(conditions.row_gaps(logits).min() * _smallest_scale(Q, V) >= 15, name,
                       "one clear allowed winner per row at every common scale")
    _require_masks_some_keys(name, Q, K, mask)
    case = value_case(name, "stability", Q, K, V, mask)
    case.traits = case.traits | {"mask-elsewhere"}
    return case


def _equivariance_case(rng) -> Case:
    """f(P Q, S K, S V) == P f(Q, K, V): permuting queries permutes the output rows, permuting the
    key/value pairs together changes nothing. Judged on the learner's own two outputs. P and S
    move every position (random cycles)."""
    name = "properties: permutation equivariance"
    Q, K, V = (_n(rng, 2, L, d) for L, d in ((5, 4), (6, 4), (6, 3)))
    p, s = conditions.derangement(rng, 5), conditions.derangement(rng, 6)
    conditions.require(conditions.moves_every_position(p) and conditions.moves_every_position(s),
                       name, "permutations that move every position")
    _require_cross(name, Q, K)
    calls = [_args(Q, K, V, None), _args(Q[:, p], K[:, s], V[:, s], None)]
    return Case(name=name, category="properties", calls=calls,
                check=checks.relation(lambda out: out[..., p, :], "permutation equivariance"),
                traits=frozenset({"batched", "cross"}))


def _length_one_case(rng) -> Case:
    """One query and one key: the single weight is 1, so the output is v_1 whatever the scale.
    |v| >= 0.5 per entry, so a weight other than 1 always shows."""
    Q, K = _n(rng, 3, 1, 4), _n(rng, 3, 1, 4)
    V = conditions.away_from_zero(rng, 3, 1, 2)
    return value_case("properties: a sequence of length 1 returns v_1", "properties", Q, K, V)


PROBLEM = CodeProblem(
    id="scaled_dot_product_attention", function=FUNCTION,
    title="Scaled dot-product attention", contract=CONTRACT, starter=STARTER,
    categories=CATEGORIES, visible_cases=visible_cases, hidden_cases=hidden_cases,
    variants=VARIANTS, rules=RULES, describe=describe,
    reference=reference.attention,
)
