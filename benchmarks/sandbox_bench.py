"""Per-job cost of the sandbox against starting a bare interpreter that imports NumPy.

Run: ``.venv/bin/python benchmarks/sandbox_bench.py [--runs 30]``. Measures, in one run and on the
same machine state: the median wall time of ``python -c "import numpy"`` as a fresh process, the
median wall time of one isolated sandbox job (import a correct softmax, three calls on 64x64
inputs, results parsed on the trusted side), the median wall time of the sandbox run of a correct
multi-head attention submission (every hidden test and visible example of one seed, in one run),
and the one-off cost of starting the warm server (with and without its self-test). Prints a table
and the ratio sandboxed job / bare process (target <= 0.1, from issue 10).

To compare two versions in one run, point ``PYTHONPATH`` at the other tree: the script uses only
``Call``, ``Limits``, ``get_sandbox`` and ``grader.problems.scoring.build_calls``.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from grader.sandbox import Call, Limits, get_sandbox

SOFTMAX = """
import numpy as np

def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


def time_bare_numpy(runs: int) -> list[float]:
    """Seconds per fresh ``python -c "import numpy"`` (empty environment, like the sandbox)."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import numpy"], env={}, check=True)
        samples.append(time.perf_counter() - started)
    return samples


def time_sandbox_jobs(sandbox, runs: int) -> list[float]:
    """Seconds per 3-call softmax job through ``sandbox``; every job is checked to be correct."""
    rng = np.random.default_rng(0)
    calls = [Call(test=f"t{i}", function="softmax", args=(rng.standard_normal((64, 64)),)) for i in range(3)]
    limits = Limits()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        result = sandbox.run(SOFTMAX, calls, limits)
        samples.append(time.perf_counter() - started)
        if result.status != "ok" or any(c.status != "ok" for c in result.calls):
            raise SystemExit(f"sandbox job failed: {result.status} {result.message}")
    return samples


MHA = Path(__file__).resolve().parent.parent / "grader" / "problems" / "builtin" / \
    "multi_head_attention" / "samples" / "correct_reshape_transpose.py"


def time_mha_runs(sandbox, runs: int) -> list[float]:
    """Seconds per sandbox run of a correct multi-head attention submission (all its calls)."""
    from grader.problems import PROBLEMS
    from grader.problems.scoring import build_calls, expected_values, run_source

    problem = PROBLEMS["multi_head_attention"]
    cases = problem.cases(7)
    source = run_source(problem, MHA.read_text(), cases)
    calls = build_calls(problem, cases, expected_values(problem, cases))
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        result = sandbox.run(source, calls, Limits())
        samples.append(time.perf_counter() - started)
        if result.status != "ok" or any(c.status != "ok" for c in result.calls):
            raise SystemExit(f"MHA run failed: {result.status} {result.message}")
    return samples


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    options = parser.parse_args(argv)

    started = time.perf_counter()
    sandbox = get_sandbox("auto")
    start_with_self_test = time.perf_counter() - started
    try:
        started = time.perf_counter()
        sandbox.restart()
        start_server = time.perf_counter() - started
        time_sandbox_jobs(sandbox, 3)  # warm-up
        time_mha_runs(sandbox, 3)
        bare = time_bare_numpy(options.runs)
        jobs = time_sandbox_jobs(sandbox, options.runs)
        mha = time_mha_runs(sandbox, options.runs)
    finally:
        sandbox.close()

    bare_median, job_median = statistics.median(bare), statistics.median(jobs)
    ratio = job_median / bare_median
    rows = [
        ("bare `python -c \"import numpy\"` (fresh process)", bare_median, min(bare), max(bare)),
        ("isolated sandbox job (3 softmax calls, warm server)", job_median, min(jobs), max(jobs)),
        ("correct multi-head attention submission, sandbox run", statistics.median(mha),
         min(mha), max(mha)),
    ]
    print(f"{'measurement':55s} {'median':>10s} {'min':>10s} {'max':>10s}")
    for label, median, low, high in rows:
        print(f"{label:55s} {median * 1000:8.1f}ms {low * 1000:8.1f}ms {high * 1000:8.1f}ms")
    print(f"{'one-off: start the server':55s} {start_server * 1000:8.1f}ms")
    print(f"{'one-off: get_sandbox() incl. self-test':55s} {start_with_self_test * 1000:8.1f}ms")
    print(f"runs: {options.runs}; ratio sandbox job / bare process = {ratio:.3f}x (target <= 0.1x)"
          f" -> {'OK' if ratio <= 0.1 else 'ABOVE TARGET'}; multi-head attention run / bare "
          f"process = {statistics.median(mha) / bare_median:.3f}x")
    return ratio


if __name__ == "__main__":
    main()
