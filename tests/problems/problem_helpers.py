"""Helpers for the problem tests: read sample submissions, grade them, summarise results."""
from __future__ import annotations

from grader.problems import PROBLEMS, samples, scoring
from grader.results import ItemResult
from grader.sandbox.api import Limits

submission = samples.source
submission_names = samples.names


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
