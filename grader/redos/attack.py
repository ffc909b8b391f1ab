"""Strings that make a backtracking regular expression show its worst case.

:func:`adversarial` returns, for one pattern and a size:

* :data:`CORPUS`: long runs of one character or of a short unit (digits, spaces, brackets,
  nested brackets, repeated separators, escaped quotes, ...) and the issue's reshape message whose
  shape never closes;
* strings *pumped* from the pattern's own parse tree: for each repeat, a prefix that reaches it,
  its body many times, then nothing or a failing character, and the prefix and a few bodies again
  and again. That is how ReDoS attack strings are built (prefix, pump, suffix: Weideman et al.,
  "Analyzing Matching Time Behavior of Backtracking Regular Expression Matchers by Using Ambiguity
  of NFA", CIAA 2016; OWASP, "Regular expression Denial of Service"): an anchored template such
  as ``^cannot reshape array of size (-?\\d+) into shape (...)`` is reached only through its
  literal prefix.

The parse tree is CPython's own (``re._parser``), as in :mod:`grader.rubric.regex_safety`.
"""
from __future__ import annotations

import re
from typing import Any, Iterator

try:  # Python 3.11+
    from re import _constants as C
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

from grader.rubric.regex_safety import _in_category

#: (name, unit): the unit repeated to the size asked for.
CORPUS = [
    ("digits", "1"), ("letters", "a"), ("spaces", " "), ("newlines", "\n"), ("tabs", "\t"),
    ("opening brackets", "("), ("closing brackets", ")"), ("nested brackets", "(["),
    ("commas", ","), ("dots", "."), ("dashes", "-"), ("quotes", "'"), ("double quotes", '"'),
    ("backslashes", "\\"), ("underscores", "_"), ("angle brackets", "<"),
    ("digits and commas", "1,"), ("digits and spaces", "1 "), ("comma-space", ", "),
    ("shape tuples", "(1, "), ("negative numbers", "-1"), ("decimals", "1."),
    ("words and dots", "a."), ("words and dashes", "a-"), ("escaped quotes", '\\"'),
    ("non-ASCII letters", "é"), ("CJK", "中"), ("apostrophes", "n't "), ("html", "<p"),
]

#: The issue's example: a reshape message whose shape never closes.
ISSUE_EXAMPLE_PREFIX = "cannot reshape array of size 1 into shape ("

#: Characters tried, in order, for an item that is not a literal.
_SAMPLE = ([chr(i) for i in range(32, 127)]
           + ["\n", "\t", "\x00", "\x7f", "é", "ж", "中", "٣", "\u00a0", "\u2028"])
_REPEATS = {C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT)}
_ATOMIC = getattr(C, "ATOMIC_GROUP", None)
_ZERO_WIDTH = {C.AT, C.ASSERT, C.ASSERT_NOT, C.GROUPREF, C.GROUPREF_EXISTS}
_MAX_TIMES = 256  # a fixed repeat ({n}) is written out at most this many times


def _item_matches(op, av, ch: str) -> bool:
    """Whether the one-character item ``(op, av)`` matches ``ch`` (case-sensitively)."""
    if op == C.ANY:
        return ch != "\n"
    if op == C.LITERAL:
        return ord(ch) == av
    if op == C.NOT_LITERAL:
        return ord(ch) != av
    if op == C.CATEGORY:
        return _in_category(av, ch)
    if op == C.IN:
        negate = bool(av) and av[0][0] == C.NEGATE
        hit = False
        for sub_op, sub_av in (av[1:] if negate else av):
            if sub_op == C.LITERAL:
                hit = ord(ch) == sub_av
            elif sub_op == C.RANGE:
                hit = sub_av[0] <= ord(ch) <= sub_av[1]
            elif sub_op == C.CATEGORY:
                hit = _in_category(sub_av, ch)
            if hit:
                break
        return hit != negate
    return False


def _char(op, av) -> str:
    if op == C.LITERAL:
        return chr(av)
    return next((ch for ch in _SAMPLE if _item_matches(op, av, ch)), "a")


def _children(op, av) -> list:
    """The sequences inside one item (a repeat's body, a group's, each branch, a lookaround's)."""
    if op in _REPEATS:
        return [av[2]]
    if op == C.SUBPATTERN:
        return [av[-1]]
    if op == _ATOMIC:
        return [av]
    if op == C.BRANCH:
        return list(av[1])
    if op in (C.ASSERT, C.ASSERT_NOT):
        return [av[1]]
    return []


def _holds(items, target) -> bool:
    """Whether the sequence ``items`` contains the repeat whose arguments are ``target``."""
    return any(av is target or any(_holds(child, target) for child in _children(op, av))
               for op, av in items)


def _text(items, target=None, count: int = 0, full: bool = False, shortest: bool = True
          ) -> tuple[str, bool]:
    """A string the sequence ``items`` matches, each repeat taken its minimum number of times
    (at least once when ``full``), the first branch of each alternation; but when the repeat
    ``target`` (its arguments) is inside, the path to it is taken and the string stops right
    after ``count`` copies of its body (the shortest non-empty one when ``shortest``). Returns
    the string and whether ``target`` was reached."""
    out = []
    for op, av in items:
        if op in _REPEATS and av is target:
            piece = _text(av[2], full=not shortest)[0] or _text(av[2], full=True)[0]
            out.append(piece * count)
            return "".join(out), True
        if op in _ZERO_WIDTH:
            continue
        children = _children(op, av)
        if op in _REPEATS and not (target is not None and _holds(av[2], target)):
            times = min(max(av[0], 1) if full else av[0], _MAX_TIMES)
            out.append(_text(av[2], full=full)[0] * times)
        elif children:
            chosen = next((c for c in children if target is not None and _holds(c, target)),
                          children[0])
            piece, reached = _text(chosen, target, count, full, shortest)
            out.append(piece)
            if reached:
                return "".join(out), True
        else:
            out.append(_char(op, av))
    return "".join(out), False


def _repeats(items) -> Iterator[Any]:
    """The arguments of every repeat that can take its body more than once."""
    for op, av in items:
        if op in _REPEATS and av[1] > 1:
            yield av
        for child in _children(op, av):
            yield from _repeats(child)


def _filled(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def adversarial(pattern: Any, size: int) -> list[tuple[str, str | bytes]]:
    """``(name, string)`` pairs of about ``size`` characters (UTF-8 bytes for a bytes pattern)
    meant to make ``pattern`` backtrack: :data:`CORPUS`, the issue's example, a match of the
    whole pattern again and again, and per repeat the pumped strings (see the module); each
    string once, under its first name."""
    strings = [(name, _filled(unit, size)) for name, unit in CORPUS]
    strings.append(("the issue's example", ISSUE_EXAMPLE_PREFIX
                    + "1" * max(1, size - len(ISSUE_EXAMPLE_PREFIX) - 1) + "x"))
    source = pattern.pattern
    if isinstance(source, bytes):
        source = source.decode("latin-1")
    try:
        parsed = sre_parse.parse(source, pattern.flags & re.VERBOSE)
    except Exception:  # noqa: BLE001 - syntax of the regex module that re does not read
        parsed = None
    if parsed is not None:
        whole = _text(parsed, full=True)[0]
        if whole:
            strings.append(("whole matches", _filled(whole, size)))
        for number, target in enumerate(_repeats(parsed)):
            for shortest in (True, False):
                prefix = _text(parsed, target, 0, shortest=shortest)[0]
                body = _text(parsed, target, 1, shortest=shortest)[0][len(prefix):]
                if not body:
                    continue
                pumped = prefix + body * max(1, (size - len(prefix) - 1) // len(body))
                name = f"repeat {number} pumped with its {'shortest' if shortest else 'full'} body"
                strings += [(name, pumped), (f"{name}, then a failing character", pumped + "\x00")]
                if prefix:
                    strings.append((f"{name}, prefix and all, again and again",
                                    _filled(prefix + body * 4, size)))
    unique = list({text: name for name, text in reversed(strings)}.items())[::-1]
    if isinstance(pattern.pattern, bytes):
        return [(name, text.encode("utf-8")) for text, name in unique]
    return [(name, text) for text, name in unique]
