"""Every problem: correct implementations in several styles get full marks; every file with one
known mistake loses the right tests and gets the right diagnosis on each failing test."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS, samples, trial
from grader.problems.samples import Some, Where, Whole
from tests.problems.problem_helpers import (category_points, failed_categories, grade_file,
                                            submission_names)

EXPECTED = {problem: samples.expected(problem) for problem in PROBLEMS}

CORRECT = [(p, name) for p in PROBLEMS for name in submission_names(p, "correct_")]
BUGGY = [(p, name) for p in PROBLEMS for name in submission_names(p, "bug_")]


def test_every_problem_has_correct_and_buggy_files_all_with_expectations():
    for problem in PROBLEMS:
        assert len(submission_names(problem, "correct_")) >= 3, problem
        assert set(submission_names(problem, "bug_")) == set(EXPECTED[problem]), problem


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_every_known_mistake_has_a_submission_file_that_gets_it(problem):
    tags = {entry.tag for entry in PROBLEMS[problem].variants + PROBLEMS[problem].rules}
    covered = {tag for tags_, _ in EXPECTED[problem].values() for tag in _tags(tags_)}
    assert tags == covered


def _tags(tag: str | tuple[str, ...]) -> tuple[str, ...]:
    """A sample's mistake, or its mistakes when it makes several at once."""
    return (tag,) if isinstance(tag, str) else tuple(tag)


@pytest.mark.parametrize("problem, name", CORRECT)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_correct_styles_get_full_marks(fake_sandbox, problem, name, seed):
    result = grade_file(fake_sandbox, problem, name, seed=seed)
    assert [t.name for t in result.tests if t.status == "failed"] == []
    assert result.score == pytest.approx(10.0, abs=1e-4)
    assert "Diagnosis" not in result.output


def _message(problem: str, tag: str) -> str:
    mistakes = PROBLEMS[problem].variants + PROBLEMS[problem].rules
    return next(entry.message for entry in mistakes if entry.tag == tag)


@pytest.mark.parametrize("problem, name", BUGGY)
@pytest.mark.parametrize("seed", [1, 2])
def test_each_mistake_loses_the_right_tests_and_is_named(fake_sandbox, problem, name, seed):
    tag, expected = EXPECTED[problem][name]
    result = grade_file(fake_sandbox, problem, name, seed=seed)
    failing = [t for t in result.tests if t.status == "failed"]
    cases = PROBLEMS[problem].cases(seed)
    also = {c.name for c in cases
            if isinstance(expected, Whole) and expected.also and expected.also in c.traits}
    if isinstance(expected, Where):
        assert {t.name for t in failing} == expected.failing(cases)
    else:
        assert failed_categories(result, ignore=also) == set(expected.categories)
        assert also <= {t.name for t in failing}
    if isinstance(expected, Whole):
        lost = category_points(result, set(expected.categories)) + sum(
            t.max_score for t in result.tests if t.name in also)
        assert result.score == pytest.approx(10.0 - lost, abs=1e-4)
    assert isinstance(expected, (Whole, Some, Where))
    # a test withheld by the credit rule says so and shows no other test's diagnosis
    withheld = [t for t in failing if t.output.startswith("Failed: not credited")]
    assert all("Diagnosis" not in t.output and not any(g.startswith("diagnosis:") for g in t.tags)
               for t in withheld), [(t.name, t.output) for t in withheld]
    failing = [t for t in failing if t not in withheld]
    # every mistake of the file is named on every failing test it makes fail (a file with
    # several: each failing test names at least one of them, and all of them are named)
    assert failing and all(any(f"diagnosis:{tag}" in t.tags for tag in _tags(tag))
                           for t in failing), [(t.name, t.tags) for t in failing]
    assert {g.split(":", 1)[1] for t in failing for g in t.tags
            if g.startswith("diagnosis:")} == set(_tags(tag))
    for one in _tags(tag):
        message = _message(problem, one)
        assert all(message in t.output for t in failing if f"diagnosis:{one}" in t.tags)
        assert message in result.output


def test_mistakes_document_is_in_sync_with_the_code():
    from pathlib import Path

    from grader.problems import mistakes

    document = Path(mistakes.__file__).with_name("MISTAKES.md").read_text(encoding="utf-8")
    assert document == mistakes.markdown(), \
        "regenerate: python -m grader.problems.mistakes > grader/problems/MISTAKES.md"


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_each_catalogued_mistake_alone_loses_points_and_is_named(problem):
    # every toggle (and implementation) of the table, graded as a learner's code; one draw
    # suffices here because test_seed_invariance holds each one's score, verdicts and diagnoses
    # the same on all 50 draws, so named on this draw is named on every draw
    found = trial.check_mistakes_named(PROBLEMS[problem], seeds=[0])
    assert found == [], "\n".join(f.message for f in found)
    assert trial.check_reference_full_marks(PROBLEMS[problem], seeds=[0]) == []
