"""Whatever ``python3 file.py`` accepts, the grader accepts (issue 11, part 2); a source that is
really invalid gets a message in the learner's terms: the line, and characters named in words,
never by code point. Through the real sandbox (the runner compiles the learner's code there)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from grader.problems import PROBLEMS
from grader.problems.scoring import grade
from grader.problems.source import SourceDecodeError, decode, normalize
from grader.sandbox import Limits, get_sandbox
from tests.conftest import ROOT

CORRECT = [
    "import numpy as np",
    "",
    "def softmax(x, axis=-1):",
    "    e = np.exp(x - np.max(x, axis=axis, keepdims=True))",
    "    return e / e.sum(axis=axis, keepdims=True)",
    "",
]
LF = "\n".join(CORRECT)
ACCEPTED = {
    "utf-8 BOM": "\ufeff" + LF,
    "CRLF line ends": LF.replace("\n", "\r\n"),
    "lone CR line ends": LF.replace("\n", "\r"),
    "BOM and CRLF": "\ufeff" + LF.replace("\n", "\r\n"),
    "a coding line": "# -*- coding: latin-1 -*-\n# auteur : Zoé\n" + LF,
    "tab indentation": LF.replace("    ", "\t"),
    "a form feed between functions": LF.replace("\ndef", "\n\x0c\ndef"),
}


@pytest.fixture(scope="module")
def sandbox():
    instance = get_sandbox("auto", run_self_test=False)
    yield instance
    instance.close()


def score(sandbox, source: str):
    return grade(PROBLEMS["softmax"], "softmax", 10, source, sandbox, Limits(), seed=5)


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_what_cpython_runs_earns_full_marks(sandbox, name):
    result = score(sandbox, ACCEPTED[name])  # a correct softmax: every test passes, 10 of 10
    assert result.score == 10, result.output


INVALID = {
    # (source line 4 replaced, what the learner must read)
    "a no-break space": ("    e = np.exp(x -\u00a0np.max(x, axis=axis, keepdims=True))",
                         "an invisible no-break space is not allowed in Python code outside "
                         "strings and comments"),
    "an en dash": ("    e = np.exp(x \u2013 np.max(x, axis=axis, keepdims=True))",
                   "'\u2013' (en dash) is not allowed in Python code outside strings and "
                   "comments (it often comes from copying from a document or a web page); "
                   "type '-' instead"),
    "curly quotes": ("    e = np.exp(x - np.max(x, axis=axis, keepdims=True)) # \u201cok\u201d\n"
                     "    s = \u201cbad\u201d", "type '\"' instead"),
    "a NUL byte": ("    e = np.exp(x - np.max(x, axis=axis, keepdims=True))\x00",
                   "your code contains a NUL character (a zero byte)"),
    # CPython's own words for it, as `python3 file.py` prints them
    "mixed tabs and spaces": ("\te = np.exp(x - np.max(x, axis=axis, keepdims=True))",
                              "IndentationError: unindent does not match any outer indentation "
                              "level"),
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_source_is_explained_by_line_in_words(sandbox, name):
    line, expected = INVALID[name]
    lines = list(CORRECT)
    lines[3] = line
    result = score(sandbox, "\n".join(lines))
    assert result.score == 0
    summary = result.output.splitlines()[1]
    assert summary.startswith("Your code has a syntax error on line ")
    assert expected in summary
    assert "U+" not in result.output


def test_files_are_decoded_as_cpython_decodes_them():
    text = "# -*- coding: latin-1 -*-\ns = 'Zoé'\r\n"
    assert decode(text.encode("latin-1")) == "# -*- coding: latin-1 -*-\ns = 'Zoé'\n"
    assert decode(b"\xef\xbb\xbfx = 1\r\n") == "x = 1\n"
    assert decode("x = 'é'\n".encode("utf-8")) == "x = 'é'\n"
    with pytest.raises(SourceDecodeError, match=r"^line 1: the file declares the encoding "
                                                r"'klingon', which Python does not know"):
        decode(b"# -*- coding: klingon -*-\nx = 1\n")
    with pytest.raises(SourceDecodeError, match=r"^line 2: this file is not valid UTF-8 text "
                                                r"\(byte 0xe9\)"):
        decode(b"x = 1\ns = '\xe9'\n")
    assert normalize("a\r\nb\rc\n") == "a\nb\nc\n"


def test_the_command_line_grades_a_latin_1_file_with_a_coding_line(tmp_path):
    path = tmp_path / "softmax.py"
    path.write_bytes(("# -*- coding: latin-1 -*-\n# Zoé\n" + LF).encode("latin-1"))
    done = subprocess.run([sys.executable, "-m", "grader.cli", "grade", "attention-code",
                           "softmax", str(path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("softmax (code): 10 / 10\n")
