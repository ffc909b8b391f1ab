"""The lever ``draws`` (grader/levers.py): a built-in problem's hidden inputs come from one of
DRAW_SEEDS seeds shared by all submissions, recorded on the result; a regrade draws the same
inputs; a grading stored before the lever is regraded from the submission's own seed; the
learner never sees the seed."""
from __future__ import annotations

import pytest

from grader.api.submissions import learner_items
from grader.config import PROJECT_ROOT
from grader.content import Catalog
from grader.grading import regrade
from grader.grading.service import GradingService, shared_seed, submission_seed
from grader.items import code as code_module
from grader.problems import PROBLEMS, samples
from grader.problems import executor as executor_module
from grader.problems.base import DRAW_SEEDS, SEEDS_KEPT
from grader.runtime import builtin_assignments
from grader.store import Store
from tests.problems.conftest import FakeSandbox

SECRET = "secret"


def test_the_shared_seed_is_one_of_thirty_two_keyed_by_the_secret():
    assert DRAW_SEEDS == 32
    assert shared_seed("k", 5) == submission_seed("k", "draws/5")
    assert shared_seed("k", 5) == shared_seed("k", 5 + 32) == shared_seed("k", 5 + 32 * 10 ** 9)
    assert shared_seed("k", 5) != shared_seed("k", 6)
    assert shared_seed("k", 5) != shared_seed("other", 5)
    assert len({shared_seed("k", s) for s in range(1000)}) == 32
    assert all(0 <= shared_seed("k", s) < 2 ** 64 for s in range(32))


def test_kept_seeds_are_drawn_and_computed_once_however_many_others_are(monkeypatch):
    problem = PROBLEMS["causal_mask"]
    draws, values = [], []
    draw, run = problem.draw, executor_module._run
    monkeypatch.setattr(problem, "draw", lambda seed: draws.append(seed) or draw(seed))
    monkeypatch.setattr(executor_module, "_run",
                        lambda fn, args, kwargs: values.append(1) or run(fn, args, kwargs))
    shared = [shared_seed("keep-test", s) for s in range(DRAW_SEEDS)]
    for seed in shared:
        problem.keep(seed)
        for case in problem.cases(seed):
            problem.executor.values(0, case)
    assert sorted(draws) == sorted(shared) and len(values) > 0
    first = {seed: problem.cases(seed) for seed in shared}
    for seed in range(3 * SEEDS_KEPT):  # regrades of older gradings, from their own seeds
        problem.cases(10 ** 6 + seed)
    assert len(draws) == DRAW_SEEDS + 3 * SEEDS_KEPT
    draws.clear()
    values.clear()
    for seed in shared:  # not drawn nor computed again: the very same cases and values
        again = problem.cases(seed)
        assert all(a is b for a, b in zip(again, first[seed]))
        for case in again:
            problem.executor.values(0, case)
    assert draws == [] and values == []
    problem.cases(10 ** 6)  # an evicted unkept seed is drawn again
    assert draws == [10 ** 6]


@pytest.fixture
def graded(tmp_path, monkeypatch):
    """grade(levers, sample) -> (stored submission, its sdpa item result, the seeds the code
    item drew from), with the built-in ``attention-basics`` assignment and an in-process
    stand-in for the sandbox."""
    store = Store(f"sqlite:///{tmp_path / 'd.db'}")
    store.create_all()
    catalog = Catalog(builtin_assignments({"CONTENT_DIR": str(PROJECT_ROOT / "rubrics")}), None,
                      PROJECT_ROOT / "rubrics")
    service = GradingService(store, catalog, SECRET, sandbox_factory=FakeSandbox)
    drawn: list[int] = []
    grade = code_module.scoring.grade

    def spy(problem, item_id, points, source, sandbox, limits, seed, **kwargs):
        drawn.append(seed)
        return grade(problem, item_id, points, source, sandbox, limits, seed, **kwargs)

    monkeypatch.setattr(code_module.scoring, "grade", spy)

    def run(levers: str, sample: str):
        monkeypatch.setenv("CPU_LEVERS", levers)
        drawn.clear()
        sub, _ = store.create_submission("attention-basics", "l", {
            "sdpa": {"code": samples.source("scaled_dot_product_attention", sample)}})
        assert service.grade(sub.id).action == "graded"
        row = store.get(sub.id)
        [item] = [r for r in row.results if r["item_id"] == "sdpa"]
        return row, item, list(drawn)

    run.service, run.drawn = service, drawn
    yield run
    store.dispose()


def _without_timings_and_seed(value):
    if isinstance(value, dict):
        return {k: _without_timings_and_seed(v) for k, v in value.items()
                if k not in ("execution_time", "sandbox_seconds", "grading_seconds", "seconds",
                             "seed")}
    if isinstance(value, list):
        return [_without_timings_and_seed(v) for v in value]
    return value


BUGGY = "bug_no_scaling"


def test_on_a_grading_draws_from_the_shared_seed_and_records_it(graded):
    row, item, drawn = graded("draws", BUGGY)
    own = submission_seed(SECRET, row.id)
    assert drawn == [shared_seed(SECRET, own)] != [own]
    assert item["extra_data"]["seed"] == drawn[0]
    [shown] = [i for i in learner_items(row) if i["item_id"] == "sdpa"]
    assert "seed" not in shown["extra_data"]  # never shown to the learner
    # graded as a grading from that seed is with the lever off: the same tests and messages
    off = code_module.scoring.grade(PROBLEMS["scaled_dot_product_attention"], "sdpa",
                                    item["max_score"],
                                    samples.source("scaled_dot_product_attention", BUGGY),
                                    FakeSandbox(), _limits(graded.service), drawn[0])
    assert _without_timings_and_seed(off.to_dict()) == _without_timings_and_seed(item)
    assert item["score"] < item["max_score"]


def _limits(service):
    assignment = service.catalog.get(None, "attention-basics")
    return assignment.items["sdpa"].spec["limits"]


def test_off_a_grading_draws_from_its_own_seed_and_records_none(graded):
    row, item, drawn = graded("none", BUGGY)
    assert drawn == [submission_seed(SECRET, row.id)]
    assert "seed" not in item["extra_data"]


@pytest.mark.parametrize("levers", ["draws", "none"])
def test_a_regrade_draws_what_the_grading_drew(graded, levers):
    """Graded with the lever (a recorded shared seed) or before it (none recorded: the own
    seed): a regrade, whatever the lever is now, draws from the same seed and scores the same."""
    row, item, drawn = graded(levers, BUGGY)
    for now in ("draws", "none"):
        graded.drawn.clear()
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("CPU_LEVERS", now)
            service = graded.service
            entry = regrade._regrade_one(service, service.catalog.get(None, "attention-basics"),
                                         row, {}, [], True, "run-1")
        assert graded.drawn == drawn, now
        assert entry["new_score"] == row.score and entry["difference"] == 0.0


def test_a_correct_submission_scores_full_marks_either_way(graded):
    for levers in ("draws", "none"):
        row, item, _ = graded(levers, "correct_einsum_tuple")
        assert item["score"] == item["max_score"] > 0
