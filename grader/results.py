"""Result records in the layout of Gradescope's ``results.json``.

Source of the layout: gradescope/autograder_samples, docs/specs.md. Every item kind (code, text,
choice) reports its outcome as an :class:`ItemResult` holding a list of :class:`TestResult`; the
submission's result is the list of item results plus the totals. Scores are points (floats).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Visibility = Literal["hidden", "after_due_date", "after_published", "visible"]
TestStatus = Literal["passed", "failed"]


@dataclass
class TestResult:
    """One graded check, as a Gradescope ``tests[]`` entry.

    ``output`` is student-facing feedback (Markdown-free plain text). For hidden tests it must never
    contain hidden inputs or expected values. ``tags`` carry the category (e.g. ``"scaling"``) and
    any diagnosed mistake (e.g. ``"diagnosis:scale_by_d_k"``).
    """

    name: str
    score: float
    max_score: float
    status: TestStatus
    output: str = ""
    visibility: Visibility = "visible"
    tags: list[str] = field(default_factory=list)
    number: str | None = None
    output_format: str = "text"
    extra_data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ItemResult:
    """The outcome of grading one item of a submission.

    ``status`` is ``"graded"`` when a score was computed (possibly 0 for a wrong answer) and
    ``"failed"`` when an infrastructure fault prevented grading: such a result is never a score.
    """

    item_id: str
    kind: str
    score: float
    max_score: float
    tests: list[TestResult] = field(default_factory=list)
    output: str = ""
    status: Literal["graded", "failed"] = "graded"
    extra_data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tests"] = [t.to_dict() for t in self.tests]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ItemResult":
        tests = [TestResult(**t) for t in data.get("tests", [])]
        return cls(**{**data, "tests": tests})


class InfrastructureError(RuntimeError):
    """Grading could not run for a reason that is not the learner's fault (sandbox unavailable,
    worker fault, store down). The submission is marked ``failed`` with this reason and retried,
    never scored as zero."""
