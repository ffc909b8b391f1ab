"""Problem ``positional_encoding(seq_len, d_model)``: the sinusoidal encoding of Vaswani et al.
(2017), section 3.5, with interleaved columns (sine on even, cosine on odd columns).

Categories: ``shapes``, ``values`` (even d_model), ``odd d_model`` (the last column is a sine),
``long sequences`` (many positions and a wide model, where the frequencies matter most),
``properties`` (row 0 is 0, 1, 0, 1, ...; sin^2 + cos^2 = 1 per pair, judged on the learner's
own output). Mistakes: attention-bugs.md entry 24 (every variant listed there that applies to a
function without a batch axis).
"""
from __future__ import annotations

import numpy as np

from grader.problems import checks, conditions, reference
from grader.problems.base import CREDIT_NOTE, Case, CodeProblem, Rule, Variant
from grader.problems.compare import as_array, mismatch
from grader.problems.rules import crashes_only_with

FUNCTION = "positional_encoding"

CONTRACT = """\
def positional_encoding(seq_len, d_model)

seq_len, d_model: positive ints. Return a float array PE of shape (seq_len, d_model) with
positions counted from 0 and, for each pair index i = 0, 1, ...:
    PE[pos, 2i]     = sin(pos / 10000 ** (2i / d_model))
    PE[pos, 2i + 1] = cos(pos / 10000 ** (2i / d_model))
Sine and cosine columns are interleaved (not two halves). For odd d_model the last column is a
sine. Use NumPy only. Outputs are compared in float64 with rtol 1e-4, atol 1e-4 (float32 is
fine).
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def positional_encoding(seq_len, d_model):
    """Sinusoidal positional encoding, shape (seq_len, d_model)."""
    raise NotImplementedError
'''

# float32 solutions (the PyTorch tutorial's exp/log form) carry about 3e-5 absolute error in the
# angle at positions in the hundreds; every mistake of entry 24 moves values by far more than 1e-4.
ATOL = 1e-4

CATEGORIES = {"shapes": 1.5, "values": 3.0, "odd d_model": 1.5, "long sequences": 2.0,
              "properties": 2.0}


def value_case(name: str, category: str, seq_len: int, d_model: int,
               visible: bool = False) -> Case:
    expected = reference.positional_encoding(seq_len, d_model)
    case = Case(name=name, category=category, calls=[((seq_len, d_model), {})],
                check=checks.values([(expected, None)], atol=ATOL),
                traits=frozenset({"odd"} if d_model % 2 else set()), visible=visible)
    if visible:
        case.public = {"inputs": {"seq_len": seq_len, "d_model": d_model},
                       "expected_output": np.round(expected, 6).tolist()}
    return case


def _row_zero(got: list) -> str | None:
    pe = as_array(got[0])
    if pe is None or pe.ndim != 2:
        return "the output is not a 2-D numeric array"
    expected = np.tile([0.0, 1.0], pe.shape[1] // 2 + 1)[: pe.shape[1]]
    message = mismatch(pe[0], expected, "row for position 0")
    return None if message is None else message


def _pairs_on_unit_circle(got: list) -> str | None:
    pe = as_array(got[0])
    if pe is None or pe.ndim != 2 or pe.shape[1] < 2:
        return "the output is not a 2-D numeric array with at least two columns"
    pairs = pe[:, 0: pe.shape[1] // 2 * 2]
    norms = pairs[:, 0::2] ** 2 + pairs[:, 1::2] ** 2
    message = mismatch(norms, np.ones_like(norms), "value of sin^2 + cos^2 per column pair")
    return None if message is None else message


def visible_cases() -> list[Case]:
    return [value_case("example: positional_encoding(3, 4)", "values", 3, 4, visible=True)]


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    """The hidden cases for one submission, drawn from ``rng``. Sizes are drawn, parities and
    orders are not (asserted when the case is built): even d_model where the name says nothing,
    odd where it says odd, seq_len != d_model in the shape case (a transposed result then has the
    wrong shape), at least two positions and two columns wherever values are compared."""
    even = lambda low, high: int(rng.integers(low // 2, high // 2)) * 2  # noqa: E731
    odd = lambda low, high: even(low, high) + 1  # noqa: E731
    d = even(6, 16)
    L = d + int(rng.integers(1, 6))  # L != d, so a transposed result has the wrong shape
    conditions.require(L != d, "shapes: (seq_len, d_model)",
                       "seq_len != d_model")
    conditions.require((d + 1) % 2 == 1, "shapes: odd d_model", "an odd d_model")
    return [
        Case(name="shapes: (seq_len, d_model)", category="shapes", calls=[((L, d), {})],
             check=checks.shapes([((L, d), None)])),
        Case(name="shapes: odd d_model", category="shapes", calls=[((L + 1, d + 1), {})],
             check=checks.shapes([((L + 1, d + 1), None)]), traits=frozenset({"odd"})),
        _sized_case("values: a short sequence", "values", int(rng.integers(4, 9)), even(4, 10)),
        _sized_case("values: a medium sequence", "values", int(rng.integers(10, 30)),
                    even(10, 24)),
        _sized_case("odd d_model: the last column is a sine", "odd d_model",
                    int(rng.integers(4, 12)), odd(4, 12)),
        _sized_case("odd d_model: a wider model", "odd d_model", int(rng.integers(10, 20)),
                    odd(14, 30)),
        _sized_case("long sequences: many positions, wide model", "long sequences",
                    int(rng.integers(150, 250)), even(48, 80)),
        _sized_case("long sequences: d_model = 512", "long sequences",
                    int(rng.integers(60, 100)), 512),
        Case(name="properties: position 0 is (0, 1, 0, 1, ...)", category="properties",
             calls=[((int(rng.integers(3, 9)), even(6, 14)), {})], check=_row_zero,
             basis="property"),
        Case(name="properties: sin^2 + cos^2 = 1 for each column pair", category="properties",
             calls=[((int(rng.integers(20, 40)), even(8, 20)), {})], check=_pairs_on_unit_circle,
             basis="property"),
    ]


def _sized_case(name: str, category: str, seq_len: int, d_model: int) -> Case:
    """A value case whose d_model has the parity its category is about, with at least 4
    positions and 4 columns (so a position other than 0 and a pair index other than 0 occur)."""
    wants_odd = category == "odd d_model"
    conditions.require(d_model % 2 == int(wants_odd), name,
                       "an odd d_model" if wants_odd else "an even d_model")
    conditions.require(seq_len >= 4 and d_model >= 4, name, "at least 4 positions and columns")
    return value_case(name, category, seq_len, d_model)


def _buggy(seq_len, d_model, *, base=10000.0, layout="interleaved", swap=False,
           exponent="pair", first=0, sign=1.0, all_sine=False, transpose=False,
           batch_axis=False):
    """Sinusoidal encoding with optional mistakes; raises what the mistake raises."""
    pos = np.arange(first, first + seq_len, dtype=np.float64)[:, None]
    half = (d_model + 1) // 2
    two_i = 2.0 * np.arange(half)
    if exponent == "pair":
        sin_exp, cos_exp = two_i / d_model, two_i / d_model
    elif exponent == "raw":  # 2 * column index
        sin_exp, cos_exp = 2 * two_i / d_model, 2 * (two_i + 1) / d_model
    elif exponent == "column":  # each column's own index j: the cosine uses 2i + 1
        sin_exp, cos_exp = two_i / d_model, (two_i + 1) / d_model
    elif exponent == "next":  # cos uses 2(i + 1)
        sin_exp, cos_exp = two_i / d_model, (two_i + 2) / d_model
    elif exponent == "integer":  # 2i // d_model == 0
        sin_exp = cos_exp = (2 * np.arange(half)) // d_model * 1.0
    else:
        raise ValueError(exponent)
    sin_part = np.sin(pos / base ** (sign * sin_exp))
    cos_part = np.cos(pos / base ** (sign * cos_exp))
    if all_sine:
        cos_part = np.sin(pos / base ** (sign * cos_exp))
    if swap:
        sin_part, cos_part = np.cos(pos / base ** (sign * sin_exp)), np.sin(pos / base ** (sign * cos_exp))
    pe = np.zeros((seq_len, d_model))
    if layout == "halves":
        pe[:, :half] = sin_part
        pe[:, half:] = cos_part[:, : d_model - half]
    elif layout == "crash_on_odd":
        pe[:, 0::2] = sin_part
        pe[:, 1::2] = cos_part  # raises when d_model is odd
    else:
        pe[:, 0::2] = sin_part
        pe[:, 1::2] = cos_part[:, : d_model // 2]
    pe = pe.T if transpose else pe
    return pe[None] if batch_axis else pe


def _variant(tag, message, **bug_args) -> Variant:
    return Variant(tag=tag, bug="24", message=message,
                   fn=lambda seq_len, d_model: _buggy(seq_len, d_model, **bug_args))


VARIANTS = [
    _variant("halves_concatenated", "The sines and cosines are concatenated as two halves: the "
             "layout required here interleaves them, sine in column 2i and cosine in column 2i+1.",
             layout="halves"),
    _variant("sin_cos_swapped", "Sine and cosine are swapped (row 0 starts 1, 0, 1, 0): even "
             "columns take the sine, odd columns the cosine.", swap=True),
    _variant("raw_column_exponent", "The exponent uses 2 * column index instead of 2i with the "
             "pair index i = column // 2: both columns of a pair share the frequency "
             "1 / 10000^(2i / d_model).", exponent="raw"),
    _variant("column_index_exponent", "The exponent uses each column's own index j "
             "(10000^(j / d_model)), so a cosine column 2i+1 gets 2i+1: the exponent must use 2i "
             "for both columns of a pair, i.e. 1 / 10000^(2 * (j // 2) / d_model).",
             exponent="column"),
    _variant("cos_next_pair_exponent", "The cosine columns use 2(i + 1) in the exponent: a sine "
             "and its cosine share the same frequency 1 / 10000^(2i / d_model).", exponent="next"),
    _variant("base_1000", "The base is 1000 instead of 10000: the wavelengths must grow "
             "geometrically from 2*pi to 10000 * 2*pi.", base=1000.0),
    _variant("integer_division", "Integer division makes the exponent 2i // d_model = 0, so every "
             "column has frequency 1: compute 2 * i / d_model in floating point.",
             exponent="integer"),
    _variant("exponent_sign_inverted", "The exponent's sign is inverted (positions are multiplied "
             "by 10000^(2i / d_model) instead of divided): the frequencies must decrease along "
             "the columns.", sign=-1.0),
    _variant("positions_from_one", "Positions start at 1: the first row is position 0, i.e. "
             "(0, 1, 0, 1, ...).", first=1),
    _variant("all_sine", "Every column is a sine (position 0 is all zeros): odd columns take the "
             "cosine.", all_sine=True),
    _variant("transposed", "The result is transposed: return (seq_len, d_model), one row per "
             "position.", transpose=True),
    _variant("leading_batch_axis", "The encoding has a leading batch axis, shape "
             "(1, seq_len, d_model) as in a PyTorch buffer: drop the leading batch axis and "
             "return (seq_len, d_model), one row per position.", batch_axis=True),
    _variant("odd_d_model_crash", "Your code fails for odd d_model: there is one more sine column "
             "than cosine columns, so use cos(angle[:, : d_model // 2]) for the odd columns.",
             layout="crash_on_odd"),
]

RULES = [
    Rule(tag="odd_d_model_crash", bug="24", explains=crashes_only_with("odd"),
         message="Your code fails for odd d_model: there is one more sine column than cosine "
                 "columns, so use cos(angle[:, : d_model // 2]) for the odd columns."),
]

PROBLEM = CodeProblem(
    id="positional_encoding", function=FUNCTION, title="Sinusoidal positional encoding",
    contract=CONTRACT, starter=STARTER, categories=CATEGORIES, visible_cases=visible_cases,
    hidden_cases=hidden_cases, variants=VARIANTS, rules=RULES,
    reference=reference.positional_encoding,
)
