"""The lever ``calls`` (grader/levers.py): a kept seed's hidden calls and the visible examples'
calls are built once and their encoded arguments kept, so a grading of a kept seed sends the
same bytes without building or encoding them again; nothing a learner gets changes."""
from __future__ import annotations

import numpy as np
import pytest

from grader.grading.service import shared_seed
from grader.problems import PROBLEMS, scoring
from grader.sandbox import forkserver
from grader.sandbox.api import Call
from tests.grading.test_levers import _untimed
from tests.problems.conftest import FakeSandbox
from tests.problems.problem_helpers import grade_file, submission_names


def calls_of(problem, seed):
    cases = problem.cases(seed)
    return scoring._calls(problem, seed, cases, scoring.expected_values(problem, cases))


def test_a_kept_seed_s_calls_are_built_once_and_others_each_time(monkeypatch):
    monkeypatch.setenv("CPU_LEVERS", "all")
    problem = PROBLEMS["softmax"]
    kept = shared_seed("calls-test", 3)
    problem.keep(kept)
    (v1, h1), (v2, h2) = calls_of(problem, kept), calls_of(problem, kept)
    assert all(a is b for a, b in zip(h1 + v1, h2 + v2)) and len(h1) > 10
    assert all(call.secret for call in h1) and not any(call.secret for call in v1)
    (_, o1), (_, o2) = calls_of(problem, 12345), calls_of(problem, 12345)  # not kept
    assert not any(a is b for a, b in zip(o1, o2)) and o1 == o2
    monkeypatch.setenv("CPU_LEVERS", "none")
    (v3, h3) = calls_of(problem, kept)
    assert v3 == v1 and h3 == h1 and not any(a is b for a, b in zip(h3, h1))


def test_encoded_jobs_are_the_same_bytes_and_a_changeable_argument_is_encoded_again(
        monkeypatch):
    problem = PROBLEMS["scaled_dot_product_attention"]
    kept = shared_seed("calls-test", 4)
    problem.keep(kept)
    monkeypatch.setenv("CPU_LEVERS", "all")
    visible, hidden = calls_of(problem, kept)
    first = forkserver.encode_job("x = 1", visible + hidden)
    again = forkserver.encode_job("x = 1", visible + hidden)
    monkeypatch.setenv("CPU_LEVERS", "none")
    plain = forkserver.encode_job("x = 1", visible + hidden)
    assert first == again == plain
    # a writable argument changed after a job was encoded: the next job carries the change
    monkeypatch.setenv("CPU_LEVERS", "all")
    x = np.zeros((2, 2))
    call = Call(test="t", function="f", args=(x,))
    before = forkserver.encode_job("", [call])
    x[0, 0] = 7.0
    after = forkserver.encode_job("", [call])
    assert before != after
    view = np.zeros((2, 2))  # a read-only view of a writable array: encoded again too
    ro = view[:]
    ro.flags.writeable = False
    call = Call(test="t", function="f", args=(ro,))
    before = forkserver.encode_job("", [call])
    view[1, 1] = 3.0
    assert forkserver.encode_job("", [call]) != before


@pytest.mark.parametrize("problem", ["scaled_dot_product_attention", "multi_head_attention",
                                     "transformer_encoder_block"])
def test_every_sample_of_a_kept_seed_is_graded_alike_with_and_without_the_lever(
        monkeypatch, problem):
    fake_sandbox = FakeSandbox()
    seed = shared_seed("calls-test", 5)
    PROBLEMS[problem].keep(seed)
    names = submission_names(problem, "correct_")[:1] + submission_names(problem, "bug_")[:12]
    for name in names:
        records = []
        for value in ("all", "none", "all"):
            monkeypatch.setenv("CPU_LEVERS", value)
            records.append(_untimed(grade_file(fake_sandbox, problem, name, seed=seed).to_dict()))
        assert records[0] == records[1] == records[2], name
