"""Text that is valid Unicode and shows what it holds: for everything a learner's process hands
the trusted side (exception messages, printed output, type names) before it is stored, and for
every value a page renders.

A Python ``str`` may hold what UTF-8 cannot encode: unpaired surrogates (U+D800 to U+DFFF, e.g.
from bytes decoded with ``errors="surrogateescape"``, or a JSON escape ``"\\udcff"``). Stored, such
a string made every page showing it answer 500 (``UnicodeEncodeError`` when the response is
encoded) and kept it so after a relaunch. Control characters (NUL, escape sequences, C1 controls)
encode, but PostgreSQL's ``text`` refuses NUL and a terminal or a log reader acts on the rest.

:func:`clean_text` replaces each surrogate with U+FFFD REPLACEMENT CHARACTER (what a UTF-8 decoder
shows for bytes it cannot read) and each control character other than tab, newline and carriage
return with its visible escape (``\\x00``, ``\\x1b``, ``\\x85``), so the reader sees that it was
there. It is linear (one character class, no repetition) and returns ``text`` itself when there
is nothing to replace. :func:`clean_tree` applies it to every string (keys included) of a JSON
document.
"""
from __future__ import annotations

import json
import re
from typing import Any

REPLACEMENT = "\ufffd"
#: What :func:`clean_text` replaces: C0 controls but tab, newline and carriage return; DEL and
#: the C1 controls (U+007F to U+009F); every surrogate code point.
UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
#: What :data:`UNSAFE` characters become in JSON written with ``ensure_ascii`` (every non-ASCII
#: character as ``\\uXXXX``, tab, newline and carriage return as ``\\t``, ``\\n``, ``\\r``):
#: the escapes of C0 and C1 controls and of surrogates, ``\\b``, ``\\f``, and DEL as itself.
#: An escaped backslash before such letters matches too (the slow path then finds nothing).
ESCAPED = re.compile(r"\\u(?:00[0189][0-9a-f]|007f|d[89a-f][0-9a-f][0-9a-f])|\\[bf]|\x7f")
#: Deeper documents than this are not walked further (results are a few levels deep).
MAX_DEPTH = 64


#: Unpaired surrogates only (:func:`encodable`).
SURROGATES = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with each unpaired surrogate replaced by U+FFFD and nothing else changed (a
    learner's own code keeps its form feeds and tabs): what a page needs to encode any value
    as UTF-8. Linear; ``text`` itself when it holds no surrogate."""
    if SURROGATES.search(text) is None:
        return text
    return SURROGATES.sub(REPLACEMENT, text)


def _shown(match: re.Match) -> str:
    point = ord(match.group())
    return REPLACEMENT if point >= 0xD800 else f"\\x{point:02x}"


def clean_text(text: str) -> str:
    """``text`` as valid Unicode without control characters: each unpaired surrogate becomes
    U+FFFD, each control character other than ``\\t``, ``\\n``, ``\\r`` its escape ``\\xNN``
    (four characters). Linear in ``len(text)``; ``text`` itself when nothing is replaced."""
    if UNSAFE.search(text) is None:
        return text
    return UNSAFE.sub(_shown, text)


def clean_tree(value: Any) -> Any:
    """A copy of the JSON document ``value`` (dicts, lists, tuples, strings, numbers, booleans,
    ``None``) with :func:`clean_text` applied to every string, keys included; ``value`` itself
    when no string needed it. Other types are returned as they are. Raises ``ValueError`` for a
    document nested deeper than :data:`MAX_DEPTH`.

    Fast path: the document written as JSON (C speed) holds no :data:`ESCAPED` sequence, so no
    string needs cleaning (an 11 KB result: about 0.15 ms instead of 1.8 ms for the walk)."""
    try:
        written = json.dumps(value)
    except (TypeError, ValueError, RecursionError):  # not plain JSON: walk it
        return _walk(value, 0)
    if "\\u" not in written and "\\b" not in written and "\\f" not in written \
            and "\x7f" not in written:
        return value  # ASCII without those escapes: the common case, found at memchr speed
    return value if ESCAPED.search(written) is None else _walk(value, 0)


def _walk(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if depth > MAX_DEPTH:
        raise ValueError(f"document nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        items = [(_walk(k, depth + 1), _walk(v, depth + 1)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items())):
            return value
        return dict(items)
    if isinstance(value, (list, tuple)):
        cleaned = [_walk(v, depth + 1) for v in value]
        if all(v is v0 for v, v0 in zip(cleaned, value)):
            return value
        return type(value)(cleaned)
    return value
