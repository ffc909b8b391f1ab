"""The most common phrases of the answers that scored low on a text item, for the class analytics.

Counted units are 2 or 3 consecutive content words of one clause (stop words skipped, words
stemmed: the rubric engine's own analysis, :func:`grader.rubric.analysis.analyse`, linear in the
text). One is kept when at least :data:`MIN_LEARNERS` low-scoring answers use it and it is more
common among them (as a share of answers) than among the other answers: words every answer uses
say nothing about what the low ones got wrong. Kept 3-word units that follow one another with the
same count ("attention linear sequence", "linear sequence length") are one longer phrase, and a
2-word unit inside a kept 3-word one with the same count is left out. A phrase is shown as an
answer wrote it ("attention is linear in the sequence length"). Each answer counts once per
phrase, and only its first :data:`MAX_CHARACTERS` characters are read (the cost is bounded per
answer).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Sequence

from grader.rubric.analysis import Analysis, analyse

MIN_LEARNERS = 2
MAX_N = 3
MAX_CHARACTERS = 4000
LIMIT = 10

Gram = tuple[str, ...]


def _grams(a: Analysis) -> dict[Gram, int]:
    """Every 2- and 3-gram of content words of one clause, with its first content position."""
    out: dict[Gram, int] = {}
    for i in range(len(a.key)):
        for j in range(i + 1, min(len(a.key), i + MAX_N)):
            if a.clause[j] != a.clause[i]:
                break
            out.setdefault(tuple(a.key[i:j + 1]), i)
    return out


def _chains(grams: list[Gram], counts: Counter) -> list[list[Gram]]:
    """Kept 3-grams linked into runs (each one the next shifted by a word, same count), in the
    order of ``grams``; other grams stand alone."""
    following = {g[:-1]: g for g in grams if len(g) == MAX_N}
    has_next = {g for g in grams if len(g) == MAX_N and (g[1:] in following and
                                                          counts[following[g[1:]]] == counts[g])}
    starts = {following[g[1:]] for g in has_next if following[g[1:]] != g}
    runs, used = [], set()
    for gram in grams:
        if gram in used or (len(gram) == MAX_N and gram in starts):
            continue  # not a run's first gram (its run is built from the first)
        run = [gram]
        while len(gram) == MAX_N and gram in has_next:
            gram = following[gram[1:]]
            if gram in used or gram in run:  # a repeated word ("word word word") loops
                break
            run.append(gram)
        used.update(run)
        runs.append(run)
    runs += [[g] for g in grams if g not in used]  # runs that loop have no first gram
    return runs


def low_score_phrases(low: Sequence[str], others: Sequence[str], limit: int = LIMIT
                      ) -> list[dict]:
    """The phrases of the ``low`` answers (module docstring), most used first: ``[{"phrase",
    "learners", "others"}]`` (``learners``: low answers using it; ``others``: other answers)."""
    counts: Counter = Counter()
    where: dict[Gram, list[tuple[Analysis, int]]] = defaultdict(list)
    for text in low:
        a = analyse(text[:MAX_CHARACTERS])
        for gram, position in _grams(a).items():
            counts[gram] += 1
            where[gram].append((a, position))
    other_counts: Counter = Counter()
    for text in others:
        for gram in _grams(analyse(text[:MAX_CHARACTERS])):
            if gram in counts:
                other_counts[gram] += 1

    def kept(gram: Gram) -> bool:
        if counts[gram] < MIN_LEARNERS:
            return False
        return not others or counts[gram] / len(low) > other_counts[gram] / len(others)

    candidates = sorted((g for g in counts if kept(g)),
                        key=lambda g: (-counts[g], other_counts[g], -len(g), g))
    # (2-gram, count) pairs inside a kept 3-gram with the same count
    covered = {(part, counts[g]) for g in candidates if len(g) == MAX_N
               for part in (g[:-1], g[1:])}
    phrases = []
    for run in _chains([g for g in candidates if (g, counts[g]) not in covered], counts):
        words = len(run[0]) + len(run) - 1
        surface = Counter()
        for a, start in where[run[0]]:
            end = start + words - 1
            if end < len(a.key) and tuple(a.key[start:end + 1]) == run[0] + tuple(
                    g[-1] for g in run[1:]):
                surface[a.text[a.span[start][0]:a.span[end][1]].lower()] += 1
        phrases.append({"phrase": surface.most_common(1)[0][0] if surface else " ".join(run[0]),
                        "learners": min(counts[g] for g in run),
                        "others": max(other_counts[g] for g in run)})
    return phrases[:limit]
