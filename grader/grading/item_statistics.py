"""Descriptive statistics of scores and the item statistics of classical test theory.

- **Difficulty** of an item (its *p*-value): the mean share of its points the learners earned,
  0 (nobody scored) to 1 (everybody full marks).
- **Discrimination**: the point-biserial correlation of the item's score with the *rest* of the
  assignment (the learner's total without this item: the "corrected" item-total correlation, so an
  item is not correlated with itself). For an item scored 0 or full it is the point-biserial
  coefficient; for partial credit the same Pearson correlation. Items below
  :data:`DISCRIMINATION_FLAG` (0.2) are flagged: learners who do well on the rest do not do
  better on them (Ebel & Frisbie, *Essentials of Educational Measurement*, 1991: below 0.2 "poor
  item, to be rejected or improved"; Crocker & Algina, *Introduction to Classical and Modern Test
  Theory*, 1986, ch. 14).

Pure functions of lists of numbers.
"""
from __future__ import annotations

import math
from typing import Sequence

DISCRIMINATION_FLAG = 0.2
HISTOGRAM_BINS = 10


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def standard_deviation(values: Sequence[float]) -> float | None:
    """The population standard deviation (of the class itself, not an estimate)."""
    if not values:
        return None
    centre = mean(values)
    return math.sqrt(sum((v - centre) ** 2 for v in values) / len(values))


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r of two equally long lists; ``None`` with fewer than 3 pairs or when either
    list is constant (the correlation is undefined)."""
    n = len(xs)
    if n < 3 or n != len(ys):
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def histogram(values: Sequence[float], maximum: float, bins: int = HISTOGRAM_BINS
              ) -> list[dict[str, float | int]]:
    """Counts of ``values`` in ``bins`` equal bins over [0, ``maximum``]: each bin holds
    ``from`` <= v < ``to``, the last one ``to`` too. Values outside [0, maximum] go to the
    nearest end bin."""
    maximum = float(maximum) if maximum and maximum > 0 else 1.0
    width = maximum / bins
    counts = [0] * bins
    for value in values:
        index = int(value / width) if value < maximum else bins - 1
        counts[min(max(index, 0), bins - 1)] += 1
    return [{"from": round(i * width, 4), "to": round((i + 1) * width, 4), "learners": c}
            for i, c in enumerate(counts)]


def item_statistics(item_scores: Sequence[float], totals: Sequence[float], points: float
                    ) -> dict[str, object]:
    """Difficulty, discrimination (with the rest of the assignment) and the flag of one item
    from parallel lists of the learners' item scores and total scores (module docstring)."""
    n = len(item_scores)
    difficulty = (sum(item_scores) / n / points) if n and points > 0 else None
    rest = [total - score for score, total in zip(item_scores, totals)]
    discrimination = pearson(item_scores, rest)
    if discrimination is None:
        reason = ("fewer than 3 learners" if n < 3 else
                  "every learner scored the same on this item" if len(set(item_scores)) < 2
                  else "every learner scored the same on the rest of the assignment")
    else:
        reason = None
    flagged = discrimination is not None and discrimination < DISCRIMINATION_FLAG
    return {"difficulty": None if difficulty is None else round(difficulty, 4),
            "discrimination": None if discrimination is None else round(discrimination, 4),
            "discrimination_undefined": reason, "flagged": flagged}
