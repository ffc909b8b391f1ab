"""What changes a graded result after the tests: the late penalty and the instructor's overrides.

Both are written into the stored item results as lines of their own, so every reader (the
learner page, the API, webhooks, LTI passback, grades.csv) sees the same score, and the tests of
every item still add up to the item's score:

- **Late penalty** (tag ``late-penalty``, :mod:`grader.deadlines`): a submission ``d`` days late
  loses ``p`` percent of the assignment's points possible (per day or once, by its policy), never
  more than it scored. The deduction ``D = min(score, p/100 * max_score)`` is shared by the
  items in proportion to their scores (every item keeps the same share ``1 - D/score`` of its
  points), so the items add up to ``score - D`` exactly (to 4 decimals). Every item's
  ``extra_data["late"]`` says on time or late (:class:`grader.deadlines.Lateness`).
- **Override** (tag ``override``): the instructor sets an item's score, with a comment; the
  item then scores exactly that, whatever the tests and the late penalty gave. The line's points
  are the difference.

``extra_data["tests_score"]`` keeps what the tests gave an adjusted item, so the adjustments
can be taken off again (:func:`engine_results`) and made anew: an applied regrade recomputes the
tests and keeps the overrides; a new override replaces the old one.

Pure: dicts in, dicts out.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from grader.deadlines import Lateness, late_words

LATE_TAG = "late-penalty"
OVERRIDE_TAG = "override"
ADJUSTMENT_TAGS = (LATE_TAG, OVERRIDE_TAG)


@dataclass(frozen=True)
class Override:
    """An instructor's score for one item (``score`` of the item's points) and why."""

    item_id: str
    score: float
    comment: str = ""


def _points(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{text} point" + ("" if text == "1" else "s")


def _is_adjustment(test: dict) -> bool:
    return any(tag in ADJUSTMENT_TAGS for tag in test.get("tags") or ())


def engine_results(results: Iterable[dict]) -> list[dict]:
    """``results`` without late penalties and overrides: each item as its tests scored it."""
    out = []
    for item in results:
        item = copy.deepcopy(item)
        extra = item.get("extra_data") or {}
        if "tests_score" in extra:
            item["score"] = extra.pop("tests_score")
        extra.pop("late", None)
        extra.pop("override", None)
        item["tests"] = [t for t in item.get("tests", []) if not _is_adjustment(t)]
        out.append(item)
    return out


def totals(results: Iterable[dict]) -> tuple[float, float]:
    """The submission's score and maximum: the sums of its items', to 4 decimals."""
    results = list(results)
    return (round(sum(float(i.get("score") or 0.0) for i in results), 4),
            round(sum(float(i.get("max_score") or 0.0) for i in results), 4))


def _late_line(item: dict, deducted: float, late: Lateness, max_score: float) -> dict:
    taken = round(late.penalty_percent * max_score / 100, 4)
    why = (f"Submitted {late_words(late.to_dict())} (due {late.due_at}): the late policy takes "
           f"{late.penalty_percent:g}% of the assignment's {_points(max_score)} ({_points(taken)}), "
           "never more than the score, shared by the items in proportion to their points; "
           f"this item loses {_points(deducted)}.")
    return {"name": "Late penalty", "score": -deducted, "max_score": 0.0, "status": "failed",
            "output": why, "visibility": "visible", "tags": [LATE_TAG], "number": None,
            "output_format": "text", "extra_data": {}}


def _override_line(item: dict, override: Override, before: float) -> dict:
    delta = round(override.score - before, 4)
    maximum = float(item.get("max_score") or 0.0)
    why = (f"Your instructor set this item's score to {override.score:g} of {maximum:g} "
           f"(the tests gave {before:g})." + (f" {override.comment}" if override.comment else ""))
    return {"name": "Score set by your instructor", "score": delta, "max_score": 0.0,
            "status": "passed" if delta >= 0 else "failed", "output": why,
            "visibility": "visible", "tags": [OVERRIDE_TAG], "number": None,
            "output_format": "text", "extra_data": {}}


def adjust(results: Iterable[dict], late: Lateness | None = None,
           overrides: Mapping[str, Override] | None = None) -> list[dict]:
    """``results`` (item results as stored, adjusted or not) with the late penalty of ``late``
    and ``overrides`` (by item id) applied anew (module docstring)."""
    items = engine_results(results)
    overrides = overrides or {}
    if late is not None:
        score, maximum = totals(items)
        deduction = min(score, round(late.penalty_percent * maximum / 100, 4))
        keep = 1 - deduction / score if score > 0 else 1.0
        carriers = [i for i in items if float(i.get("score") or 0.0) > 0]
        left = deduction
        for item in items:
            extra = item.setdefault("extra_data", {})
            extra["late"] = late.to_dict()
            engine = float(item.get("score") or 0.0)
            if deduction <= 0 or engine <= 0:
                continue
            cut = left if item is carriers[-1] else round(engine * (1 - keep), 4)
            cut = min(cut, engine)
            left = round(left - cut, 4)
            if cut <= 0:
                continue
            extra["tests_score"] = engine
            item["score"] = round(engine - cut, 4)
            item["tests"].append(_late_line(item, cut, late, maximum))
    for item in items:
        override = overrides.get(item.get("item_id"))
        if override is None:
            continue
        extra = item.setdefault("extra_data", {})
        before = float(item.get("score") or 0.0)
        extra.setdefault("tests_score", before)
        extra["override"] = {"score": override.score, "engine_score": before,
                             "comment": override.comment}
        item["tests"].append(_override_line(item, override, before))
        item["score"] = round(float(override.score), 4)
    return items


def late_of(results: Iterable[dict]) -> dict[str, Any] | None:
    """The submission's lateness as graded (:meth:`Lateness.to_dict`), or ``None`` (no due
    date then)."""
    for item in results or []:
        late = (item.get("extra_data") or {}).get("late")
        if late:
            return late
    return None


def late_summary(results: Iterable[dict] | None) -> dict[str, Any] | None:
    """What results say of lateness: :func:`late_of` with ``penalty_points``, the points the
    late penalty took from the whole submission (items whose score an override set excepted;
    ``None``: no due date)."""
    results = list(results or [])
    late = late_of(results)
    if late is None:
        return None
    return {**late, "penalty_points": round(sum(late_penalty(i) for i in results), 4)}


def late_penalty(item: dict) -> float:
    """Points the late penalty took from one item result (0 when none, and when an override
    set the item's score: the instructor's score is what counts then)."""
    if override_of(item):
        return 0.0
    return round(-sum(float(t.get("score") or 0.0) for t in item.get("tests", [])
                      if LATE_TAG in (t.get("tags") or ())), 4)


def override_of(item: dict) -> dict[str, Any] | None:
    """An item result's override (``{"score", "engine_score", "comment"}``), or ``None``."""
    return (item.get("extra_data") or {}).get("override")


def engine_score(item: dict) -> float:
    """What the tests (and the late penalty) gave an item result, before any override."""
    override = override_of(item)
    return float(override["engine_score"]) if override else float(item.get("score") or 0.0)
