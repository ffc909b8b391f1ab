"""Issue 25 (cost): an authored problem's pool of ready seeds. The trial fills it (one sandbox
run for :data:`POOL_SIZE` seeds); a grading takes a seed from it and runs only the learner's
code; an empty pool gives the submission's own seed, computed as before; the pool is topped
up in a thread of its own; a regrade with the recorded seed gives the same score."""
from __future__ import annotations

import threading

import pytest

from grader.grading.service import recorded_seeds
from grader.problems import scoring
from grader.problems.authored import compile_document, load_document, pool
from grader.problems.authored.executor import POOL_SIZE
from grader.problems.authored.trial import trial
from grader.sandbox.api import Limits
from tests.problems.authored.test_document import cosine
from tests.problems.conftest import FakeSandbox


class ThreadsSandbox(FakeSandbox):
    """The fake sandbox, recording which thread made each run and whether it ran the
    problem's implementations (the reference's module) or a learner's code."""

    def __init__(self):
        super().__init__()
        self.made: list[tuple[int, str]] = []

    def run(self, source, calls, limits):
        kind = "implementations" if "_IMPLEMENTATIONS" in source else "learner"
        self.made.append((threading.get_ident(), kind))
        return super().run(source, calls, limits)


def filled(sandbox):
    raw = cosine()
    problem = compile_document(raw)
    added = pool.fill(problem, sandbox)
    return raw, problem, added


def test_the_trial_fills_the_pool_in_one_more_run(fake_sandbox):
    raw = cosine()
    problem = compile_document(raw)
    report = trial(problem, load_document(raw), fake_sandbox, with_mutants=False)
    assert report["refused"] is None
    assert report["pool_seeds"] == POOL_SIZE == 16
    assert problem.executor.ready() == 16
    runs = problem.executor.runs
    assert pool.fill(problem, fake_sandbox) == []  # full: nothing more, no run
    assert problem.executor.runs == runs


def test_filling_sixteen_seeds_is_one_sandbox_run():
    sandbox = ThreadsSandbox()
    _, problem, added = filled(sandbox)
    assert len(set(added)) == 16
    assert sandbox.made == [(threading.get_ident(), "implementations")]


def test_a_grading_takes_a_pool_seed_and_runs_only_the_learners_code():
    sandbox = ThreadsSandbox()
    raw, problem, added = filled(sandbox)
    seed, recorded = pool.seed_for(problem, 7, None, sandbox)
    assert recorded and seed in added and problem.executor.ready() == 15
    assert pool.last_top_up(problem) is None  # 15 ready: no top-up
    result = scoring.grade(problem, "cos", 10, raw["reference"], sandbox, Limits(), seed)
    assert result.score == 10
    assert [kind for _, kind in sandbox.made] == ["implementations", "learner"]
    assert problem.executor.runs == 1


def test_seeds_are_taken_once_each():
    _, problem, added = filled(FakeSandbox())
    taken = [problem.executor.take() for _ in range(16)]
    assert sorted(taken) == sorted(added)
    assert problem.executor.take() is None


def test_an_empty_pool_gives_the_submissions_own_seed_computed_in_the_grading():
    sandbox = ThreadsSandbox()
    raw = cosine()
    problem = compile_document(raw)
    seed, recorded = pool.seed_for(problem, 7, None, sandbox)
    assert (seed, recorded) == (7, False)
    pool.last_top_up(problem).join(60)  # a top-up started for the next gradings
    result = scoring.grade(problem, "cos", 10, raw["reference"], sandbox, Limits(), seed)
    assert result.score == 10
    here = [kind for thread, kind in sandbox.made if thread == threading.get_ident()]
    assert here == ["implementations", "learner"]  # seed 7's values, then the learner's run
    assert problem.executor.ready() == 16


def test_the_top_up_runs_off_the_grading_thread_when_the_pool_runs_low():
    sandbox = ThreadsSandbox()
    raw, problem, _ = filled(sandbox)
    for _ in range(16 - pool.POOL_LOW):  # 8 left: not low yet
        problem.executor.take()
    assert pool.top_up(problem, sandbox) is None
    seed, recorded = pool.seed_for(problem, 7, None, sandbox)  # 7 left: low
    assert recorded
    topping = pool.last_top_up(problem)
    assert topping is not None and topping.ident != threading.get_ident()
    scoring.grade(problem, "cos", 10, raw["reference"], sandbox, Limits(), seed)
    topping.join(60)
    assert problem.executor.ready() == 16  # 7 + 9 new ones, in one run
    here = [kind for thread, kind in sandbox.made if thread == threading.get_ident()]
    there = [kind for thread, kind in sandbox.made if thread == topping.ident]
    assert here == ["implementations", "learner"]  # the first fill, then the grading
    assert there == ["implementations"]


@pytest.mark.parametrize("index", [0, 1])
def test_a_regrade_with_the_recorded_seed_gives_the_same_score(index):
    raw, problem, _ = filled(FakeSandbox())
    source = raw["mistakes"][index]["source"]
    seed, _ = pool.seed_for(problem, 7, None, FakeSandbox())
    first = scoring.grade(problem, "cos", 10, source, FakeSandbox(), Limits(), seed)
    stored = [{"item_id": "cos", "extra_data": {pool.SEED_KEY: seed}}]
    assert recorded_seeds(stored) == {"cos": seed}
    # another process: a fresh compile, nothing cached; the recorded seed is recomputed
    again = compile_document(raw)
    regraded_seed, recorded = pool.seed_for(again, 7, recorded_seeds(stored)["cos"],
                                            FakeSandbox())
    assert (regraded_seed, recorded) == (seed, True) and again.executor.ready() == 0
    second = scoring.grade(again, "cos", 10, source, FakeSandbox(), Limits(), regraded_seed)
    assert second.score == first.score < 10
    assert [t.status for t in second.tests] == [t.status for t in first.tests]
    assert again.executor.runs == 1


def test_the_code_item_records_a_pool_seed_and_keeps_a_given_one(fake_sandbox):
    from dataclasses import replace
    from pathlib import Path

    from grader.items.base import GradingContext
    from grader.items.code import CodeKind

    raw, problem, added = filled(fake_sandbox)
    kind = CodeKind()
    item = replace(kind.load("cos", {"id": "cos", "kind": "code", "points": 10,
                                     "problem": "softmax"}, Path(".")), compiled=problem)
    response = {"code": raw["mistakes"][0]["source"]}
    first = kind.grade(item, response, GradingContext(seed=5, sandbox=fake_sandbox))
    seed = first.extra_data[pool.SEED_KEY]
    assert seed in added and problem.executor.ready() == 15
    # grader grade (seed_pool False): its own seed, nothing taken, nothing recorded
    own = kind.grade(item, response, GradingContext(seed=5, sandbox=fake_sandbox,
                                                    seed_pool=False))
    assert pool.SEED_KEY not in own.extra_data and problem.executor.ready() == 15
    # a regrade: the recorded seed, the same score, nothing taken
    again = kind.grade(item, response, GradingContext(seed=5, sandbox=fake_sandbox,
                                                      seeds={"cos": seed}, seed_pool=False))
    assert again.extra_data[pool.SEED_KEY] == seed and again.score == first.score < 10
    assert problem.executor.ready() == 15
