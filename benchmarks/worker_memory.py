"""Resident memory of a Celery worker process, idle and after grading one SDPA submission.

Starts ``celery -A workers.celery_app worker -c 1`` (one prefork pool process) from a source tree
(``--root``, default this one; e.g. a checkout of an earlier commit, run with this virtualenv's
interpreter), on the machine's Redis with a queue of its own and a SQLite store in a temporary
folder. Reports, in MiB, RSS, PSS and USS (:func:`memory_mib`) of:

- ``idle``: the pool process once the worker is ready and the process has started its sandbox;
- ``graded``: the same process after it graded one ``attention-basics`` SDPA submission;
- ``main``: the worker's main (consumer) process at the same moment.

Each figure is the median of ``--runs`` fresh workers. ``--modules`` also lists the
``grader.api``/``flask*`` modules that ``import grader.notify`` and ``import workers.tasks`` load.

Usage::

    .venv/bin/python -m benchmarks.worker_memory [--root /tmp/before16] [--runs 3] [--modules]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.cpu import children  # noqa: E402
REDIS_URL = os.environ.get("WORKER_MEMORY_REDIS", "redis://127.0.0.1:6379/0")

_MODULES = """
import sys
{imports}
print(json.dumps(sorted(m for m in sys.modules
                        if m.startswith(("grader.api", "flask", "flask_smorest", "grader.web",
                                         "grader.lti.views", "werkzeug")))))
"""


def memory_mib(pid: int) -> dict[str, float]:
    """Of ``pid``, in MiB: ``rss`` (resident, pages shared with the parent included), ``pss``
    (shared pages divided among their sharers) and ``uss`` (its private pages only), from
    ``/proc/<pid>/smaps_rollup``. Raises ``OSError`` when it is gone."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, _, rest = line.partition(":")
        fields[name] = int(rest.split()[0]) / 1024
    return {"rss": fields["Rss"], "pss": fields["Pss"],
            "uss": fields["Private_Clean"] + fields["Private_Dirty"]}



def loaded_modules(root: Path, imports: str) -> list[str]:
    """The grader.api/flask/werkzeug modules in ``sys.modules`` after running ``imports`` in a
    fresh interpreter on ``root``'s code."""
    env = {**os.environ, "PYTHONPATH": str(root), "CELERY_QUEUE": f"mem-{uuid.uuid4().hex[:8]}",
           "CELERY_BROKER_URL": REDIS_URL}
    with tempfile.TemporaryDirectory() as tmp:
        env["INSTANCE_PATH"] = tmp
        code = "import json\n" + _MODULES.format(imports=imports)
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp,
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def measure_once(root: Path, timeout: float = 120.0) -> dict[str, float]:
    """One fresh worker: idle and post-grading RSS (MiB) of its pool process, and its main's."""
    queue = f"mem-{uuid.uuid4().hex[:12]}"
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(root), "CELERY_BROKER_URL": REDIS_URL,
               "CELERY_QUEUE": queue, "INSTANCE_PATH": tmp, "GRADER_SECRET_KEY": "mem",
               "DATABASE_URL": f"sqlite:///{tmp}/grader.db", "PYTHONUNBUFFERED": "1",
               "LOG_FORMAT": "text"}
        from grader.store import Store  # same tables in every tree measured

        store = Store(env["DATABASE_URL"])
        store.upgrade()
        log_path = Path(tmp) / "worker.log"
        with open(log_path, "wb") as log:
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker", "-c", "1",
                 "-P", "prefork", "-Q", queue, "-n", f"{queue}@%h", "--without-gossip",
                 "--without-mingle", "--without-heartbeat", "--loglevel", "INFO"],
                env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            while b"ready." not in log_path.read_bytes():
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"worker did not start:\n{log_path.read_text()[-3000:]}")
                time.sleep(0.2)
            time.sleep(3.0)  # the pool process warms its sandbox on worker_process_init
            pool = children(worker.pid)
            if len(pool) != 1:
                raise RuntimeError(f"expected one pool process, found {pool}")
            idle = memory_mib(pool[0])
            code = json.loads((ROOT / "examples" / "submission_correct.json").read_text())
            submission, _ = store.create_submission("attention-basics", "mem",
                                                    {"sdpa": code["responses"]["sdpa"]})
            from celery import Celery

            sender = Celery("mem", broker=REDIS_URL)
            sender.send_task("workers.tasks.grade_submission", args=[submission.id], queue=queue)
            while store.status(submission.id) not in ("graded", "failed"):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"not graded:\n{log_path.read_text()[-3000:]}")
                time.sleep(0.2)
            status = store.status(submission.id)
            if status != "graded":
                raise RuntimeError(f"submission {status}:\n{log_path.read_text()[-3000:]}")
            time.sleep(1.0)
            main = memory_mib(worker.pid)  # before the pool process, so both share alike
            graded = memory_mib(pool[0])
            return {**{f"idle {k}": v for k, v in idle.items()},
                    **{f"graded {k}": v for k, v in graded.items()},
                    **{f"main {k}": v for k, v in main.items()}}
        finally:
            os.killpg(worker.pid, 15)
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, 9)
                worker.wait()
            store.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="source tree to run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--modules", action="store_true",
                        help="list grader.api/flask modules loaded by the worker's imports")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if args.modules:
        for imports in ("import grader.notify", "import workers.tasks",
                        "import workers.celery_app"):
            found = loaded_modules(root, imports)
            print(f"{imports}: {len(found)} module(s): {', '.join(found) or '-'}")
    runs = [measure_once(root) for _ in range(args.runs)]
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(f"{key:10s} median {statistics.median(values):7.1f} MiB  "
              f"(runs: {', '.join(f'{v:.1f}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
