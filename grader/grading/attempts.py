"""Which attempt counts: the one rule that grades.csv, the instructor page, the analytics, the
webhooks' ``counted`` grade and LTI grade passback all use (:func:`counted_attempts`).

An assignment's ``attempt_policy`` (:data:`grader.content.ATTEMPT_POLICIES`):

- ``latest`` (the default, as before): the learner's latest *graded* attempt;
- ``best``: the graded attempt with the highest score (the latest of equal ones);
- ``best_per_item``: for each item, its highest score over the graded attempts (the latest of
  equal ones), added up; the items are those of the learner's latest graded attempt, so an item
  removed from the assignment no longer counts.

Under every policy a failed grading (an infrastructure fault, never a zero) or an attempt still
being graded never replaces a graded one: a learner with no graded attempt is counted with their
latest attempt, whatever its status, and no score. Scores include what stored results include
(late penalties, instructor overrides).

Pure: rows in, numbers out (:func:`learner_grade` alone reads the store, for one learner). A
row is anything with ``id``, ``learner_id``, ``status``, ``score``, ``max_score``,
``received_at`` and ``results`` (a list of item results as stored), such as
:class:`grader.store.models.Submission`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from grader.content import ATTEMPT_POLICIES


@dataclass(frozen=True)
class CountedItem:
    """One item's counted result: its score of ``max_score`` and the attempt it comes from."""

    item_id: str
    score: float
    max_score: float
    submission_id: str


@dataclass
class Counted:
    """A learner's counted grade on one assignment.

    ``score``/``max_score``: the counted points (``None`` when no attempt is graded);
    ``status``: ``graded`` when a graded attempt counts, else the status of the latest attempt
    (``failed``, ``queued`` or ``running``); ``sources``: the ids of the attempts whose results
    count (one, or one per item for ``best_per_item``), newest first; ``primary``: the row
    standing for the grade (the counted attempt; for ``best_per_item`` the newest source);
    ``latest``: the learner's latest attempt of any status; ``attempts``: how many there are;
    ``items``: per item id, :class:`CountedItem`."""

    learner_id: str
    policy: str
    status: str
    score: float | None
    max_score: float | None
    primary: Any
    latest: Any
    attempts: int
    sources: tuple[str, ...] = ()
    items: dict[str, CountedItem] = field(default_factory=dict)

    @property
    def graded(self) -> bool:
        return self.status == "graded"


def _order(row) -> tuple:
    return (row.received_at, row.id)


def _item_scores(row) -> dict[str, tuple[float, float]]:
    out = {}
    for item in row.results or []:
        if isinstance(item, dict) and "item_id" in item:
            out[item["item_id"]] = (float(item.get("score") or 0.0),
                                    float(item.get("max_score") or 0.0))
    return out


def _whole(row) -> dict[str, CountedItem]:
    return {item_id: CountedItem(item_id, score, maximum, row.id)
            for item_id, (score, maximum) in _item_scores(row).items()}


def count_one(learner_id: str, attempts: list, policy: str = "latest") -> Counted:
    """The counted grade of one learner from their ``attempts`` (any order, at least one).
    Raises ``ValueError`` for an unknown ``policy``."""
    if policy not in ATTEMPT_POLICIES:
        raise ValueError(f"attempt policy: one of {', '.join(ATTEMPT_POLICIES)}, not {policy!r}")
    ordered = sorted(attempts, key=_order)
    latest = ordered[-1]
    graded = [row for row in ordered if row.status == "graded" and row.score is not None]
    if not graded:
        return Counted(learner_id, policy, latest.status, None, None, latest, latest,
                       len(ordered), (latest.id,))
    if policy == "latest":
        chosen = graded[-1]
    elif policy == "best":
        chosen = max(reversed(graded), key=lambda row: row.score)  # ties: the latest
    else:
        return _best_per_item(learner_id, graded, latest, len(ordered))
    return Counted(learner_id, policy, "graded", float(chosen.score), float(chosen.max_score),
                   chosen, latest, len(ordered), (chosen.id,), _whole(chosen))


def _best_per_item(learner_id: str, graded: list, latest, attempts: int) -> Counted:
    newest = graded[-1]
    wanted = _item_scores(newest)
    items: dict[str, CountedItem] = {}
    for row in reversed(graded):  # newest first: a tie keeps the newer attempt
        for item_id, (score, _maximum) in _item_scores(row).items():
            if item_id in wanted and (item_id not in items or score > items[item_id].score):
                items[item_id] = CountedItem(item_id, score, wanted[item_id][1], row.id)
    by_id = {row.id: row for row in graded}
    sources = tuple(sorted({i.submission_id for i in items.values()},
                           key=lambda sid: _order(by_id[sid]), reverse=True))
    score = round(sum(i.score for i in items.values()), 4)
    maximum = round(sum(i.max_score for i in items.values()), 4) if items else \
        float(newest.max_score)
    primary = by_id[sources[0]] if sources else newest
    return Counted(learner_id, "best_per_item", "graded", score, maximum, primary, latest,
                   attempts, sources or (newest.id,), items)


def counted_attempts(rows: Iterable, policy: str = "latest") -> dict[str, Counted]:
    """Every learner's counted grade (:class:`Counted`, by learner id, in learner id order) from
    ``rows``, one assignment's attempts of any learners, under ``policy``. Raises ``ValueError``
    for an unknown policy."""
    by_learner: dict[str, list] = {}
    for row in rows:
        by_learner.setdefault(row.learner_id, []).append(row)
    return {learner: count_one(learner, attempts, policy)
            for learner, attempts in sorted(by_learner.items())}


def counts_for(counted: Counted | None, submission) -> bool:
    """Whether ``submission``'s outcome is (part of) its learner's counted grade ``counted``: a
    grade passed on (to an LMS) when ``submission`` changes is then news."""
    return counted is not None and submission.id in counted.sources


#: Attempts of one learner read for their counted grade (the newest; far more than anyone makes).
MAX_ATTEMPTS_READ = 1000


def learner_grade(store, catalog, course_id: str, assignment_id: str,
                  learner_id: str) -> Counted | None:
    """The counted grade of one learner under the assignment's current ``attempt_policy``,
    from their attempts in the store (``None``: no attempt)."""
    assignment = catalog.get(course_id, assignment_id)
    policy = assignment.attempt_policy if assignment is not None else "latest"
    rows = store.attempts_of(course_id, assignment_id, learner_id, limit=MAX_ATTEMPTS_READ)
    return count_one(learner_id, rows, policy) if rows else None
