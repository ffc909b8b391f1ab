"""The "inputs not modified" wrapper.

The sandbox hands back return values only, so the trusted side appends a tiny wrapper to the
learner's source that calls the learner's function and also returns the array arguments as they
are after the call; :func:`grader.problems.checks.inputs_unchanged` compares them with the
originals, bit for bit. The wrapper runs in the learner's process, so a learner could defeat it,
but only to gain this one check's points: every verdict is still computed here.
"""
from __future__ import annotations

from typing import Any

WRAPPER = "__grader_inputs_after__"

_TEMPLATE = '''


def {wrapper}(*args, **kwargs):
    import numpy as _grader_np
    _grader_result = {function}(*args, **kwargs)
    return _grader_result, tuple(a for a in args if isinstance(a, _grader_np.ndarray))
'''


def wrapper_source(function: str) -> str:
    """Source appended after the learner's code, defining :data:`WRAPPER` around ``function``."""
    return _TEMPLATE.format(wrapper=WRAPPER, function=function)


def unwrap(value: Any) -> Any:
    """The learner's own return value out of a wrapped call's ``(result, arrays_after)``."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], tuple):
        return value[0]
    return value


MESSAGE = ("Your function changes its input arrays in place (with /=, -=, *= or an indexed "
           "assignment on an argument): compute new arrays instead (x = x - m, or work on "
           "x.copy()), so the caller's data stays intact.")
