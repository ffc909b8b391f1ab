"""End-to-end benchmark in production mode: HTTP POST of a scaled-dot-product-attention submission
until its graded result is readable, with 1, 10 and 50 concurrent clients.

The stack (see :mod:`benchmarks.stack`): gunicorn (``--api-workers`` x ``--api-threads``), one
Celery worker (``--worker-concurrency`` pool processes), our own Redis, a fresh database on this
machine's PostgreSQL. Each client loops: POST, then read the result until it is final (long-poll
``GET ?wait=`` by default, or ``--poll client`` to poll every ``--poll-interval`` s). Latency is
POST-sent to graded-result-received; throughput is graded submissions per second over the window.

Each level runs ``--runs`` times for ``--duration`` s; the table gives medians over runs, and every
figure also as a multiple of a bare ``python -c "import numpy"`` process.

    .venv/bin/python benchmarks/e2e_bench.py                 # 1, 10, 50 clients, 3 runs of 15 s
    .venv/bin/python benchmarks/e2e_bench.py --clients 10 --runs 1 --duration 5
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import (WORKLOADS, median_of, numpy_import_seconds,  # noqa: E402
                               percentile, table)
from benchmarks.stack import Stack  # noqa: E402

FINAL = ("graded", "failed")


def _ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def one_submission(session: requests.Session, stack: Stack, body: dict, poll: str,
                   interval: float, assignment: str = "attention-basics"
                   ) -> tuple[float, str, tuple[float, float, float]]:
    """POST then read until final; (seconds, final status, (queue wait, grading, result read)
    in seconds from the stored timestamps)."""
    started = time.perf_counter()
    resp = session.post(stack.submissions_url(assignment), json=body, timeout=30)
    resp.raise_for_status()
    url = stack.base + resp.headers["Location"]
    while True:
        if poll == "long":
            data = session.get(url, params={"wait": 30}, timeout=60).json()
        else:
            data = session.get(url, timeout=30).json()
        if data["status"] in FINAL:
            received, begun, finished = (_ts(data[k]) for k in ("received_at", "started_at",
                                                                "finished_at"))
            split = (begun - received, finished - begun, time.time() - finished)
            return time.perf_counter() - started, data["status"], split
        if poll != "long":
            time.sleep(interval)


def run_level(stack: Stack, clients: int, duration: float, poll: str, interval: float,
              workload: str = "sdpa") -> dict:
    """``clients`` closed-loop clients for ``duration`` s posting the ``workload`` submission
    (:data:`benchmarks.common.WORKLOADS`); latency percentiles and throughput."""
    assignment, make_body = WORKLOADS[workload]
    latencies: list[float] = []
    splits: list[tuple[float, float, float]] = []
    statuses: dict[str, int] = {}
    lock = threading.Lock()
    stop_at = time.perf_counter() + duration

    def client(index: int):
        session = stack.session()
        body = make_body(f"bench-{clients}-{index}")
        while time.perf_counter() < stop_at:
            seconds, status, split = one_submission(session, stack, body, poll, interval,
                                                    assignment)
            if time.perf_counter() <= stop_at:
                with lock:
                    latencies.append(seconds)
                    splits.append(split)
                    statuses[status] = statuses.get(status, 0) + 1

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    window = min(duration, time.perf_counter() - started)
    if set(statuses) - {"graded"}:
        raise RuntimeError(f"not every submission was graded: {statuses}")
    return {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95),
            "p99": percentile(latencies, 99), "rate": len(latencies) / window,
            "n": len(latencies), "queue": percentile([q for q, _, _ in splits], 50),
            "grading": percentile([g for _, g, _ in splits], 50),
            "read": percentile([r for _, _, r in splits], 50)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="1,10,50")
    parser.add_argument("--duration", type=float, default=15.0, help="seconds per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--poll", choices=["long", "client"], default="long")
    parser.add_argument("--poll-interval", type=float, default=0.01)
    parser.add_argument("--api-workers", type=int, default=2)
    parser.add_argument("--api-threads", type=int, default=16)
    parser.add_argument("--worker-concurrency", type=int, default=2)
    parser.add_argument("--wsgi", default="grader.wsgi:app")
    args = parser.parse_args(argv)
    levels = [int(c) for c in args.clients.split(",")]

    baseline = numpy_import_seconds()
    print(f"bare `python -c 'import numpy'`: {baseline * 1e3:.1f} ms (median of 7)", flush=True)
    rows = []
    with Stack(Path(tempfile.mkdtemp(prefix="e2e-bench-")), api_workers=args.api_workers,
               api_threads=args.api_threads, worker_concurrency=args.worker_concurrency,
               wsgi=args.wsgi, settings={"ACCESS_LOG": "1"}) as stack:
        stack.start_all(workers=1)
        run_level(stack, 2, 3.0, args.poll, args.poll_interval)  # warm the sandbox pools
        for clients in levels:
            runs = []
            for r in range(args.runs):
                result = run_level(stack, clients, args.duration, args.poll, args.poll_interval)
                runs.append(result)
                print(f"  {clients:>3} clients run {r + 1}: p50 {result['p50'] * 1e3:.0f} ms, "
                      f"p95 {result['p95'] * 1e3:.0f} ms, p99 {result['p99'] * 1e3:.0f} ms, "
                      f"{result['rate']:.1f}/s (n={result['n']}); medians: queue "
                      f"{result['queue'] * 1e3:.0f} ms, grading {result['grading'] * 1e3:.0f} ms, "
                      f"result read {result['read'] * 1e3:.0f} ms", flush=True)
            p50, p95, p99 = (median_of(runs, k) for k in ("p50", "p95", "p99"))
            rate = median_of(runs, "rate")
            rows.append([clients, p50 * 1e3, p95 * 1e3, p99 * 1e3, rate, p50 / baseline,
                         p95 / baseline, rate * baseline] + [median_of(runs, k) * 1e3 for k in
                                                             ("queue", "grading", "read")])
    print()
    print(table(["clients", "p50 ms", "p95 ms", "p99 ms", "graded/s", "p50 / numpy",
                 "p95 / numpy", "graded per numpy-import", "queue ms", "grading ms",
                 "read ms"], rows))
    print(f"\n(medians of {args.runs} runs of {args.duration:g} s; poll={args.poll}; gunicorn "
          f"{args.api_workers}x{args.api_threads} threads, Celery concurrency "
          f"{args.worker_concurrency}; numpy import = {baseline * 1e3:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
