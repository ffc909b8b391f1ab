"""An authored mistake as edits of the reference, so that two or three mistakes made at once can
be written down as one source and named together (:mod:`grader.problems.combinations`).

A mistake's source is compared with the reference's token by token (:mod:`tokenize`, comments
and blank lines left out; :class:`difflib.SequenceMatcher` without its junk heuristic): each
differing stretch is an :class:`Edit`, a span of the reference's text and what the mistake has
there (a stretch that covers whole lines takes their indentation and line ends with it). Two
mistakes **combine** when every pair of their edits is the same edit (both mistakes share it,
e.g. a line both leave out) or touches disjoint text of the reference; the combined source is the
reference with every edit applied, and it must parse. That source is the reference with each
mistake's own change, nothing else: a learner whose values match it on a test made both
mistakes there as surely as a learner matching one mistake made that one. Mistakes that change
the same text (one rewrites a line the other edits) do not combine: no source says what making
both would be.

The sources are the instructor's; nothing here runs them, and the work is bounded whatever they
hold: sources of at most :data:`MAX_SOURCE_CHARS` characters, the common beginning and end cut
off in linear time, at most :data:`MAX_DIFF_TOKENS` differing tokens a side for the matcher
(quadratic in them), at most :data:`MAX_EDITS` edits a mistake, pairwise checks between
mistakes, and at most :data:`MAX_PARSED` combined sources parsed. Past a bound a mistake simply
does not combine.
"""
from __future__ import annotations

import ast
import difflib
import io
import tokenize
from dataclasses import dataclass
from itertools import combinations as subsets
from typing import Sequence

_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
MAX_SOURCE_CHARS = 20_000
MAX_DIFF_TOKENS = 200
MAX_EDITS = 32
MAX_PARSED = 64


@dataclass(frozen=True)
class Edit:
    """Replace the reference's text ``[start, end)`` (character offsets; ``start == end``: an
    insertion) with ``text``."""

    start: int
    end: int
    text: str


def _tokens(source: str) -> list[tuple[int, str, int, int]]:
    """(type, string, start offset, end offset) of each significant token."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _SKIPPED:
            continue
        (row, col), (end_row, end_col) = token.start, token.end
        found.append((token.type, token.string, starts[row - 1] + col,
                      starts[end_row - 1] + end_col))
    return found


def _span(source: str, tokens: list, first: int, last: int, at: int) -> tuple[int, int]:
    """The text of ``tokens[first:last]`` (empty: the point before ``tokens[at]``), widened to
    its lines' indentation when it starts a line and ends with the line's end."""
    if first == last:
        point = tokens[at][2] if at < len(tokens) else len(source)
        return point, point
    start, end = tokens[first][2], tokens[last - 1][3]
    line_start = source.rfind("\n", 0, start) + 1
    if tokens[last - 1][0] == tokenize.NEWLINE and not source[line_start:start].strip():
        start = line_start
    return start, end


def edits(reference: str, mistake: str) -> tuple[Edit, ...] | None:
    """The edits that turn ``reference`` into ``mistake`` (see the module docstring); None when
    either does not tokenize or they do not differ."""
    if max(len(reference), len(mistake)) > MAX_SOURCE_CHARS:
        return None
    try:
        ours, theirs = _tokens(reference), _tokens(mistake)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    a, b = [t[:2] for t in ours], [t[:2] for t in theirs]
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    if max(len(a), len(b)) - head - tail > MAX_DIFF_TOKENS:
        return None
    matcher = difflib.SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail],
                                      autojunk=False)
    found = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        start, end = _span(reference, ours, i1, i2, i1)
        text_start, text_end = _span(mistake, theirs, j1, j2, j1)
        if i1 == i2 and j1 < j2 and text_start < theirs[j1][2]:
            # whole lines inserted: at the start of the reference's line there
            start = end = reference.rfind("\n", 0, start) + 1
        found.append(Edit(start, end, mistake[text_start:text_end]))
    return tuple(found) if 0 < len(found) <= MAX_EDITS else None


def _conflict(a: Edit, b: Edit) -> bool:
    if a == b:
        return False
    if a.start == a.end and b.start == b.end:
        return a.start == b.start  # two insertions at one point: no order says which first
    return a.start < b.end and b.start < a.end or (
        a.start == a.end and b.start < a.start < b.end) or (
        b.start == b.end and a.start < b.start < a.end)


def compatible(a: tuple[Edit, ...], b: tuple[Edit, ...]) -> bool:
    """True when no edit of ``a`` conflicts with one of ``b`` (overlapping text, not the same
    edit)."""
    return not any(_conflict(x, y) for x in a for y in b)


def combined(reference: str, parts: Sequence[tuple[Edit, ...]]) -> str | None:
    """``reference`` with the edits of every one of ``parts`` (one per mistake) applied, or None
    when two parts are not :func:`compatible` or the result does not parse."""
    if not all(compatible(x, y) for x, y in subsets(parts, 2)):
        return None
    return _parsed(reference, parts)


def _parsed(reference: str, parts: Sequence[tuple[Edit, ...]]) -> str | None:
    chosen = list(dict.fromkeys(edit for part in parts for edit in part))
    text = reference
    for edit in sorted(chosen, key=lambda e: (e.start, e.end), reverse=True):
        text = text[:edit.start] + edit.text + text[edit.end:]
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    return text


def combinations(reference: str, mistakes: Sequence[str], largest: int = 3, limit: int = 8
                 ) -> list[tuple[tuple[int, ...], str]]:
    """``(mistake indices, source)`` of the pairs, then triples (up to ``largest``) of
    ``mistakes`` that combine, in table order, at most ``limit`` of them (each is one more
    implementation computed in the sandbox) and at most :data:`MAX_PARSED` sources parsed."""
    found_edits = [edits(reference, source) for source in mistakes]
    usable = [i for i, e in enumerate(found_edits) if e is not None]
    pairs = {(i, j) for i, j in subsets(usable, 2) if compatible(found_edits[i], found_edits[j])}
    found, parsed = [], 0
    for size in range(2, largest + 1):
        for members in subsets(usable, size):
            if len(found) >= limit or parsed >= MAX_PARSED:
                return found
            if not all(pair in pairs for pair in subsets(members, 2)):
                continue
            parsed += 1
            source = _parsed(reference, [found_edits[i] for i in members])
            if source is not None and source not in [reference, *mistakes]:
                found.append((members, source))
    return found


__all__ = ["Edit", "MAX_DIFF_TOKENS", "combinations", "combined", "compatible", "edits"]
