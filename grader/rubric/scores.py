"""What scoring one answer under one rubric returns: each criterion's and misconception's outcome
and the total (:class:`RubricScore`). Plain data, serialised with :meth:`RubricScore.to_dict`."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class CriterionResult:
    """One criterion's outcome; ``evidence`` holds ``[start, end)`` character spans of the answer.

    ``credit`` says how the points were earned: ``"met"``, ``"partial"`` (``partial: true``),
    ``"near_miss"`` (some of a phrase's words) or ``""`` (nothing). ``negated_evidence`` (missed
    criteria only) points at mentions that would have earned the criterion but are negated ("it
    is *not quadratic*"); the feedback then says so.
    """

    id: str
    description: str
    points: float
    max_points: float
    met: bool
    evidence: list[list[int]]
    feedback: str
    concepts_matched: int = 0
    concepts_required: int = 0
    negated_evidence: list[list[int]] = field(default_factory=list)
    credit: str = ""


@dataclass
class MisconceptionResult:
    """One misconception: ``penalty`` is its penalty when matched (0 when not), ``deducted`` the
    points it actually removed (less when the score reached 0 first)."""

    id: str
    matched: bool
    penalty: float
    evidence: list[list[int]]
    message: str
    deducted: float = 0.0
    description: str = ""  # the rubric's short description of the claim ("says softmax is linear")


@dataclass
class RubricScore:
    """The score of one answer under one rubric version.

    ``points`` = sum of the criteria's points + ``base_credit`` - each misconception's
    ``deducted`` - each guard's ``deducted`` (all rounded to 4 decimals). ``guards`` lists the
    guards that fired (``{"id", "cap", "deducted", "reason"}``); ``notes`` explain, in words, every
    limit on the whole answer's credit (a guard, words past ``max_words``).
    """

    points: float
    max_points: float
    criteria: list[CriterionResult] = field(default_factory=list)
    misconceptions: list[MisconceptionResult] = field(default_factory=list)
    rubric_id: str | None = None
    rubric_version: int | None = None
    notes: list[str] = field(default_factory=list)
    base_credit: float = 0.0
    on_topic: bool = False
    guards: list[dict[str, Any]] = field(default_factory=list)
    words_read: int | None = None  # set when the answer had more than max_words words
    #: the rubric's own points before calibration (equal to ``points`` when it has none) and the
    #: calibration method applied (``None``: not calibrated); see :mod:`grader.rubric.calibration`
    raw_points: float | None = None
    calibration: str | None = None

    @property
    def fraction(self) -> float:
        """``points / max_points`` in [0, 1]."""
        return self.points / self.max_points if self.max_points else 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

