"""Problem ``multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None)``.

Categories: ``shapes``, ``scaling`` (sqrt(d_head), with several heads so sqrt(d_model) differs),
``heads`` (split into contiguous blocks and merged back; one case with a single head, which the
"right with one head, wrong with several" rule compares against), ``projections`` (each W used as
``X @ W``, W_o applied), ``masking`` (causal (L, L), per-example (B, L, L), key padding (B, 1, L)),
``properties`` (permutation equivariance without a mask, judged on the learner's own outputs;
length 1), ``dtypes`` (float32).
Mistakes: attention-bugs.md entries 3, 18-21 (and the scaling, softmax and masking entries inherited
from scaled dot-product attention), recognised by refitting :func:`buggy_mha` and by the
single-head rule.
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from grader.problems import checks, conditions, inputs, reference
from grader.problems.attention_variants import buggy_attention, working_dtype
from grader.problems.base import CREDIT_NOTE, Case, CodeProblem, Rule, Variant
from grader.problems.compare import split_return
from grader.problems.rules import crashes_only_with, failed_in_category, fails_only_with_any
from grader.problems.signals import output_signals, weight_signals

FUNCTION = "multi_head_attention"

CONTRACT = """\
def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None)

X: (..., L, d_model) (leading batch axes optional); W_q, W_k, W_v, W_o: (d_model, d_model), each
used as X @ W (W shaped (d_in, d_out)); num_heads: an int H dividing d_model.
Project Q = X @ W_q, K = X @ W_k, V = X @ W_v; split each into H heads of d_head = d_model / H
features: head h takes the contiguous block of features [h * d_head, (h + 1) * d_head) (reshape to
(..., L, H, d_head), then move H before L). In every head compute
softmax(Q_h K_h^T / sqrt(d_head)) V_h over the key axis; concatenate the heads back in order to
(..., L, d_model) and return concat @ W_o, shape (..., L, d_model).
mask: None, or a boolean array broadcastable to (..., L, L), True where position i MAY attend to
position j, shared by all heads (shapes (L, L), (B, L, L) and (B, 1, L) occur).
Returning (output, weights) is accepted, with weights (..., H, L, L) or averaged over the heads
(..., L, L) as PyTorch returns them; returned weights are checked too.
Do not modify the inputs. Use NumPy only. Outputs are compared in float64 with rtol 1e-4,
atol 1e-5; the dtype is not judged.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """X (..., L, d_model); W_* (d_model, d_model) used as X @ W; returns (..., L, d_model)."""
    raise NotImplementedError
'''

CATEGORIES = {"shapes": 1.0, "scaling": 1.5, "heads": 2.0, "projections": 1.5, "masking": 1.5,
              "properties": 1.5, "dtypes": 0.5, "inputs": 0.5}


def _weights(rng, d_model, dtype=np.float64):
    """Four (d_model, d_model) matrices with entries N(0, 1/d_model) clipped at 3 standard
    deviations, so scores stay O(1)."""
    return [(conditions.bounded(rng, d_model, d_model) / np.sqrt(d_model)).astype(dtype)
            for _ in range(4)]


def _traits(X, num_heads, mask) -> frozenset[str]:
    traits = {"multihead" if num_heads > 1 else "no-multihead"}
    if X.ndim > 2:
        traits.add("batched")
    if mask is not None:
        traits.add("masked")
        if np.ndim(mask) == 3:
            traits.add("batch-mask")
        if np.ndim(mask) == 2:
            traits.add("mask-2d")
    return frozenset(traits)


def _args(X, Ws, num_heads, mask):
    args = (X, *Ws, int(num_heads))
    return (args if mask is None else args + (mask,)), {}


def value_case(name: str, category: str, X, Ws, num_heads: int, mask=None,
               visible: bool = False) -> Case:
    out, weights = reference.multi_head_attention(X, *Ws, num_heads, mask)
    rows = None
    if mask is not None:
        rows = np.broadcast_to(np.asarray(mask, bool), out.shape[:-1] + (X.shape[-2],)).any(-1)
    averaged = weights.mean(axis=-3)
    case = Case(name=name, category=category, calls=[_args(X, Ws, num_heads, mask)],
                check=checks.values([(out, weights)], [rows], alternative_weights=[averaged]),
                rows=[rows],
                traits=_traits(X, num_heads, mask), visible=visible)
    if visible:
        case.public = {"inputs": {"X": np.asarray(X).tolist(),
                                  **{k: np.asarray(w).tolist()
                                     for k, w in zip(("W_q", "W_k", "W_v", "W_o"), Ws)},
                                  "num_heads": num_heads,
                                  **({} if mask is None else {"mask": np.asarray(mask).tolist()})},
                       "expected_output": np.round(out, 6).tolist()}
    return case


def visible_cases() -> list[Case]:
    rng = np.random.default_rng(20240602)
    r = lambda *s: np.round(rng.standard_normal(s) * 0.5, 1)  # noqa: E731
    return [
        value_case("example: L=3, d_model=4, 2 heads", "heads", r(3, 4),
                   [r(4, 4) for _ in range(4)], 2, visible=True),
        value_case("example: causal mask, L=3, d_model=2, 1 head", "masking", r(3, 2),
                   [r(2, 2) for _ in range(4)], 1, reference.causal_mask(3), visible=True),
    ]


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    """The hidden cases for one submission, drawn from ``rng``. Each draw has the condition its
    case is named after (asserted when the case is built; grader/problems/conditions.py): the
    scaling cases have several heads (so sqrt(d_head) != sqrt(d_model)), masks block and allow
    positions in every row, a (B, L, L) or (B, 1, L) mask has B != H (so a mask without a head
    axis cannot broadcast by accident), the equivariance permutation moves every position."""
    n = lambda *s, dtype=np.float64: conditions.bounded(rng, *s, dtype=dtype)  # noqa: E731
    W = partial(_weights, rng)
    cases = [
        _shape_case("shapes: batch of 3, L=5, d_model=24, 4 heads", n(3, 5, 24), W(24), 4),
        _shape_case("shapes: no batch axis, 3 heads", n(7, 18), W(18), 3),
        _scaling_case("scaling: 4 heads of d_head 6 (not sqrt(d_model))", n(2, 5, 24), W(24), 4),
        _scaling_case("scaling: 2 heads of d_head 7", n(2, 6, 14), W(14), 2),
        _single_head_case("heads: a single head (H = 1)", n(2, 5, 8), W(8)),
        _several_heads_case("heads: 4 heads with a batch axis", "heads", n(3, 6, 16), W(16), 4),
        _several_heads_case("heads: 3 heads without a batch axis", "heads", n(7, 12), W(12), 3),
        _several_heads_case("heads: as many heads as features (d_head = 1)", "heads",
                            n(2, 4, 6), W(6), 6),
        value_case("projections: distinct W_q, W_k, W_v, W_o", "projections", n(2, 5, 12),
                   W(12), 2),
        value_case("projections: W_o applied to the concatenated heads", "projections",
                   n(3, 4, 10), W(10), 5),
    ]
    L = 6
    pad = (np.arange(L)[None, :] < rng.integers(2, L, size=3)[:, None])[:, None, :]
    cases += [
        _masking_case("masking: causal mask (L, L)", n(3, L, 12), W(12), 3,
                      reference.causal_mask(L), open_rows=np.arange(L) == L - 1),
        _masking_case("masking: per-example mask (B, L, L)", n(3, L, 8), W(8), 2,
                      conditions.mixed_mask(rng, (3, L, L))),
        _masking_case("masking: key padding mask (B, 1, L)", n(3, L, 8), W(8), 4, pad),
    ]
    cases += [_equivariance_case(rng), value_case(
        "properties: a sequence of length 1", "properties", n(3, 1, 8), W(8), 2)]
    name = "dtypes: float32 inputs"
    X, Ws = n(2, 5, 12, dtype=np.float32), W(12, np.float32)
    conditions.require(all(a.dtype == np.float32 for a in (X, *Ws)), name, "float32 arrays")
    cases.append(value_case(name, "dtypes", X, Ws, 3))
    X, mask = n(2, 5, 8), reference.causal_mask(5)
    cases.append(inputs.case("inputs: X, the W matrices and the mask are not modified in place",
                             _args(X, W(8), 2, mask),
                             ("X", "W_q", "W_k", "W_v", "W_o", "mask"), _traits(X, 2, mask)))
    return cases


def _single_head_case(name: str, X, Ws) -> Case:
    return value_case(name, "heads", X, Ws, 1)


def _several_heads_case(name: str, category: str, X, Ws, num_heads: int) -> Case:
    """A value case with H > 1 heads: d_head != d_model, and the heads' split and merge matter."""
    conditions.require(num_heads > 1, name, "several heads")
    return value_case(name, category, X, Ws, num_heads)


def _scaling_case(name: str, X, Ws, num_heads: int) -> Case:
    """Several heads, d_head not a perfect square, and each common wrong scale (1/sqrt(d_model),
    1/d_head, none, an integer square root of d_head) moves some output entry by at least 0.01
    (1000 times the tolerance; with O(1) scores over 5 or 6 positions the smallest such move
    seen over 1000 draws is 0.15)."""
    d_model = X.shape[-1]
    d_head = d_model // num_heads
    conditions.require(math.isqrt(d_head) ** 2 != d_head, name, "a d_head not a perfect square")
    out, _ = reference.multi_head_attention(X, *Ws, num_heads)
    for what, scale in (("1/sqrt(d_model)", 1 / np.sqrt(d_model)), ("1/d_head", 1 / d_head),
                        ("1", 1.0), ("1/isqrt(d_head)", 1 / math.isqrt(d_head)),
                        ("1/round(sqrt(d_head))", 1 / round(np.sqrt(d_head)))):
        other, _ = reference.multi_head_attention(X, *Ws, num_heads, scale=scale)
        conditions.require(np.abs(other - out).max() >= 0.01, name,
                           f"an output that changes with the scale {what}")
    return _several_heads_case(name, "scaling", X, Ws, num_heads)


def _masking_case(name: str, X, Ws, num_heads: int, mask, open_rows=None) -> Case:
    """Every row of the mask allows at least one position and blocks at least one, except the
    ``open_rows`` (the last row of a causal mask), which allow every position. A mask with a batch
    axis has B != H, so a mask used without a head axis fails to broadcast instead of silently
    pairing examples with heads."""
    shape = X.shape[:-1] + (X.shape[-2],)
    full = np.broadcast_to(np.asarray(mask, dtype=bool), shape)
    skip = np.zeros(shape[:-1], dtype=bool)
    if open_rows is not None:
        skip |= np.broadcast_to(open_rows, shape[:-1])
        conditions.require(bool(np.array_equal(skip, full.all(axis=-1))), name,
                           "rows that allow every position exactly where intended")
    conditions.require(conditions.rows_mixed(full, skip=skip), name,
                       "a mask that blocks and allows positions in every row")
    if np.ndim(mask) == 3:
        conditions.require(np.shape(mask)[0] != num_heads, name, "a batch size other than H")
    return value_case(name, "masking", X, Ws, num_heads, mask)


def _shape_case(name: str, X, Ws, num_heads: int) -> Case:
    *batch, L, d_model = X.shape
    shapes = [(tuple(X.shape), (*batch, num_heads, L, L))]
    return Case(name=name, category="shapes", calls=[_args(X, Ws, num_heads, None)],
                check=checks.shapes(shapes, [(*batch, L, L)]), traits=_traits(X, num_heads, None))


def _equivariance_case(rng) -> Case:
    """f(P X) == P f(X) for a permutation P of the positions (no mask): self-attention without
    positional information is permutation-equivariant. P moves every position (a random cycle)."""
    name = "properties: permutation equivariance"
    X, Ws, p = conditions.bounded(rng, 2, 7, 12), _weights(rng, 12), conditions.derangement(rng, 7)
    conditions.require(conditions.moves_every_position(p), name,
                       "a permutation that moves every position")
    return Case(name=name, category="properties",
                calls=[_args(X, Ws, 3, None), _args(X[:, p], Ws, 3, None)],
                check=checks.relation(lambda out: out[..., p, :], "permutation equivariance"),
                traits=_traits(X, 3, None))


def _split(Y, H, mode):
    *batch, L, d = Y.shape
    if mode == "no_transpose":  # reshape straight to (..., H, L, d_head)
        return Y.reshape(*batch, H, L, d // H)
    if mode == "interleaved":  # features split as (d_head, H)
        return np.moveaxis(Y.reshape(*batch, L, d // H, H), -1, -3)
    return reference.split_heads(Y, H)


def _merge(Y, mode):
    *batch, H, L, d_head = Y.shape
    if mode == "no_transpose":
        return Y.reshape(*batch, L, H * d_head)
    if mode == "interleaved":
        return np.moveaxis(Y, -3, -1).reshape(*batch, L, d_head * H)
    return reference.merge_heads(Y)


def buggy_mha(X, W_q, W_k, W_v, W_o, num_heads, mask=None, *, split="contiguous",
              merge="contiguous", scale="d_head", transpose_w=False, skip_w_o=False,
              v_from_w_q=False, mask_head_axis=True, **attention_bugs):
    """Multi-head attention with optional mistakes; returns (output, weights).

    ``split``/``merge``: ``contiguous`` (correct), ``no_transpose`` or ``interleaved``; ``scale``:
    ``d_head`` (correct), ``d_model`` (1/sqrt(d_model)), ``by_d_head`` (1/d_head), ``none``,
    ``isqrt`` (1/math.isqrt(d_head)), ``round_sqrt`` (1/round(sqrt(d_head)));
    ``transpose_w`` uses every W transposed; ``skip_w_o`` leaves W_o out; ``v_from_w_q`` projects V
    with W_q; ``mask_head_axis=False`` passes the mask to the heads without a head axis;
    ``attention_bugs`` go to :func:`buggy_attention` (softmax axis, mask handling...).
    """
    dtype = working_dtype(X, W_q, W_k, W_v, W_o)
    X = np.asarray(X, dtype=dtype)
    Ws = [np.asarray(w, dtype=dtype) for w in (W_q, W_k, W_v, W_o)]
    if transpose_w:
        Ws = [w.T for w in Ws]
    W_q, W_k, W_v, W_o = Ws
    H = int(num_heads)
    d_model = X.shape[-1]
    d_head = d_model // H
    scales = {"d_head": 1 / np.sqrt(d_head), "d_model": 1 / np.sqrt(d_model),
              "by_d_head": 1.0 / d_head, "none": 1.0, "isqrt": 1.0 / math.isqrt(d_head),
              "round_sqrt": 1.0 / round(np.sqrt(d_head))}
    heads = [_split(X @ w, H, split) for w in (W_q, W_k, W_q if v_from_w_q else W_v)]
    if mask is not None and mask_head_axis:
        mask = np.expand_dims(np.asarray(mask, dtype=bool), -3)
    out, weights = buggy_attention(*heads, mask, scale=lambda d_k, d_v: scales[scale],
                                   **attention_bugs)
    merged = _merge(out, merge)
    return (merged if skip_w_o else merged @ W_o), weights


def _variant(tag, bug, message, **bug_args) -> Variant:
    def fn(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
        return buggy_mha(X, W_q, W_k, W_v, W_o, num_heads, mask, **bug_args)

    needs = frozenset({"masked"}) if tag.startswith("mask_") else frozenset()
    return Variant(tag=tag, bug=bug, message=message, fn=fn, needs=needs)


VARIANTS = [
    _variant("scale_by_sqrt_d_model", "3", "The scores are scaled by sqrt(d_model) instead of "
             "sqrt(d_head): each head works in d_head = d_model / num_heads dimensions, so divide "
             "by sqrt(d_head).", scale="d_model"),
    _variant("scale_by_d_head", "1", "The scores are divided by d_head instead of sqrt(d_head): "
             "scale by 1/sqrt(d_head) so their variance stays near 1.", scale="by_d_head"),
    _variant("no_scaling", "2", "The scores are not scaled: divide Q_h K_h^T by sqrt(d_head).",
             scale="none"),
    _variant("scale_integer_sqrt", "1", "The scale uses an integer square root of d_head "
             "(math.isqrt(d_head), int(np.sqrt(d_head)) or round(np.sqrt(d_head))), which is "
             "right only when d_head is a perfect square: divide the scores by np.sqrt(d_head), "
             "a float.", scale="isqrt"),
    _variant("scale_integer_sqrt", "1", "The scale uses an integer square root of d_head "
             "(math.isqrt(d_head), int(np.sqrt(d_head)) or round(np.sqrt(d_head))), which is "
             "right only when d_head is a perfect square: divide the scores by np.sqrt(d_head), "
             "a float.", scale="round_sqrt"),
    _variant("split_without_transpose", "18", "The heads were split with a reshape but no "
             "transpose, which mixes positions across heads, so the output is no longer "
             "permutation-equivariant: reshape to (..., L, H, d_head), then swap L and H.",
             split="no_transpose"),
    _variant("merge_without_transpose", "19", "The heads were concatenated back without "
             "transposing, which mixes positions, so the output is no longer "
             "permutation-equivariant: move H back after L (..., L, H, d_head), then reshape to "
             "(..., L, d_model).", merge="no_transpose"),
    _variant("split_and_merge_without_transpose", "18", "The heads were split and merged with "
             "reshapes but no transposes, which mixes positions across heads: reshape to "
             "(..., L, H, d_head) and swap L and H (and back before concatenating).",
             split="no_transpose", merge="no_transpose"),
    _variant("interleaved_heads", "20", "The features were split into heads interleaved "
             "(reshape to (..., d_head, H)) instead of contiguous blocks: head h takes features "
             "h*d_head to (h+1)*d_head - 1, i.e. reshape to (..., L, H, d_head).",
             split="interleaved"),
    _variant("interleaved_heads", "20", "The features were split into heads interleaved "
             "(reshape to (..., d_head, H)) instead of contiguous blocks: head h takes features "
             "h*d_head to (h+1)*d_head - 1, i.e. reshape to (..., L, H, d_head).",
             split="interleaved", merge="interleaved"),
    _variant("weights_transposed", "21", "The projection matrices are used transposed: the "
             "convention here is X @ W with W shaped (d_in, d_out), not W @ X or X @ W.T.",
             transpose_w=True),
    _variant("output_projection_missing", "21", "The output projection W_o is missing: return "
             "concat(heads) @ W_o.", skip_w_o=True),
    _variant("values_projected_with_w_q", "21", "V is projected with W_q: the values are "
             "X @ W_v.", v_from_w_q=True),
    _variant("mask_without_head_axis", "", "The mask is used without a head axis, so a (B, L, L) "
             "mask is matched against the heads instead of the batch: insert the head axis with "
             "mask[..., None, :, :] (np.expand_dims(mask, -3)).", mask_head_axis=False),
    _variant("softmax_query_axis", "5", "The softmax normalised the query axis, so columns of the "
             "weights sum to 1 instead of rows: take the softmax over the last (key) axis.",
             axis=-2),
    _variant("mask_inverted", "11", "The mask polarity is inverted: True means the position MAY "
             "be attended to, so fill the scores where the mask is False.", mask_mode="inverted"),
    _variant("mask_inverted", "11", "The mask polarity is inverted: True means the position MAY "
             "be attended to, so fill the scores where the mask is False.", mask_mode="inverted",
             fill=-1e9),
    _variant("mask_fill_zero", "9", "Blocked positions still receive weight because their scores "
             "are set to 0 (or multiplied by the mask) rather than -inf.", fill=0.0),
    _variant("mask_after_softmax", "8", "The mask is applied after the softmax without "
             "renormalising, so rows sum to less than 1: mask the scores before the softmax.",
             mask_mode="after"),
    _variant("mask_ignored", "15", "The output equals attention without the mask: the masking "
             "result is discarded.", mask_mode="ignored"),
]

RULES = [
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
    Rule(tag="fails_with_2d_mask", explains=crashes_only_with("mask-2d"),
         message="Your code fails with a single (L, L) mask shared by the batch, though masks "
                 "with a batch axis work: a head axis inserted at a fixed position "
                 "(np.expand_dims(mask, 1)) fits only (B, L, L) masks; insert it just before the "
                 "last two axes, np.expand_dims(mask, -3), which fits every mask shape."),
    Rule(tag="fails_with_mask", explains=crashes_only_with("masked", every=True),
         message="Your code fails whenever a mask is given: the mask is boolean, broadcastable to "
                 "(..., L, L) and shared by the heads (insert a head axis before using it)."),
    Rule(tag="fails_with_some_masks", explains=crashes_only_with("masked", every=False),
         message="Your code fails with some mask shapes but not others (the failing tests name "
                 "them): masks may be (L, L), (B, L, L) or (B, 1, L); give the mask a head axis "
                 "with np.expand_dims(mask, -3) and let it broadcast against the scores with "
                 "np.where(mask, scores, -np.inf) instead of indexing with it."),
    Rule(tag="fails_with_batch_axes", explains=crashes_only_with("batched"),
         message="Your code fails when X has a batch axis: write it for (..., L, d_model) arrays "
                 "and transpose only the last axes (np.swapaxes)."),
    Rule(tag="fails_with_several_heads", explains=fails_only_with_any("multihead"),
         message="Your code is right with one head but wrong with several: check that the "
                 "features are split into contiguous blocks of d_head (reshape to "
                 "(..., L, H, d_head), then swap L and H), merged back in the same order, and "
                 "that the scale uses d_head, not d_model."),
]

def describe(case: Case, values: list) -> str | None:
    """Signals of the first call of a failing case: returned weights (..., H, L, L) with the mask
    given a head axis, else the output's NaN share."""
    args = case.calls[0][0]
    mask = args[6] if len(args) > 6 else None
    out, weights = split_return(values[0])
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask, dtype=bool), -3)
    found = weight_signals(weights, mask) if weights is not None else []
    return "; ".join(found or output_signals(out, case.rows_for(0))) or None


PROBLEM = CodeProblem(
    id="multi_head_attention", function=FUNCTION, title="Multi-head self-attention",
    contract=CONTRACT, starter=STARTER, categories=CATEGORIES, visible_cases=visible_cases,
    hidden_cases=hidden_cases, variants=VARIANTS, rules=RULES, describe=describe,
    reference=reference.multi_head_attention,
)
