"""Multi-head attention written for another ``weights`` layout than the course's (issue 21,
part 1's second gap): named only when the visible examples sent in that layout come back right
(grader/problems/course/layouts.py), never from a crash pattern alone; the probe calls change
no score and items without options send none."""
from __future__ import annotations

from pathlib import Path

import pytest

from grader.problems import PROBLEMS, scoring
from grader.problems.course import compile_course, layouts
from grader.sandbox.api import Limits
from tests.problems.conftest import FakeSandbox
from tests.problems.problem_helpers import diagnoses
from tests.problems.test_contract_options import (CAUSAL_OPTIONS, FUSED_MHA, FUSED_OPTIONS,
                                                  PER_HEAD_MHA, grade)

MHA = "multi_head_attention"

#: Today's separate-weights multi-head attention (a correct sample of the problem).
SEPARATE_MHA = (Path(__file__).parents[2] / "grader/problems/builtin/multi_head_attention/"
                "samples/correct_reshape_transpose.py").read_text()

PER_HEAD = {"weights": "per-head"}


class RecordingSandbox(FakeSandbox):
    """The fake sandbox, keeping the calls of its last run."""

    def run(self, source, calls, limits):
        self.calls = list(calls)
        return super().run(source, calls, limits)


def _named(source: str, options: dict, sandbox) -> tuple[float, set, str]:
    result = grade(MHA, options, source, sandbox)
    return result.score, diagnoses(result), result.output


@pytest.mark.parametrize("options,source,layout", [
    (FUSED_OPTIONS, SEPARATE_MHA.replace("def multi_head_attention", "def mha"), "separate"),
    (FUSED_OPTIONS, PER_HEAD_MHA.replace("def multi_head_attention", "def mha"), "per-head"),
    (PER_HEAD, SEPARATE_MHA, "separate"),
    (PER_HEAD, FUSED_MHA.replace("def mha", "def multi_head_attention"), "fused"),
])
def test_code_for_another_layout_is_named_with_that_layout(fake_sandbox, options, source,
                                                           layout):
    score, named, output = _named(source, options, fake_sandbox)
    assert named == {"contract_weights_layout"}
    assert f"Your function is written for weights in the {layout} layout" in output
    course = options["weights"]
    assert f"this course's layout is {course}" in output
    assert score < 2.0  # only tests where the layouts coincide (one head) can pass


def test_the_layout_message_uses_the_courses_names(fake_sandbox):
    _, _, output = _named(SEPARATE_MHA.replace("def multi_head_attention", "def mha"),
                          FUSED_OPTIONS, fake_sandbox)
    assert ("this course's layout is fused, c_attn_w (d_model, 3 d_model), c_attn_b (3 "
            "d_model,), c_proj_w (d_model, d_model), c_proj_b (d_model,): Q, K, V = "
            "np.split(x @ c_attn_w + c_attn_b, 3, axis=-1)") in output


def test_the_probe_calls_change_no_score(monkeypatch):
    """Separate code under per-head weights passes the one-head tests (W_q[None] broadcasts):
    its score is the same with and without the probe calls."""
    named = grade(MHA, PER_HEAD, SEPARATE_MHA, FakeSandbox())
    monkeypatch.setattr(layouts, "probes", lambda problem, cases, expected: [])
    plain = grade(MHA, PER_HEAD, SEPARATE_MHA, FakeSandbox())
    assert named.score == plain.score > 0
    assert diagnoses(named) == {"contract_weights_layout"}
    assert "contract_weights_layout" not in diagnoses(plain)


def test_code_in_the_courses_layout_with_a_mistake_keeps_its_mistake(fake_sandbox):
    """The probes in the other layouts crash: the layout is not named, the mistake is."""
    score, named, _ = _named(FUSED_MHA.replace(" / np.sqrt(q.shape[-1])", ""), FUSED_OPTIONS,
                             fake_sandbox)
    assert named == {"no_scaling"}
    assert score < 10.0


def test_separate_code_under_always_causal_heads_is_not_named_a_layout(fake_sandbox):
    """Called without a mask, separate code attends to every key: it is not right in the
    separate layout either (of causal heads), so no layout is named."""
    _, named, _ = _named(SEPARATE_MHA.replace("def multi_head_attention", "def mha"),
                         CAUSAL_OPTIONS, fake_sandbox)
    assert "contract_weights_layout" not in named


def test_probes_are_optional_visible_calls_before_every_hidden_one():
    sandbox = RecordingSandbox()
    assert grade(MHA, FUSED_OPTIONS, FUSED_MHA, sandbox).score == 10.0
    probes = [c for c in sandbox.calls if c.test.startswith(layouts.PREFIX)]
    # two visible examples, each in the separate and the per-head layout
    assert sorted(c.test.split(":")[1] for c in probes) == [" weights layout per-head"] * 2 + [
        " weights layout separate"] * 2
    assert all(c.optional and not c.secret for c in probes)
    first_secret = next(i for i, c in enumerate(sandbox.calls) if c.secret)
    assert max(sandbox.calls.index(c) for c in probes) < first_secret
    separate = next(c for c in probes if "separate" in c.test)
    assert len(separate.args) == 7 and separate.args[1].shape == separate.args[2].shape


@pytest.mark.parametrize("options", [None, {}, {"weights": "separate"}])
def test_items_without_a_layout_send_no_probe(options):
    sandbox = RecordingSandbox()
    problem = compile_course(PROBLEMS[MHA], options)
    assert problem is PROBLEMS[MHA]
    scoring.grade(problem, "item", 10.0, SEPARATE_MHA, sandbox, Limits(), 3)
    assert not any(c.test.startswith(layouts.PREFIX) for c in sandbox.calls)


def test_the_real_sandbox_names_the_layout_as_the_fake_one():
    """The probes go through the fork server's optional calls alike (its wire format and
    order): the same tests, scores and names as in the in-process fake."""
    from grader.sandbox import get_sandbox

    source = SEPARATE_MHA.replace("def multi_head_attention", "def mha")
    sandbox = get_sandbox("unsafe-dev")
    try:
        real = grade(MHA, FUSED_OPTIONS, source, sandbox)
    finally:
        sandbox.close()
    fake = grade(MHA, FUSED_OPTIONS, source, FakeSandbox())
    assert diagnoses(real) == diagnoses(fake) == {"contract_weights_layout"}
    assert [(t.name, t.status, t.score) for t in real.tests] == [
        (t.name, t.status, t.score) for t in fake.tests]


def test_a_probe_that_stops_the_learners_process_costs_no_test():
    """Per-head code that loops forever on 2-D weights: the first probe (separate weights) hits
    the time limit; being optional, it counts towards no limit, and every test still runs and
    passes."""
    from grader.sandbox import get_sandbox

    source = PER_HEAD_MHA.replace("    heads = []\n",
                                  "    while W_q.ndim == 2:\n        pass\n    heads = []\n")
    sandbox = get_sandbox("unsafe-dev")
    try:
        result = scoring.grade(compile_course(PROBLEMS[MHA], PER_HEAD), "item", 10.0, source,
                               sandbox, Limits(wall_seconds=2.0, cpu_seconds=2.0,
                                               run_wall_seconds=60.0), 3)
    finally:
        sandbox.close()
    assert result.score == 10.0
    assert all(t.status == "passed" for t in result.tests)
