"""Result records in the layout of Gradescope's ``results.json``.

Source of the layout: gradescope/autograder_samples, docs/specs.md. Every item kind (code, text,
choice) reports its outcome as an :class:`ItemResult` holding a list of :class:`TestResult`; the
submission's result is the list of item results plus the totals. Scores are points (floats).
"""
from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field, fields, is_dataclass
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
        """The record as plain JSON-ready data (what :func:`dataclasses.asdict` returns, built
        without its per-value deep copies)."""
        return {name: plain(getattr(self, name)) for name in _field_names(TestResult)}


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
        """As :func:`dataclasses.asdict` (tests included), without its per-value deep copies."""
        data = {name: plain(getattr(self, name)) for name in _field_names(ItemResult)
                if name != "tests"}
        data["tests"] = [t.to_dict() for t in self.tests]
        return {name: data[name] for name in _field_names(ItemResult)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ItemResult":
        tests = [TestResult(**t) for t in data.get("tests", [])]
        return cls(**{**data, "tests": tests})


_SCALARS = (str, int, float, bool, type(None))
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    if cls not in _FIELD_NAMES:
        _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return _FIELD_NAMES[cls]


def plain(value: Any) -> Any:
    """A copy of ``value`` as :func:`dataclasses.asdict` makes it (lists, tuples and dicts copied
    recursively, dataclasses turned into dicts, anything else deep-copied), but scalars are
    returned as they are instead of going through :func:`copy.deepcopy` (they are immutable)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list:
        return [plain(item) for item in value]
    if kind is dict:
        return {plain(key): plain(item) for key, item in value.items()}
    if kind is tuple:
        return tuple(plain(item) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return copy.deepcopy(value)


class InfrastructureError(RuntimeError):
    """Grading could not run for a reason that is not the learner's fault (sandbox unavailable,
    worker fault, store down). The submission is marked ``failed`` with this reason and retried,
    never scored as zero."""
