"""Refuse regular expressions that can backtrack for exponential time (ReDoS).

Python's ``re`` has no timeout, and a rubric's regex runs on every answer, so the escape hatch
accepts only patterns without the classic catastrophic shapes (OWASP "Regular expression Denial of
Service"): a repeated group that itself contains a repetition (star height 2, ``(a+)+``), a
repeated group containing an alternation (``(a|aa)*``), and back-references. The check walks the
parse tree of CPython's own regex parser (``re._parser``, ``sre_parse`` before 3.11).
"""
from __future__ import annotations

try:  # Python 3.11+
    from re import _constants as C
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

MAX_REGEX_CHARS = 300
_REPEATS = {C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT)}


def _check(parsed, in_repeat: bool) -> str | None:
    for op, av in parsed:
        if op in _REPEATS:
            _lo, hi, sub = av
            unbounded = hi > 1
            if unbounded and in_repeat:
                return "nested repetition such as (a+)+ can take exponential time"
            problem = _check(sub, in_repeat or unbounded)
            if problem:
                return problem
        elif op == C.SUBPATTERN:
            problem = _check(av[-1], in_repeat)
            if problem:
                return problem
        elif op == C.BRANCH:
            if in_repeat:
                return "an alternation inside a repeated group such as (a|aa)* can take exponential time"
            for branch in av[1]:
                problem = _check(branch, in_repeat)
                if problem:
                    return problem
        elif op in (C.ASSERT, C.ASSERT_NOT):
            problem = _check(av[1], in_repeat)
            if problem:
                return problem
        elif op in (C.GROUPREF, C.GROUPREF_EXISTS):
            return "back-references are not allowed"
    return None


def regex_problem(pattern: str) -> str | None:
    """Why ``pattern`` is refused (too long, invalid, or potentially exponential), or ``None``."""
    if len(pattern) > MAX_REGEX_CHARS:
        return f"a regular expression is at most {MAX_REGEX_CHARS} characters"
    try:
        parsed = sre_parse.parse(pattern)
    except Exception as exc:  # re.error, or recursion on absurd nesting
        return f"invalid regular expression: {exc}"
    return _check(parsed, False)
