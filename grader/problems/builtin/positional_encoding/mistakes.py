"""The mistakes ``positional_encoding`` is checked for: attention-bugs.md entry 24 (every variant
listed there that applies to a function without a batch axis), as buggy encodings, and the
odd-d_model crash as a cross-case rule."""
from __future__ import annotations

import numpy as np

from grader.problems.base import Rule
from grader.problems.rules import crashes_only_with
from grader.problems.spec import mistake


def buggy_encoding(seq_len, d_model, *, base=10000.0, layout="interleaved", swap=False,
           exponent="pair", first=0, sign=1.0, all_sine=False, transpose=False,
           batch_axis=False, middle_axis=False):
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
    pe = pe[:, None] if middle_axis else pe  # (seq_len, 1, d_model), a sequence-first buffer
    return pe[None] if batch_axis else pe


MISTAKES = (
    mistake("halves_concatenated",
            "The sines and cosines are concatenated as two halves: the layout required here "
            "interleaves them, sine in column 2i and cosine in column 2i+1.",
            {"layout": "halves"}, bug="24"),
    mistake("sin_cos_swapped",
            "Sine and cosine are swapped (row 0 starts 1, 0, 1, 0): even columns take the sine, "
            "odd columns the cosine.",
            {"swap": True}, bug="24"),
    mistake("raw_column_exponent",
            "The exponent uses 2 * column index instead of 2i with the pair index i = column // "
            "2: both columns of a pair share the frequency 1 / 10000^(2i / d_model).",
            {"exponent": "raw"}, bug="24"),
    mistake("column_index_exponent",
            "The exponent uses each column's own index j (10000^(j / d_model)), so a cosine "
            "column 2i+1 gets 2i+1: the exponent must use 2i for both columns of a pair, i.e. 1 / "
            "10000^(2 * (j // 2) / d_model).",
            {"exponent": "column"}, bug="24"),
    mistake("cos_next_pair_exponent",
            "The cosine columns use 2(i + 1) in the exponent: a sine and its cosine share the "
            "same frequency 1 / 10000^(2i / d_model).",
            {"exponent": "next"}, bug="24"),
    mistake("base_1000",
            "The base is 1000 instead of 10000: the wavelengths must grow geometrically from 2*pi "
            "to 10000 * 2*pi.",
            {"base": 1000.0}, bug="24"),
    mistake("integer_division",
            "Integer division makes the exponent 2i // d_model = 0, so every column has frequency "
            "1: compute 2 * i / d_model in floating point.",
            {"exponent": "integer"}, bug="24"),
    mistake("exponent_sign_inverted",
            "The exponent's sign is inverted (positions are multiplied by 10000^(2i / d_model) "
            "instead of divided): the frequencies must decrease along the columns.",
            {"sign": -1.0}, bug="24"),
    mistake("positions_from_one",
            "Positions start at 1: the first row is position 0, i.e. (0, 1, 0, 1, ...).",
            {"first": 1}, bug="24"),
    mistake("all_sine",
            "Every column is a sine (position 0 is all zeros): odd columns take the cosine.",
            {"all_sine": True}, bug="24"),
    mistake("transposed",
            "The result is transposed: return (seq_len, d_model), one row per position.",
            {"transpose": True}, bug="24"),
    mistake("leading_batch_axis",
            "The encoding has a leading batch axis, shape (1, seq_len, d_model) as in a PyTorch "
            "buffer: drop the leading batch axis and return (seq_len, d_model), one row per "
            "position.",
            {"batch_axis": True}, bug="24"),
    mistake("middle_axis",
            "The encoding has an extra axis in the middle, shape (seq_len, 1, d_model) as in a "
            "sequence-first PyTorch buffer: drop that axis and return (seq_len, d_model), one row "
            "per position.", {"middle_axis": True}, bug="24"),
    mistake("odd_d_model_crash",
            "Your code fails for odd d_model: there is one more sine column than cosine columns, "
            "so use cos(angle[:, : d_model // 2]) for the odd columns.",
            {"layout": "crash_on_odd"}, bug="24"),
)

RULES = (
    Rule(tag="odd_d_model_crash", bug="24", explains=crashes_only_with("odd"),
         message="Your code fails for odd d_model: there is one more sine column than cosine "
                 "columns, so use cos(angle[:, : d_model // 2]) for the odd columns."),
)
