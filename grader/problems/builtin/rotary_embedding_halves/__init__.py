"""Problem ``rotary_embedding(x, positions=None)`` with pairs as two halves (x[i] with
x[i + d/2]; GPT-NeoX and LLaMA's ``rotate_half``): the contract option of
``rotary_embedding``, declared by the same :func:`grader.problems.builtin.rotary_embedding.
rotary_spec` with ``layout="halves"``: the same cases and checks, the same buggy implementation,
and each layout is the other's mistake."""
from __future__ import annotations

from grader.problems.builtin.rotary_embedding import rotary_spec

SPEC = rotary_spec("halves")
