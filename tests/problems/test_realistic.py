"""Realistic files with two or three mistakes at once, in the styles of real course code
(../shared/reference/real-course-code.md): every mistake a file makes is named, and no other.

Each file in tests/problems/realistic/ states its problem and its mistakes in its first lines
(``# problem: <id>``, ``# mistakes: <tag>, <tag>``), worked out by reading the code."""
from __future__ import annotations

from pathlib import Path

import pytest

from grader.problems import PROBLEMS, scoring
from grader.sandbox.api import Limits
from tests.problems.problem_helpers import diagnoses

FILES = sorted((Path(__file__).parent / "realistic").glob("*.py"))


def _header(path: Path) -> tuple[str, set[str]]:
    lines = path.read_text().splitlines()
    problem = lines[0].removeprefix("# problem:").strip()
    mistakes = {tag.strip() for tag in lines[1].removeprefix("# mistakes:").split(",")}
    return problem, mistakes


def test_the_realistic_files_make_several_mistakes_each():
    assert len(FILES) >= 12
    for path in FILES:
        problem, mistakes = _header(path)
        assert problem in PROBLEMS and len(mistakes) >= 2, path.name
        tags = {v.tag for v in PROBLEMS[problem].variants}
        assert mistakes <= tags, (path.name, mistakes - tags)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
@pytest.mark.parametrize("seed", [1, 2])
def test_every_mistake_of_a_realistic_file_is_named_and_no_other(fake_sandbox, path, seed):
    problem, mistakes = _header(path)
    result = scoring.grade(PROBLEMS[problem], "item", 10.0, path.read_text(), fake_sandbox,
                           Limits(), seed)
    assert result.score < 10.0
    assert diagnoses(result) == mistakes
    assert set(result.extra_data["diagnoses"]) == mistakes
    for tag in mistakes:  # each message is in the item's feedback
        message = next(v.message for v in PROBLEMS[problem].variants if v.tag == tag)
        assert message in result.output
