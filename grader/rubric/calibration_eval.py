"""How much calibration helps on real marks: the Mohler/UNT dev split (``scripts/evaluate_mohler.py``).

Protocol (an instructor marks 10 answers of a question, calibrates, and the rest are scored with
the calibrated rubric):

1. For each question, its answers are shuffled (``numpy.random.default_rng(seed + repeat)``) and
   cut into consecutive groups of 10 (the last answers, when fewer than 10 remain, are only ever
   tested).
2. Each group in turn is the *calibration set*: :func:`grader.rubric.calibration.recommend` (the same
   code as the trial report: both fits cross-validated on those 10, the better one kept only when it
   beats the raw scores) fits a map on its 10 answers, and the map scores every *other* answer of
   the question. No answer is ever scored by a map fitted on it. Without a recommended map the
   answers keep their raw score.
3. Pearson r and RMSE (0-5 scale, against the average of the two human marks) are pooled over every
   (map, held-out answer) pair of every question and every repeat; the raw rubric scores of the same
   pairs are the "before". Each repeat's RMSE is also reported, to show the spread.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from grader.rubric.agreement import pearson
from grader.rubric.calibration import FITS, recommend

GROUP = 10      # marked answers per question used to fit a map
REPEATS = 5     # shuffles of each question's answers
SCALE = 5.0


def _stats(pred: np.ndarray, human: np.ndarray) -> dict[str, Any]:
    r = pearson(pred, human)
    return {"r": None if r is None else round(r, 4),
            "rmse": round(float(math.sqrt(np.mean((pred - human) ** 2))), 4)}


def calibrated_scores(raw: np.ndarray, human: np.ndarray, question_ids: np.ndarray, group: int = GROUP,
                      repeats: int = REPEATS, seed: int = 0, method: str = "recommended") -> dict[str, Any]:
    """Run the protocol above. ``raw``, ``human``: shape ``(n,)`` on the 0-5 scale; ``question_ids``:
    shape ``(n,)``. ``method``: ``recommended`` (the trial report's choice) or one fit (``isotonic``,
    ``linear``) forced. Returns ``{"pairs", "before", "after", "per_repeat_rmse", "maps"}`` where
    ``maps`` counts the methods chosen (``none``: raw scores kept)."""
    preds: list[float] = []
    raws: list[float] = []
    humans: list[float] = []
    per_repeat: list[float] = []
    chosen: dict[str, int] = {}
    for rep in range(repeats):
        rng = np.random.default_rng(seed + rep)
        rep_pred: list[float] = []
        rep_human: list[float] = []
        for qid in dict.fromkeys(question_ids.tolist()):
            idx = rng.permutation(np.flatnonzero(question_ids == qid))
            for start in range(0, idx.size - group + 1, group):
                fit_idx = idx[start:start + group]
                test_idx = np.setdiff1d(idx, fit_idx)
                if method == "recommended":
                    cal, _ = recommend(raw[fit_idx], human[fit_idx], SCALE)
                else:
                    cal = FITS[method](raw[fit_idx], human[fit_idx], SCALE)
                name = cal.method if cal is not None else "none"
                chosen[name] = chosen.get(name, 0) + 1
                pred = cal.apply_many(raw[test_idx], SCALE) if cal is not None else raw[test_idx]
                preds.extend(pred.tolist())
                raws.extend(raw[test_idx].tolist())
                humans.extend(human[test_idx].tolist())
                rep_pred.extend(pred.tolist())
                rep_human.extend(human[test_idx].tolist())
        per_repeat.append(_stats(np.array(rep_pred), np.array(rep_human))["rmse"])
    p, r, h = np.array(preds), np.array(raws), np.array(humans)
    return {"pairs": int(p.size), "before": _stats(r, h), "after": _stats(p, h),
            "per_repeat_rmse": per_repeat, "maps": chosen}


def evaluate_calibration(data_dir: str | Path, variant_dir: str | Path, group: int = GROUP,
                         repeats: int = REPEATS, seed: int = 0) -> dict[str, Any]:
    """Score the Mohler answers with the rubrics in ``variant_dir`` and run :func:`calibrated_scores`
    for the recommended map and for each fit forced. Raises ``FileNotFoundError`` for missing data
    or rubrics."""
    from grader.rubric.evaluate import load_data, load_rubrics, rubric_scores

    questions, answers = load_data(data_dir)
    rubrics = load_rubrics(Path(variant_dir), list(questions))
    raw = rubric_scores(rubrics, answers)
    human = np.array([a.score_avg for a in answers])
    qids = np.array([a.question_id for a in answers])
    out: dict[str, Any] = {"variant": Path(variant_dir).name, "group": group, "repeats": repeats,
                           "seed": seed}
    for method in ("recommended", "isotonic", "linear"):
        out[method] = calibrated_scores(raw, human, qids, group, repeats, seed, method)
    return out


def format_calibration(report: dict[str, Any]) -> str:
    """Plain-text lines for :func:`evaluate_calibration`'s result."""
    lines = [f"calibrated '{report['variant']}' rubrics: a map fitted on {report['group']} marked answers per "
             f"question scores that question's other answers ({report['repeats']} shuffles)"]
    for method in ("recommended", "isotonic", "linear"):
        res = report[method]
        spread = ", ".join(f"{v:.3f}" for v in res["per_repeat_rmse"])
        lines.append(f"  {method:11} r {res['before']['r']:.3f} -> {res['after']['r']:.3f}   "
                     f"RMSE {res['before']['rmse']:.3f} -> {res['after']['rmse']:.3f}   "
                     f"(per shuffle {spread}; {res['pairs']} scored pairs; maps {res['maps']})")
    return "\n".join(lines)
