"""An instructor sets (or removes) one item's score on a graded submission, with a comment.

The decision is stored in the submission's audit list and written into its results under one
lock (:meth:`grader.store.db.Store.rewrite_graded`, :mod:`grader.grading.adjustments`), then
announced like a regrade (``submission.regraded`` with ``cause: "override"``: webhooks, and the
LMS gradebook through LTI when the submission counts). Later regrades keep it.
"""
from __future__ import annotations

import logging
import math

from grader.deadlines import Lateness
from grader.grading.adjustments import Override, adjust, engine_score, late_of, totals
from grader.store.db import Rewrite

log = logging.getLogger(__name__)

#: The longest comment kept (characters).
MAX_COMMENT = 2000


class OverrideRefused(ValueError):
    """The decision cannot be stored: ``status`` (404 no such item, 409 not graded, 422 bad
    score), ``field`` and a sentence saying why."""

    def __init__(self, status: int, field: str, message: str):
        super().__init__(message)
        self.status, self.field = status, field


def _item(results: list, item_id: str) -> dict | None:
    return next((i for i in results or [] if i.get("item_id") == item_id), None)


def record_override(store, submission_id: str, item_id: str, score: float | None,
                    comment: str, author: str, notifier=None):
    """Set ``item_id``'s score to ``score`` (``None``: remove the override, the tests' score
    counts again) on graded ``submission_id``. Returns the stored submission. Raises
    :class:`OverrideRefused` (nothing stored) for an unknown item, a submission that is not
    graded, or a score outside 0..the item's points."""
    if score is not None and (not math.isfinite(score) or score < 0):
        raise OverrideRefused(422, "score", "score: a number from 0 to the item's points")
    comment = (comment or "").strip()
    if len(comment) > MAX_COMMENT:
        raise OverrideRefused(422, "comment", f"comment: at most {MAX_COMMENT} characters")
    before = store.get(submission_id)

    def rewrite(row, overrides):
        item = _item(row.results, item_id)
        if item is None:
            items = ", ".join(i.get("item_id", "?") for i in row.results or [])
            raise OverrideRefused(404, "item_id", f"The submission has no item {item_id!r}; its "
                                                  f"items are {items}.")
        maximum = float(item.get("max_score") or 0.0)
        if score is not None and score > maximum:
            raise OverrideRefused(422, "score", f"score: at most the item's {maximum:g} points "
                                                f"(got {score:g})")
        if score is None and item_id not in overrides:
            return None  # nothing to remove
        decided = {k: Override(k, r.score, r.comment) for k, r in overrides.items()}
        if score is None:
            decided.pop(item_id, None)
        else:
            decided[item_id] = Override(item_id, round(float(score), 4), comment)
        late = late_of(row.results)
        results = adjust(row.results, Lateness(**late) if late else None, decided)
        new_item = _item(results, item_id)
        return Rewrite(results, *totals(results), override={
            "item_id": item_id, "score": None if score is None else round(float(score), 4),
            "previous_score": float(item.get("score") or 0.0),
            "engine_score": engine_score(new_item), "comment": comment, "author": author[:300]})

    stored = store.rewrite_graded(submission_id, rewrite, "override")
    if stored is None:
        current = store.get(submission_id)
        if current is None or current.status != "graded":
            raise OverrideRefused(409, "submission_id", "Only a graded submission's items can "
                                  "be overridden (this one is "
                                  f"{current.status if current else 'missing'}).")
        return current  # removing an override that was not there: nothing changed
    if notifier is not None and before is not None:
        try:
            notifier.submission_regraded(submission_id, before.score, before.max_score, None,
                                         cause="override",
                                         override={"item_id": item_id, "score": score,
                                                   "comment": comment})
        except Exception:  # a notification fault never undoes the decision
            log.exception("announcing the override of %s failed", submission_id)
    return stored
