"""Issue 29: the CPU per graded submission with each lever of :mod:`grader.levers` alone, with
none and with all, measured by the same code in one session on this tree (``CPU_LEVERS``).

Two views:

1. **The production stack** (:class:`benchmarks.stack.Stack`: gunicorn 2 x 16 threads, one
   Celery worker with 2 pool processes, our own Redis, a fresh PostgreSQL database). Per turn,
   every configuration (``none``, each lever alone, ``all``; forward on even turns, backward on
   odd ones) restarts the API and the worker with its ``CPU_LEVERS`` and runs SDPA at 10
   closed-loop clients (POST, then long-poll ``GET ?wait=``) for ``--duration`` s: CPU ms per
   graded submission by process role (:mod:`benchmarks.cpu`) and the p50 latency; then the
   embedded default (``grader serve``) posts one submission at a time (POST-to-graded).
2. **One grading process** (``GradingService.grade`` on the same PostgreSQL server, its own warm
   sandbox): the configurations take turns submission by submission in this process (a lever
   is read on every use), so the machine's load moves them all alike; CPU ms of this process
   (the trusted side, not the sandbox's processes) per graded SDPA submission, and the
   statements sent to the store.

A bare ``python -c "import numpy"`` is timed between turns; latencies are given as multiples of
its wall time. Medians over turns; each ratio is a configuration against ``none``.

    .venv/bin/python benchmarks/levers.py [--turns 3] [--duration 10] [--warm 10] [--embedded 20]
                                          [--graded 60]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import cpu, embedded_latency  # noqa: E402
from benchmarks.common import WORKLOADS, numpy_import_cpu, percentile, table  # noqa: E402
from benchmarks.compare import CLIENTS, closed_loop  # noqa: E402
from benchmarks.stack import Stack, create_database, drop_database  # noqa: E402
from grader.levers import LEVERS  # noqa: E402
from grader.problems.base import DRAW_SEEDS  # noqa: E402

#: submissions graded before measuring, per configuration: enough to have drawn every shared
#: seed (lever ``draws``) in a grading process, as a process that has graded for a while has
WARM = 4 * DRAW_SEEDS

#: the roles shown, in order (the load generator is shown, not counted in the total)
ROLES = cpu.SERVICE_ROLES + (cpu.LOAD,)


def configurations() -> list[str]:
    """``none``, every lever alone, then ``all``."""
    return ["none", *LEVERS, "all"]


def restart_with(stack: Stack, levers: str) -> None:
    """The API and the worker of ``stack`` again, with ``CPU_LEVERS=levers``."""
    stack.stop("worker")
    stack.stop("api")
    stack.env["CPU_LEVERS"] = levers
    stack.start_api()
    stack.start_worker()
    stack.wait_workers_ready()


def warm(stack: Stack, seconds: float = 5.0) -> None:
    """A first load on a fresh stack, not measured: the database's first rows and plans, the
    machine's caches (the configuration measured first would otherwise pay for them)."""
    from benchmarks.e2e_bench import run_level

    run_level(stack, 4, seconds, "long", 0.0, "sdpa")
    cpu.wait_idle(stack)


def stack_turn(stack: Stack, levers: str, duration: float, embedded_n: int,
               warm_seconds: float) -> dict:
    """The figures of one configuration: SDPA at 10 clients on ``stack``, then the embedded
    default's POST-to-graded, after ``warm_seconds`` of the same load not measured."""
    restart_with(stack, levers)
    from benchmarks.e2e_bench import run_level

    # each of the worker's 2 processes grades about WARM submissions first (lever draws)
    run_level(stack, CLIENTS, warm_seconds, "long", 0.0, "sdpa")
    cpu.wait_idle(stack)
    figures = {"sdpa": closed_loop(stack, "sdpa", duration)}
    figures["embedded"] = embedded_latency.post_to_graded(embedded_n,
                                                          settings={"CPU_LEVERS": levers})
    sdpa = figures["sdpa"]
    print(f"  {levers}: SDPA {sdpa['cpu']['total']:.1f} CPU-ms/graded ("
          + ", ".join(f"{role.split(' ')[0]} {sdpa['cpu'][role]:.1f}" for role in ROLES)
          + f"), p50 {sdpa['p50'] * 1e3:.0f} ms, {sdpa['rate']:.1f}/s; embedded p50 "
          f"{percentile(figures['embedded'], 50) * 1e3:.0f} ms", flush=True)
    return figures


def in_process(names: list[str], graded: int) -> dict[str, dict[str, float]]:
    """Per configuration: CPU ms of ``GradingService.grade`` in this process (the trusted side:
    draws, checks, store, notifier; not the sandbox's own processes, which no lever changes)
    per graded SDPA submission and the statements it sent, the configurations taking turns
    submission by submission, ``graded`` submissions each."""
    import logging

    from sqlalchemy import event

    url = create_database()
    saved = dict(os.environ)
    os.environ.update({"DATABASE_URL": url, "GRADER_SECRET_KEY": "bench",
                       "INSTANCE_PATH": tempfile.mkdtemp(prefix="levers-inproc-")})
    os.environ.pop("CELERY_BROKER_URL", None)
    try:
        from grader.config import load_config
        from grader.runtime import build_service

        logging.disable(logging.INFO)
        service = build_service(load_config(), announce=lambda _submission_id: None)
        store = service.store
        store.courses.create_course("bench", "Bench")
        assignment, make_body = WORKLOADS["sdpa"]
        statements = [0]
        event.listen(store.engine, "before_cursor_execute",
                     lambda *args, **kwargs: statements.__setitem__(0, statements[0] + 1))
        spent = {name: [0.0, 0] for name in names}
        for index in range(graded + WARM):  # the first ones warm the sandbox and the caches
            for name in names if index % 2 == 0 else reversed(names):
                os.environ["CPU_LEVERS"] = name
                sid = store.create_submission(assignment, "bench", make_body("b")["responses"],
                                              course_id="bench")[0].id
                before, sent = time.process_time(), statements[0]
                outcome = service.grade(sid)
                if outcome.action != "graded":
                    raise RuntimeError(f"not graded: {outcome}")
                if index >= WARM:
                    spent[name][0] += time.process_time() - before
                    spent[name][1] += statements[0] - sent
        service.close()
        store.dispose()
        logging.disable(logging.NOTSET)
        return {name: {"cpu_ms": seconds / graded * 1e3, "statements": sent / graded}
                for name, (seconds, sent) in spent.items()}
    finally:
        os.environ.clear()
        os.environ.update(saved)
        drop_database(url)


def report(results: dict[str, list[dict]], imports: list[tuple[float, float]],
           grading: dict[str, dict[str, float]]) -> str:
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
    headers = (["CPU_LEVERS", "CPU-ms / graded (service)", "/ none"] + list(ROLES)
               + [f"p50 at {CLIENTS} clients / numpy import", "/ none",
                  "embedded POST-to-graded p50 / numpy import", "/ none"])
    n = len(results["none"])
    out = [table(headers, rows),
           f"(production stack, SDPA; targets: <= 25 CPU-ms, p50 <= 1.0, embedded <= 0.2; "
           f"medians of {n} turns; bare `python -c 'import numpy'`: {wall * 1e3:.0f} ms wall, "
           f"{cpu_s * 1e3:.0f} CPU-ms, medians of {len(imports) * 5} runs between turns)"]
    if grading:
        base = grading["none"]
        out.append(table(["CPU_LEVERS", "GradingService.grade CPU-ms (trusted side)",
                          "/ none", "statements per grading"],
                         [[name, f"{g['cpu_ms']:.1f}", f"{g['cpu_ms'] / base['cpu_ms']:.2f}",
                           f"{g['statements']:.1f}"] for name, g in grading.items()]))
        out.append("(one grading process, the configurations taking turns submission by "
                   "submission)")
    return "\n\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=3, help="turns per configuration")
    parser.add_argument("--duration", type=float, default=10.0,
                        help="seconds of the closed-loop run")
    parser.add_argument("--embedded", type=int, default=20,
                        help="embedded submissions per turn")
    parser.add_argument("--graded", type=int, default=100,
                        help="submissions per configuration in one grading process (0: skip)")
    parser.add_argument("--warm", type=float, default=10.0,
                        help="seconds of load before each configuration's measured run")
    parser.add_argument("--only", nargs="*", help="these configurations only (none is added)")
    args = parser.parse_args(argv)
    names = configurations()
    if args.only:
        names = ["none"] + [n for n in args.only if n != "none"]
    results: dict[str, list[dict]] = {name: [] for name in names}
    imports = [numpy_import_cpu(5)]
    for index in range(args.turns):
        with Stack(Path(tempfile.mkdtemp(prefix="levers-")), api_workers=2, api_threads=16,
                   worker_concurrency=2) as stack:
            stack.start_all(workers=1)
            warm(stack)
            for name in names if index % 2 == 0 else reversed(names):
                results[name].append(stack_turn(stack, name, args.duration, args.embedded,
                                                 args.warm))
        imports.append(numpy_import_cpu(5))
    started = time.monotonic()
    grading = in_process(names, args.graded) if args.graded else {}
    if grading:
        print(f"  one grading process: {time.monotonic() - started:.0f} s", flush=True)
    print()
    print(report(results, imports, grading))
    return 0


if __name__ == "__main__":
    sys.exit(main())
