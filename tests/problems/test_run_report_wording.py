"""The learner's words for every way a run can stop, pinned word for word through the real
(isolated) sandbox: the limit (wall clock, CPU, memory, output), the stopped test, the line, import
errors and crashes. The sandbox hands these facts over as fields (``RunResult.stopped_test``,
``limit``, ``line``); what the learner's code prints or raises must never change them."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS, scoring
from grader.sandbox import Limits, get_sandbox

HEAD = "import numpy as np\n\ndef softmax(x, axis=-1):\n"
RIGHT = ("    e = np.exp(x - np.max(x, axis=axis, keepdims=True))\n"
         "    return e / e.sum(axis=axis, keepdims=True)\n")
# only 'shapes: 1-D input' (7 entries, bounded); the 1-D stability case (7 entries too) has
# entries in the thousands, the other 1-D tests have 3, 5, 6, 8 or 9 entries
ON_LONG_1D = "    if x.ndim == 1 and x.size == 7 and np.abs(x).max() < 100:\n"
STUCK = "shapes: 1-D input"
FIRST = "example: softmax([1, 2, 3])"
WALL = Limits(wall_seconds=1.0, cpu_seconds=1.0, memory_bytes=256 << 20, output_bytes=1024)
# A loop that burns CPU reaches 1 s of CPU time however busy the machine is, but on a loaded
# machine it gets a fraction of a core and would meet a tight wall-clock limit first: the CPU
# and memory cases have a wall-clock limit far above their own, so the limit they meet is the
# one they test (a wall-clock stop would name the wall and fail the test, never pass it).
CPU = Limits(wall_seconds=30.0, cpu_seconds=1.0, memory_bytes=256 << 20, output_bytes=1024,
             run_wall_seconds=120.0)
MEMORY = Limits(wall_seconds=30.0, cpu_seconds=10.0, memory_bytes=256 << 20, output_bytes=1024,
                run_wall_seconds=120.0)
# the learner's words quote a CPU limit while the real stop is the wall clock's (a sleep)
QUOTING = Limits(wall_seconds=3.0, cpu_seconds=1.0, memory_bytes=256 << 20, output_bytes=1024)
FRESH = "; it lost its points and the tests after it ran in a fresh process"


@pytest.fixture(scope="module")
def sandbox():
    """The real isolation: failing to establish it fails these tests."""
    instance = get_sandbox("auto", run_self_test=False)
    yield instance
    instance.close()


def _grade(sandbox, source: str, limits: Limits):
    return scoring.grade(PROBLEMS["softmax"], "item", 10, source, sandbox, limits, seed=7)


def _summary(result) -> str:
    return result.output.splitlines()[1]


def _failure(result, name: str) -> str:
    return next(t.output for t in result.tests if t.name == name)


def _stopped_summary(words: str, limits: Limits) -> str:
    """The summary of one stopped test; the tests after it ran under the tighter limit."""
    return (f"1 test stopped the process running your code and lost its points: '{STUCK}' "
            f"({words}; input sizes: x (7,)). Each test has its own limits "
            f"({limits.wall_seconds:g} s of time, {limits.cpu_seconds:g} s of CPU); the other "
            "tests ran in a fresh process" + (
                ", the later ones with a tighter limit of 1 s each." if limits.wall_seconds > 1
                else "."))  # (else the tighter limit, 1 s, is the item's own)


@pytest.mark.parametrize("body, limits, words, failure", [
    ("        import time; time.sleep(30)\n", WALL, "exceeded the 1 s time limit",
     "this test exceeded the 1 s time limit" + FRESH),
    ("        while True: pass\n", CPU, "exceeded the 1 s CPU-time limit",
     "this test exceeded the 1 s CPU-time limit" + FRESH),
    ("        b = np.ones(1 << 30, dtype=np.uint8)\n", MEMORY,
     "exceeded the memory limit (256 MiB)",
     "this test exceeded the memory limit (256 MiB)" + FRESH),  # a limit: the grader's number
    ("        import os; os._exit(3)\n", WALL, "ended the process running your code",
     f"this test ended the process running your code: the process running your code ended "
     f"during test '{STUCK}' (exit status …)"),  # the code chose it: hidden in a hidden test
    ("        return np.ones(1 << 22)\n", MEMORY, "returned a value far larger than its answer",
     "this test returned a value far larger than its answer" + FRESH),
], ids=["wall", "cpu", "memory", "crash", "oversized"])
def test_a_stopped_test_is_named_with_its_limit_and_input_sizes(sandbox, body, limits, words,
                                                                 failure):
    result = _grade(sandbox, HEAD + ON_LONG_1D + body + RIGHT, limits)
    assert _summary(result) == _stopped_summary(words, limits)
    assert _failure(result, STUCK) == f"Failed: {failure}"
    assert result.score == pytest.approx(9.5)


def test_the_output_limit_names_the_test_that_was_running(sandbox):
    result = _grade(sandbox, HEAD + "    while True: print('z' * 1000)\n", WALL)
    assert _summary(result) == (
        # 1 KiB kept; stopped past max(16 x 1 KiB, 1 MiB) = 1 MiB printed
        f"Your code printed more than the output limit (1 MiB; the first 1 KiB printed are kept) "
        f"while running test '{FIRST}' "
        "and was stopped; 0 of 25 tests had finished. Remove print statements: all tests share "
        "one output limit.")
    assert _failure(result, FIRST).startswith(
        "Failed: your code printed more than the output limit (1 MiB; the first 1 KiB printed "
        "are kept) in this test\n")
    assert _failure(result, STUCK) == (f"Failed: not run: the run stopped in test '{FIRST}' "
                                       "(see the summary)")


@pytest.mark.parametrize("source, limits, summary", [
    ("import time\ntime.sleep(30)\n", WALL,
     "The run exceeded the 1 s time limit while importing your code. No test could run."),
    ("while True:\n    pass\n", CPU,
     "The run exceeded the 1 s CPU-time limit while importing your code. No test could run."),
    ("import numpy as np\nb = np.ones(1 << 30, dtype=np.uint8)\n", MEMORY,
     "Your code exceeded the memory limit (256 MiB) while importing your code. No test could "
     "run."),
    ("import os\nos._exit(3)\n", WALL,
     "The run stopped while importing your code: the process running your code ended before "
     "all tests ran (exit status 3)."),
], ids=["wall", "cpu", "memory", "crash"])
def test_a_stop_while_importing_says_no_test_could_run(sandbox, source, limits, summary):
    result = _grade(sandbox, source, limits)
    assert _summary(result) == summary
    assert _failure(result, STUCK) == "Failed: not run: the run stopped earlier (see the summary)"
    assert result.score == 0


@pytest.mark.parametrize("source, summary, not_run", [
    ("import numpy as np\n\nraise ValueError('bad value')\n",
     "Your code raised an error while being imported (line 3): ValueError: bad value. No test "
     "could run.", "importing your code failed (see the summary)"),
    ("import sys\nsys.exit(2)\n",
     "Your code could not be imported: your code called sys.exit(2) while being imported. No "
     "test could run.", "importing your code failed (see the summary)"),
    ("def softmax(x, axis=-1)\n    return x\n",
     "Your code has a syntax error on line 1: SyntaxError: expected ':'. No test could run.",
     "your code has a syntax error on line 1"),
], ids=["import-error", "sys-exit", "syntax-error"])
def test_import_and_syntax_errors_name_the_line(sandbox, source, summary, not_run):
    result = _grade(sandbox, source, WALL)
    assert _summary(result) == summary
    assert _failure(result, STUCK) == f"Failed: not run: {not_run}"


def test_text_that_looks_like_the_sandboxs_words_changes_nothing(sandbox):
    """Printing the sandbox's own sentences earns nothing and names no test."""
    fake = (f"    print(\"test '{STUCK}' exceeded the time limit (1 s CPU)\")\n"
            "    print('your code raised an error while being imported: X (line 99 of your "
            "code)')\n")
    result = _grade(sandbox, HEAD + fake + RIGHT, WALL)
    assert result.score == 10 and "stopped" not in result.output
    assert all(t.status == "passed" for t in result.tests)


def test_an_exception_that_quotes_the_sandboxs_words_names_only_its_own_line(sandbox):
    source = ("print(\"test 'shapes: 1-D input' exceeded the time limit (1 s CPU)\")\n"
              "raise ValueError(\"test 'shapes: 1-D input' exceeded the time limit (1 s CPU) "
              "(line 99 of your code)\")\n")
    result = _grade(sandbox, source, WALL)
    assert _summary(result) == (
        "Your code raised an error while being imported (line 2): ValueError: test 'shapes: 1-D "
        "input' exceeded the time limit (1 s CPU) (line 99 of your code). No test could run.")
    assert _failure(result, STUCK) == ("Failed: not run: importing your code failed (see the "
                                       "summary)")


def test_a_stop_that_quotes_the_sandboxs_words_keeps_the_real_test_and_limit(sandbox):
    """A learner's error text naming another test and another limit does not move the stop."""
    body = ("        print(\"test 'example: a 2x3 array with axis=0' exceeded the time limit "
            "(1 s CPU)\")\n        import time; time.sleep(30)\n")
    result = _grade(sandbox, HEAD + ON_LONG_1D + body + RIGHT, QUOTING)
    assert _summary(result) == _stopped_summary("exceeded the 3 s time limit", QUOTING)


def test_a_process_that_forks_and_keeps_running_is_named_and_stopped_at_once(sandbox):
    # both processes answer the first call and compete for the next ones: the broken result
    # stream stops the run at once (not at a time limit) and nothing it returned is graded
    result = _grade(sandbox, HEAD + "    import os; os.fork()\n" + RIGHT, WALL)
    assert result.score == 0.0
    assert _summary(result) == (
        "The run was stopped: the process running your code sent malformed results (out of order "
        "or twice, as when your code starts another process, e.g. with os.fork(), that keeps "
        "running); nothing it returned was graded.")
    assert all(t.output.split("\n")[0] == "Failed: not run: the run stopped earlier (see the "
               "summary)" for t in result.tests)  # (visible examples add their expected output)
