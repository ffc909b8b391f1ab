"""Before/after: the figures of issue 15 for two versions of the product, measured by the same code
in one session, so that their ratios compare even on a busy machine.

"Before" is a commit (default :data:`BEFORE`, the state when the work on issue 15 began): it is
exported with ``git archive`` into ``.bench/<commit>/`` and given a virtualenv of its own on first
use (a few minutes, then reused). "After" is this tree and this interpreter. The versions take
turns (before, after, after, before, ...), each on a fresh production stack
(:class:`benchmarks.stack.Stack`: gunicorn 2 x 16 threads, one Celery worker with 2 pool processes,
our own Redis, a fresh PostgreSQL database). Per turn:

1. SDPA, 10 closed-loop clients (POST, then long-poll ``GET ?wait=``) for ``--duration`` s:
   p50/p95 latency, graded per second and the CPU seconds of every process role
   (:mod:`benchmarks.cpu`) per graded submission;
2. the same for a correct multi-head attention submission (the heaviest problem);
3. intake alone (the worker stopped): ``POST`` answered 202 per second, 16 keep-alive clients;
4. the embedded default (``grader serve``): POST-to-graded, one submission at a time.

With ``--middle COMMIT`` (e.g. ``main``) a third version is measured the same way and given its own
columns: the features that landed meanwhile, without this tree's own changes.

A bare ``python -c "import numpy"`` is timed between turns (wall and CPU); latencies are given as
multiples of its wall time, CPU per submission as multiples of its CPU time and in CPU-ms.

    .venv/bin/python benchmarks/compare.py [--before 2a4cd5d] [--middle main] [--turns 2]
                                           [--duration 12]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import cpu, embedded_latency, intake_bench  # noqa: E402
from benchmarks.common import numpy_import_cpu, percentile, table  # noqa: E402
from benchmarks.e2e_bench import run_level  # noqa: E402
from benchmarks.stack import BIN, ROOT, Stack  # noqa: E402

#: main when the work on issue 15 began
BEFORE = "2a4cd5d"
CLIENTS = 10
ROLES = cpu.SERVICE_ROLES + (cpu.LOAD,)


def prepare(commit: str) -> tuple[Path, Path]:
    """(source tree, virtualenv bin) of ``commit``: exported and installed under ``.bench/`` on
    first use. Raises ``subprocess.CalledProcessError`` when git or pip fail."""
    full = subprocess.run(["git", "rev-parse", "--verify", f"{commit}^{{commit}}"], cwd=ROOT,
                          check=True, capture_output=True, text=True).stdout.strip()
    root = ROOT / ".bench" / full[:12]
    bin_dir = root / ".venv" / "bin"
    if not (root / ".installed").exists():
        print(f"preparing {commit} in {root} (once: git archive + its own virtualenv)", flush=True)
        root.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", full], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
        subprocess.run([sys.executable, "-m", "venv", str(root / ".venv")], check=True)
        subprocess.run([str(bin_dir / "pip"), "install", "--quiet", "-e", str(root)], check=True)
        (root / ".installed").write_text(full + "\n")
    return root, bin_dir


def per_submission(spent: dict[str, float], graded: int) -> dict[str, float]:
    """CPU ms per graded submission by role, and the service's total under ``"total"``."""
    rows = {role: spent.get(role, 0.0) / graded * 1e3 for role in ROLES}
    rows["total"] = cpu.service_total(spent) / graded * 1e3
    return rows


def closed_loop(stack: Stack, workload: str, duration: float) -> dict:
    """10 closed-loop clients on ``workload`` under a CPU meter."""
    run_level(stack, 2, 2.0, "long", 0.0, workload)  # warm: sandbox, caches, connections
    cpu.wait_idle(stack)
    result, spent = cpu.measure(stack, lambda: run_level(stack, CLIENTS, duration, "long", 0.0,
                                                         workload))
    cpu.wait_idle(stack)
    return {**result, "cpu": per_submission(spent, result["n"])}


def turn(name: str, root: Path, bin_dir: Path, duration: float, embedded_n: int) -> dict:
    """Every figure of one version, on a fresh stack."""
    figures: dict = {}
    with Stack(Path(tempfile.mkdtemp(prefix=f"compare-{name}-")), api_workers=2, api_threads=16,
               worker_concurrency=2, root=root, bin_dir=bin_dir) as stack:
        stack.start_all(workers=1)
        for workload in ("sdpa", "mha"):
            figures[workload] = closed_loop(stack, workload, duration)
        stack.stop("worker")
        intake_bench.run_once(stack, 1, 2, 1.0)  # warm
        figures["intake"] = max(intake_bench.run_once(stack, 4, 4, duration / 3)["rate"]
                                for _ in range(2))
    figures["embedded"] = embedded_latency.post_to_graded(embedded_n, root, bin_dir)
    sdpa, mha = figures["sdpa"], figures["mha"]
    print(f"  {name}: SDPA {sdpa['cpu']['total']:.1f} CPU-ms/graded, p50 {sdpa['p50'] * 1e3:.0f} "
          f"ms, p95 {sdpa['p95'] * 1e3:.0f} ms, {sdpa['rate']:.1f}/s; MHA "
          f"{mha['cpu']['total']:.1f} CPU-ms, p50 {mha['p50'] * 1e3:.0f} ms; intake "
          f"{figures['intake']:.0f}/s; embedded p50 "
          f"{percentile(figures['embedded'], 50) * 1e3:.0f} ms", flush=True)
    print("    SDPA CPU-ms by role: " + ", ".join(f"{role} {ms:.1f}" for role, ms in
                                                  sdpa["cpu"].items()), flush=True)
    return figures


def _median(turns: list[dict], *path) -> float:
    values = []
    for figures in turns:
        value = figures
        for key in path:
            value = value[key]
        values.append(value)
    return statistics.median(values)


def report(results: dict[str, list[dict]], imports: list[tuple[float, float]]) -> str:
    wall = statistics.median(w for w, _ in imports)
    cpu_s = statistics.median(c for _, c in imports)
    rows = []
    middle = [name for name in results if name not in ("before", "after")]

    def row(label, target, getter, fmt=float):
        values = {name: getter(turns) for name, turns in results.items()}
        before, after = values["before"], values["after"]
        rows.append([label, target, fmt(before)] + [fmt(values[m]) for m in middle]
                    + [fmt(after), f"{after / before:.2f}" if before else "-"]
                    + [f"{after / values[m]:.2f}" if values[m] else "-" for m in middle])

    def cpu_ms(workload, role="total"):
        return lambda turns: _median(turns, workload, "cpu", role)

    def latency(workload, key):
        return lambda turns: _median(turns, workload, key) / wall

    row("SDPA: CPU-ms per graded submission, all service processes", "<= 20", cpu_ms("sdpa"))
    row("SDPA: the same / CPU-ms of a numpy import", "-",
        lambda t: cpu_ms("sdpa")(t) / (cpu_s * 1e3))
    row("SDPA: the same / wall ms of a numpy import", "<= 0.25",
        lambda t: cpu_ms("sdpa")(t) / (wall * 1e3))
    row(f"SDPA: graded/s at {CLIENTS} clients", ">= 80", lambda t: _median(t, "sdpa", "rate"))
    row(f"SDPA: p50 at {CLIENTS} clients / numpy import", "<= 1.0", latency("sdpa", "p50"))
    row(f"SDPA: p95 at {CLIENTS} clients / numpy import", "<= 1.5", latency("sdpa", "p95"))
    row("intake: accepted POST/s (16 clients, no worker)", ">= 1000",
        lambda t: _median(t, "intake"))
    row("embedded default: POST-to-graded p50 / numpy import", "<= 0.25",
        lambda t: statistics.median(percentile(f["embedded"], 50) for f in t) / wall)
    row("MHA: CPU-ms per graded submission, all service processes", "-", cpu_ms("mha"))
    row(f"MHA: graded/s at {CLIENTS} clients", "-", lambda t: _median(t, "mha", "rate"))
    row(f"MHA: p50 at {CLIENTS} clients / numpy import", "-", latency("mha", "p50"))
    row(f"MHA: p95 at {CLIENTS} clients / numpy import", "-", latency("mha", "p95"))
    out = [table(["figure", "target", "before"] + middle + ["after", "after / before"]
                 + [f"after / {m}" for m in middle], rows)]

    role_rows = []
    for role in ROLES + ("total",):
        role_rows.append([role] + [f"{_median(results[v], w, 'cpu', role):.1f}"
                                   for w in ("sdpa", "mha") for v in results])
    out.append("CPU-ms per graded submission by process role (total = the service, without the "
               "load generator):")
    out.append(table(["process role"] + [f"{w} {v}" for w in ("SDPA", "MHA") for v in results],
                     role_rows))
    n = len(results["after"])
    out.append(f"(medians of {n} turns per version; bare `python -c 'import numpy'`: "
               f"{wall * 1e3:.0f} ms wall, {cpu_s * 1e3:.0f} CPU-ms, medians of "
               f"{len(imports) * 5} runs between turns)")
    return "\n\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=os.environ.get("BENCH_BEFORE", BEFORE),
                        help="commit to compare with (default %(default)s)")
    parser.add_argument("--turns", type=int, default=2, help="turns per version")
    parser.add_argument("--duration", type=float, default=12.0,
                        help="seconds per closed-loop level")
    parser.add_argument("--embedded", type=int, default=30, help="embedded submissions per turn")
    parser.add_argument("--middle", default=os.environ.get("BENCH_MIDDLE", ""),
                        help="also measure this commit (e.g. main: the features that landed "
                             "meanwhile, without this tree's own changes)")
    parser.add_argument("--only", choices=["before", "after"],
                        help="measure one version only (its figures, no table)")
    args = parser.parse_args(argv)
    if args.only:
        root, bin_dir = prepare(args.before) if args.only == "before" else (ROOT, BIN)
        for _ in range(args.turns):
            turn(args.only, root, bin_dir, args.duration, args.embedded)
        return 0
    versions = {"before": prepare(args.before)}
    if args.middle:
        versions[args.middle] = prepare(args.middle)
    versions["after"] = (ROOT, BIN)
    results: dict[str, list[dict]] = {name: [] for name in versions}
    imports = [numpy_import_cpu(5)]
    order = []
    for index in range(args.turns):
        order += list(versions) if index % 2 == 0 else list(reversed(versions))
    for name in order:
        results[name].append(turn(name, *versions[name], args.duration, args.embedded))
        imports.append(numpy_import_cpu(5))
    print()
    print(f"before = {args.before}, " + (f"{args.middle} = {args.middle}, " if args.middle else "")
          + "after = this tree")
    print(report(results, imports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
