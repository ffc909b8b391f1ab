#!/usr/bin/env python
"""How many of the mistakes present the feedback names, on the catalogue's pairs and triples.

Run: ``.venv/bin/python benchmarks/combination_naming.py [--size 2|3] [--limit 200] [--seed 1]
[--singles]`` (issue 21.2). Not a test (``tests/problems/test_realistic.py`` and
``test_mistakes.py`` are): for every built-in problem, up to ``--limit`` combinations of its
toggled mistakes (one way each, in a fixed shuffled order) are graded as learners, in process.
A member whose removal changes nothing on any test of the seed is left out (nothing can name it).
Prints per problem and in total: the mistakes present, the share named, and the names given that
are not among the members ("other names": a combination that gives the same values on every test,
e.g. a transposed causal mask with k=1 is the inverted mask). ``--singles`` measures the engine
without combinations (the "before" figure, on the same catalogue).
"""
from __future__ import annotations

import argparse
import itertools
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.problems import PROBLEMS, combinations, diagnosis  # noqa: E402
from grader.problems.compare import matches, split_return  # noqa: E402
from grader.problems.trial import CallableSandbox, _grade  # noqa: E402


def _same(problem, a, b, seed: int) -> bool:
    """True when implementation keys ``a`` and ``b`` give the same values on every case."""
    for case in problem.cases(seed):
        for (x, ex), (y, ey) in zip(problem.executor.values(a, case),
                                    problem.executor.values(b, case)):
            if (ex is None) != (ey is None):
                return False
            if ex is None and not matches(split_return(x)[0], split_return(y)[0]):
                return False
    return True


def _combinations(problem, size: int, limit: int) -> list[tuple[int, ...]]:
    first: dict[str, int] = {}
    for index, variant in enumerate(problem.variants):
        if variant.toggles is not None:
            first.setdefault(variant.tag, index)
    found = [c for c in itertools.combinations(sorted(first.values()), size)
             if problem.executor.combine(c) is not None]
    random.Random(0).shuffle(found)
    return found[:limit]


def measure(problem, size: int, limit: int, seed: int) -> tuple[int, int, int, int]:
    """(combinations, mistakes present, named, other names) for one problem."""
    present = named = other = 0
    chosen = _combinations(problem, size, limit)
    for combo in chosen:
        result = _grade(problem, ("", CallableSandbox(problem.executor.combine(combo))), seed)
        if result.score >= 10 - 1e-9:
            continue
        seen = set()
        for index in combo:
            rest = tuple(j for j in combo if j != index)
            without = rest if len(rest) > 1 else problem.variants[rest[0]].implementation
            if not _same(problem, combo, without, seed):
                seen.add(problem.variants[index].tag)
        hidden = {problem.variants[i].tag for i in combo} - seen
        got = set(result.extra_data["diagnoses"]) - hidden
        present, named, other = present + len(seen), named + len(seen & got), \
            other + len(got - seen)
    return len(chosen), present, named, other


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--singles", action="store_true")
    args = parser.parse_args()
    if args.singles:
        combinations.name_combinations = lambda *a, **k: []
        diagnosis._fewest_names = lambda *a, **k: None
    totals = [0, 0, 0, 0]
    for problem_id, problem in PROBLEMS.items():
        row = measure(problem, args.size, args.limit, args.seed)
        totals = [t + r for t, r in zip(totals, row)]
        print(f"{problem_id:36s} combinations {row[0]:4d}  present {row[1]:5d}  named "
              f"{100 * row[2] / max(row[1], 1):5.1f}%  other names {row[3]}")
    print(f"{'total':36s} combinations {totals[0]:4d}  present {totals[1]:5d}  named "
          f"{100 * totals[2] / max(totals[1], 1):5.1f}%  other names {totals[3]}")


if __name__ == "__main__":
    main()
