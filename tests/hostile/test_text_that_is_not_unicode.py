"""Issue 20.5, the job's side: text a learner's process hands the trusted side (exception messages,
a key's repr, printed output, a syntax error's source line, an import error) arrives as valid
Unicode without control characters: each unpaired surrogate shown as U+FFFD, each control
character as its escape (``\\x00``), through the real isolation. A message that kept its lone
surrogate made the learner's pages answer 500 once stored (the service tests cover the pages)."""
from __future__ import annotations

import pytest

from grader.safetext import UNSAFE
from tests.hostile.payload_support import CORRECT, LIMITS, make_calls, points

RAISES_SURROGATE_ESCAPED_BYTES = r'''
def softmax(x):
    raise ValueError(b"bad \xff byte".decode("utf-8", "surrogateescape") + "\x00nul\x1b[31m")
'''
RAISES_KEY_WITH_A_HOSTILE_REPR = r'''
class Key:
    def __repr__(self):
        return "key\udcfe\x85\x07"

def softmax(x):
    raise KeyError(Key())
'''
PRINTS_BYTES_AND_SURROGATES = r'''
import os, sys
import numpy as np

def softmax(x):
    os.write(1, b"raw \xff\xfe \x00 \x1b[2J\n")
    print("lone \udc80 surrogate\x00")
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''
FAILS_TO_IMPORT = r'''
raise RuntimeError("while importing \ud800\x00")
'''
SYNTAX_ERROR_WITH_A_CONTROL_CHARACTER = "def softmax(x):\n    return x +\x1b 1\n"


def strings_of(result) -> list[str]:
    return [result.message or "", result.stdout or ""] + [c.error or "" for c in result.calls]


def assert_clean(result) -> None:
    for text in strings_of(result):
        text.encode("utf-8")  # raises UnicodeEncodeError for a surrogate
        assert UNSAFE.search(text) is None, repr(text)


@pytest.mark.parametrize("source, shown", [
    (RAISES_SURROGATE_ESCAPED_BYTES, "ValueError: bad \ufffd byte\\x00nul\\x1b[31m"),
    (RAISES_KEY_WITH_A_HOSTILE_REPR, "KeyError: key\ufffd\\x85\\x07"),
], ids=["surrogateescape-message", "key-repr"])
def test_a_message_arrives_as_valid_unicode_with_its_controls_shown(hostile_sandbox, source,
                                                                    shown):
    calls = make_calls(3)
    result = hostile_sandbox.run(source, calls, LIMITS)
    assert result.status == "ok", (result.status, result.message)
    assert [c.status for c in result.calls] == ["exception"] * 3
    assert all(c.error.startswith(shown) for c in result.calls), result.calls[0].error
    assert_clean(result)


def test_printed_bytes_and_surrogates_arrive_cleaned(hostile_sandbox):
    calls = make_calls(4)
    result = hostile_sandbox.run(PRINTS_BYTES_AND_SURROGATES, calls, LIMITS)
    assert result.status == "ok" and points(result, calls) == 3
    # the bytes undecodable as UTF-8 read as U+FFFD; the print of a lone surrogate is written
    # with errors="replace" inside the job ("?"); NUL and ESC are shown as escapes
    assert "raw \ufffd\ufffd \\x00 \\x1b[2J\n" in result.stdout
    assert "lone ? surrogate\\x00\n" in result.stdout
    assert_clean(result)


def test_an_import_error_and_a_syntax_error_arrive_cleaned(hostile_sandbox):
    calls = make_calls(5)
    failed = hostile_sandbox.run(FAILS_TO_IMPORT, calls, LIMITS)
    assert failed.status == "import_error"
    assert "RuntimeError: while importing \ufffd\\x00" in failed.message, failed.message
    assert_clean(failed)
    broken = hostile_sandbox.run(SYNTAX_ERROR_WITH_A_CONTROL_CHARACTER, calls, LIMITS)
    assert broken.status == "syntax_error"
    assert "return x +\\x1b 1" in broken.message, broken.message
    assert_clean(broken)
    # the same sandbox then grades a correct submission in full
    follow_up = hostile_sandbox.run(CORRECT, calls, LIMITS)
    assert follow_up.status == "ok" and points(follow_up, calls) == 3
