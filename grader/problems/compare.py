"""Numeric comparison of a learner's returned values with trusted expected values.

Conventions (docs/references.md, "Conventions a fair grader accepts"): both sides
are cast to float64 and compared with ``allclose(rtol=1e-4, atol=1e-5)``; NaN and inf are reported as
such; the output dtype is never judged. Mismatch messages name *where* (an index) and *by how much*,
never the values themselves, so they are safe to show for hidden tests.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

import numpy as np

from grader import levers

RTOL = 1e-4
ATOL = 1e-5

_TOLERANCE_SCALE: ContextVar[float] = ContextVar("tolerance_scale", default=1.0)


@contextmanager
def tolerance_scaled(factor: float) -> Iterator[None]:
    """Within the block, :func:`mismatch` (every check's comparison) uses ``factor`` times its
    tolerances: a verdict that holds at 0.1x and at 10x is clear of the tolerance's edge
    (:func:`grader.problems.trial.check_verdicts_clear`)."""
    token = _TOLERANCE_SCALE.set(factor)
    try:
        yield
    finally:
        _TOLERANCE_SCALE.reset(token)


def as_array(value: Any) -> np.ndarray | None:
    """``value`` as a float64 array, or None when it is not numeric (strings, objects, ragged)."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        return None
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number)
                                     or array.dtype == np.bool_):
        return None
    return array.astype(np.float64, copy=False)


def split_return(value: Any) -> tuple[Any, Any]:
    """Split a returned value into ``(output, weights)``; ``weights`` is None for output-only.

    Accepted conventions: an array (output only), or a tuple (or a list of two ndarrays) holding
    (output, weights).
    A 1-tuple counts as output only.
    """
    if isinstance(value, tuple) and len(value) == 2 and not _is_number_sequence(value):
        return value[0], value[1]
    if (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, np.ndarray) for v in value)):
        return value[0], value[1]
    if isinstance(value, (tuple, list)) and len(value) == 1:
        return value[0], None
    return value, None


def several(value: Any) -> tuple | None:
    """The arrays of a value that is several named results (a tuple of three or more, e.g.
    ``(m, l, o)`` or ``(dQ, dK, dV)``), or None for one array or an (output, weights) pair."""
    if isinstance(value, tuple) and len(value) > 2 and not _is_number_sequence(value):
        return value
    return None


def _is_number_sequence(value: Any) -> bool:
    return all(isinstance(v, (int, float, bool, np.number)) for v in value)


def _fmt_index(index: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(int(i)) for i in index) + ")"


#: The nouns the checks' messages name that are plural: "the returned weights contain NaN", not
#: "contains" (a check naming a new plural noun adds it here).
PLURAL_NOUNS = frozenset({"returned weights", "dot products between positions"})
_PLURAL_VERBS = {"is": "are", "has": "have", "contains": "contain", "differs": "differ"}


def agrees(what: str, verb: str) -> str:
    """``verb`` (singular present: ``is``, ``has``, ``contains``, ``differs``) agreeing with the
    noun ``what``: its plural form for a noun in :data:`PLURAL_NOUNS`."""
    return _PLURAL_VERBS[verb] if what in PLURAL_NOUNS else verb


def mismatch(got: Any, expected: np.ndarray, what: str = "output",
             rows: np.ndarray | None = None, atol: float = ATOL, rtol: float = RTOL) -> str | None:
    """Compare ``got`` with ``expected``; None when they agree, else a learner-safe message.

    ``atol`` may be loosened by a problem whose float32 solutions carry more absolute error, and
    ``rtol`` by an uploaded problem's ``tolerance`` (:mod:`grader.problems.authored`).
    ``rows`` (optional boolean array of shape ``expected.shape[:-1]``) selects the rows that are
    checked; unchecked rows (e.g. fully masked query rows) may hold anything, NaN included.
    The message gives the shape problem, the NaN/inf count, or the index and size of the largest
    difference and how many entries are outside tolerance, without any value of the inputs.
    """
    array = as_array(got)
    if array is None:
        return (f"the {what} {agrees(what, 'is')} not a numeric array "
                f"(got {type(got).__name__})")
    expected = np.asarray(expected, dtype=np.float64)
    if array.shape != expected.shape:
        return (f"the {what} {agrees(what, 'has')} shape {tuple(array.shape)}, expected "
                f"{tuple(expected.shape)}")
    scale = _TOLERANCE_SCALE.get()
    if levers.enabled("checks") and close_everywhere(array, expected, rows, rtol * scale,
                                                     atol * scale):
        return None
    if rows is not None:
        keep = np.broadcast_to(np.asarray(rows, dtype=bool)[..., None], expected.shape)
    else:
        keep = np.ones(expected.shape, dtype=bool)
    bad_values = ~np.isfinite(array) & keep & np.isfinite(expected)
    if bad_values.any():
        n_nan = int((np.isnan(array) & bad_values).sum())
        n_inf = int((np.isinf(array) & bad_values).sum())
        first = _fmt_index(np.argwhere(bad_values)[0])
        parts = [f"{n} {name}" for n, name in ((n_nan, "NaN"), (n_inf, "inf")) if n]
        return (f"the {what} {agrees(what, 'contains')} {' and '.join(parts)} in "
                f"{int(bad_values.sum())} of {int(keep.sum())} checked entries (first at index "
                f"{first})")
    close = np.isclose(array, expected, rtol=rtol * scale, atol=atol * scale,
                       equal_nan=True) | ~keep
    if close.all():
        return None
    with np.errstate(invalid="ignore"):  # -inf - -inf where both are -inf (and close)
        diff = np.where(close, 0.0, np.abs(array - expected))
    worst = np.unravel_index(int(np.argmax(diff)), diff.shape)
    return (f"the {what} {agrees(what, 'differs')} from the expected values: largest difference "
            f"{float(diff[worst]):.3g} at index {_fmt_index(worst)}; {int((~close).sum())} of "
            f"{int(keep.sum())} checked entries outside tolerance (rtol {rtol:g}, atol {atol:g})")


def close_everywhere(array: np.ndarray, expected: np.ndarray, rows: np.ndarray | None,
                     rtol: float, atol: float) -> bool:
    """True when every checked entry (``rows`` as in :func:`mismatch`) of ``array`` is within
    tolerance of a finite ``expected`` entry (same shapes): ``np.isclose``'s own test
    ``|a - e| <= atol + rtol |e|`` on finite expected values, without its wrappers (a third of
    its time on the small arrays of a grading). False decides nothing: NaN, inf or a difference
    somewhere, and :func:`mismatch` compares in full. Where this is True ``np.isclose`` is True
    too (a finite ``e`` within tolerance of ``a`` makes ``a`` finite)."""
    with np.errstate(invalid="ignore", over="ignore"):
        gap = np.abs(array - expected)
        bound = np.abs(expected)
        bound *= rtol
        bound += atol
        close = gap <= bound
    if rows is not None:
        keep = np.broadcast_to(np.asarray(rows, dtype=bool)[..., None], expected.shape)
        close |= ~keep
        finite = np.isfinite(expected) | ~keep
    else:
        finite = np.isfinite(expected)
    return bool(close.all()) and bool(finite.all())


def nonfinite(got: Any, rows: np.ndarray | None = None) -> str | None:
    """``"NaN/inf in N of M entries (first at index (i, j))"`` when ``got`` (a numeric array) has
    NaN or inf entries in the checked ``rows`` (as in :func:`mismatch`), else None. Names no
    value, so it is safe for hidden tests."""
    array = as_array(got)
    if array is None or array.size == 0:
        return None
    keep = np.ones(array.shape, dtype=bool)
    if rows is not None and np.shape(rows) == array.shape[:-1]:
        keep = np.broadcast_to(np.asarray(rows, dtype=bool)[..., None], array.shape)
    bad = ~np.isfinite(array) & keep
    if not bad.any():
        return None
    return (f"NaN/inf in {int(bad.sum())} of {int(keep.sum())} entries "
            f"(first at index {_fmt_index(np.argwhere(bad)[0])})")


def matches(got: Any, expected: Any, rows: np.ndarray | None = None) -> bool:
    """True when ``got`` equals ``expected`` within tolerance, NaN matching NaN (used to fit a
    learner's output to buggy variants, which may legitimately produce NaN). The same verdict as
    ``np.allclose(got, expected, RTOL, ATOL, equal_nan=True)``, decided by one vectorised test
    when every pair is finite (the common case), since diagnosis makes thousands of these.
    A tuple of three or more results (e.g. a decoding step's output and new caches) matches a
    tuple of as many that match one by one (``rows`` apply to the first)."""
    if isinstance(expected, tuple) and len(expected) > 2:
        return (isinstance(got, (tuple, list)) and len(got) == len(expected)
                and all(matches(g, e, rows if i == 0 else None)
                        for i, (g, e) in enumerate(zip(got, expected))))
    a, b = as_array(got), as_array(expected)
    if a is None or b is None or a.shape != b.shape:
        return False
    if rows is not None:
        keep = np.broadcast_to(np.asarray(rows, dtype=bool)[..., None], b.shape)
        a, b = a[keep], b[keep]
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(a - b) <= ATOL + RTOL * np.abs(b)
    finite = np.isfinite(b)
    if close.all() and finite.all():
        return True
    if (~close & finite & np.isfinite(a)).any():
        return False
    return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True))
