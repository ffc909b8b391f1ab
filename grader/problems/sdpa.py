"""Problem ``scaled_dot_product_attention(Q, K, V, mask=None)``.

Categories and what isolates them: value checks outside the ``scaling`` category use d_k = 1 (where
1/sqrt(d_k) = 1/d_k = sqrt(d_k) = 1) or scale-free properties, so a scaling mistake costs the scaling
points only; ``shapes`` judges shapes only. Mistakes are recognised by refitting the learner's numbers
to the buggy variants of :mod:`grader.problems.attention_variants` (attention-bugs.md, entries 1-2, 4-15,
22, 23) and by cross-case rules.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from grader.problems import checks, inputs, reference
from grader.problems.attention_variants import buggy_attention
from grader.problems.base import CREDIT_NOTE, Case, CodeProblem, Rule, Variant
from grader.problems.compare import split_return
from grader.problems.rules import crashes_only_with, failed_in_category
from grader.problems.signals import output_signals, weight_signals

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


def value_case(name: str, category: str, Q, K, V, mask=None, visible: bool = False) -> Case:
    """A case comparing output (and returned weights) with the reference on one call."""
    out, weights = reference.attention(Q, K, V, mask)
    rows = reference.attended_rows(mask, weights.shape)
    case = Case(name=name, category=category, calls=[_args(Q, K, V, mask)],
                check=checks.values([(out, weights)], [rows]), rows=[rows],
                traits=_traits(Q, K, mask), visible=visible)
    if visible:
        inputs = {"Q": Q, "K": K, "V": V} | ({} if mask is None else {"mask": mask})
        case.public = {"inputs": {k: np.asarray(v).tolist() for k, v in inputs.items()},
                       "expected_output": np.round(out, 6).tolist(),
                       "expected_weights": np.round(weights, 6).tolist()}
    return case


def shape_case(name: str, Q, K, V, mask=None) -> Case:
    out, weights = reference.attention(Q, K, V, mask)
    return Case(name=name, category="shapes", calls=[_args(Q, K, V, mask)],
                check=checks.shapes([(out.shape, weights.shape)]), traits=_traits(Q, K, mask))


def _n(rng, *shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def visible_cases() -> list[Case]:
    """Three fixed examples learners can run themselves (inputs rounded to one decimal)."""
    rng = np.random.default_rng(20240601)
    r = lambda *s: np.round(rng.standard_normal(s), 1)  # noqa: E731
    return [
        value_case("example: cross-attention, Lq=2, Lk=3, d_k=4, d_v=2, no mask", "scaling",
                   r(2, 4), r(3, 4), r(3, 2), visible=True),
        value_case("example: causal mask, L=3, d_k=1", "masking",
                   r(3, 1), r(3, 1), r(3, 2), reference.causal_mask(3), visible=True),
        value_case("example: batch of 2, Lq=2, Lk=3, d_k=1, d_v=2", "softmax",
                   r(2, 2, 1), r(2, 3, 1), r(2, 3, 2), visible=True),
    ]


def _random_mask(rng, shape, p=0.6):
    """A random boolean mask where every row keeps at least one key."""
    mask = rng.random(shape) < p
    first = rng.integers(0, shape[-1], size=shape[:-1])
    np.put_along_axis(mask, first[..., None], True, axis=-1)
    return mask


def _padding_mask(rng, B, Lk):
    """(B, 1, 1, Lk) key-padding mask: example b has a random length >= 2, the rest is padding;
    at least one example is padded."""
    lengths = rng.integers(2, Lk, size=B)
    return (np.arange(Lk)[None, :] < lengths[:, None])[:, None, None, :]


def _orthonormal_rows(rng, n, d):
    q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return q[:n]


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    """The hidden cases for one submission, drawn from ``rng``."""
    n = partial(_n, rng)
    cases = [
        shape_case("shapes: batch axis, Lq != Lk, d_v != d_k", n(3, 5, 6), n(3, 7, 6), n(3, 7, 4)),
        shape_case("shapes: batch and heads axes (B, H, Lq, Lk)",
                   n(3, 4, 5, 6), n(3, 4, 7, 6), n(3, 4, 7, 2)),
        shape_case("shapes: no batch axis", n(5, 6), n(7, 6), n(7, 3)),
        value_case("scaling: batched cross-attention with a large d_k", "scaling",
                   n(2, 4, 16), n(2, 6, 16), n(2, 6, 3)),
        value_case("scaling: heads axis with an odd d_k", "scaling",
                   n(2, 3, 5, 9), n(2, 3, 4, 9), n(2, 3, 4, 5)),
        value_case("scaling: no batch axis, d_k a perfect square", "scaling",
                   n(3, 25), n(5, 25), n(5, 2)),
    ]
    # Softmax axis: V = identity makes the output equal to the weights, whatever is returned.
    cases += [
        value_case("softmax: weights normalised over the key axis (batch, Lq != Lk)", "softmax",
                   n(3, 5, 1), n(3, 7, 1), np.broadcast_to(np.eye(7), (3, 7, 7)).copy()),
        value_case("softmax: rows sum to 1 with batch and heads axes", "softmax",
                   n(2, 3, 4, 1), n(2, 3, 6, 1), np.broadcast_to(np.eye(6), (2, 3, 6, 6)).copy()),
    ]
    # Values: identical keys give uniform weights (mean of V); a dominant key selects its value.
    key = n(1, 1, 6)
    K_same = np.broadcast_to(key, (2, 5, 6)).copy()
    K_orth = np.stack([2.0 * _orthonormal_rows(rng, 4, 8) for _ in range(2)])
    targets = rng.integers(0, 4, size=(2, 5))
    Q_dom = 40.0 * np.take_along_axis(K_orth, targets[..., None], axis=1)
    cases += [
        value_case("values: identical keys give the mean of the values", "values",
                   n(2, 4, 6), K_same, n(2, 5, 3)),
        value_case("values: a dominant key selects its value vector", "values",
                   Q_dom, K_orth, n(2, 4, 3)),
    ]
    # Masking, d_k = 1 so that scaling mistakes do not interfere.
    B, L = 3, 6
    fully = _random_mask(rng, (2, 5, 6))
    fully[0, 1, :] = False
    fully[1, 3, :] = False
    cases += [
        value_case("masking: causal mask (L, L) with a batch axis", "masking",
                   n(B, L, 1), n(B, L, 1), n(B, L, 3), reference.causal_mask(L)),
        value_case("masking: key-padding mask (B, 1, 1, Lk) with heads", "masking",
                   n(3, 2, 5, 1), n(3, 2, 5, 1), n(3, 2, 5, 4), _padding_mask(rng, 3, 5)),
        value_case("masking: per-example mask (B, Lq, Lk), Lq != Lk", "masking",
                   n(3, 4, 1), n(3, 6, 1), n(3, 6, 2), _random_mask(rng, (3, 4, 6))),
        value_case("masking: mask (B, 1, Lq, Lk) shared by the heads", "masking",
                   n(2, 3, 4, 1), n(2, 3, 5, 1), n(2, 3, 5, 2), _random_mask(rng, (2, 1, 4, 5))),
        value_case("masking: rows with every key blocked are left out", "masking",
                   n(2, 5, 1), n(2, 6, 1), n(2, 6, 3), fully),
    ]
    # Numerical stability: every row has logits far above exp's overflow point (709 in float64).
    cases += [
        value_case("stability: logits in the thousands (float64)", "stability",
                   *_large_logits(rng, 300.0, 600.0, 3.0, 10.0, np.float64), n(2, 5, 3)),
        value_case("stability: logits in the hundreds (float32)", "stability",
                   *_large_logits(rng, 100.0, 200.0, 8.0, 12.0, np.float32),
                   n(2, 5, 3, dtype=np.float32)),
    ]
    cases += [_equivariance_case(rng), _length_one_case(rng), value_case(
        "properties: one dominant score gives a one-hot weight row", "properties",
        Q_dom[:, :3], K_orth, np.broadcast_to(np.eye(4), (2, 4, 4)).copy())]
    cases.append(value_case("dtypes: float32 inputs", "dtypes", n(2, 3, 1, dtype=np.float32),
                            n(2, 4, 1, dtype=np.float32), n(2, 4, 2, dtype=np.float32)))
    Q, K, V = n(2, 5, 4), n(2, 5, 4), n(2, 5, 3)
    cases.append(inputs.case("inputs: Q, K, V and mask are not modified in place",
                             _args(Q, K, V, reference.causal_mask(5)), ("Q", "K", "V", "mask"),
                             _traits(Q, K, True)))
    return cases


def _large_logits(rng, q_low, q_high, k_low, k_high, dtype):
    """Q (2, 4, 1) and K (2, 5, 1) (d_k = 1) for huge logits: |q| spans [q_low, q_high] (both ends
    present in each example, so row maxima differ by far more than exp's range), the keys have
    both signs and distinct magnitudes evenly spaced in [k_low, k_high], so every row has one
    clear winner (gap >= q_low * spacing) and a logit of at least q_low * k_low. Results are then
    insensitive to float32 rounding of the scores."""
    q = np.concatenate([np.full((2, 1, 1), q_low), np.full((2, 1, 1), q_high),
                        rng.uniform(q_low, q_high, (2, 2, 1))], axis=1)
    q = rng.permuted(q * rng.choice([-1.0, 1.0], (2, 4, 1)), axis=1)
    magnitudes = np.linspace(k_low, k_high, 5) * np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    k = np.stack([rng.permutation(magnitudes) for _ in range(2)])[..., None]
    return q.astype(dtype), k.astype(dtype)


def _equivariance_case(rng) -> Case:
    """f(P Q, S K, S V) == P f(Q, K, V): permuting queries permutes the output rows, permuting the
    key/value pairs together changes nothing. Judged on the learner's own two outputs."""
    Q, K, V = (_n(rng, 2, L, d) for L, d in ((5, 4), (6, 4), (6, 3)))
    p, s = rng.permutation(5), rng.permutation(6)
    calls = [_args(Q, K, V, None), _args(Q[:, p], K[:, s], V[:, s], None)]
    return Case(name="properties: permutation equivariance", category="properties", calls=calls,
                check=checks.relation(lambda out: out[..., p, :], "permutation equivariance"),
                traits=frozenset({"batched", "cross"}))


def _length_one_case(rng) -> Case:
    """One query and one key: the single weight is 1, so the output is v_1 whatever the scale."""
    Q, K, V = _n(rng, 3, 1, 4), _n(rng, 3, 1, 4), _n(rng, 3, 1, 2)
    return value_case("properties: a sequence of length 1 returns v_1", "properties", Q, K, V)


MASKED = frozenset({"masked"})


def _variant(kind: str, bug: str, message: str, **bug_args) -> Variant:
    needs = MASKED if kind.startswith("mask_") else frozenset()
    return Variant(kind=kind, bug=bug, message=message, needs=needs,
                   fn=lambda Q, K, V, mask=None: buggy_attention(Q, K, V, mask, **bug_args))


def _weights_first(Q, K, V, mask=None):
    out, weights = buggy_attention(Q, K, V, mask)
    return weights, out


def _weights_only(Q, K, V, mask=None):
    return buggy_attention(Q, K, V, mask)[1]



VARIANTS = [
    _variant("scale_by_d_k", "1", "The scores are divided by d_k instead of sqrt(d_k): scale "
             "Q K^T by 1/sqrt(d_k), which keeps the scores' variance near 1 (dividing by d_k makes "
             "the weights too flat).", scale=lambda d_k, d_v: 1.0 / d_k),
    _variant("no_scaling", "2", "The scores are not scaled at all: divide Q K^T by sqrt(d_k), "
             "otherwise large d_k makes the softmax nearly one-hot and its gradients vanish.",
             scale=lambda d_k, d_v: 1.0),
    _variant("scale_multiplied", "4", "The scores are multiplied by sqrt(d_k) instead of divided "
             "by it: use Q K^T / sqrt(d_k).", scale=lambda d_k, d_v: float(np.sqrt(d_k))),
    _variant("scale_by_sqrt_d_v", "1", "The scores are scaled with d_v (the value size) instead of "
             "d_k: the scale is 1/sqrt(d_k), d_k being the size of the query and key vectors.",
             scale=lambda d_k, d_v: 1.0 / np.sqrt(d_v)),
    _variant("softmax_query_axis", "5", "The softmax normalised the query axis, so columns of the "
             "weights sum to 1 instead of rows: take the softmax over the last (key) axis.",
             axis=-2),
    _variant("softmax_batch_axis", "5", "The softmax is taken over axis 0 (the batch axis, or the "
             "query axis when there is no batch axis) instead of over the keys: use axis=-1 so "
             "each query's weights over the keys sum to 1.", axis=0),
    _variant("softmax_all_entries", "5", "The softmax is taken over all entries at once (one max "
             "and one sum over the whole array), so the weights of all queries together sum to 1: "
             "use axis=-1 and keepdims=True so each query's row sums to 1.", axis=None),
    _variant("softmax_no_keepdims", "6", "The softmax divides by a sum taken without "
             "keepdims=True, so it broadcasts against the wrong axis: use "
             "e.sum(axis=-1, keepdims=True).", keepdims=False),
    _variant("softmax_not_stable", "7", "The softmax overflows for large scores (inf/NaN): "
             "subtract the row maximum before np.exp; softmax is unchanged by that shift.",
             stable=False),
    _variant("softmax_global_max", "7", "The softmax subtracts one global maximum instead of each "
             "row's maximum, so rows far below it underflow to 0/0: subtract "
             "np.max(scores, axis=-1, keepdims=True).", global_max=True),
    _variant("mask_after_softmax", "8", "The mask is applied after the softmax without "
             "renormalising, so rows sum to less than 1: mask the scores (set blocked ones to -inf) "
             "before the softmax, or renormalise the rows after masking.", mask_mode="after"),
    _variant("mask_fill_zero", "9", "Blocked positions still receive weight because their scores "
             "are set to 0 (or multiplied by the mask) rather than to -inf: a score of 0 is not "
             "small, use np.where(mask, scores, -np.inf).", fill=0.0),
    _variant("mask_added_as_float", "10", "The 0/1 mask was added to the scores as a number, so "
             "blocked positions still get large weight: use the boolean mask to set blocked "
             "scores to -inf.", mask_mode="add"),
    _variant("mask_inverted", "11", "The mask polarity is inverted: True means the query MAY attend, "
             "so fill the scores where the mask is False, not where it is True.",
             mask_mode="inverted"),
    _variant("mask_inverted", "11", "The mask polarity is inverted: True means the query MAY attend, "
             "so fill the scores where the mask is False, not where it is True.",
             mask_mode="inverted", fill=-1e9),
    _variant("mask_times_neg_inf", "14", "The additive mask was built as (1 - mask) * -inf, and "
             "0 * -inf is NaN, so the whole output is NaN: use np.where(mask, scores, -np.inf).",
             mask_mode="times_neg_inf"),
    _variant("mask_ignored", "15", "The output equals attention without the mask: the masking "
             "result is discarded (e.g. np.where or masked_fill without assigning the result).",
             mask_mode="ignored"),
    _variant("mask_on_query_axis", "23", "The mask is applied along the query axis (transposed): "
             "mask[..., i, j] says whether query i may attend to key j, so it must block scores "
             "column-wise for padding.", mask_mode="transposed"),
    _variant("blends_keys", "", "The output blends the keys, not the values: multiply the weights "
             "by V.", blend_keys=True),
    _variant("scores_transposed", "", "The scores are computed as K Q^T (transposed) instead of "
             "Q K^T: scores[..., i, j] must be q_i . k_j, shape (..., Lq, Lk), i.e. "
             "Q @ np.swapaxes(K, -1, -2).", scores_transposed=True),
    Variant(kind="returns_weights_first", strict_return=True, fn=_weights_first,
            message="You return (weights, output): return (output, weights) in that order, the "
                    "output (..., Lq, d_v) first and the weights (..., Lq, Lk) second."),
    Variant(kind="returns_weights_only", strict_return=True, fn=_weights_only,
            message="You return the attention weights (..., Lq, Lk) instead of the output: "
                    "return weights @ V, shape (..., Lq, d_v), or the tuple (output, weights)."),
    _variant("k_transpose_all_axes", "", "K.T reverses every axis of a batched array, mixing the "
             "batch into the scores: transpose only the last two axes with np.swapaxes(K, -1, -2).",
             k_dot_t=True),
]

RULES = [
    Rule(kind="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
    Rule(kind="assumes_lq_equals_lk", bug="22", explains=crashes_only_with("cross"),
         message="Your code fails exactly when the query and key lengths differ (Lq != Lk, as in "
                 "cross-attention): take Lk from K.shape[-2], not from Q."),
    Rule(kind="fails_with_mask", explains=crashes_only_with("masked"),
         message="Your code fails whenever a mask is given: the mask is boolean, broadcastable to "
                 "(..., Lq, Lk); use np.where(mask, scores, -np.inf)."),
    Rule(kind="fails_with_batch_axes", explains=crashes_only_with("batched"),
         message="Your code fails whenever the inputs have leading batch axes: write it for "
                 "(..., L, d) arrays (matmul broadcasts; transpose with np.swapaxes(K, -1, -2))."),
]


def describe(case: Case, values: list) -> str | None:
    """Signals of the first call of a failing case: the returned weights (or the output, when
    V is the identity and the output therefore is the weights), else the output's NaN share."""
    args = case.calls[0][0]
    Q, K, V = args[:3]
    mask = args[3] if len(args) > 3 else None
    out, weights = split_return(values[0])
    is_identity = (V.shape[-1] == V.shape[-2]
                   and np.array_equal(np.asarray(V), np.broadcast_to(np.eye(V.shape[-1]), V.shape)))
    if weights is None and is_identity:
        weights = out
    found = weight_signals(weights, mask) if weights is not None else []
    return "; ".join(found or output_signals(out)) or None


PROBLEM = CodeProblem(
    id="scaled_dot_product_attention", function=FUNCTION,
    title="Scaled dot-product attention", contract=CONTRACT, starter=STARTER,
    categories=CATEGORIES, visible_cases=visible_cases, hidden_cases=hidden_cases,
    variants=VARIANTS, rules=RULES, describe=describe,
    reference=reference.attention,
)
