"""Real-course-style files (tests/problems/courses/, in the styles of
../shared/reference/real-course-code.md) under the contract options their course would set:
each scores full, through the in-process fake and through the real sandbox, and each scored
less under today's contract (benchmarks/course_contracts.py prints the numbers)."""
from __future__ import annotations

import pytest

from benchmarks.course_contracts import FILES, header, scores
from grader.problems import PROBLEMS, scoring
from grader.problems.course import compile_course
from grader.sandbox.api import Limits

#: The TensorFlow tutorial's encoding takes depth / 2 frequencies, so an odd d_model gets one
#: column too many: a limit of the course's code, not of its conventions.
ODD_DEPTH = "tf_tutorial_positional_encoding"


@pytest.fixture(scope="module")
def real_sandbox(unsafe_dev_sandbox):
    return unsafe_dev_sandbox


def test_there_are_fourteen_course_files_over_five_problems():
    assert len(FILES) == 14
    assert {header(path)[0] for path in FILES} == {
        "scaled_dot_product_attention", "causal_mask", "positional_encoding", "softmax",
        "multi_head_attention"}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_course_file_scores_full_under_its_contract_and_less_under_todays(path):
    before, after, _, named_after = scores(path, seed=2)
    if path.stem == ODD_DEPTH:
        assert after == 7.75  # the two odd d_model tests' categories: 1.5 + half of 1.5
    else:
        assert after == 10.0, named_after
    if path.stem != "annotated_transformer_attention":  # today's convention already
        assert before < after


@pytest.mark.parametrize("path", FILES[::3], ids=[p.stem for p in FILES[::3]])
def test_the_real_sandbox_grades_a_course_file_as_the_fake_does(real_sandbox, fake_sandbox,
                                                                  path):
    problem_id, options = header(path)
    problem = compile_course(PROBLEMS[problem_id], options)
    real = scoring.grade(problem, "item", 10.0, path.read_text(), real_sandbox, Limits(), 5)
    fake = scoring.grade(problem, "item", 10.0, path.read_text(), fake_sandbox, Limits(), 5)
    assert [(t.name, t.status, t.score) for t in real.tests] == \
        [(t.name, t.status, t.score) for t in fake.tests]
    assert real.score == (7.75 if path.stem == ODD_DEPTH else 10.0)
