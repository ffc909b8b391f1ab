"""Agreement between rubric scores and human marks, and the trial report instructors read.

Statistics (all on the rubric's points scale):

- Pearson's r (``None`` when either side is constant);
- quadratic weighted kappa (Cohen 1968) on marks rounded to whole points, categories
  ``0..round(max_points)``; ``kappa = 1 - sum(W*O) / sum(W*E)`` with ``W[i,j] = (i-j)^2``;
- exact agreement and within-one agreement of the rounded marks (share of responses, 0-1);
- RMSE and mean absolute error in points.

The trial report follows Moodle pmatch's "test responses": accuracy, the responses the rubric
over-marks and under-marks, and how many responses each criterion and misconception matched.
It adds a cross-validated calibration map (:mod:`grader.rubric.calibration`), the phrases of
under-marked responses no criterion matched and WordNet suggestions (:mod:`grader.rubric.suggest`).
Every number in it is rounded to 4 decimals for display (:func:`rounded_for_display`).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson correlation of two equal-length sequences; ``None`` when undefined (n < 2 or a
    constant side)."""
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"pearson: lengths differ ({a.size} vs {b.size})")
    if a.size < 2 or a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def quadratic_weighted_kappa(a: Sequence[int], b: Sequence[int], n_categories: int) -> float | None:
    """Cohen's quadratic weighted kappa for integer ratings in ``0..n_categories-1``; ``None``
    when the expected disagreement is 0 (both raters constant at the same value)."""
    a = np.asarray(a, dtype=int)
    b = np.asarray(b, dtype=int)
    observed = np.zeros((n_categories, n_categories))
    np.add.at(observed, (a, b), 1)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / max(a.size, 1)
    idx = np.arange(n_categories)
    weights = (idx[:, None] - idx[None, :]) ** 2
    denom = float((weights * expected).sum())
    if denom == 0:
        return None
    return 1.0 - float((weights * observed).sum()) / denom


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


def trial_report(compiled, responses: Sequence[dict[str, Any]], max_mark: float | None = None,
                 tolerance: float | None = None, limit: int = 20) -> dict[str, Any]:
    """Score marked ``responses`` (``[{"text": str, "mark": float}, ...]``) with ``compiled`` and
    report agreement, over-/under-marked responses and match counts.

    ``max_mark`` is the scale of the human marks (default: the rubric's ``max_points``); marks are
    rescaled to the rubric's points. A response is over-marked when the rubric gives more than
    ``mark + tolerance`` (default: 20% of ``max_points``), under-marked when less than
    ``mark - tolerance``; at most ``limit`` of each are listed, largest difference first.
    Raises ``ValueError`` for a response without ``text`` or a numeric ``mark``.
    """
    max_points = compiled.max_points
    scale = max_points / (max_mark or max_points)
    tol = 0.2 * max_points if tolerance is None else tolerance
    scores: list[float] = []
    marks: list[float] = []
    criterion_counts = {cid: 0 for cid in compiled.criterion_ids}
    misconception_counts = {mid: 0 for mid in compiled.misconception_ids}
    rows = []
    results = []  # calibration and unmatched phrases (below) read the raw points and evidence
    for i, resp in enumerate(responses):
        if not isinstance(resp, dict) or not isinstance(resp.get("text"), str):
            raise ValueError(f"responses[{i}].text: a string is required")
        mark = resp.get("mark")
        if isinstance(mark, bool) or not isinstance(mark, (int, float)):
            raise ValueError(f"responses[{i}].mark: a number is required")
        result = compiled.score(resp["text"])
        results.append(result)
        human = float(mark) * scale
        scores.append(result.points)
        marks.append(human)
        met = [c.id for c in result.criteria if c.met]
        hit = [m.id for m in result.misconceptions if m.matched]
        for cid in met:
            criterion_counts[cid] += 1
        for mid in hit:
            misconception_counts[mid] += 1
        rows.append({"index": i, "id": resp.get("id", i), "text": resp["text"], "mark": human,
                     "score": result.points, "difference": round(result.points - human, 4),
                     "criteria_met": met, "misconceptions": hit})
        if result.calibration is not None:
            rows[-1]["raw_score"] = result.raw_points
    over = sorted((r for r in rows if r["difference"] > tol), key=lambda r: (-r["difference"], r["index"]))
    under = sorted((r for r in rows if r["difference"] < -tol), key=lambda r: (r["difference"], r["index"]))
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
    }
    report.update(_calibration_and_paraphrases(compiled, responses, results, marks, tol))
    return rounded_for_display(report)


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
