"""The "inputs not modified" check.

The sandbox hands back return values only, so the trusted side appends a tiny wrapper to the
learner's source that calls the learner's function and also returns the array arguments as they
are after the call; they are compared here with the originals, bit for bit. The wrapper runs in the
learner's process, so a learner could defeat it, but only to gain this one check's points: every
verdict is still computed here.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from grader.problems.base import Check
from grader.problems.compare import as_array

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


def case(name: str, call: tuple[tuple, dict], names: Sequence[str],
         traits: frozenset[str] = frozenset()):
    """An ``inputs`` case: one wrapped call; ``names`` name the array arguments in order."""
    from grader.problems.base import Case

    args, kwargs = call
    originals = [np.array(a, copy=True) for a in args if isinstance(a, np.ndarray)]
    return Case(name=name, category="inputs", calls=[call], check=unmodified(originals, names),
                traits=traits, wrapped=True)


def unmodified(originals: Sequence[np.ndarray], names: Sequence[str]) -> Check:
    """The array arguments (``originals``, named ``names``) must come back unchanged."""

    def check(got: list[Any]) -> str | None:
        value = got[0]
        if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], tuple)
                and len(value[1]) == len(originals)):
            return "the call did not complete normally"
        if as_array(value[0]) is None and not isinstance(value[0], tuple):
            return "the function did not return an array"
        changed = [name for name, before, after in zip(names, originals, value[1])
                   if np.shape(after) != np.shape(before)
                   or not np.array_equal(np.asarray(after), before, equal_nan=True)]
        if changed:
            return (f"your function modified its input{'s' if len(changed) > 1 else ''} "
                    f"{', '.join(changed)} in place")
        return None

    check.basis = "inputs"  # type: ignore[attr-defined]
    return check
