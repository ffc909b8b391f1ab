"""The most common phrases of the answers that scored low on a text item, for the class analytics.

A phrase is 2 or 3 consecutive content words of one clause (stop words skipped, words stemmed:
the rubric engine's own analysis, :func:`grader.rubric.analysis.analyse`, linear in the text). It
is listed when at least :data:`MIN_LEARNERS` low-scoring answers use it and it is more common
among them (as a share of answers) than among the other answers: words every answer uses say
nothing about what the low ones got wrong. A phrase inside a longer listed one with the same
count is left out. Each answer counts once per phrase, and only its first
:data:`MAX_CHARACTERS` characters are read (the cost is bounded per answer).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Sequence

from grader.rubric.analysis import analyse

MIN_LEARNERS = 2
MAX_N = 3
MAX_CHARACTERS = 4000
LIMIT = 10


def _grams(text: str) -> dict[tuple[str, ...], str]:
    """Every 2- and 3-gram of content words of one clause, with its first surface text."""
    text = text[:MAX_CHARACTERS]
    a = analyse(text)
    out: dict[tuple[str, ...], str] = {}
    for i in range(len(a.key)):
        for j in range(i + 1, min(len(a.key), i + MAX_N)):
            if a.clause[j] != a.clause[i]:
                break
            gram = tuple(a.key[i:j + 1])
            if gram not in out:
                out[gram] = " ".join(a.surface[i:j + 1])
    return out


def low_score_phrases(low: Sequence[str], others: Sequence[str], limit: int = LIMIT
                      ) -> list[dict]:
    """The phrases of the ``low`` answers (module docstring), most used first: ``[{"phrase",
    "learners", "others"}]`` (``learners``: low answers using it; ``others``: other answers)."""
    counts: Counter = Counter()
    surfaces: dict[tuple[str, ...], Counter] = defaultdict(Counter)
    for text in low:
        for gram, surface in _grams(text).items():
            counts[gram] += 1
            surfaces[gram][surface] += 1
    other_counts: Counter = Counter()
    for text in others:
        for gram in _grams(text):
            if gram in counts:
                other_counts[gram] += 1

    def kept(gram) -> bool:
        if counts[gram] < MIN_LEARNERS:
            return False
        return not others or counts[gram] / len(low) > other_counts[gram] / len(others)

    candidates = sorted((g for g in counts if kept(g)),
                        key=lambda g: (-counts[g], other_counts[g], -len(g), g))
    # (2-gram, count) pairs covered by a listed 3-gram with the same count
    covered = {(part, counts[g]) for g in candidates if len(g) == MAX_N
               for part in (g[:-1], g[1:])}
    chosen = [g for g in candidates if (g, counts[g]) not in covered][:limit]
    return [{"phrase": surfaces[g].most_common(1)[0][0], "learners": counts[g],
             "others": other_counts[g]} for g in chosen]
