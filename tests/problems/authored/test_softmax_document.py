"""The built-in problems can be written as documents: softmax as one
(examples/problems/softmax.yaml) gives every sample submission of the catalogue the same score
and the same test verdicts as the built-in, on every draw tried."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from grader.problems import PROBLEMS, compile_problem, scoring
from grader.problems.authored import compile_document, parse
from grader.sandbox.api import Limits

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = sorted((ROOT / "grader/problems/builtin/softmax/samples").glob("*.py"))


@pytest.fixture(scope="module")
def document_problem():
    return compile_document(parse((ROOT / "examples/problems/softmax.yaml").read_text()))


@pytest.fixture(scope="module")
def unbalanced_builtin():
    """The built-in softmax without its balance (all else the same)."""
    spec = PROBLEMS["softmax"].spec
    assert spec.balance == "vector"
    return compile_problem(replace(spec, balance=""))


def verdicts(result) -> list[str]:
    return [t.status for t in result.tests if t.visibility == "hidden"]


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_document_grades_each_sample_as_the_builtin(fake_sandbox, document_problem,
                                                    unbalanced_builtin, sample):
    source = sample.read_text()
    for seed in range(3):
        builtin = scoring.grade(PROBLEMS["softmax"], "s", 10, source, fake_sandbox, Limits(),
                                seed)
        unbalanced = scoring.grade(unbalanced_builtin, "s", 10, source, fake_sandbox, Limits(),
                                   seed)
        document = scoring.grade(document_problem, "s", 10, source, fake_sandbox, Limits(), seed)
        assert document.score == unbalanced.score, (seed, [t.name for t in document.tests])
        assert verdicts(document) == verdicts(builtin) == verdicts(unbalanced)


def test_the_document_names_its_hidden_tests_as_the_builtin_does(document_problem):
    ours = [c.name for c in document_problem.cases(0) if not c.visible]
    theirs = [c.name for c in PROBLEMS["softmax"].cases(0) if not c.visible]
    assert ours == theirs
