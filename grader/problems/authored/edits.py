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

The sources are the instructor's (bounded by the document's limits); nothing here runs them.
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
    try:
        ours, theirs = _tokens(reference), _tokens(mistake)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    matcher = difflib.SequenceMatcher(None, [t[:2] for t in ours], [t[:2] for t in theirs],
                                      autojunk=False)
    found = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        start, end = _span(reference, ours, i1, i2, i1)
        text_start, text_end = _span(mistake, theirs, j1, j2, j1)
        if i1 == i2 and j1 < j2 and text_start < theirs[j1][2]:
            # whole lines inserted: at the start of the reference's line there
            start = end = reference.rfind("\n", 0, start) + 1
        found.append(Edit(start, end, mistake[text_start:text_end]))
    return tuple(found) or None


def _conflict(a: Edit, b: Edit) -> bool:
    if a == b:
        return False
    if a.start == a.end and b.start == b.end:
        return a.start == b.start  # two insertions at one point: no order says which first
    return a.start < b.end and b.start < a.end or (
        a.start == a.end and b.start < a.start < b.end) or (
        b.start == b.end and a.start < b.start < a.end)


def combined(reference: str, parts: Sequence[tuple[Edit, ...]]) -> str | None:
    """``reference`` with the edits of every one of ``parts`` (one per mistake) applied, or None
    when two edits of different parts conflict (overlapping text, not the same edit) or the
    result does not parse."""
    chosen: list[Edit] = []
    for part in parts:
        for edit in part:
            if any(_conflict(edit, other) for other in chosen):
                return None
            if edit not in chosen:
                chosen.append(edit)
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
    implementation computed in the sandbox on every test of a seed)."""
    found_edits = [edits(reference, source) for source in mistakes]
    found = []
    for size in range(2, largest + 1):
        for members in subsets(range(len(mistakes)), size):
            if len(found) >= limit:
                return found
            parts = [found_edits[i] for i in members]
            if any(part is None for part in parts):
                continue
            source = combined(reference, parts)
            if source is not None and source not in [reference, *mistakes]:
                found.append((members, source))
    return found


__all__ = ["Edit", "combinations", "combined", "edits"]
