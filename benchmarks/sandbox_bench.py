"""Per-job cost of the sandbox against starting a bare interpreter that imports NumPy.

Run: ``.venv/bin/python benchmarks/sandbox_bench.py [--runs 30]``. Measures, in one run and on the
same machine state: the median wall time of ``python -c "import numpy"`` as a fresh process, the
median wall time of one isolated sandbox job (import a correct softmax, three calls on 64x64
inputs, results parsed on the trusted side), and the one-off cost of starting the warm server
(with and without its self-test). Prints a table and the ratio sandboxed job / bare process
(target <= 0.25, from issue 3).
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

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
        bare = time_bare_numpy(options.runs)
        jobs = time_sandbox_jobs(sandbox, options.runs)
    finally:
        sandbox.close()

    bare_median, job_median = statistics.median(bare), statistics.median(jobs)
    ratio = job_median / bare_median
    rows = [
        ("bare `python -c \"import numpy\"` (fresh process)", bare_median, min(bare), max(bare)),
        ("isolated sandbox job (3 softmax calls, warm server)", job_median, min(jobs), max(jobs)),
    ]
    print(f"{'measurement':55s} {'median':>10s} {'min':>10s} {'max':>10s}")
    for label, median, low, high in rows:
        print(f"{label:55s} {median * 1000:8.1f}ms {low * 1000:8.1f}ms {high * 1000:8.1f}ms")
    print(f"{'one-off: start the server':55s} {start_server * 1000:8.1f}ms")
    print(f"{'one-off: get_sandbox() incl. self-test':55s} {start_with_self_test * 1000:8.1f}ms")
    print(f"runs: {options.runs}; ratio sandbox job / bare process = {ratio:.3f}x (target <= 0.25x)"
          f" -> {'OK' if ratio <= 0.25 else 'ABOVE TARGET'}")
    return ratio


if __name__ == "__main__":
    main()
