"""POST to graded result on the embedded default (``grader serve``: SQLite, in-process grading).

Starts ``grader serve`` on a free port with a temporary instance folder, then posts the
scaled-dot-product-attention submission of ``examples/submission_correct.json`` one at a time and
reads each result with a long-poll. Prints p50/p95 of POST-to-graded time and the ratio to a bare
``python -c "import numpy"``. Usage: ``python benchmarks/embedded_latency.py [--n 40]``.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import numpy_import_seconds, percentile, sdpa_submission, table  # noqa: E402
from benchmarks.stack import free_port, wait_port  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def post_to_graded(n: int, root: Path = ROOT, bin_dir: Path | None = None,
                   settings: dict[str, str] | None = None) -> list[float]:
    """Seconds from POST to graded result of ``n`` submissions one at a time (after 3 warm-up
    ones) on ``grader serve`` of the tree ``root`` run from the virtualenv ``bin_dir``, with
    the extra environment ``settings`` (e.g. ``CPU_LEVERS``)."""
    bin_dir = Path(bin_dir or Path(sys.executable).parent)
    instance = tempfile.mkdtemp(prefix="grader-bench-")
    port = free_port()
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": instance, "INSTANCE_PATH": instance,
           "LOG_JSON": "0", "ACCESS_LOG": "0", **(settings or {})}
    server = subprocess.Popen([str(bin_dir / "grader"), "serve", "--port", str(port)], env=env,
                              cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        wait_port(port, timeout=60)
        key = (Path(instance) / "local-instructor-key").read_text().strip()
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {key}"
        base = f"http://127.0.0.1:{port}"
        times = []
        for i in range(n + 3):
            started = time.perf_counter()
            resp = session.post(f"{base}/api/v1/assignments/attention-basics/submissions",
                                json=sdpa_submission(f"bench-{i}"), timeout=30)
            result = session.get(base + resp.headers["Location"] + "?wait=30", timeout=40).json()
            assert result["status"] == "graded" and result["score"] == 10.0, result
            if i >= 3:
                times.append(time.perf_counter() - started)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="submissions (after 3 warm-up ones)")
    args = parser.parse_args(argv)
    baseline = numpy_import_seconds()
    times = post_to_graded(args.n)
    p50, p95 = percentile(times, 50) * 1e3, percentile(times, 95) * 1e3
    print(table(["mode", "n", "p50 ms", "p95 ms", "p50 / numpy import"],
                [["embedded (grader serve)", len(times), f"{p50:.0f}", f"{p95:.0f}",
                  f"{p50 / (baseline * 1e3):.2f}"]]))
    print(f"(bare `python -c 'import numpy'`: {baseline * 1e3:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
