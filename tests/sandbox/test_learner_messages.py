"""What a learner is told, through the real sandbox: each fault gets its own status and a message
naming the line, the test or the limit involved."""
from __future__ import annotations

import os

import numpy as np
import pytest

from grader.sandbox import Call, Limits
from grader.sandbox.forkserver import later_limits

FAST = Limits(wall_seconds=1.5, cpu_seconds=1.0, memory_bytes=256 << 20)
# For a test of the CPU, memory or output limit: a wall-clock limit far above the time the work
# needs, so that on a loaded machine (a fraction of a core for the job) the limit met is still
# the one tested; a wall-clock stop instead would fail the test, never pass it.
CPU_BOUND = Limits(wall_seconds=30.0, cpu_seconds=1.0, memory_bytes=256 << 20,
                   run_wall_seconds=120.0)


def calls(n: int = 2, function: str = "softmax") -> list[Call]:
    return [Call(test=f"visible-{i}", function=function, args=(np.arange(6.0).reshape(2, 3),))
            for i in range(n)]


def test_correct_code_returns_arrays_with_the_right_values(sandbox):
    source = "import numpy as np\ndef softmax(x):\n    e = np.exp(x - x.max(-1, keepdims=True))\n" \
             "    return e / e.sum(-1, keepdims=True)\n"
    result = sandbox.run(source, calls(), FAST)
    assert result.status == "ok"
    x = np.arange(6.0).reshape(2, 3)
    expected = np.exp(x - x.max(-1, keepdims=True))
    expected /= expected.sum(-1, keepdims=True)
    assert [c.status for c in result.calls] == ["ok", "ok"]
    assert np.allclose(result.calls[1].value, expected)


def test_keyword_arguments_and_scalar_and_tuple_returns(sandbox):
    source = "import numpy as np\ndef f(x, scale=1.0, flag=None):\n" \
             "    return (x * scale, float(x.sum()), np.float32(2.5), int(x.size), flag is None, [1, 2])\n"
    call = Call(test="t", function="f", args=(np.ones(3),), kwargs={"scale": 2.0, "flag": None})
    result = sandbox.run(source, [call], FAST)
    value = result.calls[0].value
    assert result.status == "ok" and isinstance(value, tuple)
    assert np.array_equal(value[0], np.full(3, 2.0))
    assert value[1:5] == (3.0, 2.5, 3, True)
    assert type(value[2]) is float and type(value[3]) is int
    # a list of numbers is the array it stands for (a long one used to pass the wire's value cap)
    assert isinstance(value[5], np.ndarray) and value[5].tolist() == [1, 2]


@pytest.mark.parametrize("expression, expected", [
    ("np.tril(np.ones((40, 40), dtype=bool)).tolist()", np.tril(np.ones((40, 40), dtype=bool))),
    ("(x.tolist() * 200, [[0.5]])", (np.ones(600), np.array([[0.5]]))),
    ("[[1, 2], [3]]", ((1, 2), (3,))),  # ragged: kept as nested tuples
    ("[x, x]", (np.ones(3), np.ones(3))),  # a list holding arrays keeps its items
])
def test_lists_of_numbers_arrive_as_arrays_of_any_length(sandbox, expression, expected):
    source = f"import numpy as np\ndef f(x):\n    return {expression}\n"
    result = sandbox.run(source, [Call(test="t", function="f", args=(np.ones(3),))], FAST)
    assert result.status == "ok", result.message
    value = result.calls[0].value
    if isinstance(expected, np.ndarray):
        assert isinstance(value, np.ndarray) and value.dtype == expected.dtype
        assert np.array_equal(value, expected)
    else:
        assert len(value) == len(expected)
        for got, want in zip(value, expected):
            assert np.array_equal(np.asarray(got), np.asarray(want)), (got, want)


def test_syntax_error_names_the_line(sandbox):
    result = sandbox.run("import numpy as np\n\ndef softmax(x)\n    return x\n", calls(), FAST)
    assert result.status == "syntax_error"
    assert "line 3 of your code" in result.message
    assert "def softmax(x)" in result.message
    assert all(c.status == "skipped" for c in result.calls)


def test_exception_names_type_line_and_trims_the_traceback_to_learner_frames(sandbox):
    source = "import numpy as np\n\ndef helper(x):\n    return x / 0 if False else 1 / 0\n\n" \
             "def softmax(x):\n    return helper(x)\n"
    result = sandbox.run(source, calls(1), FAST)
    error = result.calls[0].error
    assert result.status == "ok" and result.calls[0].status == "exception"
    assert error.startswith("ZeroDivisionError: division by zero (line 4 of your code)")
    assert 'File "submission.py", line 7, in softmax' in error
    assert 'File "submission.py", line 4, in helper' in error
    assert "runner.py" not in error and "/sandbox/" not in error


def test_exception_inside_numpy_points_at_the_learners_line(sandbox):
    source = "import numpy as np\ndef softmax(x):\n    return x @ np.ones((5, 5))\n"
    error = sandbox.run(source, calls(1), FAST).calls[0].error
    assert error.startswith("ValueError: matmul") and "(line 3 of your code)" in error
    assert "numpy" not in error.split("\n", 1)[1].split("ValueError")[0]


def test_missing_function_is_reported_by_name(sandbox):
    result = sandbox.run("def soft_max(x):\n    return x\n", calls(1), FAST)
    assert result.calls[0].status == "missing_function"
    assert result.calls[0].error == "function 'softmax' is not defined in your code"


@pytest.mark.parametrize("body, named", [
    ("return 'text'", "returned str"), ("return {'a': x}", "returned dict"),
    ("pass", "returned None"), ("return np.array([x], dtype=object)", "ndarray of dtype object"),
    ("return x.astype(complex)", "complex128"),
])
def test_bad_return_type_names_the_type_and_what_was_expected(sandbox, body, named):
    result = sandbox.run(f"import numpy as np\ndef softmax(x):\n    {body}\n", calls(1), FAST)
    outcome = result.calls[0]
    assert outcome.status == "bad_return"
    assert named in outcome.error and "expected a NumPy array" in outcome.error


def test_missing_return_gets_a_hint(sandbox):
    error = sandbox.run("def softmax(x):\n    y = x\n", calls(1), FAST).calls[0].error
    assert "did you forget a return statement?" in error


def test_a_timeout_costs_only_its_own_test_and_the_rest_run_in_a_fresh_process(sandbox):
    source = "def softmax(x):\n    if x.sum() > 0:\n        while True:\n            pass\n    return x\n"
    work = [Call(test="quick", function="softmax", args=(np.zeros(2),)),
            Call(test="hidden-slow", function="softmax", args=(np.ones(2),)),
            Call(test="after", function="softmax", args=(np.zeros(2),))]
    result = sandbox.run(source, work, Limits(wall_seconds=1.5, cpu_seconds=3.0))
    assert result.status == "timeout"
    assert [c.status for c in result.calls] == ["ok", "timeout", "ok"]
    assert "test 'hidden-slow'" in result.message and "1.5 s wall-clock" in result.message
    assert result.calls[1].error == result.message
    assert [(s.test, s.kind) for s in result.stopped_tests] == [("hidden-slow", "timeout")]
    assert result.gave_up == ""


def test_each_test_has_its_own_time_limit(sandbox):
    """Four tests of 0.5 s each finish under a 1.5 s per-test limit (2 s in all; each test has
    1 s to spare for a busy machine)."""
    source = "import time\ndef softmax(x):\n    time.sleep(0.5)\n    return x\n"
    work = [Call(test=f"t{i}", function="softmax", args=(np.zeros(2),)) for i in range(4)]
    result = sandbox.run(source, work, Limits(wall_seconds=1.5, cpu_seconds=1.0))
    assert result.status == "ok" and [c.status for c in result.calls] == ["ok"] * 4


def test_calls_of_one_test_share_its_time_limit(sandbox):
    """Two calls of 0.9 s in the same test exceed its 1.5 s limit together (a sleep lasts at
    least its time, so this holds however busy the machine is; the first has 0.6 s to spare)."""
    source = "import time\ndef softmax(x):\n    time.sleep(0.9)\n    return x\n"
    work = [Call(test="pair", function="softmax", args=(np.zeros(2),)) for _ in range(2)]
    result = sandbox.run(source, work, Limits(wall_seconds=1.5, cpu_seconds=1.0))
    assert result.status == "timeout"
    assert [c.status for c in result.calls] == ["ok", "timeout"]


def test_after_max_stopped_tests_every_later_test_still_runs_under_the_tighter_limit(sandbox):
    """Five hanging tests, max_stopped_tests 2: t0 and t1 get the full 2 s, the later ones the
    tighter 1 s (forkserver.later_limits); none is left unrun (it used to give up after the 2nd
    stop)."""
    source = "def softmax(x):\n    while True:\n        pass\n"
    work = [Call(test=f"t{i}", function="softmax", args=(np.zeros(2),)) for i in range(5)]
    limits = Limits(wall_seconds=2.0, cpu_seconds=2.0, max_stopped_tests=2)
    result = sandbox.run(source, work, limits)
    assert result.status == "timeout"
    assert [c.status for c in result.calls] == ["timeout"] * 5
    assert [s.test for s in result.stopped_tests] == ["t0", "t1", "t2", "t3", "t4"]
    assert [s.seconds for s in result.stopped_tests] == [2.0, 2.0, 1.0, 1.0, 1.0]
    assert result.later_seconds == 1.0 and result.gave_up == ""


def test_the_tighter_limit_is_one_second_and_never_above_the_items_own():
    later = later_limits(Limits(wall_seconds=3.0, cpu_seconds=2.5))
    assert (later.wall_seconds, later.cpu_seconds) == (1.0, 1.0)
    later = later_limits(Limits(wall_seconds=0.5, cpu_seconds=0.75))
    assert (later.wall_seconds, later.cpu_seconds) == (0.5, 0.75)


def test_the_run_has_a_total_time_limit(sandbox):
    source = "import time\ndef softmax(x):\n    time.sleep(1.0)\n    return x\n"
    work = [Call(test=f"t{i}", function="softmax", args=(np.zeros(2),)) for i in range(6)]
    limits = Limits(wall_seconds=2.0, cpu_seconds=1.0, run_wall_seconds=2.9)
    result = sandbox.run(source, work, limits)
    # t0 and t1 finish (2 s, with 0.9 s to spare for a busy machine); t2 cannot end before 3 s,
    # so it is cut at 2.9 s; the rest are not run, with the reason
    assert [c.status for c in result.calls] == ["ok", "ok", "timeout"] + ["skipped"] * 3
    assert "total time limit (2.9 s)" in result.calls[5].error
    assert result.seconds < 6.0  # the six sleeps alone would take 6 s: the run was cut


def test_cpu_limit_is_reported_as_cpu_time(sandbox):
    # the loop is stopped by its 1 s of CPU time, long before the 30 s wall clock: the stop
    # says which limit ended it (under load the loop takes longer, but still ends on CPU)
    result = sandbox.run("def softmax(x):\n    while True:\n        pass\n", calls(1), CPU_BOUND)
    assert result.status == "timeout" and result.limit == "cpu"
    assert result.message == "test 'visible-0' exceeded the time limit (1 s CPU)"
    assert [(s.test, s.limit) for s in result.stopped_tests] == [("visible-0", "cpu")]


def test_memory_limit_is_named_and_costs_each_test_that_hits_it(sandbox):
    source = "import numpy as np\ndef softmax(x):\n    return np.ones((1 << 30,), dtype=np.uint8)\n"
    result = sandbox.run(source, calls(2), FAST)
    assert result.status == "memory_limit"
    assert result.message == "test 'visible-0' exceeded the memory limit (256 MiB)"
    assert [c.status for c in result.calls] == ["exception", "exception"]
    assert [s.kind for s in result.stopped_tests] == ["memory_limit", "memory_limit"]


def test_an_oversized_return_is_refused_before_it_is_read(sandbox):
    source = "import numpy as np\ndef softmax(x):\n    return np.ones(x.shape[0] << 20)\n"
    work = [Call(test="huge", function="softmax", args=(np.zeros(31),), max_result_bytes=1 << 16),
            Call(test="small", function="softmax", args=(np.zeros(0),), max_result_bytes=1 << 16)]
    # generous time and memory: making the 248 MiB array must not hit another limit under load
    result = sandbox.run(source, work, Limits(wall_seconds=20.0, cpu_seconds=10.0,
                                              memory_bytes=1 << 30))
    assert [c.status for c in result.calls] == ["bad_return", "ok"]
    # the size the learner's process declared (248 MiB) is the learner's number: not repeated
    assert result.calls[0].error == (
        "test 'huge' returned a value larger than the 64 KiB this test allows (its answer is "
        "far smaller): check the shape of what you return")
    assert [(s.test, s.kind) for s in result.stopped_tests] == [("huge", "result_too_large")]


def test_memory_under_the_limit_is_fine(sandbox):
    source = "import numpy as np\ndef softmax(x):\n    big = np.ones(100 << 20, dtype=np.uint8)\n" \
             "    return np.array([big.sum()])\n"
    result = sandbox.run(source, calls(1), FAST)
    assert result.status == "ok" and result.calls[0].value[0] == 100 << 20


def test_output_is_kept_up_to_the_limit_and_marked_as_trimmed(sandbox):
    limits = Limits(wall_seconds=2.0, output_bytes=1000)
    source = "def softmax(x):\n    print('y' * 5000)\n    return x\n"
    result = sandbox.run(source, calls(1), limits)
    assert result.status == "ok" and result.calls[0].status == "ok"
    assert result.stdout.split("\n")[0] == "y" * 1000
    assert result.stdout.endswith("[output trimmed: more than 1000 bytes printed]")


def test_printing_without_end_is_stopped_with_the_output_limit(sandbox):
    limits = Limits(wall_seconds=2.0, output_bytes=1024)
    result = sandbox.run("def softmax(x):\n    while True:\n        print('z' * 100)\n", calls(1), limits)
    assert result.status == "output_limit"
    # 1 KiB kept; stopped past max(16 x 1 KiB, 1 MiB) = 1 MiB printed
    assert "printed more than the output limit (1 MiB; the first 1 KiB printed are kept)" \
        in result.message
    assert len(result.stdout) < 1200


def test_error_at_import_is_an_import_error(sandbox):
    result = sandbox.run("import numpy as np\nraise RuntimeError('boom')\n", calls(1), FAST)
    assert result.status == "import_error"
    assert "RuntimeError: boom (line 2 of your code)" in result.message


def test_file_size_limit_shows_as_an_error_in_the_learners_code(sandbox):
    limits = Limits(wall_seconds=2.0, file_bytes=1 << 20)
    source = "def softmax(x):\n    open('/tmp/big', 'wb').write(b'0' * (2 << 20))\n    return x\n"
    error = sandbox.run(source, calls(1), limits).calls[0].error
    assert error.startswith("OSError: [Errno 27] File too large (line 2 of your code)")


def test_server_that_dies_between_jobs_is_replaced(sandbox):
    import os
    import signal

    before = sandbox.restarts
    os.kill(sandbox._started.sandbox_pid, signal.SIGKILL)
    result = sandbox.run("def softmax(x):\n    return x\n", calls(1), FAST)
    assert result.status == "ok" and sandbox.restarts == before + 1


def test_a_sandbox_started_by_a_process_with_many_open_files_works():
    """The control socket keeps its descriptor number in the server; above 1023, select() used
    to fail there, and every job of that server with it (a long test run or worker holds many)."""
    from grader.sandbox import get_sandbox

    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        instance = get_sandbox("auto", run_self_test=False)
        try:
            assert instance._started.control.fileno() > 1023
            result = instance.run("def softmax(x):\n    return x\n", calls(1), FAST)
            assert result.status == "ok" and result.calls[0].status == "ok"
        finally:
            instance.close()
    finally:
        for fd in held:
            os.close(fd)


def test_the_facts_behind_each_message_come_as_fields(sandbox):
    """``stopped_test``, ``limit`` and ``line`` say what the message says, for each way a run
    stops, so no caller reads them back out of the message."""
    loop = "def softmax(x):\n    while True:\n        pass\n"
    wall = sandbox.run("import time\ndef softmax(x):\n    time.sleep(30)\n", calls(1), FAST)
    cpu = sandbox.run(loop, calls(1), CPU_BOUND)
    memory = sandbox.run("import numpy as np\ndef softmax(x):\n    return np.ones((1 << 30,), "
                         "dtype=np.uint8)\n", calls(1), CPU_BOUND)
    output = sandbox.run("def softmax(x):\n    while True:\n        print('z' * 100)\n", calls(1),
                         Limits(wall_seconds=30.0, output_bytes=1024, run_wall_seconds=120.0))
    syntax = sandbox.run("import numpy as np\n\ndef softmax(x)\n    return x\n", calls(1), FAST)
    imported = sandbox.run("import numpy as np\n\n\nraise RuntimeError('boom')\n", calls(1), FAST)
    crashed = sandbox.run("import os\ndef softmax(x):\n    os._exit(3)\n", calls(1), FAST)
    fields = [(r.status, r.stopped_test, r.limit, r.line)
              for r in (wall, cpu, memory, output, syntax, imported, crashed)]
    assert fields == [("timeout", "visible-0", "wall", None), ("timeout", "visible-0", "cpu", None),
                      ("memory_limit", "visible-0", "memory", None),
                      ("output_limit", "visible-0", "output", None),
                      ("syntax_error", None, None, 3), ("import_error", None, None, 4),
                      ("crashed", "visible-0", None, None)]
    assert [s.limit for s in wall.stopped_tests + cpu.stopped_tests + memory.stopped_tests] == [
        "wall", "cpu", "memory"]


def test_text_the_learner_prints_or_raises_never_sets_a_field(sandbox):
    """The learner's code prints and raises the sandbox's own sentences: the fields still say
    what the trusted side saw (a CPU limit in the real test; the line that raised)."""
    fake = "test 'visible-1' exceeded the time limit (9 s CPU) (line 99 of your code)"
    source = (f"print({fake!r})\nimport time\ndef softmax(x):\n    print({fake!r})\n"
              "    time.sleep(30)\n")
    result = sandbox.run(source, calls(1), FAST)
    assert (result.stopped_test, result.limit, result.line) == ("visible-0", "wall", None)
    assert [(s.test, s.limit) for s in result.stopped_tests] == [("visible-0", "wall")]
    raised = sandbox.run(f"import numpy as np\nraise ValueError({fake!r})\n", calls(1), FAST)
    assert (raised.status, raised.stopped_test, raised.limit, raised.line) == (
        "import_error", None, None, 2)
