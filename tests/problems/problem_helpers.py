"""Helpers for the problem tests: read submission files, grade them, summarise results."""
from __future__ import annotations

from pathlib import Path

from grader.problems import PROBLEMS, scoring
from grader.results import ItemResult
from grader.sandbox.api import Limits

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"


def submission(problem: str, name: str) -> str:
    """The source of ``submissions/<problem>/<name>.py``."""
    return (SUBMISSIONS / problem / f"{name}.py").read_text(encoding="utf-8")


def submission_names(problem: str, prefix: str) -> list[str]:
    """Names of the submission files of ``problem`` starting with ``prefix``."""
    return sorted(p.stem for p in (SUBMISSIONS / problem).glob(f"{prefix}*.py"))


def grade_source(sandbox, problem: str, source: str, seed: int = 7, points: float = 10.0
                 ) -> ItemResult:
    return scoring.grade(PROBLEMS[problem], "item", points, source, sandbox, Limits(), seed)


def grade_file(sandbox, problem: str, name: str, seed: int = 7, points: float = 10.0
               ) -> ItemResult:
    return grade_source(sandbox, problem, submission(problem, name), seed, points)


def failed_categories(result: ItemResult, ignore: set[str] = frozenset()) -> set[str]:
    """Categories with a failed test (tests named in ``ignore`` left out)."""
    return {t.tags[0] for t in result.tests if t.status == "failed" and t.name not in ignore}


def diagnoses(result: ItemResult) -> set[str]:
    return {tag.split(":", 1)[1] for t in result.tests for tag in t.tags
            if tag.startswith("diagnosis:")}


def category_points(result: ItemResult, categories: set[str]) -> float:
    return sum(t.max_score for t in result.tests if t.tags[0] in categories)
