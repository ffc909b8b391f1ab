"""The cases of ``transformer_encoder_block(x, params, mask=None)``, each with the constructor
that draws it.

Every draw: x with offsets and a spread per position (not normalised, so adding LN1(x) instead of
x shows), weights N(0, 1 / d_in) (activations of order 1), layer-norm gains of magnitude 0.5 to
1.5 (random signs) and shifts bounded normal, ln1's and ln2's parameters differing by at least
0.5 somewhere, d_ff != d_model. Outside the ``heads`` category num_heads = 1, where d_head =
d_model, so scaling by sqrt(d_model) instead of sqrt(d_head) costs the heads points only; the
heads cases have 2 to 4 heads. Masks allow
every position itself (no query row is fully blocked) and block something in some row. The
property case: permuting the positions of x (no mask) permutes the output's rows the same way,
judged on the learner's own outputs.
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions
from grader.problems.conditions import require
from grader.problems.spec import Inputs, draw, example, hidden, inputs


def call(x, params, mask=None) -> tuple[tuple, dict]:
    """The call ``f(x, params)`` or ``f(x, params, mask)``."""
    return ((x, params) if mask is None else (x, params, mask)), {}


def traits(args: tuple, kwargs: dict) -> frozenset[str]:
    """``masked`` (a mask is given), ``batched`` (a leading axis)."""
    found = {"masked"} if len(args) > 2 and args[2] is not None else set()
    if np.ndim(args[0]) > 2:
        found.add("batched")
    return frozenset(found)


def block_params(rng, d_model, num_heads, d_ff, dtype=np.float64) -> dict:
    """The parameters of the module docstring."""
    require(d_model % num_heads == 0, "num_heads dividing d_model")
    require(d_ff != d_model, "d_ff != d_model")

    def weight(d_in, d_out):
        return (conditions.bounded(rng, d_in, d_out) / np.sqrt(d_in)).astype(dtype)

    p = {"W_q": weight(d_model, d_model), "W_k": weight(d_model, d_model),
         "W_v": weight(d_model, d_model), "W_o": weight(d_model, d_model),
         "num_heads": int(num_heads)}
    for norm in ("ln1", "ln2"):
        p[f"{norm}_gamma"] = conditions.away_from_zero(rng, d_model).astype(dtype)
        p[f"{norm}_beta"] = (0.5 * conditions.bounded(rng, d_model)).astype(dtype)
    require(bool(np.abs(p["ln1_gamma"] - p["ln2_gamma"]).max() >= 0.5),
            "layer norms whose parameters differ")
    p.update(W_1=weight(d_model, d_ff), b_1=(0.2 * conditions.bounded(rng, d_ff)).astype(dtype),
             W_2=weight(d_ff, d_model),
             b_2=(0.2 * conditions.bounded(rng, d_model)).astype(dtype))
    return p


def embeddings(rng, batch, L, d_model, dtype=np.float64) -> np.ndarray:
    """x (*batch, L, d_model): each position an offset in [-2, 2] plus a spread in [1, 3]."""
    offsets = rng.uniform(-2.0, 2.0, (*batch, L, 1))
    spread = rng.uniform(1.0, 3.0, (*batch, L, 1))
    return (offsets + spread * conditions.bounded(rng, *batch, L, d_model)).astype(dtype)


def _mask(rng, kind, batch, L) -> np.ndarray | None:
    """``"causal"`` (L, L); ``"padding"`` (B, 1, L) keeping the first 2 to L - 1 positions,
    plus the diagonal (B, L, L) so padded queries still see themselves."""
    if kind is None:
        return None
    if kind == "causal":
        return np.tril(np.ones((L, L), dtype=bool))
    kept = rng.integers(2, L, batch[0])
    keys = np.arange(L)[None, None, :] < kept[:, None, None]
    return keys | np.eye(L, dtype=bool)[None]


def block(rng, batch=(), L=5, d_model=8, num_heads=1, d_ff=12, mask=None,
          dtype=np.float64) -> Inputs:
    """x of :func:`embeddings`, params of :func:`block_params`, a ``mask`` of :func:`_mask`."""
    batch = tuple(batch)
    x = embeddings(rng, batch, L, d_model, dtype)
    params = block_params(rng, d_model, num_heads, d_ff, dtype)
    found = _mask(rng, mask, batch, L)
    if found is not None:
        full = np.broadcast_to(found, (*batch, L, L))
        require(bool(full.any(axis=-1).all() and (~full).any()),
                "a mask that allows some key in every row and blocks some key")
    return inputs(call(x, params, found))


def permuted(rng, L=6, d_model=8, num_heads=4, d_ff=16) -> Inputs:
    """Two calls: x (L, d_model), then x with its positions permuted (a derangement)."""
    x = embeddings(rng, (), L, d_model)
    params = block_params(rng, d_model, num_heads, d_ff)
    perm = conditions.derangement(rng, L)
    require(conditions.moves_every_position(perm), "a permutation that moves every position")
    return inputs(call(x, params), call(x[perm], params), perm=perm)


def _example() -> tuple[tuple, dict]:
    """L = 3, d_model = 4, one head, d_ff = 6, from a fixed generator (rounded to 2
    decimals)."""
    rng = np.random.default_rng(24)
    params = {k: (np.round(v, 2) if isinstance(v, np.ndarray) else v)
              for k, v in block_params(rng, 4, 1, 6).items()}
    return call(np.round(embeddings(rng, (), 3, 4), 2), params)


CASES = (
    example("example: L=3, d_model=4, 1 head, d_ff=6, no mask", "values", _example()),
    hidden("shapes: a batch axis, 2 heads", "shapes", draw(block, batch=(2,), L=4, num_heads=2),
           check="shapes"),
    hidden("values: one sequence (1 head)", "values", draw(block, L=5, d_model=8)),
    hidden("values: a batch axis, d_ff 20 (1 head)", "values",
           draw(block, batch=(2,), L=4, d_model=8, d_ff=20)),
    hidden("values: d_model 12, d_ff 8 (1 head)", "values",
           draw(block, batch=(2,), L=3, d_model=12, d_ff=8)),
    hidden("heads: 2 heads of 4", "heads", draw(block, batch=(2,), L=5, d_model=8,
                                                   num_heads=2)),
    hidden("heads: 3 heads of 4", "heads", draw(block, L=4, d_model=12, num_heads=3, d_ff=8)),
    hidden("heads: 4 heads of 2, causal mask", "heads",
           draw(block, batch=(2,), L=4, d_model=8, num_heads=4, d_ff=16, mask="causal"),
           traits=("mask-elsewhere",)),
    hidden("masking: a causal mask (L, L) (1 head)", "masking",
           draw(block, batch=(2,), L=5, mask="causal")),
    hidden("masking: padded keys, a mask per example (B, L, L) (1 head)", "masking",
           draw(block, batch=(3,), L=5, d_model=6, d_ff=10, mask="padding")),
    hidden("properties: permuting the positions permutes the output", "properties",
           draw(permuted), check="relation", relation="permuted_rows",
           what="permutation equivariance"),
    hidden("dtypes: float32 inputs (1 head)", "dtypes",
           draw(block, batch=(2,), L=4, dtype=np.float32)),
    hidden("inputs: x, params and the mask are not modified in place", "inputs",
           draw(block, batch=(2,), L=4, mask="causal"), check="inputs"),
)
