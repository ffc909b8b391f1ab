"""Issue 29: the CPU per graded submission with each lever of :mod:`grader.levers` alone, with
none and with all, measured by the same code in one session on this tree (``CPU_LEVERS``).

Per configuration (``none``, each lever alone, ``all``), taking turns (forward, then backward,
...), each on a fresh production stack (:class:`benchmarks.stack.Stack`: gunicorn 2 x 16
threads, one Celery worker with 2 pool processes, our own Redis, a fresh PostgreSQL database):

1. SDPA, 10 closed-loop clients (POST, then long-poll ``GET ?wait=``) for ``--duration`` s: CPU
   ms per graded submission by process role (:mod:`benchmarks.cpu`), p50 latency;
2. the embedded default (``grader serve``): POST-to-graded, one submission at a time.

A bare ``python -c "import numpy"`` is timed between turns; latencies are given as multiples of
its wall time. Medians over turns; the ratio column is each configuration against ``none``.

    .venv/bin/python benchmarks/levers.py [--turns 2] [--duration 10] [--embedded 20]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import cpu, embedded_latency  # noqa: E402
from benchmarks.common import numpy_import_cpu, percentile, table  # noqa: E402
from benchmarks.compare import CLIENTS, closed_loop  # noqa: E402
from benchmarks.stack import Stack  # noqa: E402
from grader.levers import LEVERS  # noqa: E402

#: the roles shown, in order (the load generator is shown, not counted in the total)
ROLES = cpu.SERVICE_ROLES + (cpu.LOAD,)


def configurations() -> list[str]:
    """``none``, every lever alone, then ``all``."""
    return ["none", *LEVERS, "all"]


def turn(levers: str, duration: float, embedded_n: int) -> dict:
    """The figures of one configuration, on a fresh stack."""
    settings = {"CPU_LEVERS": levers}
    with Stack(Path(tempfile.mkdtemp(prefix=f"levers-{levers}-")), api_workers=2,
               api_threads=16, worker_concurrency=2, settings=settings) as stack:
        stack.start_all(workers=1)
        figures = {"sdpa": closed_loop(stack, "sdpa", duration)}
    figures["embedded"] = embedded_latency.post_to_graded(embedded_n, settings=settings)
    sdpa = figures["sdpa"]
    print(f"  {levers}: SDPA {sdpa['cpu']['total']:.1f} CPU-ms/graded ("
          + ", ".join(f"{role.split(' ')[0]} {sdpa['cpu'][role]:.1f}" for role in ROLES)
          + f"), p50 {sdpa['p50'] * 1e3:.0f} ms, {sdpa['rate']:.1f}/s; embedded p50 "
          f"{percentile(figures['embedded'], 50) * 1e3:.0f} ms", flush=True)
    return figures


def report(results: dict[str, list[dict]], imports: list[tuple[float, float]]) -> str:
    wall = statistics.median(w for w, _ in imports)
    cpu_s = statistics.median(c for _, c in imports)

    def cpu_ms(name, role="total"):
        return statistics.median(f["sdpa"]["cpu"][role] for f in results[name])

    def p50(name):
        return statistics.median(f["sdpa"]["p50"] for f in results[name]) / wall

    def embedded(name):
        return statistics.median(percentile(f["embedded"], 50) for f in results[name]) / wall

    rows = []
    for name in results:
        rows.append([name, f"{cpu_ms(name):.1f}", f"{cpu_ms(name) / cpu_ms('none'):.2f}",
                     *[f"{cpu_ms(name, role):.1f}" for role in ROLES],
                     f"{p50(name):.2f}", f"{p50(name) / p50('none'):.2f}",
                     f"{embedded(name):.2f}", f"{embedded(name) / embedded('none'):.2f}"])
    headers = (["CPU_LEVERS", "CPU-ms / graded (all service processes)", "/ none"]
               + [f"{role}" for role in ROLES]
               + [f"p50 at {CLIENTS} clients / numpy import", "/ none",
                  "embedded POST-to-graded p50 / numpy import", "/ none"])
    n = len(results["none"])
    return (table(headers, rows) + "\n\n"
            f"(targets: <= 25 CPU-ms, p50 <= 1.0, embedded <= 0.2; medians of {n} turns; bare "
            f"`python -c 'import numpy'`: {wall * 1e3:.0f} ms wall, {cpu_s * 1e3:.0f} CPU-ms, "
            f"medians of {len(imports) * 5} runs between turns)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=2, help="turns per configuration")
    parser.add_argument("--duration", type=float, default=10.0,
                        help="seconds of the closed-loop run")
    parser.add_argument("--embedded", type=int, default=20,
                        help="embedded submissions per turn")
    parser.add_argument("--only", nargs="*", help="these configurations only (none is added)")
    args = parser.parse_args(argv)
    names = configurations()
    if args.only:
        names = ["none"] + [n for n in args.only if n != "none"]
    results: dict[str, list[dict]] = {name: [] for name in names}
    imports = [numpy_import_cpu(5)]
    for index in range(args.turns):
        for name in names if index % 2 == 0 else reversed(names):
            results[name].append(turn(name, args.duration, args.embedded))
            imports.append(numpy_import_cpu(5))
    print()
    print(report(results, imports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
