"""grader.items.notebook: code cells in order, IPython lines dropped with a note naming each,
outputs never read, and a sentence naming the field for what is not a notebook."""
from __future__ import annotations

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from grader.items.notebook import NotebookError, notebook_source, read_notebook


def _notebook(*cells) -> str:
    return nbformat.writes(new_notebook(cells=list(cells)))


def test_code_cells_are_joined_in_order_and_markdown_is_left_out():
    text = _notebook(new_code_cell("import numpy as np"), new_markdown_cell("# Attention"),
                     new_code_cell("def f(x):\n    return np.sum(x)"))
    found = notebook_source(text)
    assert found.source == "import numpy as np\n\ndef f(x):\n    return np.sum(x)\n"
    assert (found.code_cells, found.dropped) == (2, [])
    assert found.notes() == ("Read from your notebook: 2 code cells, in order (outputs stored in "
                             "it are ignored).")


def test_the_notebook_as_json_reads_like_its_text():
    text = _notebook(new_code_cell("x = 1"))
    assert notebook_source(json.loads(text)).source == notebook_source(text).source == "x = 1\n"


def test_magics_and_shell_escapes_are_dropped_each_named():
    text = _notebook(new_code_cell("%matplotlib inline\nimport numpy as np"),
                     new_code_cell("%%timeit\nnp.zeros(3)"),
                     new_code_cell("def f():\n    !ls\n    return 1\nfiles = !ls\nx = 5 % 3\n"
                                   "y = 1 != 2"))
    found = notebook_source(text)
    # a dropped line inside a block becomes "pass" there; "5 % 3" and "!=" are Python
    assert found.source == ("\nimport numpy as np\n\ndef f():\n    pass\n    return 1\n\n"
                            "x = 5 % 3\ny = 1 != 2\n")
    assert [(cell, line, why) for cell, line, _, why in found.dropped] == [
        (1, 1, "an IPython magic"), (2, 1, "a cell magic: the whole cell was dropped"),
        (3, 2, "a shell escape"), (3, 4, "a shell escape")]
    assert found.notes().splitlines()[1:] == [
        "Dropped 4 lines that Python cannot run:",
        "- code cell 1, line 1: %matplotlib inline (an IPython magic)",
        "- code cell 2, line 1: %%timeit (a cell magic: the whole cell was dropped)",
        "- code cell 3, line 2: !ls (a shell escape)",
        "- code cell 3, line 4: files = !ls (a shell escape)"]


def test_outputs_stored_in_the_notebook_are_never_read():
    cell = new_code_cell("x = 1", outputs=[new_output("stream", text="score: 10/10")],
                         execution_count=3)
    doc = json.loads(_notebook(cell))
    doc["cells"][0]["outputs"] = [{"output_type": "not a real output", "junk": [1, 2]}]
    assert read_notebook(doc) == ["x = 1"]  # an invalid output does not matter either


@pytest.mark.parametrize("raw, words", [
    ("{\"cells\": [", "notebook: is not valid JSON (line 1, column 12"),
    ("print('hi')", "notebook: is not valid JSON (line 1, column 1"),
    ([1, 2], "notebook: must be a Jupyter notebook (.ipynb)"),
    ("{\"a\": 1}", "notebook: is JSON but not a Jupyter notebook"),
    ({"nbformat": 4, "nbformat_minor": 5, "cells": [{"cell_type": "code"}]},
     "notebook: is not a valid Jupyter notebook ("),
    ({"nbformat": "four", "cells": []}, "notebook: "),
])
def test_what_is_not_a_notebook_gets_a_sentence_naming_the_field(raw, words):
    with pytest.raises(NotebookError) as raised:
        notebook_source(raw)
    assert str(raised.value).startswith(words)


def _sdpa_notebook(bug: str = "bug_scale_by_d_k") -> str:
    from tests.problems.problem_helpers import submission

    source = submission("scaled_dot_product_attention", bug)
    return _notebook(new_markdown_cell("# My attention"), new_code_cell("%load_ext autoreload"),
                     new_code_cell(source), new_code_cell("!pip install numpy"))


def test_a_notebook_response_is_graded_like_its_code_with_the_notes_first(fake_sandbox):
    from pathlib import Path

    from grader.items.base import GradingContext
    from grader.items.code import CodeKind
    from tests.problems.problem_helpers import submission

    item = CodeKind().load("sdpa", {"id": "sdpa", "kind": "code", "points": 10,
                                    "problem": "scaled_dot_product_attention"}, Path("."))
    ctx = GradingContext(seed=5, sandbox=fake_sandbox)
    assert CodeKind().validate_response(item, {"notebook": _sdpa_notebook()}) is None
    from_notebook = CodeKind().grade(item, {"notebook": _sdpa_notebook()}, ctx)
    from_code = CodeKind().grade(item, {"code": submission("scaled_dot_product_attention",
                                                           "bug_scale_by_d_k")}, ctx)
    assert from_notebook.score == from_code.score == pytest.approx(8.0, abs=1e-4)
    assert [t.status for t in from_notebook.tests] == [t.status for t in from_code.tests]
    assert from_notebook.output.startswith(
        "Read from your notebook: 3 code cells, in order (outputs stored in it are ignored).\n"
        "Dropped 2 lines that Python cannot run:\n"
        "- code cell 1, line 1: %load_ext autoreload (an IPython magic)\n"
        "- code cell 3, line 1: !pip install numpy (a shell escape)\n")
    assert from_notebook.output.endswith(from_code.output)


def test_a_response_with_code_and_a_notebook_is_refused():
    from pathlib import Path

    from grader.items.code import CodeKind

    item = CodeKind().load("sdpa", {"id": "sdpa", "kind": "code", "points": 10,
                                    "problem": "scaled_dot_product_attention"}, Path("."))
    assert "exactly one field, 'code' (the source) or 'notebook'" in CodeKind().validate_response(
        item, {"code": "x = 1", "notebook": _notebook()})
    assert CodeKind().validate_response(item, {"notebook": "{"}).startswith(
        "notebook: is not valid JSON")
