"""The "inputs not modified" wrapper.

The sandbox hands back return values only, so the trusted side appends a tiny wrapper to the
learner's source that calls the learner's function and also returns the array arguments as they
are after the call; :func:`grader.problems.checks.inputs_unchanged` compares them with the
originals, bit for bit. The wrapper runs in the learner's process, so a learner could defeat it,
but only to gain this one check's points: every verdict is still computed here.
"""
from __future__ import annotations

import inspect
from functools import lru_cache
from typing import Any

import numpy as np

WRAPPER = "__grader_inputs_after__"


def _grader_dict_keys(args):
    """Each argument's sorted keys when it is a dict (e.g. a block's ``params``), else None:
    read before the call, so that keys the call adds, drops or rebinds show after it."""
    return [sorted(a) if isinstance(a, dict) else None for a in args]


def _grader_arguments_after(args, keys):
    """The arguments as they are after the call, as a flat tuple of arrays: an array argument
    itself; a dict argument as its number of entries (a 0-d array), then its value at each key
    it had before the call (``keys``: :func:`_grader_dict_keys`), a number as a 0-d array and
    anything else, or a key gone, as an empty array. Runs in the learner's process (its source
    is appended to the learner's) and on the trusted side on the original arguments, so both
    sides flatten alike."""
    import numpy as _grader_np

    after = []
    for argument, names in zip(args, keys):
        if isinstance(argument, _grader_np.ndarray):
            after.append(argument)
        elif names is not None:
            entries = argument if isinstance(argument, dict) else {}
            after.append(_grader_np.asarray(len(entries)))
            for name in names:
                value = entries.get(name)
                if not isinstance(value, _grader_np.ndarray):
                    value = (_grader_np.asarray(value) if type(value) in (bool, int, float)
                             else _grader_np.empty((0,)))
                after.append(value)
    return tuple(after)


_TEMPLATE = '''


{helpers}

def {wrapper}(*args, **kwargs):
    _grader_keys = _grader_dict_keys(args)
    _grader_result = {function}(*args, **kwargs)
    return _grader_result, _grader_arguments_after(args, _grader_keys)
'''


@lru_cache(maxsize=256)
def wrapper_source(function: str) -> str:
    """Source appended after the learner's code, defining :data:`WRAPPER` around ``function``
    (with :func:`_grader_dict_keys` and :func:`_grader_arguments_after`, their own source;
    made once per function name: reading a function's source tokenizes its module)."""
    helpers = "\n\n".join(inspect.getsource(f) for f in (_grader_dict_keys,
                                                          _grader_arguments_after))
    return _TEMPLATE.format(wrapper=WRAPPER, function=function, helpers=helpers)


def arguments_after(args: tuple, keys: list | None = None) -> tuple:
    """The flat tuple of arrays :data:`WRAPPER` returns for ``args`` (``keys``: the dict
    arguments' keys before the call; default: those of ``args`` now)."""
    return _grader_arguments_after(args, _grader_dict_keys(args) if keys is None else keys)


def argument_names(args: tuple, names: tuple[str, ...]) -> list[str]:
    """The name of each entry of :func:`arguments_after` for ``args``, whose array and dict
    arguments are named ``names`` in order: ``x``, then ``params (entries added or removed)``,
    ``params['W_q']``, ... for a dict."""
    found, named = [], iter(names)
    for argument in args:
        if isinstance(argument, dict):
            name = next(named, "an argument")
            found.append(f"{name} (entries added or removed)")
            found += [f"{name}[{key!r}]" for key in sorted(argument)]
        elif isinstance(argument, np.ndarray):
            found.append(next(named, "an argument"))
    return found


def unwrap(value: Any) -> Any:
    """The learner's own return value out of a wrapped call's ``(result, arrays_after)``."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], tuple):
        return value[0]
    return value


MESSAGE = ("Your function changes its input arrays in place (with /=, -=, *= or an indexed "
           "assignment on an argument, or by storing into a dict argument such as params): "
           "compute new arrays instead (x = x - m, or work on x.copy(), or on a copy of the "
           "dict), so the caller's data stays intact.")
