"""Calibration: a monotone map from a rubric's raw points to the instructor's marks.

A rubric ranks answers better than it scores them (it tends to under-mark paraphrases, so its raw
points sit below the marks a person gives). Calibration keeps the rubric's order and moves its
scores onto the instructor's scale. The map is fitted in the trial report on marked responses and
written into the rubric's next version by the instructor (field ``calibration``; see
``rubrics/README.md``); the engine never fits anything at scoring time.

The map itself (what the rubric language stores) is piecewise linear through ``points`` (pairs
``[raw, mark]`` with strictly increasing ``raw`` and non-decreasing ``mark``), flat outside the
first and last point, and clamped to ``[0, max_points]``. Two fits produce it:

- ``isotonic``: isotonic regression (pool-adjacent-violators, ``scipy.optimize.isotonic_regression``)
  of the mean mark per distinct raw score, weighted by how many responses share it; the fitted
  values are joined by straight lines, as scikit-learn's ``IsotonicRegression`` predicts
  (Zadrozny & Elkan 2002 introduced it for calibrating scores).
- ``linear``: least squares ``mark = a + b * raw`` with the slope shrunk toward 1 (a ridge
  prior worth two marked responses, :func:`slope_prior`: with 10 marked responses a free slope is
  mostly noise) and ``b > 0``, stored as the line's points at
  0, at ``max_points`` and where it crosses 0 or ``max_points`` (so clamping keeps it a line inside
  the scale).

A map that is constant (every answer the same score) or decreasing is never produced: it would
discard the rubric's ranking. Such a fit returns ``None`` and the trial report says why.

Evaluation never tests a map on the responses it was fitted on: stratified k-fold
cross-validation (:func:`fold_of`, :func:`cross_validated`), as scikit-learn's
``cross_val_predict`` does; every response is predicted by a map fitted without it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

METHODS = ("isotonic", "linear")
#: methods the rubric language accepts: the two fits and a map written by hand
LANGUAGE_METHODS = ("isotonic", "linear", "manual")
MIN_RESPONSES = 6   # fewer marked responses than this: no cross-validated calibration
#: fewer marked responses than this: isotonic is reported but never recommended (one free step per
#: distinct raw score overfits; on the Mohler dev split with 10 marked answers per question its
#: held-out RMSE was 0.995 against 0.930 for the shrunk line)
ISOTONIC_MIN_RESPONSES = 30
#: the linear map's smallest slope: a map never flattens the rubric's ranking away (a constant map
#: would give every answer the same score); a whole-scale raw difference still moves the score 10 %
MIN_SLOPE = 0.1
MAX_FOLDS = 5
MAX_POINTS = 50     # points in a map (the language's limit)
DIGITS = 2          # a fitted map's points are rounded to this many decimals (they are read by people)


@dataclass(frozen=True)
class Calibration:
    """A monotone, non-constant map from raw rubric points to marks (both in rubric points).

    ``points`` are ``(raw, mark)`` pairs, raw strictly increasing, mark non-decreasing, first mark
    below the last. ``method`` says how they were obtained (``isotonic``, ``linear``, ``manual``).
    """

    method: str
    points: tuple[tuple[float, float], ...]

    def apply(self, raw: float, max_points: float) -> float:
        """The calibrated score of ``raw`` points: linear interpolation between ``points``, flat
        outside them, clamped to ``[0, max_points]``, rounded to 4 decimals."""
        xs = [p[0] for p in self.points]
        ys = [p[1] for p in self.points]
        value = float(np.interp(raw, xs, ys))
        return round(min(max(value, 0.0), max_points), 4)

    def apply_many(self, raw: Sequence[float], max_points: float) -> np.ndarray:
        """:meth:`apply` on an array of raw scores (no rounding); shape ``(n,)``."""
        xs = np.array([p[0] for p in self.points])
        ys = np.array([p[1] for p in self.points])
        return np.clip(np.interp(np.asarray(raw, dtype=float), xs, ys), 0.0, max_points)

    def to_dict(self) -> dict[str, Any]:
        """The rubric-language form: ``{"method": ..., "points": [[raw, mark], ...]}``."""
        return {"method": self.method, "points": [[_num(r), _num(m)] for r, m in self.points]}


def _num(value: float) -> float | int:
    """A whole number as int (``2`` reads better than ``2.0`` in a rubric), else the float."""
    return int(value) if float(value).is_integer() else float(value)


def calibration_problems(doc: Any, max_points: float | None) -> list[tuple[tuple, str]]:
    """Check a ``calibration`` mapping of the rubric language; return ``[(path, message)]``, empty
    when it is valid. A path is a tuple relative to ``calibration``: ``("points", 2)`` is
    ``calibration.points[2]``, ``()`` the mapping itself.

    Rules: ``method`` one of :data:`LANGUAGE_METHODS`; ``points`` a list of 2 to
    :data:`MAX_POINTS` pairs ``[raw, mark]`` of finite numbers within ``[0, max_points]``; raw
    strictly increasing; mark never decreasing (a better raw score never earns less); the last
    mark above the first (a constant map would give every answer the same score).
    """
    if not isinstance(doc, dict):
        return [((), "calibration is a mapping {method: isotonic|linear|manual, points: [[raw, mark], ...]}")]
    problems: list[tuple[tuple, str]] = []
    for key in doc:
        if key not in ("method", "points"):
            problems.append(((str(key),), "unknown field (calibration has method and points)"))
    method = doc.get("method")
    if method is None:
        problems.append((("method",), "required: isotonic, linear or manual"))
    elif method not in LANGUAGE_METHODS:
        problems.append((("method",), f"must be one of isotonic, linear, manual (got {method!r})"))
    points = doc.get("points")
    if not isinstance(points, list):
        problems.append((("points",), "required: a list of [raw, mark] pairs, raw increasing"))
        return problems
    if not 2 <= len(points) <= MAX_POINTS:
        problems.append((("points",), f"needs 2 to {MAX_POINTS} [raw, mark] pairs, got {len(points)}"))
    pairs: list[tuple[int, float, float]] = []
    for i, pair in enumerate(points):
        if (not isinstance(pair, (list, tuple)) or len(pair) != 2
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in pair)):
            problems.append((("points", i), f"a pair [raw, mark] of two numbers, got {pair!r}"))
            continue
        raw, mark = float(pair[0]), float(pair[1])
        bad = False
        for name, value in (("raw", raw), ("mark", mark)):
            if not math.isfinite(value) or value < 0 or (max_points is not None and value > max_points):
                top = f"{max_points:g}" if max_points is not None else "max_points"
                problems.append((("points", i), f"{name} {value:g} is outside 0..{top} (max_points)"))
                bad = True
        if not bad:
            pairs.append((i, raw, mark))
    for (_, r0, m0), (i, r1, m1) in zip(pairs, pairs[1:]):
        if r1 <= r0:
            problems.append((("points", i), f"raw {r1:g} must be above the previous raw {r0:g} "
                             "(raw scores strictly increase)"))
        if m1 < m0:
            problems.append((("points", i), f"mark {m1:g} is below the previous mark {m0:g}: a "
                             "calibration never gives a higher raw score a lower mark"))
    if len(pairs) == len(points) >= 2 and not problems and pairs[-1][2] <= pairs[0][2]:
        problems.append((("points",), "every mark is the same: a constant map would give every answer "
                         "the same score; drop calibration instead"))
    return problems


def from_document(doc: dict[str, Any]) -> Calibration:
    """Build a :class:`Calibration` from a validated ``calibration`` mapping."""
    return Calibration(doc["method"], tuple((float(r), float(m)) for r, m in doc["points"]))


# -- fitting ------------------------------------------------------------------------------------
def _thin(xs: list[float], ys: list[float]) -> list[tuple[float, float]]:
    """Drop interior points on the straight line through their neighbours (same map, fewer points)."""
    keep = [(xs[0], ys[0])]
    for i in range(1, len(xs) - 1):
        (x0, y0), (x1, y1), (x2, y2) = keep[-1], (xs[i], ys[i]), (xs[i + 1], ys[i + 1])
        if abs((y1 - y0) * (x2 - x0) - (y2 - y0) * (x1 - x0)) > 1e-9:
            keep.append((x1, y1))
    keep.append((xs[-1], ys[-1]))
    return keep


def _finish(method: str, xs: list[float], ys: list[float], digits: int | None) -> Calibration | None:
    """Round (when ``digits``), merge raw values that rounding made equal, thin, and refuse a
    constant map."""
    if digits is not None:
        merged: dict[float, list[float]] = {}
        for x, y in zip(xs, ys):
            merged.setdefault(round(x, digits), []).append(y)
        xs = sorted(merged)
        ys = [round(float(np.mean(merged[x])), digits) for x in xs]
        ys = np.maximum.accumulate(ys).tolist()  # merging kept the marks in order; make sure
    if len(xs) < 2 or ys[-1] - ys[0] <= 1e-9:
        return None
    return Calibration(method, tuple(_thin(list(map(float, xs)), list(map(float, ys)))))


def fit_isotonic(raw: Sequence[float], marks: Sequence[float], max_points: float,
                 digits: int | None = DIGITS) -> Calibration | None:
    """Isotonic (non-decreasing) fit of ``marks`` on ``raw`` points, both shape ``(n,)`` in
    rubric points. Ties in ``raw`` are pooled (mean mark, weight = count). Returns ``None`` when
    fewer than two distinct raw scores exist or the fit is constant (the marks do not rise with
    the raw score). Raises ``ValueError`` when the lengths differ."""
    from scipy.optimize import isotonic_regression

    x, y = _arrays(raw, marks)
    values, inverse, counts = np.unique(np.round(x, 4), return_inverse=True, return_counts=True)
    if values.size < 2:
        return None
    means = np.bincount(inverse, weights=y) / counts
    fitted = isotonic_regression(means, weights=counts, increasing=True).x
    fitted = np.clip(fitted, 0.0, max_points)
    return _finish("isotonic", values.tolist(), fitted.tolist(), digits)


def fit_linear(raw: Sequence[float], marks: Sequence[float], max_points: float,
               digits: int | None = DIGITS) -> Calibration | None:
    """Line ``mark = a + b * raw`` fitted to ``raw`` and ``marks`` (shape ``(n,)``, rubric
    points): least squares with the slope shrunk toward 1 (ridge on ``b - 1``, penalty
    :func:`slope_prior`), the intercept free. With few marked responses the slope stays close to
    the rubric's own spacing of points and the level shift is learned; with many, the data decide.
    The slope is at least :data:`MIN_SLOPE` (when the marks do not rise with the raw score the
    map still keeps the rubric's order and only moves the level; the trial report flags it).
    Stored as its points at 0, ``max_points`` and where it crosses 0 or ``max_points``, so the
    clamped map is the line inside the scale; with all raw scores equal the slope is the prior's (1)
    and only the level moves. ``None`` only without responses. Raises ``ValueError`` when the
    lengths differ."""
    x, y = _arrays(raw, marks)
    if x.size < 1:
        return None
    a, b, _ = _ridge_line(x, y, max_points)
    knots = {0.0, float(max_points)}
    for level in (0.0, float(max_points)):
        cross = (level - a) / b
        if 0 < cross < max_points:
            knots.add(float(cross))
    xs = sorted(knots)
    ys = [min(max(a + b * k, 0.0), max_points) for k in xs]
    return _finish("linear", xs, ys, digits)


def _ridge_line(x: np.ndarray, y: np.ndarray, max_points: float) -> tuple[float, float, float]:
    """Intercept, slope (at least :data:`MIN_SLOPE`) and unclamped slope of :func:`fit_linear`.
    With all raw scores equal the slope is the prior's, 1."""
    lam = slope_prior(max_points)
    xm, ym = float(x.mean()), float(y.mean())
    raw_b = (float(np.sum((x - xm) * (y - ym))) + lam * 1.0) / (float(np.sum((x - xm) ** 2)) + lam)
    b = max(raw_b, MIN_SLOPE)
    return ym - b * xm, b, raw_b


def slope_prior(max_points: float) -> float:
    """Ridge penalty on ``slope - 1`` for :func:`fit_linear`: ``max_points**2 / 8``, the spread
    (sum of squared deviations) of two responses a half-scale apart. The prior weighs as much as
    two extra marked responses whose marks differ exactly as their raw scores do (Hoerl & Kennard
    1970 ridge regression, centred on the identity slope instead of 0)."""
    return max_points ** 2 / 8.0


FITS = {"isotonic": fit_isotonic, "linear": fit_linear}


def _arrays(raw: Sequence[float], marks: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(raw, dtype=float)
    y = np.asarray(marks, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"calibration: {x.size} raw scores but {y.size} marks")
    return x, y


# -- cross-validation ---------------------------------------------------------------------------
def fold_of(marks: Sequence[float], k: int) -> np.ndarray:
    """Stratified fold numbers, shape ``(n,)``: responses sorted by mark (ties by their position)
    are dealt round-robin into ``k`` folds, so every fold spans the range of marks. Deterministic:
    the same marks always give the same folds."""
    y = np.asarray(marks, dtype=float)
    order = np.lexsort((np.arange(y.size), y))
    folds = np.empty(y.size, dtype=int)
    folds[order] = np.arange(y.size) % k
    return folds


def cross_validated(raw: Sequence[float], marks: Sequence[float], max_points: float, method: str,
                    k: int) -> tuple[np.ndarray, int]:
    """Out-of-fold calibrated scores, shape ``(n,)``: each response is scored by a map fitted
    (``method``) on the other folds of :func:`fold_of`. A fold whose training responses admit no
    monotone, non-constant map keeps its raw scores (what the rubric gives without calibration).
    Returns the scores and how many folds fell back that way."""
    x, y = _arrays(raw, marks)
    folds = fold_of(y, k)
    out = x.copy()
    fallbacks = 0
    for f in range(k):
        test = folds == f
        fit = FITS[method](x[~test], y[~test], max_points, digits=None)
        if fit is None:
            fallbacks += 1
            continue
        out[test] = fit.apply_many(x[test], max_points)
    return out, fallbacks


def _stats(pred: np.ndarray, marks: np.ndarray) -> dict[str, Any]:
    from grader.rubric.statistics import pearson

    return {"rmse": float(math.sqrt(np.mean((pred - marks) ** 2))), "pearson_r": pearson(pred, marks),
            "mean_score": float(pred.mean())}


def recommend(raw: Sequence[float], marks: Sequence[float], max_points: float,
              k: int | None = None) -> tuple[Calibration | None, dict[str, Any]]:
    """Cross-validate both fits and offer the one with the lower cross-validated RMSE (isotonic
    only from :data:`ISOTONIC_MIN_RESPONSES` responses), fitted on *all* responses.

    ``raw``/``marks``: shape ``(n,)`` in rubric points; ``k`` defaults to ``min(5, n)``. Returns
    the map (``None`` under :data:`MIN_RESPONSES` responses) and the report: ``n``, ``folds``,
    ``protocol``, ``before`` (the raw scores), per fit the cross-validated ``rmse``,
    ``pearson_r``, ``mean_score`` and ``folds_without_map``; then ``method``, ``after`` (the
    chosen fit's cross-validated figures), ``improves`` (after beats before) and ``map`` (the
    rubric-language form to paste into the next version), with ``warnings`` an instructor should
    read before applying it; or ``reason`` when there is no map.
    """
    x, y = _arrays(raw, marks)
    n = int(x.size)
    report: dict[str, Any] = {"n": n, "method": None, "map": None}
    if n < MIN_RESPONSES:
        report["reason"] = (f"{n} marked responses: calibration needs at least {MIN_RESPONSES} to fit "
                            "a map and test it on responses it was not fitted on")
        return None, report
    k = min(MAX_FOLDS, n) if k is None else k
    report["folds"] = k
    report["protocol"] = (f"stratified {k}-fold cross-validation: responses sorted by mark are dealt "
                          f"round-robin into {k} folds; each fold is scored by a map fitted on the "
                          "other folds, so no response is scored by a map fitted on it")
    report["before"] = _stats(x, y)
    best = "linear"
    for method in METHODS:
        pred, fallbacks = cross_validated(x, y, max_points, method, k)
        report[method] = {**_stats(pred, y), "folds_without_map": fallbacks}
    if n >= ISOTONIC_MIN_RESPONSES and report["isotonic"]["rmse"] < report["linear"]["rmse"]:
        best = "isotonic"
    final = FITS[best](x, y, max_points)
    if final is None:  # isotonic found no rising step on all responses: the line still applies
        best, final = "linear", fit_linear(x, y, max_points)
    if final is None:
        report["reason"] = ("the fitted map gives every answer the same score (the marks sit at one end "
                            "of the scale): no calibration")
        return None, report
    report["method"] = best
    report["after"] = {key: report[best][key] for key in ("rmse", "pearson_r", "mean_score")}
    report["improves"] = report["after"]["rmse"] < report["before"]["rmse"]
    report["map"] = final.to_dict()
    warnings = []
    if best == "linear" and _ridge_line(x, y, max_points)[2] <= MIN_SLOPE:
        warnings.append("the marks do not rise with the rubric's raw score on these responses: the map "
                        f"only shifts the level (slope at its minimum, {MIN_SLOPE:g}); review the "
                        "criteria before applying it")
    if not report["improves"]:
        warnings.append("in cross-validation the map does not beat the rubric's raw scores on these "
                        "responses: mark more responses before applying it")
    if n < ISOTONIC_MIN_RESPONSES:
        warnings.append(f"{n} marked responses: the map is a line with its slope shrunk toward 1; from "
                        f"{ISOTONIC_MIN_RESPONSES} responses an isotonic map may be offered")
    report["warnings"] = warnings
    return final, report


def calibration_report(raw: Sequence[float], marks: Sequence[float], max_points: float) -> dict[str, Any]:
    """The trial report's ``calibration`` section: ``n``, ``folds``, ``protocol``, ``before``
    (raw scores) and per method the cross-validated ``rmse``, ``pearson_r`` and ``mean_score``,
    then ``method``/``after``/``map`` (the map fitted on all responses, ready to paste into the
    rubric's next version) or ``reason`` when no map is recommended."""
    return recommend(raw, marks, max_points)[1]


def apply_to_score(calibration: Calibration | None, answer: str, result):
    """Apply ``calibration`` to a :class:`grader.rubric.scores.RubricScore` in place; return it.

    ``raw_points`` keeps the rubric's own points. Then ``points`` becomes the calibrated score,
    except: an answer without a letter or digit keeps its 0 (a blank answer is never lifted), and
    an answer whose credit an engine guard limited (``notes``: a copy of the question, a bag of
    keywords ...) is never raised by calibration (``min(calibrated, raw)``).
    """
    result.raw_points = result.points
    if calibration is None or not any(ch.isalnum() for ch in answer):
        return result
    value = calibration.apply(result.points, result.max_points)
    if result.notes:
        value = min(value, result.points)
    result.points = value
    result.calibration = calibration.method
    return result
