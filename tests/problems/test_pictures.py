"""Pictures of the learner's function on the visible examples (grader/problems/pictures.py): only
visible inputs, the right matrices, and never a change of score."""
from __future__ import annotations

import numpy as np
import pytest

from grader.problems import PROBLEMS, scoring, pictures
from grader.sandbox import get_sandbox
from grader.sandbox.api import CallOutcome, Limits, RunResult, StoppedTest
from tests.problems.conftest import FakeSandbox
from tests.problems.problem_helpers import submission_names, grade_file, grade_source, submission

SDPA = "scaled_dot_product_attention"
CORRECT = submission(SDPA, "correct_matmul")
# correct on every test call, but misbehaves on the picture calls: a visible example's Q with
# V = the identity (a hidden test may use the identity too, never a visible example's Q)
SPOILS_PICTURES = '''import numpy as np
VISIBLE_QS = [np.array(q) for q in VISIBLE_QS_LIST]


def scaled_dot_product_attention(Q, K, V, mask=None):
    picture = V.shape[-1] == V.shape[-2] and np.array_equal(
        V, np.broadcast_to(np.eye(V.shape[-1]), V.shape)) and any(
        q.shape == Q.shape and np.array_equal(q, Q) for q in VISIBLE_QS)
    if picture:
        %s
    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ V
'''


def spoiling(seed: int, action: str) -> str:
    qs = [np.asarray(case.calls[0][0][0]).tolist() for case in PROBLEMS[SDPA].visible_cases()]
    return SPOILS_PICTURES.replace("VISIBLE_QS_LIST", repr(qs)) % action


def pictures_of(result):
    return result.extra_data["pictures"]


@pytest.mark.parametrize("problem_id", sorted(PROBLEMS))
def test_picture_calls_use_only_visible_example_inputs(problem_id):
    problem = PROBLEMS[problem_id]
    visible = [args for case in problem.visible_cases() for args, _ in case.calls]
    calls = pictures.calls(problem)
    assert calls, problem_id
    for call in calls:
        assert call.test.startswith(pictures.PREFIX) and call.function == problem.function
        if any(p.call == "identity_values" for p in problem.pictures):
            # Q, K (and the mask, or window) of a visible example; V is the identity of size Lk
            assert any(np.array_equal(call.args[0], a[0]) and np.array_equal(call.args[1], a[1])
                       for a in visible)
            n_keys = call.args[1].shape[-2]
            assert np.array_equal(call.args[2][..., :, :], np.broadcast_to(
                np.eye(n_keys), call.args[2].shape))
            assert any(all(np.array_equal(x, y) for x, y in zip(a[3:], call.args[3:]))
                       for a in visible)
        else:
            assert any(len(a) == len(call.args) and all(
                np.array_equal(x, y) for x, y in zip(a, call.args)) for a in visible)


def test_correct_sdpa_weights_match_and_the_causal_example_is_lower_triangular(fake_sandbox):
    result = grade_file(fake_sandbox, SDPA, "correct_matmul")
    drawn = pictures_of(result)
    assert [p["example"] for p in drawn] == [
        "example: cross-attention, Lq=2, Lk=3, d_k=5, d_v=6, no mask",
        "example: causal mask, L=3, d_k=1",
        "example: batch of 2, Lq=2, Lk=3, d_k=1, d_v=4 (batch element 0)"]
    for picture in drawn:
        assert picture["learner"] == picture["expected"]
        assert picture["finding"] == "Your weights match the expected weights."
        # attention weights: every row sums to 1 (softmax over the keys)
        assert np.allclose(np.sum(picture["expected"], axis=1), 1.0, atol=1e-3)
    causal = np.array(drawn[1]["expected"])
    assert causal.shape == (3, 3) and np.all(causal[np.triu_indices(3, 1)] == 0)


def test_an_ignored_mask_shows_weight_on_future_positions(fake_sandbox):
    drawn = pictures_of(grade_file(fake_sandbox, SDPA, "bug_mask_ignored"))
    learner = np.array(drawn[1]["learner"])
    # without the mask, query 0 attends to keys 1 and 2 as well: above the diagonal is not 0
    assert np.all(learner[np.triu_indices(3, 1)] > 0)
    assert drawn[1]["finding"].startswith("Your weights differ from the expected weights")


def test_a_softmax_over_the_query_axis_shows_columns_summing_to_one(fake_sandbox):
    drawn = pictures_of(grade_file(fake_sandbox, SDPA, "bug_softmax_query_axis"))
    learner = np.array(drawn[0]["learner"])  # 2 queries x 3 keys
    assert np.allclose(learner.sum(axis=0), 1.0, atol=1e-3)
    assert not np.allclose(learner.sum(axis=1), 1.0, atol=1e-3)


@pytest.mark.parametrize("problem_id,shows", [
    (p.id, picture.shows) for p in PROBLEMS.values() for picture in p.pictures
    if picture.call == "example"])
def test_other_problems_draw_their_output(fake_sandbox, problem_id, shows):
    name = submission_names(problem_id, "correct_")[0]
    drawn = pictures_of(grade_file(fake_sandbox, problem_id, name))
    assert drawn and all(p["shows"] == shows for p in drawn)
    for picture in drawn:  # the expected values were rounded to 6 decimals before 4
        assert np.allclose(picture["learner"], picture["expected"], atol=1.1e-4)
        assert picture["finding"] == f"Your {shows} match the expected {shows}."


class StopsInFirstPicture(FakeSandbox):
    """Runs the fake sandbox, then reports the first picture call as stopped by ``status`` the
    way grader/sandbox/forkserver.py does for an optional call: that call marked, the other
    pictures skipped, the hidden tests after them run in a fresh process."""

    def __init__(self, status: str):
        super().__init__()
        self.status = status

    def run(self, source, calls, limits):
        full = super().run(source, calls, limits)
        first = next(i for i, c in enumerate(calls) if c.test.startswith(pictures.PREFIX))
        last = max(i for i, c in enumerate(calls) if c.test.startswith(pictures.PREFIX))
        message = f"test '{calls[first].test}' exceeded the time limit (5 s wall-clock)"
        outcomes = full.calls[:first] + [CallOutcome("timeout", error=message, stopped=True)]
        outcomes += [CallOutcome("skipped", error="not run: an illustration before it stopped")
                     for _ in calls[first + 1:last + 1]]
        outcomes += full.calls[last + 1:]
        return RunResult(self.status, calls=outcomes, message=message, stopped_tests=[
            StoppedTest(calls[first].test, self.status, message, optional=True)])


def test_a_run_stopped_in_a_picture_call_scores_as_if_it_had_finished():
    plain = grade_source(FakeSandbox(), SDPA, CORRECT)
    stopped = grade_source(StopsInFirstPicture("timeout"), SDPA, CORRECT)
    assert stopped.score == plain.score == 10.0
    assert stopped.output == plain.output  # no word of a time limit
    assert [(t.name, t.score, t.output) for t in stopped.tests] == \
        [(t.name, t.score, t.output) for t in plain.tests]
    notes = [p["finding"] for p in pictures_of(stopped)]
    assert notes == ["Your function ran out of time on this example."] + [
        "Your function was not called for this picture (the run stopped earlier)."] * 2
    assert all(p["learner"] is None for p in pictures_of(stopped))


def test_split_gives_the_tests_their_own_calls_and_stops_only():
    # 2 visible calls, 2 pictures, 2 hidden calls; a test stopped: left as it is
    stop = StoppedTest("values: x", "timeout", "test 'values: x' exceeded the time limit")
    calls = [CallOutcome("ok", value=1), CallOutcome("ok", value=2), CallOutcome("ok", value=3),
             CallOutcome("ok", value=4), CallOutcome("timeout", stopped=True),
             CallOutcome("ok", value=6)]
    run = RunResult("timeout", calls=calls, message=stop.message, stopped_tests=[stop])
    tests, drawn = pictures.split(run, 2, 2)
    assert [o.value for o in drawn] == [3, 4]
    assert [o.value for o in tests.calls] == [1, 2, None, 6]
    assert (tests.status, tests.message, tests.stopped_tests) == ("timeout", stop.message, [stop])
    # only a picture stopped: the tests see a run that finished
    picture = StoppedTest(pictures.PREFIX + "example", "timeout", "test 'picture: example' "
                          "exceeded the time limit", optional=True)
    calls = [CallOutcome("ok"), CallOutcome("timeout", stopped=True), CallOutcome("ok")]
    run = RunResult("timeout", calls=calls, message=picture.message, stopped_tests=[picture])
    tests, drawn = pictures.split(run, 1, 1)
    assert (tests.status, tests.message, tests.stopped_tests) == ("ok", "", [])
    assert [o.status for o in tests.calls] == ["ok", "ok"]


def test_a_picture_call_that_raises_costs_nothing(fake_sandbox):
    result = grade_source(fake_sandbox, SDPA, spoiling(7, "raise ValueError('no pictures')"))
    assert result.score == 10.0
    assert all(p["learner"] is None and "did not return a value for this example: ValueError"
               in p["finding"] for p in pictures_of(result))


@pytest.mark.slow
def test_real_sandbox_a_picture_call_that_hangs_costs_nothing():
    sandbox = get_sandbox("unsafe-dev")
    try:
        result = scoring.grade(PROBLEMS[SDPA], "sdpa", 10, spoiling(4, "while True: pass"),
                               sandbox, Limits(wall_seconds=2.0, cpu_seconds=2.0), seed=4)
        plain = scoring.grade(PROBLEMS[SDPA], "sdpa", 10, CORRECT, sandbox,
                              Limits(wall_seconds=2.0, cpu_seconds=2.0), seed=4)
    finally:
        sandbox.close()
    assert result.score == plain.score == 10.0
    assert "time limit" not in result.output
    assert pictures_of(result)[0]["finding"] == "Your function ran out of time on this example."
    assert pictures_of(plain)[0]["learner"] == pictures_of(plain)[0]["expected"]


def test_plans_are_made_once_per_problem_and_cannot_be_changed():
    """The picture plans depend on the problem alone: a second grading reuses them, so their
    arrays are read-only (a caller writing into them would change every later picture)."""
    import numpy as np

    from grader.problems import PROBLEMS
    from grader.problems import pictures as pics

    for problem in PROBLEMS.values():
        first, again = pics.plans(problem), pics.plans(problem)
        assert first is again
        for plan in first:
            arrays = [plan.expected, *plan.call.args, *plan.call.kwargs.values()]
            for array in (a for a in arrays if isinstance(a, np.ndarray)):
                assert not array.flags.writeable
    sdpa = pics.plans(PROBLEMS["scaled_dot_product_attention"])
    # the first SDPA example's picture is its weight matrix (V = identity): rows sum to 1
    assert np.allclose(sdpa[0].expected.sum(axis=-1), 1.0)


def test_the_grouped_query_picture_is_the_head_to_group_map(fake_sandbox):
    # one key per group and V[g] = e_g: head h's output row is the one-hot vector of its group,
    # h // (H / G) with H = 6, G = 3; np.tile's h % G draws the map 0 1 2 0 1 2 instead
    consecutive = np.repeat(np.eye(3), 2, axis=0)
    interleaved = np.tile(np.eye(3), (2, 1))
    problem = "grouped_query_attention"
    right = pictures_of(grade_file(fake_sandbox, problem, "correct_matmul"))
    wrong = pictures_of(grade_file(fake_sandbox, problem, "bug_interleaved_groups"))
    assert [p["example"] for p in right] == [PROBLEMS[problem].visible_cases()[0].name]
    assert right[0]["expected"] == consecutive.tolist() == right[0]["learner"]
    assert (right[0]["rows"], right[0]["columns"]) == ("query head", "key/value group")
    assert wrong[0]["learner"] == interleaved.tolist()
    assert wrong[0]["finding"].startswith("Your output differ from the expected output")


def test_the_sliding_window_picture_is_the_band(fake_sandbox):
    # L = 5, window = 2: query i has weight on keys i - 1 and i only (row 0 on key 0 alone)
    drawn = pictures_of(grade_file(fake_sandbox, "sliding_window_attention", "correct_einsum"))
    weights = np.array(drawn[0]["expected"])
    i, j = np.indices((5, 5))
    assert (weights[(j > i) | (j < i - 1)] == 0).all() and (weights[(j <= i) & (j >= i - 1)] > 0).all()
    assert weights[0, 0] == 1.0 and drawn[0]["learner"] == drawn[0]["expected"]
    wide = pictures_of(grade_file(fake_sandbox, "sliding_window_attention",
                                  "bug_window_one_too_wide"))
    assert np.array(wide[0]["learner"])[2, 0] > 0  # key i - 2 = 0 inside the too-wide band
