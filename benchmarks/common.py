"""Shared by the benchmarks: the bare-NumPy baseline, percentiles, medians of runs, tables."""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
MHA_SOURCE = (Path(__file__).resolve().parent.parent / "grader" / "problems" / "builtin" /
              "multi_head_attention" / "samples" / "correct_reshape_transpose.py")


def sdpa_submission(learner_id: str = "bench") -> dict:
    """A scaled-dot-product-attention submission: the sdpa code of
    ``examples/submission_correct.json`` only."""
    code = json.loads((EXAMPLES / "submission_correct.json").read_text())["responses"]["sdpa"]
    return {"learner_id": learner_id, "responses": {"sdpa": code}}


def mha_submission(learner_id: str = "bench") -> dict:
    """A correct multi-head attention submission (the heaviest built-in problem) to the
    ``attention-code`` assignment's ``multi-head-attention`` item only."""
    return {"learner_id": learner_id,
            "responses": {"multi-head-attention": {"code": MHA_SOURCE.read_text()}}}


#: workload name -> (assignment id, body for a learner id)
WORKLOADS = {"sdpa": ("attention-basics", sdpa_submission),
             "mha": ("attention-code", mha_submission)}


def numpy_import_seconds(runs: int = 7) -> float:
    """Median wall time (s) of a bare ``python -c "import numpy"`` process on this machine: the
    unit every figure is also given in, since the machine is noisy."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import numpy"], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def numpy_import_cpu(runs: int = 7) -> tuple[float, float]:
    """Median (wall seconds, CPU seconds) of a bare ``python -c "import numpy"`` process. The CPU
    time (user + system, from ``wait4``) hardly changes when other work shares the machine, so
    CPU figures are compared with it, and wall-clock latencies with the wall time."""
    import os

    walls, cpus = [], []
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", "import numpy"])
        _pid, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - started)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise RuntimeError("python -c 'import numpy' failed")
        cpus.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation (NumPy's default method)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median_of(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def table(headers: list[str], rows: list[list]) -> str:
    """A plain-text table (Markdown pipe syntax, so it pastes into an issue)."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.rjust(w) for c, w in zip(row, widths)) + " |" for row in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 10 else f"{value:.0f}"
    return str(value)
