"""Authored problems graded like built-ins: the reference and the mistakes run in the sandbox
(one run per seed, cached), never in this process; diagnosis names the author's mistakes."""
from __future__ import annotations

import pytest

from grader.problems import scoring
from grader.problems.authored import compile_document, load_document
from grader.problems.authored.executor import decode, encode
from grader.problems.authored.trial import refusal, trial
from grader.problems.examples import public_examples
from grader.results import InfrastructureError
from grader.sandbox import get_sandbox
from grader.sandbox.api import Limits
from tests.problems.authored.test_document import cosine


@pytest.fixture(scope="module")
def real_sandbox():
    sandbox = get_sandbox("unsafe-dev")
    yield sandbox
    sandbox.close()


def test_reference_scores_full_marks_and_its_values_are_computed_once_per_seed(fake_sandbox):
    raw = cosine()
    problem = compile_document(raw)
    result = scoring.grade(problem, "cos", 10, raw["reference"], fake_sandbox, Limits(), seed=4)
    assert result.score == 10 and all(t.status == "passed" for t in result.tests)
    # one run for the implementations (reference + 3 mistakes), one for the learner
    assert problem.executor.runs == 1 and fake_sandbox.runs == 2
    scoring.grade(problem, "cos", 10, raw["reference"], fake_sandbox, Limits(), seed=4)
    assert problem.executor.runs == 1 and fake_sandbox.runs == 3
    scoring.grade(problem, "cos", 10, raw["reference"], fake_sandbox, Limits(), seed=5)
    assert problem.executor.runs == 2


@pytest.mark.parametrize("index", [0, 1, 2])
def test_each_mistake_graded_alone_is_named(fake_sandbox, index):
    raw = cosine()
    problem = compile_document(raw)
    found = raw["mistakes"][index]
    result = scoring.grade(problem, "cos", 10, found["source"], fake_sandbox, Limits(), seed=2)
    assert result.score < 10
    assert result.extra_data["diagnoses"] == [found["id"]]
    assert found["message"].split(" (")[0] in result.output


def test_a_hostile_submission_cannot_reach_the_reference(real_sandbox):
    raw = cosine()
    problem = compile_document(raw)
    hostile = ("import gc\n"
               "def cosine_attention(Q, K, V, tau):\n"
               "    names = [o for o in gc.get_objects() if isinstance(o, str)\n"
               "             and 'np.linalg.norm(Q' in o]\n"
               "    raise RuntimeError(f'found {len(names)}')\n")
    result = scoring.grade(problem, "cos", 10, hostile, real_sandbox, Limits(), seed=1)
    assert result.score == 0
    assert "RuntimeError: found 0" in result.tests[0].output


def test_the_visible_examples_values_survive_storage_without_a_sandbox(fake_sandbox):
    raw = cosine()
    problem = compile_document(raw)
    scoring.grade(problem, "cos", 10, raw["reference"], fake_sandbox, Limits(), seed=0)
    stored = encode(problem.executor.visible_values())
    reloaded = compile_document(raw, decode(stored))
    assert public_examples(reloaded) == public_examples(problem)
    with pytest.raises(InfrastructureError):
        public_examples(compile_document(raw))  # nothing stored, no sandbox: no values


def test_a_failing_reference_is_refused_with_the_reason(fake_sandbox):
    raw = cosine()
    raw["reference"] = ("import numpy as np\n"
                        "def cosine_attention(Q, K, V, tau):\n"
                        "    if Q.ndim == 2:\n"
                        "        raise ValueError('2-D input')\n"
                        "    return Q\n")
    report = trial(compile_document(raw), load_document(raw), fake_sandbox, seeds=range(1),
                   with_mutants=False)
    assert report["refused"] is not None
    assert "ValueError: 2-D input" in refusal(report)
    assert report["refused_field"] == "reference"  # no mistake met a time limit


def test_trial_of_the_example_reports_mistakes_and_mutants(real_sandbox):
    raw = cosine()
    report = trial(compile_document(raw), load_document(raw), real_sandbox, seeds=range(2))
    assert report["refused"] is None and report["findings"] == []
    assert report["reference"] == {"score": 10.0, "max_score": 10.0, "full": True}
    assert [(m["id"], m["named"], m["separable"]) for m in report["mistakes"]] == [
        ("not-normalised", True, True), ("tau-multiplied", True, True),
        ("softmax-over-queries", True, True)]
    operators = {m["operator"] for m in report["mutants"]}
    assert {"change-axis", "remove-transpose", "remove-max-subtraction", "drop-exp"} <= operators
    assert report["mutants_caught"]["caught"] == report["mutants_caught"]["of"]


def test_an_equivalent_mutant_is_reported_as_not_caught(real_sandbox):
    raw = cosine()
    del raw["categories"]["sharp"]  # without logits in the thousands, max subtraction is moot
    report = trial(compile_document(raw), load_document(raw), real_sandbox, seeds=range(1))
    missed = [m["id"] for m in report["mutants"] if not m["caught"]]
    assert missed == ["remove-max-subtraction@7"]
