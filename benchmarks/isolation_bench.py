#!/usr/bin/env python
"""Issue 20: what a hostile submission and a dripping receiver do to everyone else on the
embedded default.

Run: ``.venv/bin/python benchmarks/isolation_bench.py [--seconds 8] [--digits 24]
[--before-root /path/to/main]``. Not a test (the tests assert ordering: tests/queue/). Prints:

1. **/healthz, the learner page and GET /submissions/<id> while a hostile submission grades**:
   p50/p99/max ms of each, requested one after another for ``--seconds`` while a submission
   whose trusted-side grading runs the issue's catastrophic template (``\\((?:\\s*-?\\d+\\s*,?)*
   \\s*\\)`` on ``(`` + ``--digits`` digits + ``x``: seconds of regex backtracking that hold the
   GIL) is graded again and again. Two ways of grading, same app, same hostile work: ``threads``
   (grading on threads of the API process: main's model before this change) and ``processes``
   (the grading processes of the embedded default now).
2. **Another submission's grading while a receiver drips**: a local receiver sends one byte
   every second (each read of a 5 s per-read timeout succeeds, the answer never ends); four
   submissions call it back, then the POST-to-graded seconds of a choice item that has no
   callback, on ``grader serve`` of this tree and, with ``--before-root``, of another tree (its
   own ``.venv``), capped at ``--cap`` seconds.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import percentile, table  # noqa: E402
from benchmarks.stack import free_port, wait_port  # noqa: E402

SUB = "/api/v1/assignments/attention-basics/submissions"
#: The disclosure template of issue 20 before its fix (2^(n-1) backtracking on n digits).
OLD_TEMPLATE = re.compile(r"\((?:\s*-?\d+\s*,?)*\s*\)")
CHOICE = {"no-positions": {"choice": "B"}}


def install_hostile_regex(digits: int) -> None:
    """Make every grading run the old template on the issue's message first (in this process:
    the hook a grading process runs as its initializer, or the API process for ``threads``)."""
    from grader.grading import service

    real = service.grade_responses
    message = "cannot reshape array of size 1 into shape (" + "1" * digits + "x"

    def hostile(*args, **kwargs):
        OLD_TEMPLATE.search(message)  # C code under the GIL for seconds
        return real(*args, **kwargs)

    hostile.real = real
    service.grade_responses = hostile


def _serve(app):
    import logging

    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.WARNING)

    server = make_server("127.0.0.1", free_port(), app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


def pages_while_hostile(mode: str, seconds: float, digits: int) -> dict[str, list[float]]:
    """Latencies (s) of /healthz, the learner page and GET /submissions/<id> while hostile
    submissions grade one after another, grading in ``mode`` (threads | processes)."""
    from grader.app import create_app

    instance = tempfile.mkdtemp(prefix="grader-isolation-")
    app = create_app({"INSTANCE_PATH": instance, "CELERY_BROKER_URL": "",
                      "DATABASE_URL": f"sqlite:///{instance}/grader.db",
                      "INLINE_GRADING": mode, "INLINE_WORKERS": 1, "LOG_JSON": "0",
                      "ACCESS_LOG": "0", "SWEEP_INTERVAL_SECONDS": 3600,
                      "GRADING_CPU_SECONDS": 600})
    dispatcher = app.extensions["grader"].dispatcher
    if mode == "threads":
        install_hostile_regex(digits)
    else:
        dispatcher.processes.initializer = install_hostile_regex
        dispatcher.processes.initargs = (digits,)
    server, base = _serve(app)
    session = requests.Session()
    session.headers["Authorization"] = "Bearer " + (Path(instance) /
                                                    "local-instructor-key").read_text().strip()
    stop = threading.Event()
    first = {}
    ready = threading.Event()

    def hostile_loop():
        i = 0
        while not stop.is_set():
            try:
                sid = session.post(base + SUB, json={"learner_id": f"hostile-{i}",
                                                     "responses": CHOICE},
                                   timeout=600).json()["id"]
                first.setdefault("id", sid)
                ready.set()
                while not stop.is_set() and session.get(
                        f"{base}/api/v1/submissions/{sid}?wait=5",
                        timeout=600).json()["status"] not in ("graded", "failed"):
                    pass
            except requests.RequestException:  # the stalled server dropped a connection
                continue
            i += 1

    worker = threading.Thread(target=hostile_loop, daemon=True)
    worker.start()
    ready.wait(60)
    # a first grading must be under way (the child warmed, or the thread started)
    time.sleep(1.0)
    times: dict[str, list[float]] = {"/healthz": [], "learner page": [], "GET submission": []}
    urls = {"/healthz": base + "/healthz", "learner page": base + "/learn/attention-basics",
            "GET submission": f"{base}/api/v1/submissions/{first['id']}"}
    end = time.monotonic() + seconds
    probe = requests.Session()
    probe.headers.update(session.headers)
    while time.monotonic() < end:
        for name, url in urls.items():
            started = time.perf_counter()
            assert probe.get(url, timeout=600).status_code == 200
            times[name].append(time.perf_counter() - started)
    stop.set()
    server.shutdown()
    dispatcher.close()
    if mode == "threads":  # this process grades normally again
        from grader.grading import service

        service.grade_responses = getattr(service.grade_responses, "real",
                                          service.grade_responses)
    return times


def grading_while_dripping(bin_dir: Path, root: Path, cap: float) -> float | None:
    """POST-to-graded seconds of a choice item on ``grader serve`` of ``root`` (run from
    ``bin_dir``) while four deliveries go to a dripping receiver; ``None`` past ``cap``."""
    from tests.notify.receivers import Dripper

    dripper = Dripper(interval=1.0)
    instance = tempfile.mkdtemp(prefix="grader-drip-")
    port = free_port()
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": instance, "INSTANCE_PATH": instance,
           "LOG_JSON": "0", "ACCESS_LOG": "0"}
    server = subprocess.Popen([str(bin_dir / "grader"), "serve", "--port", str(port)], env=env,
                              cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        wait_port(port, timeout=90)
        base = f"http://127.0.0.1:{port}"
        session = requests.Session()
        session.headers["Authorization"] = "Bearer " + (Path(instance) /
                                                        "local-instructor-key").read_text().strip()
        warm = session.post(base + SUB, json={"learner_id": "warm", "responses": CHOICE},
                            timeout=60).json()["id"]
        session.get(f"{base}/api/v1/submissions/{warm}?wait=30", timeout=60)
        for i in range(4):
            session.post(base + SUB, json={"learner_id": f"drip-{i}", "callback_url": dripper.url,
                                           "responses": CHOICE}, timeout=60)
        dripper.wait_open(2, timeout=60)
        started = time.perf_counter()
        sid = session.post(base + SUB, json={"learner_id": "other", "responses": CHOICE},
                           timeout=60).json()["id"]
        while time.perf_counter() - started < cap:
            status = session.get(f"{base}/api/v1/submissions/{sid}?wait=5", timeout=60).json()
            if status["status"] == "graded":
                return time.perf_counter() - started
        return None
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
        dripper.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--digits", type=int, default=24)
    parser.add_argument("--cap", type=float, default=60.0)
    parser.add_argument("--before-root", type=Path, default=None,
                        help="another tree (e.g. main) with its own .venv, for part 2")
    parser.add_argument("--skip-pages", action="store_true")
    args = parser.parse_args(argv)
    if not args.skip_pages:
        started = time.process_time()
        OLD_TEMPLATE.search("(" + "1" * args.digits + "x")
        print(f"hostile work: the old template on {args.digits} digits, "
              f"{time.process_time() - started:.2f} CPU s per grading")
        rows = []
        for mode in ("threads", "processes"):
            times = pages_while_hostile(mode, args.seconds, args.digits)
            for name, values in times.items():
                rows.append([mode, name, len(values), f"{percentile(values, 50) * 1e3:.1f}",
                             f"{percentile(values, 99) * 1e3:.1f}",
                             f"{max(values) * 1e3:.1f}"])
        print(table(["grading on", "request", "n", "p50 ms", "p99 ms", "max ms"], rows))
    rows = []
    trees = [("this tree", ROOT, Path(sys.executable).parent)]
    if args.before_root is not None:
        trees.insert(0, ("before", args.before_root, args.before_root / ".venv" / "bin"))
    for name, root, bin_dir in trees:
        seconds = grading_while_dripping(bin_dir, root, args.cap)
        rows.append([name, str(root), f"> {args.cap:.0f} (not graded)" if seconds is None
                     else f"{seconds:.2f}"])
    print(table(["server", "tree", "choice item POST-to-graded s, receiver dripping"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
