"""RunResult.visible_stdout: what the learner printed before any secret call's arguments were
sent (the real sandbox); the hidden calls' prints are in ``stdout`` only."""
from __future__ import annotations

import pytest

from grader.sandbox import get_sandbox
from grader.sandbox.api import Call, Limits

SOURCE = "print('importing')\ndef f(x):\n    print('got', x)\n    return x\n"


@pytest.fixture(scope="module")
def sandbox():
    box = get_sandbox("unsafe-dev")
    yield box
    box.close()


def test_prints_of_the_calls_before_the_secret_ones_are_visible_and_no_later(sandbox):
    calls = [Call(test="v1", function="f", args=(1,)), Call(test="v2", function="f", args=(2,)),
             Call(test="h", function="f", args=(987654,), secret=True)]
    result = sandbox.run(SOURCE, calls, Limits())
    assert result.stdout == "importing\ngot 1\ngot 2\ngot 987654\n"
    assert result.visible_stdout == "importing\ngot 1\ngot 2\n"


def test_without_a_secret_call_everything_printed_is_visible(sandbox):
    result = sandbox.run(SOURCE, [Call(test="v", function="f", args=(3,))], Limits())
    assert result.visible_stdout == result.stdout == "importing\ngot 3\n"


def test_an_import_error_keeps_what_was_printed_before_it(sandbox):
    result = sandbox.run("print('before')\nraise ValueError('no')\n",
                         [Call(test="h", function="f", args=(5,), secret=True)], Limits())
    assert (result.status, result.visible_stdout) == ("import_error", "before\n")


def test_a_visible_call_that_stops_its_process_keeps_the_order(sandbox):
    source = ("import os\ndef f(x):\n    print('got', x, flush=True)\n"
              "    if x == 1:\n        os._exit(3)\n    return x\n")
    calls = [Call(test="v1", function="f", args=(1,)), Call(test="v2", function="f", args=(2,)),
             Call(test="h", function="f", args=(987654,), secret=True)]
    result = sandbox.run(source, calls, Limits())
    assert "987654" in result.stdout
    assert result.visible_stdout == "got 1\ngot 2\n"
