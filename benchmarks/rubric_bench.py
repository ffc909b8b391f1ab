#!/usr/bin/env python
"""Rubric scoring throughput: answers scored per second for a 10-criterion rubric on one core.

Not a timed test; run ``python benchmarks/rubric_bench.py [--answers N] [--seed S]``. The rubric
(below) uses synonyms, alternatives, wildcards, gaps, an all-group with proximity, misspelling
tolerance, negation and three misconceptions. Answers are built deterministically from sentence
fragments of the seed banks with random misspellings, so the misspelling cache sees new words too.
The rubric is compiled once; only ``score()`` is timed, in CPU time of this process (the figure
that does not depend on what else runs on the machine) and in wall-clock time.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.rubric import compile_rubric  # noqa: E402

RUBRIC = {
    "question": "Explain how scaled dot-product self-attention computes its output, and its cost.",
    "max_points": 10,
    "defaults": {"gap": 2, "fuzzy": 1},
    "synonyms": {"quadratic": ["quadratic", "O(n^2)", "n^2"], "token": ["token|position|word"]},
    "criteria": [
        {"id": "qkv", "description": "queries, keys and values are projections", "points": 1,
         "concepts": [{"all": ["query|queries", "key*", "value*"]}]},
        {"id": "scores", "description": "dot products of queries with keys", "points": 1,
         "concepts": [{"any": ["dot product*", "qk^t", {"phrase": "query key similarit*|score*", "gap": 3}]}]},
        {"id": "scale", "description": "scaled by sqrt(d_k)", "points": 1,
         "concepts": [{"any": ["sqrt(d_k)", {"phrase": "divid*|scal* root", "gap": 3}]}]},
        {"id": "softmax", "description": "softmax over the keys", "points": 1,
         "concepts": [{"all": ["softmax", "key*|position*|row*"], "within": 6}]},
        {"id": "sum-one", "description": "weights sum to one", "points": 1,
         "concepts": [{"phrase": "weights sum|add one|1", "gap": 3}]},
        {"id": "values", "description": "output is a weighted sum of the values", "points": 1,
         "concepts": [{"phrase": "weighted sum|average|combination value*", "gap": 3}]},
        {"id": "pairs", "description": "every token attends to every token", "points": 1,
         "concepts": [{"phrase": "@token attend* every|all @token", "gap": 3}]},
        {"id": "cost", "description": "quadratic cost", "points": 1, "concepts": ["@quadratic"]},
        {"id": "parallel", "description": "computed in parallel", "points": 1,
         "concepts": [{"any": ["parallel*", "simultaneous*", "at once"]}]},
        {"id": "positions", "description": "positional encodings give order", "points": 1,
         "concepts": [{"any": ["positional encoding*|embedding*", "permutation equivariant|invariant"]}]},
    ],
    "misconceptions": [
        {"id": "learned", "patterns": [{"phrase": "attention weights learned|trained", "gap": 2}], "penalty": 1,
         "message": "attention weights are computed, not learned"},
        {"id": "keys", "patterns": [{"phrase": "weighted sum keys", "gap": 2}], "penalty": 1, "message": "values, not keys"},
        {"id": "dk", "patterns": [{"phrase": "divid* d_k", "gap": 1}], "penalty": 1, "message": "divide by sqrt(d_k)"},
    ],
}

FRAGMENTS = [
    "Each token is projected into a query, a key and a value.",
    "The scores are the dot products QK^T of the queries with the keys,",
    "divided by √dₖ so the softmax does not saturate.",
    "Softmax runs over the keys of each row, so the weights sum to one.",
    "The output is a weighted sum of the value vectors.",
    "Every token attends to every other token, which costs O(n²) in time and memory.",
    "All positions are computed in parallel, unlike an RNN.",
    "Without positional encodings attention is permutation equivariant.",
    "The attention weights are not learned; they are computed from the inputs.",
    "I think the output is a weighted sum of the keys.",
    "We divide by d_k to normalise.",
    "It is not quadratic because of caching, honestly I am not sure.",
    "Transformers are neural networks used for translation and language modelling.",
    "Multi-head attention splits d_model into h heads of size d_model / h.",
]


def misspell(word: str, rng: random.Random) -> str:
    if len(word) < 5 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def make_answers(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    answers = []
    for _ in range(n):
        parts = rng.sample(FRAGMENTS, rng.randint(2, 6))
        words = " ".join(parts).split(" ")
        words = [misspell(w, rng) if rng.random() < 0.05 else w for w in words]
        answers.append(" ".join(words))
    return answers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    rubric = compile_rubric(RUBRIC)
    compile_ms = (time.perf_counter() - t0) * 1000
    answers = make_answers(args.answers, args.seed)
    mean_words = sum(len(a.split()) for a in answers) / len(answers)
    for answer in answers[:200]:  # warm the stem and misspelling caches like a running worker
        rubric.score(answer)
    t0, c0 = time.perf_counter(), time.process_time()
    total = 0.0
    for answer in answers:
        total += rubric.score(answer).points
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"rubric: {len(RUBRIC['criteria'])} criteria, {len(RUBRIC['misconceptions'])} misconceptions; "
          f"compiled once in {compile_ms:.1f} ms")
    print(f"answers: {len(answers)}, mean {mean_words:.0f} words; mean score {total / len(answers):.2f} / 10")
    print(f"scored {len(answers)} answers on one core: {len(answers) / cpu:,.0f} answers/s of CPU time "
          f"({cpu / len(answers) * 1e6:.0f} us each); wall clock {len(answers) / elapsed:,.0f} answers/s "
          f"(lower when other processes share the core)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
