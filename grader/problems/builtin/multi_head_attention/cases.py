"""The cases of ``multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None)``, each
with the constructor that draws it. Every draw has the condition its case is named after
(asserted when it is drawn; grader/problems/conditions.py): the scaling cases have several heads
(so sqrt(d_head) != sqrt(d_model)) and a d_head that is not a perfect square, masks block and
allow positions in every row, a (B, L, L) or (B, 1, L) mask has B != H (so a mask without a head
axis cannot broadcast by accident), the equivariance permutation moves every position.
"""
from __future__ import annotations

import math

import numpy as np

from grader.problems import conditions, reference
from grader.problems.conditions import require
from grader.problems.base import Rule
from grader.problems.rules import crashes_only_with
from grader.problems.spec import Inputs, draw, example, hidden, inputs


def call(X, Ws, num_heads, mask=None) -> tuple[tuple, dict]:
    """The call ``f(X, W_q, W_k, W_v, W_o, num_heads[, mask])``."""
    args = (X, *Ws, int(num_heads))
    return (args if mask is None else args + (mask,)), {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``multihead`` or ``no-multihead``, ``batched`` or ``unbatched`` (X is (L, d_model)),
    ``masked``, ``batch-mask`` (a 3-D mask), ``mask-2d``."""
    X, num_heads = args[0], args[5]
    mask = args[6] if len(args) > 6 else None
    found = {"multihead" if num_heads > 1 else "no-multihead"}
    found.add("batched" if X.ndim > 2 else "unbatched")
    if mask is not None:
        found.add("masked")
        if np.ndim(mask) == 3:
            found.add("batch-mask")
        if np.ndim(mask) == 2:
            found.add("mask-2d")
    return frozenset(found)


def rows(args: tuple, kwargs: dict) -> np.ndarray | None:
    """The checked positions (..., L): those whose mask allows some position (None: no mask)."""
    X = args[0]
    mask = args[6] if len(args) > 6 else None
    if mask is None:
        return None
    return np.broadcast_to(np.asarray(mask, bool), X.shape[:-1] + (X.shape[-2],)).any(-1)


def weights(rng, d_model, dtype=np.float64):
    """Four (d_model, d_model) matrices with entries N(0, 1/d_model) clipped at 3 standard
    deviations, so scores stay O(1)."""
    return [(conditions.bounded(rng, d_model, d_model) / np.sqrt(d_model)).astype(dtype)
            for _ in range(4)]


def attention_inputs(rng, shape, num_heads, dtype=np.float64) -> Inputs:
    """X of ``shape`` (bounded), W matrices of :func:`weights`, ``num_heads`` heads."""
    X = conditions.bounded(rng, *shape, dtype=dtype)
    Ws = weights(rng, shape[-1], dtype)
    require(all(a.dtype == np.dtype(dtype) for a in (X, *Ws)), f"{np.dtype(dtype)} arrays")
    return inputs(call(X, Ws, num_heads))


def several_heads(rng, shape, num_heads) -> Inputs:
    """A value case with H > 1 heads: d_head != d_model, and the heads' split and merge matter."""
    require(num_heads > 1, "several heads")
    return attention_inputs(rng, shape, num_heads)


def scaling(rng, shape, num_heads) -> Inputs:
    """Several heads, d_head not a perfect square, and each common wrong scale (1/sqrt(d_model),
    1/d_head, none, an integer square root of d_head) moves some output entry by at least 0.01
    (1000 times the tolerance; with O(1) scores over 5 or 6 positions the smallest such move
    seen over 1000 draws is 0.15)."""
    found = several_heads(rng, shape, num_heads)
    X, *Ws = found.calls[0][0][:5]
    d_model = X.shape[-1]
    d_head = d_model // num_heads
    require(math.isqrt(d_head) ** 2 != d_head, "a d_head not a perfect square")
    out, _ = reference.multi_head_attention(X, *Ws, num_heads)
    for what, scale in (("1/sqrt(d_model)", 1 / np.sqrt(d_model)), ("1/d_head", 1 / d_head),
                        ("1", 1.0), ("1/isqrt(d_head)", 1 / math.isqrt(d_head)),
                        ("1/round(sqrt(d_head))", 1 / round(np.sqrt(d_head)))):
        other, _ = reference.multi_head_attention(X, *Ws, num_heads, scale=scale)
        require(np.abs(other - out).max() >= 0.01, f"an output that changes with the scale {what}")
    return found


def masking(rng, shape, num_heads, mask) -> Inputs:
    """A mask of kind ``mask``: ``"causal"`` (L, L), ``"padding"`` (B, 1, L: lengths 2 .. L-1)
    or ``"per_example"`` (B, L, L, mixed). Every row of the mask allows at least one position and
    blocks at least one, except the last row of a causal mask, which allows every position. A mask
    with a batch axis has B != H, so a mask used without a head axis fails to broadcast instead
    of silently pairing examples with heads."""
    X = conditions.bounded(rng, *shape)
    Ws = weights(rng, shape[-1])
    B, L = shape[0], shape[-2]
    open_rows = None
    if mask == "causal":
        mask, open_rows = reference.causal_mask(L), np.arange(L) == L - 1
    elif mask == "padding":
        mask = (np.arange(L)[None, :] < rng.integers(2, L, size=B)[:, None])[:, None, :]
    else:
        mask = conditions.mixed_mask(rng, (B, L, L))
    scores = X.shape[:-1] + (L,)
    full = np.broadcast_to(np.asarray(mask, dtype=bool), scores)
    skip = np.zeros(scores[:-1], dtype=bool)
    if open_rows is not None:
        skip |= np.broadcast_to(open_rows, scores[:-1])
        require(bool(np.array_equal(skip, full.all(axis=-1))),
                "rows that allow every position exactly where intended")
    require(conditions.rows_mixed(full, skip=skip),
            "a mask that blocks and allows positions in every row")
    if np.ndim(mask) == 3:
        require(np.shape(mask)[0] != num_heads, "a batch size other than H")
    return inputs(call(X, Ws, num_heads, mask))


def equivariance(rng, batch=(2,)) -> Inputs:
    """f(P X) == P f(X) for a permutation P of the positions (no mask): self-attention without
    positional information is permutation-equivariant. P moves every position (a random cycle).
    ``batch``: the leading axes of X, () for none."""
    X, Ws = conditions.bounded(rng, *batch, 7, 12), weights(rng, 12)
    p = conditions.derangement(rng, 7)
    require(conditions.moves_every_position(p), "a permutation that moves every position")
    return inputs(call(X, Ws, 3), call(X[..., p, :], Ws, 3), perm=p)


def unmodified(rng, batch=(2,)) -> Inputs:
    """X, the W matrices and a causal mask (the inputs-not-modified test)."""
    X = conditions.bounded(rng, *batch, 5, 8)
    return inputs(call(X, weights(rng, 8), 2, reference.causal_mask(5)))


def _examples() -> tuple:
    """Two fixed examples (inputs rounded to one decimal)."""
    rng = np.random.default_rng(20240602)
    r = lambda *s: np.round(rng.standard_normal(s) * 0.5, 1)  # noqa: E731
    first = call(r(3, 4), [r(4, 4) for _ in range(4)], 2)
    second = call(r(3, 2), [r(2, 2) for _ in range(4)], 1, reference.causal_mask(3))
    return (example("example: L=3, d_model=4, 2 heads", "heads", first, **_AVERAGED),
            example("example: causal mask, L=3, d_model=2, 1 head", "masking", second,
                    **_AVERAGED))


#: Weights averaged over the heads (PyTorch's default) are accepted too.
_AVERAGED = {"alternative_weights": "head_mean"}


def _case(name, category, construct, check="values", traits=(), **params):
    return hidden(name, category, draw(construct, **params), check=check, traits=traits,
                  **_AVERAGED)


CASES = _examples() + (
    _case("shapes: batch of 3, L=5, d_model=24, 4 heads", "shapes", attention_inputs,
          check="shapes", shape=(3, 5, 24), num_heads=4),
    _case("shapes: no batch axis, 3 heads", "shapes", attention_inputs, check="shapes",
          shape=(7, 18), num_heads=3),
    _case("scaling: 4 heads of d_head 6 (not sqrt(d_model))", "scaling", scaling,
          shape=(2, 5, 24), num_heads=4),
    _case("scaling: 2 heads of d_head 7", "scaling", scaling, shape=(2, 6, 14), num_heads=2),
    _case("scaling: 3 heads of d_head 5 without a batch axis", "scaling", scaling, shape=(6, 15),
          num_heads=3),
    _case("heads: a single head (H = 1)", "heads", attention_inputs, shape=(2, 5, 8),
          num_heads=1),
    _case("heads: 4 heads with a batch axis", "heads", several_heads, shape=(3, 6, 16),
          num_heads=4),
    _case("heads: 3 heads without a batch axis", "heads", several_heads, shape=(7, 12),
          num_heads=3),
    _case("heads: as many heads as features (d_head = 1)", "heads", several_heads,
          shape=(2, 4, 6), num_heads=6),
    _case("projections: distinct W_q, W_k, W_v, W_o", "projections", attention_inputs,
          shape=(2, 5, 12), num_heads=2),
    _case("projections: W_o applied to the concatenated heads", "projections", attention_inputs,
          shape=(3, 4, 10), num_heads=5),
    _case("projections: distinct W_q, W_k, W_v, W_o without a batch axis", "projections",
          attention_inputs, shape=(6, 12), num_heads=2),
    _case("masking: causal mask (L, L)", "masking", masking, shape=(3, 6, 12), num_heads=3,
          mask="causal"),
    _case("masking: per-example mask (B, L, L)", "masking", masking, shape=(3, 6, 8),
          num_heads=2, mask="per_example"),
    _case("masking: key padding mask (B, 1, L)", "masking", masking, shape=(3, 6, 8),
          num_heads=4, mask="padding"),
    _case("masking: causal mask (L, L) without a batch axis", "masking", masking, shape=(6, 12),
          num_heads=3, mask="causal"),
    hidden("properties: permutation equivariance", "properties", draw(equivariance),
           check="relation", relation="permuted_rows", what="permutation equivariance"),
    hidden("properties: permutation equivariance without a batch axis", "properties",
           draw(equivariance, batch=()), check="relation", relation="permuted_rows",
           what="permutation equivariance"),
    # degenerate: with one position every weight is 1, so uniform weights pass it too
    _case("properties: a sequence of length 1", "properties", attention_inputs, shape=(3, 1, 8),
          num_heads=2, traits={"degenerate"}),
    _case("dtypes: float32 inputs", "dtypes", attention_inputs, shape=(2, 5, 12), num_heads=3,
          dtype=np.float32),
    _case("dtypes: float32 inputs without a batch axis", "dtypes", attention_inputs,
          shape=(5, 12), num_heads=3, dtype=np.float32),
    hidden("inputs: X, the W matrices and the mask are not modified in place", "inputs",
           draw(unmodified), check="inputs"),
    hidden("inputs: X, the W matrices and the mask are not modified in place, no batch axis",
           "inputs", draw(unmodified, batch=()), check="inputs"),
)


#: Cross-case rules that read the ranks of the cases (beside ``mistakes.RULES``): code that runs
#: only when the inputs have a batch axis ("works only without a batch axis" is
#: ``fails_with_batch_axes``).
RULES = (
    Rule(tag="fails_without_batch_axis", explains=crashes_only_with("unbatched"),
         message=('Your code works only with a batch axis: it fails whenever X is an (L, d_model) array '
                  'without one. Write it for (..., L, d_model) arrays: split and merge the heads on the '
                  'last axes (reshape(*X.shape[:-1], H, d_head), np.swapaxes(..., -2, -3)).')),
)
