"""JSON text from outside the service (request bodies, uploaded rubrics), parsed with integers
bounded the way Python bounds them.

Python refuses to turn a decimal string of more than 4,300 digits into an ``int``
(``sys.set_int_max_str_digits``, CVE-2020-10735: the conversion is quadratic). ``json.loads``
then raises a bare ``ValueError`` that is not a ``JSONDecodeError``, so code expecting only the
latter answered 500. :func:`loads` raises :class:`NumberTooLong` instead, a ``JSONDecodeError``
with a reason a client can act on; :func:`check_int_size` bounds integers built another way (YAML
``0x...`` literals are not limited by Python, but printing them later is).
"""
from __future__ import annotations

import json
import re
from typing import Any

#: Python's default limit on the decimal digits of an ``int`` converted from or to text
#: (``sys.int_info.default_max_str_digits``).
MAX_INT_DIGITS = 4300
#: The smallest magnitude with more than :data:`MAX_INT_DIGITS` decimal digits.
_TOO_LARGE = 10 ** MAX_INT_DIGITS


class NumberTooLong(json.JSONDecodeError):
    """An integer of more than :data:`MAX_INT_DIGITS` decimal digits. ``digits`` is its length
    without the sign, or ``None`` when it was not counted (a YAML ``0x...`` literal)."""

    def __init__(self, digits: int | None = None, doc: str = "", pos: int = 0):
        self.digits = digits
        size = f"{digits} digits" if digits is not None else f"more than {MAX_INT_DIGITS} digits"
        super().__init__(f"a number has {size}; numbers of at most {MAX_INT_DIGITS} digits are "
                         "accepted", doc, pos)
        if not doc:  # no text to point into: the reason alone, without "line 1 column 1"
            self.args = (self.msg,)

    def __reduce__(self):  # pragma: no cover - pickling keeps the extra argument
        return NumberTooLong, (self.digits, self.doc, self.pos)


def _parse_int(literal: str) -> int:
    digits = len(literal) - (literal[:1] == "-")
    if digits > MAX_INT_DIGITS:
        raise NumberTooLong(digits)
    return int(literal)


#: JSON strings (skipped whole, escapes included; one left open runs to the end of the text, so
#: no quote is read twice: linear) and integer literals, to find where a number is.
_TOKENS = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*(?:"|\\?\Z)|-?[0-9]+')


def loads(text: str | bytes) -> Any:
    """``json.loads`` that raises :class:`NumberTooLong` (a ``json.JSONDecodeError`` with the
    line and column of the number) for an integer of more than :data:`MAX_INT_DIGITS` digits, and
    ``json.JSONDecodeError`` for any other syntax error, never a bare ``ValueError``."""
    try:
        return json.loads(text, parse_int=_parse_int)
    except NumberTooLong as exc:
        if isinstance(text, (bytes, bytearray)):
            text = text.decode("utf-8", "replace")
        for token in _TOKENS.finditer(text):
            literal = token.group()
            if literal[0] != '"' and len(literal) - (literal[0] == "-") == exc.digits:
                raise NumberTooLong(exc.digits, text, token.start()) from None
        raise


def check_int_size(value: int) -> int:
    """``value``, or :class:`NumberTooLong` when it has more than :data:`MAX_INT_DIGITS` decimal
    digits (compared by magnitude, without the conversion to text that Python refuses)."""
    if -_TOO_LARGE < value < _TOO_LARGE:
        return value
    raise NumberTooLong(None)
