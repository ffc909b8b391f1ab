"""Intake alone: ``POST /api/v1/assignments/<id>/submissions`` answered 202 per second, production
mode (gunicorn, our own Redis, a fresh PostgreSQL database), with no Celery worker consuming (the
messages wait in Redis), so only the API, the store insert and the enqueue are measured.

The load comes from ``--procs`` processes with ``--conns`` keep-alive connections each
(``http.client``, so the client is not the bottleneck); each run lasts ``--duration`` s; the table
gives medians over ``--runs`` runs and the rate also per bare ``python -c "import numpy"``.

    .venv/bin/python benchmarks/intake_bench.py [--procs 4 --conns 4 --duration 10 --runs 3]
"""
from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import (median_of, numpy_import_seconds, percentile,  # noqa: E402
                               sdpa_submission, table)
from benchmarks.stack import Stack  # noqa: E402


def _client_process(port: int, path: str, key: str, conns: int, duration: float, queue) -> None:
    body = json.dumps(sdpa_submission("intake")).encode()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    results: list[tuple[int, float]] = []
    lock = threading.Lock()
    stop_at = time.perf_counter() + duration

    def connection():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        local = []
        while time.perf_counter() < stop_at:
            t0 = time.perf_counter()
            try:
                conn.request("POST", path, body=body, headers=headers)
                resp = conn.getresponse()
                resp.read()
                local.append((resp.status, time.perf_counter() - t0))
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                local.append((0, time.perf_counter() - t0))
        with lock:
            results.extend(local)

    threads = [threading.Thread(target=connection) for _ in range(conns)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    queue.put(results)


def run_once(stack: Stack, procs: int, conns: int, duration: float) -> dict:
    path = stack.submissions_url().replace(stack.base, "")
    queue = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=_client_process, args=(
        stack.api_port, path, stack.api_key(), conns, duration, queue)) for _ in range(procs)]
    for worker in workers:
        worker.start()
    results = [r for _ in workers for r in queue.get()]
    for worker in workers:
        worker.join()
    accepted = [seconds for status, seconds in results if status == 202]
    others: dict[int, int] = {}
    for status, _ in results:
        if status != 202:
            others[status] = others.get(status, 0) + 1
    return {"rate": len(accepted) / duration, "p50": percentile(accepted, 50),
            "p99": percentile(accepted, 99), "n": len(accepted), "others": others}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--procs", type=int, default=4)
    parser.add_argument("--conns", type=int, default=4, help="connections per process")
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--api-workers", type=int, default=2)
    parser.add_argument("--api-threads", type=int, default=16)
    parser.add_argument("--wsgi", default="grader.wsgi:app")
    args = parser.parse_args(argv)
    baseline = numpy_import_seconds()
    print(f"bare `python -c 'import numpy'`: {baseline * 1e3:.1f} ms (median of 7)", flush=True)
    with Stack(Path(tempfile.mkdtemp(prefix="intake-bench-")), api_workers=args.api_workers,
               api_threads=args.api_threads, wsgi=args.wsgi) as stack:
        stack.start_redis()
        stack.start_api()
        run_once(stack, 1, 2, 2.0)  # warm up connections and caches
        runs = []
        for r in range(args.runs):
            result = run_once(stack, args.procs, args.conns, args.duration)
            runs.append(result)
            print(f"  run {r + 1}: {result['rate']:.0f} accepted/s, p50 {result['p50'] * 1e3:.1f} "
                  f"ms, p99 {result['p99'] * 1e3:.1f} ms, n={result['n']}, other answers "
                  f"{result['others']}", flush=True)
    rate, p50, p99 = (median_of(runs, k) for k in ("rate", "p50", "p99"))
    print()
    print(table(["clients", "202/s", "p50 ms", "p99 ms", "202 per numpy-import",
                 "p50 / numpy"],
                [[args.procs * args.conns, rate, p50 * 1e3, p99 * 1e3, rate * baseline,
                  p50 / baseline]]))
    print(f"\n(medians of {args.runs} runs of {args.duration:g} s; gunicorn {args.api_workers}x"
          f"{args.api_threads} threads; numpy import = {baseline * 1e3:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
