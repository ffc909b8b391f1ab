"""How large a learner's return may be: a multiple of the reference's return, checked by the
sandbox from a frame's header before the body is read (grader/sandbox/wire.py), so a huge return
is refused unread; and the sizes a hidden test's feedback may mention
(:mod:`grader.problems.disclosure`)."""
from __future__ import annotations

from typing import Any

import numpy as np

RESULT_FACTOR = 4  # a return may be this many times the size of the right answer ...
RESULT_SLACK = 64 << 10  # ... plus this many bytes, before it is refused unread


def _float64_bytes(value: Any) -> int:
    if isinstance(value, (tuple, list)):
        return sum(_float64_bytes(item) for item in value)
    return 8 * int(np.size(value))


def _dims(value: Any) -> set[int]:
    """Every dimension and element count of the arrays in ``value``."""
    if isinstance(value, (tuple, list)):
        return set().union(*(_dims(item) for item in value)) if value else set()
    return {int(n) for n in np.shape(value)} | {int(np.size(value))}


def _shapes(value: Any) -> set[tuple[int, ...]]:
    """The shape of every array in ``value``."""
    if isinstance(value, (tuple, list)):
        return set().union(*(_shapes(item) for item in value)) if value else set()
    return {tuple(int(n) for n in np.shape(value))}


def reference_size(expected: Any, call: tuple[tuple, dict], wrapped: bool = False
                   ) -> tuple[int, frozenset[int], frozenset[tuple[int, ...]]]:
    """``(bytes, dims, shapes)`` of the reference's return ``expected`` for ``call`` (output and
    weights as float64, plus the array arguments for a wrapped inputs-check call; the dimensions
    of its arrays; their shapes)."""
    size = _float64_bytes(expected)
    if wrapped:
        size += _float64_bytes([a for a in call[0] if isinstance(a, np.ndarray)])
    return size, frozenset(_dims(expected)), frozenset(_shapes(expected))


def result_cap(expected: Any, call: tuple[tuple, dict], wrapped: bool = False) -> int:
    """Bytes a learner's return for ``call`` may take: :data:`RESULT_FACTOR` times the
    reference's return ``expected`` (:func:`reference_size`) plus :data:`RESULT_SLACK`."""
    return RESULT_FACTOR * reference_size(expected, call, wrapped)[0] + RESULT_SLACK
