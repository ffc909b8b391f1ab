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


def display_digits(total: float, parts: int, digits: int = 2, most: int = 6) -> int:
    """Decimals for splitting ``total`` points into ``parts`` shares a person reads: ``digits``
    (2: hundredths), more when ``total`` itself has more decimals (0.125 needs 3), or when there
    are more shares than hundredths in ``total`` (0.1 point over 25 tests), at most ``most``."""
    while digits < most and (abs(round(total, digits) - total) > 1e-9
                             or round(total * 10 ** digits) < parts):
        digits += 1
    return digits


def _split_units(units: int, weights: list[float]) -> list[int]:
    """``units`` (a whole number) split in proportion to ``weights`` by the largest-remainder
    (Hamilton) method: each part gets the floor of its quota, and the units left over go to the
    largest remainders, earlier parts first on ties. The parts add up to ``units`` exactly."""
    total_weight = float(sum(weights))
    if units == 0 or total_weight == 0:
        return [0] * len(weights)
    quotas = [units * w / total_weight for w in weights]
    floors = [int(q) for q in quotas]  # quotas are >= 0
    left = units - sum(floors)
    order = sorted(range(len(weights)), key=lambda i: (-(quotas[i] - floors[i]), i))
    for index in order[:left]:
        floors[index] += 1
    return floors


def _split(total: float, weights: list[float], digits: int) -> list[float]:
    """``total`` in proportion to ``weights``: exactly, when every share has at most
    ``digits + 1`` decimals (2.5 over four tests is 0.625 each), else by largest remainder at
    ``digits`` decimals (or the decimals ``total`` itself has, when more)."""
    total_weight = float(sum(weights))
    if total_weight > 0:
        for places in (digits, digits + 1):
            quotas = [total * 10 ** places * w / total_weight for w in weights]
            if all(abs(q - round(q)) < 1e-6 for q in quotas):
                return [round(q) / 10 ** places for q in quotas]
    places = display_digits(total, 1, digits)
    return [u / 10 ** places for u in _split_units(round(total * 10 ** places), weights)]


def apportion(total: float, weights: list[float], digits: int = 2) -> list[float]:
    """Split ``total`` points in proportion to ``weights`` into shares rounded for display that
    add up exactly to ``total``: exact shares when they need at most ``digits + 1`` decimals,
    else largest-remainder rounding to ``digits`` decimals (more when :func:`display_digits`
    says so or a share with a positive weight would show 0). E.g. 10 over three equal parts is
    3.34, 3.33, 3.33 (never 3.3333 three times, nor a last share of 3.3334); 2.5 over four is
    0.625 each. Raises ``ValueError`` for a negative total or weight, or for positive points
    and no positive weight."""
    if total < 0 or any(w < 0 for w in weights):
        raise ValueError("points and weights must not be negative")
    if total > 0 and not any(w > 0 for w in weights):
        raise ValueError("positive points need at least one positive weight")
    digits = display_digits(total, sum(1 for w in weights if w > 0), digits)
    while True:
        shares = _split(total, list(weights), digits)
        if digits >= 6 or total == 0 or all(p > 0 for p, w in zip(shares, weights) if w > 0):
            return shares
        digits += 1


def split_points(total: float, parts: list[tuple[str, str, float]], digits: int = 2
                 ) -> dict[str, float]:
    """Points per test: ``total`` split across groups by weight, then equally within each
    group, both steps as in :func:`apportion` (exact when possible, else largest remainder), so
    each group's tests add up to the group's share and all of them to ``total`` exactly (a whole
    group lost costs exactly its share).

    ``parts``: ``(test name, group, group weight)`` per test, in display order; every test of
    a group carries the group's weight. Returns test name -> points. Raises ``ValueError`` for a
    negative total or weight."""
    groups: dict[str, list[str]] = {}
    weights: dict[str, float] = {}
    for name, group, weight in parts:
        groups.setdefault(group, []).append(name)
        weights[group] = weight
    if total < 0 or any(w < 0 for w in weights.values()):
        raise ValueError("points and weights must not be negative")
    digits = display_digits(total, len(parts), digits)
    while True:
        shares: dict[str, float] = {}
        amounts = _split(total, [weights[g] for g in groups], digits)
        for amount, names in zip(amounts, groups.values()):
            shares.update(zip(names, _split(amount, [1.0] * len(names), digits)))
        if digits >= 6 or total == 0 or all(shares[name] > 0 for name, group, _ in parts
                                             if weights[group] > 0):
            return shares
        digits += 1
