"""A learner's Python source as CPython would read it: whatever ``python3 file.py`` accepts, the
grader accepts (issue 11: editors add BOMs, coding lines, CRLF or CR line ends).

* :func:`decode` turns a file's bytes into text the way CPython does (PEP 263 and PEP 3120: a
  UTF-8 BOM, else a ``# -*- coding: ... -*-`` line in the first two lines, else UTF-8), with an
  error in the learner's words when it cannot;
* :func:`normalize` takes text (from the REST API, a form, or :func:`decode`) and removes what
  CPython removes before tokenizing: a leading BOM, and CRLF and lone CR line ends (universal
  newlines). A coding line in text is harmless: compiling text ignores it, as CPython does.

Nothing here judges the code: a source that is really invalid still fails to compile in the
sandbox, where the runner words the error (``grader/sandbox/runner.py``).
"""
from __future__ import annotations

import io
import tokenize

BOM = "\ufeff"


class SourceDecodeError(ValueError):
    """Bytes CPython would refuse to read as a Python file; ``str(error)`` is learner-facing."""


def decode(data: bytes) -> str:
    """The text of a Python file, decoded as CPython decodes it (BOM, coding line, else UTF-8),
    then :func:`normalize` d. Raises :class:`SourceDecodeError` with the line of the problem."""
    try:
        encoding, _lines = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise SourceDecodeError(f"line {error.lineno or 1}: {_encoding_problem(error)}") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise SourceDecodeError(
            f"line {line}: this file is not valid {encoding.upper()} text (byte "
            f"{data[error.start]:#04x}); save it as UTF-8, or declare its encoding in a "
            "'# -*- coding: ... -*-' line") from None
    return normalize(text)


def _encoding_problem(error: SyntaxError) -> str:
    message = str(error.msg if hasattr(error, "msg") else error)
    if "unknown encoding" in message or "encoding problem" in message:
        name = message.rsplit(":", 1)[-1].strip()
        return (f"the file declares the encoding '{name}', which Python does not know; remove "
                "the coding line or name a real encoding (utf-8, latin-1, ...)")
    return f"the file's encoding cannot be read ({message})"


def normalize(text: str) -> str:
    """``text`` without a leading BOM, with CRLF and CR line ends turned into LF (what CPython's
    reader does to a file before tokenizing it)."""
    if text.startswith(BOM):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
