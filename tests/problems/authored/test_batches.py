"""The authored executor's batches: every implementation's values on a seed come back from one
sandbox run with one call per batch of tests (each test's inputs sent once), the same values
(bit for bit) and the same errors as one call per value; a batch that does not come back whole
is run call by call."""
from __future__ import annotations

import numpy as np
import pytest

from grader.problems import pictures
from grader.problems.authored import compile_document
from grader.problems.authored.executor import (BATCH_ARRAYS, BATCH_ENTRIES, NO_VALUE,
                                               SandboxExecutor, batches)
from grader.problems.base import Case
from grader.sandbox import get_sandbox
from tests.problems.authored.test_document import cosine

RAISES = ("import numpy as np\n"
          "def cosine_attention(Q, K, V, tau):\n"
          "    if Q.ndim == 2:\n"
          "        raise ValueError('a 2-D query\\nsecond line')\n"
          "    return None\n")  # 3-D: a return the wire cannot carry
EXITS = ("import os\n"
         "def cosine_attention(Q, K, V, tau):\n"
         "    if Q.ndim == 2:\n"
         "        os._exit(3)\n"
         "    return Q * tau\n")


@pytest.fixture(scope="module")
def sandbox():
    sandbox = get_sandbox("unsafe-dev")
    yield sandbox
    sandbox.close()


def values(executor, problem, cases):
    return [(index, case.name, executor.values(index, case))
            for case in cases for index in range(len(executor.sources))]


def same(a, b) -> bool:
    if isinstance(a, (tuple, list)):
        return isinstance(b, type(a)) and len(a) == len(b) and all(map(same, a, b))
    if a is NO_VALUE or b is NO_VALUE:
        return a is b
    return (type(a) is type(b) and np.array_equal(a, b)
            and np.asarray(a).dtype == np.asarray(b).dtype)


def executors(extra: str):
    raw = cosine()
    raw["mistakes"].append({"id": "extra", "message": "extra", "source": extra})
    problem = compile_document(raw)
    sources, function = problem.executor.sources, problem.function
    return (problem, SandboxExecutor(sources, function),
            SandboxExecutor(sources, function, batch=False))


def test_batches_give_every_value_and_error_as_one_call_per_value(sandbox):
    problem, batched, per_call = executors(RAISES)
    cases = problem.cases(3) + pictures.reference_cases(problem)
    batched.prepare(cases, sandbox)
    per_call.prepare(cases, sandbox)
    # the batches with a None returned ran again call by call, in a second run
    assert batched.runs == 2 and per_call.runs == 1
    got, expected = values(batched, problem, cases), values(per_call, problem, cases)
    assert [g[:2] for g in got] == [e[:2] for e in expected]
    for (index, name, mine), (_, _, theirs) in zip(got, expected):
        assert [e for _, e in mine] == [e for _, e in theirs], (index, name)
        assert same([v for v, _ in mine], [v for v, _ in theirs]), (index, name)
    errors = {e for _, _, computed in got for _, e in computed if e is not None}
    # the raising mistake (the first line of its message, as the sandbox reports it) and the
    # return the wire refuses (the sandbox's own words, from the run call by call)
    assert "ValueError: a 2-D query" in errors
    assert any(e.startswith("bad_return: returned None") for e in errors)


def test_a_batch_that_stops_its_process_is_run_again_call_by_call(sandbox):
    problem, batched, per_call = executors(EXITS)
    cases = problem.cases(1)
    assert any(np.ndim(case.calls[0][0][0]) == 2 for case in cases)  # a case it exits on
    batched.prepare(cases, sandbox)
    per_call.prepare(cases, sandbox)
    assert batched.runs == 2 and per_call.runs == 1
    extra = len(batched.sources) - 1
    for case in cases:
        mine, theirs = batched.values(extra, case), per_call.values(extra, case)
        assert [e for _, e in mine] == [e for _, e in theirs]
        assert same([v for v, _ in mine], [v for v, _ in theirs])
        # the reference's values too (from the batch, or with it call by call)
        assert same(batched.values(0, case), per_call.values(0, case))


def case(name: str, arrays: int, calls: int = 1) -> Case:
    call = (tuple(np.zeros(2) for _ in range(arrays)), {})
    return Case(name=name, category="values", calls=(call,) * calls, check="values",
                basis="values", key=("p", 1, name))


def test_batches_send_each_tests_inputs_once_within_the_wire_bounds():
    small = [case(f"s{i}", 3) for i in range(20)]
    missing = [(c, index, False) for c in small for index in (0, 1, 2)]
    found = batches(missing)
    # 3 implementations of 1 call each: 8 tests make 24 values
    assert [len(cases) for _, cases in found] == [8, 8, 4]
    assert all(which == ((0, False), (1, False), (2, False)) for which, _ in found)
    assert [c.name for _, cases in found for c in cases] == [c.name for c in small]
    wide = [case(f"w{i}", 12) for i in range(5)]  # 24 arrays fit, 36 do not
    assert [len(cases) for _, cases in batches([(c, 0, False) for c in wide])] == [2, 2, 1]
    pair = [case(f"p{i}", 1, calls=2) for i in range(5)]
    assert [len(cases) for _, cases in batches(
        [(c, i, u) for c in pair for i, u in ((0, False), (1, False), (1, True))])] == [4, 1]
    huge = [case("h", BATCH_ARRAYS + 1), case("i", 1)]
    assert [len(cases) for _, cases in batches([(c, 0, False) for c in huge])] == [1, 1]
    # a test that wants other implementations (its others cached) starts a batch of its own
    mixed = batches([(small[0], 0, False), (small[0], 1, False), (small[1], 1, False),
                     (small[2], 1, False)])
    assert [(which, [c.name for c in cases]) for which, cases in mixed] == [
        (((0, False), (1, False)), ["s0"]), (((1, False),), ["s1", "s2"])]
    assert BATCH_ENTRIES == 24 and BATCH_ARRAYS == 32
