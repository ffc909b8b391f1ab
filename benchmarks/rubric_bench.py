#!/usr/bin/env python
"""Rubric scoring throughput: answers scored per second for a 10-criterion rubric on one core.

Not a timed test; run ``python benchmarks/rubric_bench.py [--answers N] [--seed S] [--worst-case]``. The rubric
(below) uses synonyms, alternatives, wildcards, gaps, an all-group with proximity, misspelling
tolerance, negation and three misconceptions. Answers are built deterministically from sentence
fragments of the seed banks with random misspellings, so the misspelling cache sees new words too.
The rubric is compiled once; only ``score()`` is timed, in CPU time of this process (the figure
that does not depend on what else runs on the machine) and in wall-clock time.

``--real`` also times the rubrics on real answers: every built-in rubric (``rubrics/text``) on the
learner-style answers of ``tests/content/learner_answers.yaml`` (issue 22 item 5), and the frozen
Mohler rubrics (``rubrics/mohler/before`` and ``after``) on the dev split's 630 answers of real
students (``$MOHLER_DATA`` or ``shared/data/mohler-dev``; skipped when it is not there).
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


def worst_case() -> None:
    """Time per answer of rubrics at the size limits on hostile answers, without a budget (what the
    work would cost) and with the engine's per-answer budget (what it costs)."""
    from grader.rubric import ScoringTimeout
    from grader.rubric.budget import SCORE_BUDGET_SECONDS
    from grader.rubric.schema import MAX_REGEX_CONCEPTS

    rng = random.Random(0)
    words = [f"w{i}ord" for i in range(8)]
    # 100 criteria x 19 six-word phrases with gap 10 whose words fill a 20,000-character answer
    # while the last word occurs only at its end (no phrase completes; every start is explored)
    phrases = {"id": "phrases", "question": "q", "max_points": 100, "criteria": [
        {"id": f"c{c}", "description": "d", "points": 1, "require": "any", "concepts": [
            {"phrase": " ".join(f"{rng.choice(words)}|{rng.choice(words)}" for _ in range(5)) + " rare",
             "gap": 10, "order": "any" if j % 2 else "fixed"} for j in range(19)]} for c in range(100)]}
    phrase_answer = " ".join(rng.choice(words) for _ in range(2900))[:19_990] + " rare"
    # the regex cap, each pattern quadratic in a search (allowed by the static check)
    regexes = {"id": "regexes", "question": "q", "max_points": 1, "criteria": [
        {"id": "c", "description": "d", "points": 1, "require": "any",
         "concepts": [{"regex": f"a.*b{i}"} for i in range(MAX_REGEX_CONCEPTS)]}]}
    cases = [("1,900 phrases, 20,000-char answer", phrases, phrase_answer),
             (f"{MAX_REGEX_CONCEPTS} regexes a.*bN, 20,000 x 'a'", regexes, "a" * 20_000)]
    for name, doc, answer in cases:
        rubric = compile_rubric(doc)
        for budget in ((None, SCORE_BUDGET_SECONDS) if doc is phrases else (5.0, SCORE_BUDGET_SECONDS)):
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                rubric.score(answer, budget=budget)
                outcome = "scored"
            except ScoringTimeout:
                outcome = "stopped (ScoringTimeout)"
            label = ("no budget" if budget is None else f"budget {budget:g} s"
                     + (" (standing in for none: 20 quadratic searches take minutes)" if budget == 5.0 else ""))
            print(f"worst case, {name}, {label}: {time.process_time() - c0:.3f} s CPU, "
                  f"{time.perf_counter() - t0:.3f} s wall clock, {outcome}")
    return None


def _throughput(pairs: list, rounds: int) -> tuple[float, float]:
    """Answers per CPU-second and per wall-clock second of ``rubric.score(answer)`` over ``pairs``
    (``[(compiled rubric, answer), ...]``) scored ``rounds`` times, after one warm-up round."""
    for rubric, answer in pairs:
        rubric.score(answer)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(rounds):
        for rubric, answer in pairs:
            rubric.score(answer)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    return rounds * len(pairs) / cpu, rounds * len(pairs) / elapsed


def real_answers(rounds: int) -> None:
    """Throughput of the built-in rubrics on the learner-style answers and of the frozen Mohler
    rubrics on the dev split's answers (one line each)."""
    import yaml

    from grader.rubric import load_rubric_file

    root = Path(__file__).resolve().parents[1]
    marked = yaml.safe_load((root / "tests" / "content" / "learner_answers.yaml").read_text(encoding="utf-8"))
    rubrics = {rid: load_rubric_file(root / "rubrics" / "text" / f"{rid}.yaml") for rid in marked}
    pairs = [(rubrics[rid], case["answer"]) for rid, cases in marked.items() for case in cases]
    words = sum(len(a.split()) for _, a in pairs) / len(pairs)
    cpu, wall = _throughput(pairs, rounds)
    print(f"built-in rubrics ({len(rubrics)}) on {len(pairs)} learner-style answers (mean {words:.0f} words) "
          f"x {rounds}: {cpu:,.0f} answers/s of CPU time; wall clock {wall:,.0f} answers/s")
    from grader.rubric.evaluate import DEFAULT_DATA, DEFAULT_RUBRICS, load_data, load_rubrics

    if not (Path(DEFAULT_DATA) / "answers.tsv").exists():
        print(f"Mohler dev split: not found at {DEFAULT_DATA} (set MOHLER_DATA); skipped")
        return
    questions, answers = load_data(DEFAULT_DATA)
    words = sum(len(a.text.split()) for a in answers) / len(answers)
    for variant in ("before", "after"):
        compiled = load_rubrics(Path(DEFAULT_RUBRICS) / variant, list(questions))
        cpu, wall = _throughput([(compiled[a.question_id], a.text) for a in answers], max(1, rounds // 4))
        print(f"Mohler '{variant}' rubrics ({len(compiled)}) on the dev split's {len(answers)} answers (mean "
              f"{words:.0f} words): {cpu:,.0f} answers/s of CPU time; wall clock {wall:,.0f} answers/s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worst-case", action="store_true",
                        help="also time rubrics at the size limits on hostile answers")
    parser.add_argument("--real", action="store_true",
                        help="also time the built-in rubrics on learner-style answers and the Mohler rubrics "
                             "on real answers")
    parser.add_argument("--rounds", type=int, default=20, help="passes over the real answers (--real)")
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
    if args.real:
        real_answers(args.rounds)
    if args.worst_case:
        worst_case()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
