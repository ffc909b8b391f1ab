"""Time the grading of one submission per problem: ``python -m grader.problems.bench``.

Reports, per file, the median and 90th percentile over ``--repeat`` runs (a new seed each run) of
the whole grading (cases built, one sandbox run, checks, diagnosis, scoring) and of the sandbox run
alone. ``--mode`` is a :func:`grader.sandbox.get_sandbox` mode.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from grader.problems import PROBLEMS, scoring
from grader.sandbox.api import Limits


def measure(problem_id: str, source: str, sandbox, repeat: int) -> dict[str, float]:
    """Median and p90 (milliseconds) of total grading time and sandbox time over ``repeat`` seeds."""
    totals, runs = [], []
    for seed in range(repeat):
        started = time.perf_counter()
        result = scoring.grade(PROBLEMS[problem_id], "bench", 10.0, source, sandbox, Limits(),
                               seed)
        totals.append((time.perf_counter() - started) * 1000)
        runs.append(result.extra_data["sandbox_seconds"] * 1000)

    def p90(values):
        return sorted(values)[max(0, int(round(0.9 * len(values))) - 1)]

    return {"total_median_ms": statistics.median(totals), "total_p90_ms": p90(totals),
            "sandbox_median_ms": statistics.median(runs), "score": result.score,
            "tests": len(result.tests)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--problem", default="multi_head_attention", choices=sorted(PROBLEMS))
    parser.add_argument("--mode", default="unsafe-dev")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    from grader.sandbox import get_sandbox

    started = time.perf_counter()
    sandbox = get_sandbox(args.mode)
    print(f"sandbox {args.mode} started in {(time.perf_counter() - started) * 1000:.0f} ms")
    try:
        for path in args.files:
            stats = measure(args.problem, path.read_text(encoding="utf-8"), sandbox, args.repeat)
            print(f"{path.name}: {stats['tests']} tests, score {stats['score']:.2f}; total median "
                  f"{stats['total_median_ms']:.1f} ms (p90 {stats['total_p90_ms']:.1f}), "
                  f"sandbox median {stats['sandbox_median_ms']:.1f} ms")
    finally:
        sandbox.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
