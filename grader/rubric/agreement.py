"""Agreement between rubric scores and human marks, and the trial report instructors read.

Statistics (all on the rubric's points scale):

- Pearson's r (``None`` when either side is constant);
- quadratic weighted kappa (Cohen 1968) on marks rounded to whole points, categories
  ``0..round(max_points)``; ``kappa = 1 - sum(W*O) / sum(W*E)`` with ``W[i,j] = (i-j)^2``;
- exact agreement and within-one agreement of the rounded marks (share of responses, 0-1);
- RMSE and mean absolute error in points.

The trial report follows Moodle pmatch's "test responses": accuracy, the responses the rubric
over-marks and under-marks, how many responses each criterion and misconception matched, which
engine-wide guard fired on which response, and the rubric's warnings (valid but probably not
meant: a ``|`` that binds tighter than the author thought, a concept made only of question words).
It adds a cross-validated calibration map (:mod:`grader.rubric.calibration`), the phrases of
under-marked responses no criterion matched and WordNet suggestions (:mod:`grader.rubric.suggest`).
Every number in it is rounded to 4 decimals for display (:func:`rounded_for_display`).
"""
from __future__ import annotations

import math
import time
from typing import Any, Sequence

import numpy as np

from grader.rubric.budget import SCORE_BUDGET_SECONDS, ScoringTimeout
from grader.rubric.statistics import pearson, quadratic_weighted_kappa  # noqa: F401 (API)


def agreement(scores: Sequence[float], human: Sequence[float], max_points: float) -> dict[str, Any]:
    """Agreement of rubric ``scores`` with ``human`` marks, both in points out of ``max_points``.

    Returns ``{"n", "pearson_r", "quadratic_weighted_kappa", "exact_agreement",
    "within_one_agreement", "rmse", "mean_absolute_error"}``. Raises ``ValueError`` when the
    lengths differ or ``max_points`` is not positive.
    """
    if len(scores) != len(human):
        raise ValueError(f"agreement: {len(scores)} scores but {len(human)} human marks")
    if max_points <= 0:
        raise ValueError("agreement: max_points must be positive")
    s = np.asarray(scores, dtype=float)
    h = np.asarray(human, dtype=float)
    n = int(s.size)
    if n == 0:
        return {"n": 0, "pearson_r": None, "quadratic_weighted_kappa": None, "exact_agreement": None,
                "within_one_agreement": None, "rmse": None, "mean_absolute_error": None}
    top = int(round(max_points))
    rs = np.clip(np.floor(s + 0.5), 0, top).astype(int)
    rh = np.clip(np.floor(h + 0.5), 0, top).astype(int)
    diff = s - h
    return {
        "n": n,
        "pearson_r": pearson(s, h),
        "quadratic_weighted_kappa": quadratic_weighted_kappa(rs, rh, top + 1),
        "exact_agreement": float(np.mean(rs == rh)),
        "within_one_agreement": float(np.mean(np.abs(rs - rh) <= 1)),
        "rmse": float(math.sqrt(np.mean(diff ** 2))),
        "mean_absolute_error": float(np.mean(np.abs(diff))),
    }


class TrialTooSlow(RuntimeError):
    """A trial ran out of time. ``index`` is the response whose scoring exceeded the per-answer
    budget (the rubric is at fault), or ``None`` when the trial's total budget ran out after
    ``scored`` of ``total`` responses (send fewer responses per trial)."""

    def __init__(self, index: int | None, scored: int, total: int, seconds: float):
        self.index, self.scored, self.total, self.seconds = index, scored, total, seconds
        if index is not None:
            message = (f"responses[{index}]: the rubric took more than {seconds:g} s to score this "
                       "response; simplify its regular expressions or its largest synonym sets")
        else:
            message = (f"the trial scored {scored} of {total} responses in its {seconds:g} s budget; "
                       "send fewer or shorter responses per trial")
        super().__init__(message)


def trial_report(compiled, responses: Sequence[dict[str, Any]], max_mark: float | None = None,
                 tolerance: float | None = None, limit: int = 20,
                 budget: float | None = None) -> dict[str, Any]:
    """Score marked ``responses`` (``[{"text": str, "mark": float}, ...]``) with ``compiled`` and
    report agreement, over-/under-marked responses and match counts.

    ``max_mark`` is the scale of the human marks (default: the rubric's ``max_points``); marks are
    rescaled to the rubric's points. A response is over-marked when the rubric gives more than
    ``mark + tolerance`` (default: 20% of ``max_points``), under-marked when less than
    ``mark - tolerance``; at most ``limit`` of each are listed, largest difference first, each with
    its ``explanation`` (:func:`grader.rubric.explain.explain`: which words matched which pattern,
    negation scopes, near misses and what they missed, guards).
    Raises ``ValueError`` for a response without ``text`` or a numeric ``mark`` in ``0..max_mark``
    (``0..max_points`` without ``max_mark``), naming the field.

    Every response is scored under the per-answer budget
    (:data:`grader.rubric.budget.SCORE_BUDGET_SECONDS`) and the whole trial under ``budget``
    seconds of wall-clock time (``None``: unbounded); raises :class:`TrialTooSlow` when either
    runs out.
    """
    max_points = compiled.max_points
    scale = max_points / (max_mark or max_points)
    tol = 0.2 * max_points if tolerance is None else tolerance
    marks: list[float] = []
    criterion_counts = {cid: 0 for cid in compiled.criterion_ids}
    misconception_counts = {mid: 0 for mid in compiled.misconception_ids}
    rows = []
    guard_hits: dict[str, list] = {}  # guard id -> ids of the responses it fired on
    started = time.perf_counter()
    results = []  # calibration and unmatched phrases (below) read the raw points and evidence
    top = max_mark or max_points
    given = [_mark(resp, i, top) for i, resp in enumerate(responses)]  # every mark checked before scoring
    for i, (resp, mark) in enumerate(zip(responses, given)):
        trial_left = None if budget is None else budget - (time.perf_counter() - started)
        result = _score_in_budget(compiled, resp["text"], i, len(responses), trial_left, budget)
        results.append(result)
        marks.append(float(mark) * scale)
        row = _row(i, resp, marks[-1], result)
        rows.append(row)
        for cid in row["criteria_met"]:
            criterion_counts[cid] += 1
        for mid in row["misconceptions"]:
            misconception_counts[mid] += 1
        for gid in row["guards"]:
            guard_hits.setdefault(gid, []).append(row["id"])
    scores = [r.points for r in results]
    over = sorted((r for r in rows if r["difference"] > tol), key=lambda r: (-r["difference"], r["index"]))
    under = sorted((r for r in rows if r["difference"] < -tol), key=lambda r: (r["difference"], r["index"]))
    _explain_listed(compiled, over[:limit] + under[:limit], started, budget)
    report = {
        "rubric_id": compiled.id,
        "rubric_version": compiled.version,
        "max_points": max_points,
        "agreement": agreement(scores, marks, max_points),
        "tolerance": tol,
        "over_marked": over[:limit],
        "under_marked": under[:limit],
        "over_marked_count": len(over),
        "under_marked_count": len(under),
        "criteria": [{"id": cid, "matched": n} for cid, n in criterion_counts.items()],
        "misconceptions": [{"id": mid, "matched": n} for mid, n in misconception_counts.items()],
        # which engine-wide guard fired on which response, and the rubric's upload warnings
        "guards": [{"id": gid, "fired": len(ids), "responses": ids} for gid, ids in guard_hits.items()],
        "warnings": list(getattr(compiled, "warnings", [])),
    }
    report.update(_calibration_and_paraphrases(compiled, responses, results, marks, tol))
    return rounded_for_display(report)


def _explain_listed(compiled, rows: list[dict[str, Any]], started: float, budget: float | None) -> None:
    """Add to each listed over- or under-marked row why the rubric scored it so
    (:func:`grader.rubric.explain.explain`), each under the per-answer budget, while the trial's
    own budget lasts (then ``explanation`` says it was left out)."""
    from grader.rubric.explain import explain

    for row in rows:
        if budget is not None and time.perf_counter() - started > budget:
            row["explanation"] = {"omitted": "the trial's time budget ran out before this response was explained"}
            continue
        try:
            row["explanation"] = explain(compiled, row["text"], budget=SCORE_BUDGET_SECONDS)
        except ScoringTimeout as exc:
            row["explanation"] = {"omitted": str(exc)}


def _mark(resp: Any, i: int, top: float) -> float:
    """The human mark of ``responses[i]``; ``ValueError`` naming the field when it is not a
    ``{"text": str, "mark": number}`` mapping or the mark is outside ``0..top`` (the scale of the
    marks: ``max_mark``, else the rubric's ``max_points``). One rule for the API and the command line."""
    if not isinstance(resp, dict) or not isinstance(resp.get("text"), str):
        raise ValueError(f"responses[{i}].text: a string is required")
    mark = resp.get("mark")
    if isinstance(mark, bool) or not isinstance(mark, (int, float)) or not math.isfinite(mark):
        raise ValueError(f"responses[{i}].mark: a number is required")
    if mark < 0:
        raise ValueError(f"responses[{i}].mark: {mark:g} is below 0")
    if mark > top:
        raise ValueError(f"responses[{i}].mark: {mark:g} is above the top mark {top:g} "
                         "(set max_mark for another scale)")
    return mark


def _score_in_budget(compiled, text: str, i: int, total: int, trial_left: float | None,
                     budget: float | None):
    """Score ``responses[i]`` under the per-answer budget, or under what is left of the trial's
    when that is less; :class:`TrialTooSlow` names which of the two ran out."""
    answer_budget = SCORE_BUDGET_SECONDS if trial_left is None else min(SCORE_BUDGET_SECONDS, trial_left)
    try:
        if answer_budget <= 0:
            raise ScoringTimeout(0.0)
        return compiled.score(text, budget=answer_budget)
    except ScoringTimeout:
        if answer_budget < SCORE_BUDGET_SECONDS:
            raise TrialTooSlow(None, i, total, budget) from None
        raise TrialTooSlow(i, i, total, SCORE_BUDGET_SECONDS) from None


def _row(i: int, resp: dict[str, Any], human: float, result) -> dict[str, Any]:
    """One response's line of the report: its mark on the rubric's scale, its score, and what
    earned or cost it points."""
    row = {"index": i, "id": resp.get("id", i), "text": resp["text"], "mark": human,
           "score": result.points, "difference": round(result.points - human, 4),
           "criteria_met": [c.id for c in result.criteria if c.met],
           "misconceptions": [m.id for m in result.misconceptions if m.matched],
           "guards": [g["id"] for g in result.guards],
           "base_credit": result.base_credit,
           "near_misses": [c.id for c in result.criteria if c.credit == "near_miss"]}
    if result.calibration is not None:
        row["raw_score"] = result.raw_points
    return row


def _calibration_and_paraphrases(compiled, responses, results, marks, tol) -> dict[str, Any]:
    """Issue-12 sections of the trial report: ``calibration`` (:mod:`calibration`: a map from raw
    points to the marks, cross-validated), ``unmatched_phrases`` and ``suggestions``
    (:mod:`suggest`: what under-marked answers say that no criterion matched)."""
    from grader.rubric.calibration import calibration_report
    from grader.rubric.suggest import unmatched_phrases, wordnet_suggestions

    raw = [r.raw_points if r.raw_points is not None else r.points for r in results]
    calibration = calibration_report(raw, marks, compiled.max_points)
    if compiled.calibration is not None:
        calibration["current"] = {**compiled.calibration.to_dict(), "note": (
            "this version already applies this map: 'agreement' uses the calibrated scores, the "
            "fits above start again from the raw points")}
    texts = [r["text"] for r in responses]
    ids = [r.get("id", i) if r.get("id") is not None else i for i, r in enumerate(responses)]
    return {"calibration": calibration,
            "unmatched_phrases": unmatched_phrases(compiled, texts, ids, results, marks, tol),
            "suggestions": wordnet_suggestions(compiled, texts, results, marks, tol)}


def rounded_for_display(value: Any, digits: int = 4) -> Any:
    """``value`` with every float rounded to ``digits`` decimals (a trial report is read by people:
    ``0.6``, never ``0.6000000000000001``); dicts, lists and tuples are walked."""
    if isinstance(value, float):
        return round(value, digits) if math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: rounded_for_display(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded_for_display(v, digits) for v in value]
    return value
