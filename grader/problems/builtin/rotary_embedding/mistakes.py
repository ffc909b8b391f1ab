"""The mistakes ``rotary_embedding`` is checked for, as toggles of one buggy implementation
(:func:`buggy_rotary`), and its cross-case rules. Seen in public RoPE code and its bug reports:
the two pair layouts mixed up (GPT-J's interleaved pairs against GPT-NeoX / LLaMA's halves, the
source of the Hugging Face LLaMA checkpoint permutation), ``cat((freqs, freqs))`` frequencies used
with interleaved pairs, the exponent written with the pair index ``i / d`` instead of ``2i / d``
or with the wrong sign, the rotation applied clockwise (``x2 * sin`` added instead of subtracted),
cos and sin swapped, the given positions ignored (the classic KV-cache offset bug), positions
counted from 1, and the sequence length read off the wrong axis."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs
from grader.problems.base import Rule
from grader.problems.rules import crashes_only_with, failed_in_category
from grader.problems.spec import mistake


def buggy_rotary(x, positions=None, *, layout="interleaved", frequencies=None,
                 exponent="2i", clockwise=False, swap=False, ignore_positions=False,
                 first=0):
    """Rotary embedding with optional mistakes, in the input's floating dtype (at least float32):
    ``layout`` ``"interleaved"`` pairs x[2i] with x[2i+1], ``"halves"`` x[i] with x[i + d/2];
    ``frequencies`` gives each column an angle: ``"repeated"`` (column j gets pair j // 2,
    ``np.repeat(freqs, 2)``: right for interleaved pairs) or ``"tiled"`` (pair j mod d/2,
    ``np.concatenate([freqs, freqs])``: right for halves), default the layout's own;
    ``exponent`` ``"i"`` (base ** (-i / d)) or ``"+2i"`` (sign inverted); ``clockwise`` rotates
    by minus the angle; ``swap`` exchanges cos and sin; ``ignore_positions`` always uses
    0 .. L-1; ``first`` counts positions from it."""
    x = np.asarray(x)
    dtype = np.result_type(x.dtype, np.float32)
    x = x.astype(dtype)
    L, d = x.shape[-2], x.shape[-1]
    pos = np.arange(L) if positions is None or ignore_positions else np.asarray(positions)
    pos = pos.astype(np.float64) + first
    index = np.arange(d // 2, dtype=np.float64)
    power = {"2i": -2 * index / d, "i": -index / d, "+2i": 2 * index / d}[exponent]
    angle = pos[:, None] * 10000.0 ** power[None, :]
    frequencies = frequencies or ("repeated" if layout == "interleaved" else "tiled")
    angle = np.repeat(angle, 2, axis=-1) if frequencies == "repeated" else \
        np.concatenate([angle, angle], axis=-1)
    cos, sin = np.cos(angle).astype(dtype), np.sin(angle).astype(dtype)
    if swap:
        cos, sin = sin, cos
    if clockwise:
        sin = -sin
    if layout == "halves":
        turned = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1)
    else:
        turned = np.empty_like(x)
        turned[..., 0::2], turned[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return x * cos + turned * sin


def _layout_mistakes(layout: str) -> tuple:
    """The two layout mistakes of a problem whose pairs are ``layout``."""
    if layout == "halves":
        return (
            mistake("interleaved_layout", "The pairs are interleaved (x[2i] with x[2i+1], the "
                    "RoFormer / GPT-J layout): this problem rotates the two halves, x[i] with "
                    "x[i + d/2] (GPT-NeoX / LLaMA's rotate_half).", {"layout": "interleaved"}),
            mistake("repeated_frequencies", "The angles are repeated (np.repeat(freqs, 2), the "
                    "interleaved layout's cos/sin) while the pairs are halves, so the two entries "
                    "of a pair turn by different angles: tile them, "
                    "np.concatenate([freqs, freqs]), so x[i] and x[i + d/2] share angle i.",
                    {"frequencies": "repeated"}))
    return (
        mistake("halves_layout", "The pairs are taken as two halves (x[i] with x[i + d/2], the "
                "GPT-NeoX / LLaMA layout): this problem rotates interleaved pairs "
                "(x[2i], x[2i+1]), as RoFormer does.", {"layout": "halves"}),
        mistake("tiled_frequencies", "The angles are tiled (np.concatenate([freqs, freqs]), the "
                "halves layout's cos/sin) while the pairs are interleaved, so the two entries of "
                "a pair turn by different angles: repeat each pair's angle (np.repeat(freqs, 2)) "
                "so x[2i] and x[2i+1] share angle i.", {"frequencies": "tiled"}))


def mistakes_for(layout: str = "interleaved") -> tuple:
    """The mistakes of the problem whose pairs are ``layout`` (``"interleaved"`` or
    ``"halves"``): the other layout is a mistake, and so are that layout's frequencies."""
    return _layout_mistakes(layout) + COMMON


COMMON = (
    mistake("pair_index_exponent", "The frequencies use base ** (-i / d) with the pair index i: "
            "the exponent is -2i / d (RoFormer: theta_i = 10000 ** (-2i / d)), i.e. "
            "10000 ** (-np.arange(0, d, 2) / d).", {"exponent": "i"}),
    mistake("exponent_sign_inverted", "The exponent's sign is inverted (positions are multiplied "
            "by 10000 ** (2i / d)): the frequencies must decrease along the pairs, "
            "theta_i = 10000 ** (-2i / d).", {"exponent": "+2i"}),
    mistake("rotates_clockwise", "Each pair is rotated by minus the angle: the rotation is "
            "(a cos - b sin, a sin + b cos) for the pair (a, b), not (a cos + b sin, "
            "-a sin + b cos).", {"clockwise": True}),
    mistake("sin_cos_swapped", "cos and sin are swapped: the pair (a, b) at angle t becomes "
            "(a cos t - b sin t, a sin t + b cos t), so position 0 leaves x unchanged.",
            {"swap": True}),
    mistake("ignores_positions", "The positions argument is ignored (0 .. L-1 is always used): "
            "when positions are given, rotate row p by the angle of positions[p] (a decoding "
            "step's query sits at its offset in the sequence, not at 0).",
            {"ignore_positions": True}, needs=("positions",)),
    mistake("positions_from_one", "Positions are counted from 1: the default positions are "
            "0 .. L-1, and a given position p rotates by p * theta_i, so position 0 leaves x "
            "unchanged.", {"first": 1}),
)

MISTAKES = mistakes_for("interleaved")

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
    Rule(tag="fails_with_batch_axes", explains=crashes_only_with("batched"),
         message="Your code fails whenever x has leading batch axes: the sequence length is "
                 "x.shape[-2] and the features x.shape[-1]; index the features with x[..., ...] "
                 "(e.g. x[..., 0::2]) so any leading axes broadcast."),
)
