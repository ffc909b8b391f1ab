"""The production stack on this machine, started and stopped by a script: gunicorn serving the API,
Celery workers and beat, a Redis of our own on a free port, and a fresh PostgreSQL database on the
machine's server (127.0.0.1:5432, never stopped or reconfigured here).

Used by the benchmarks (``benchmarks/*.py``) and the fault drills (``tests/drills``): both need
to kill and restart single processes (a worker with SIGKILL, Redis, the API), which is why every
process is started in its own session and tracked by name.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import requests

from benchmarks.cpu import children

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PG_ADMIN_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
ASSIGNMENT = "attention-basics"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def create_database() -> str:
    """A fresh, empty PostgreSQL database; returns its SQLAlchemy URL (psycopg 3)."""
    import psycopg

    name = f"grader_drill_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


def drop_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1].split("?")[0]
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')



_MAKE_KEY = """
import sys
from grader.store import Store
store = Store(sys.argv[1])
courses = store.courses.list_courses()
course_id = courses[0].id if courses else "drill"
if not courses:
    store.courses.create_course(course_id, "Drill course")
print(store.courses.create_key("instructor", course_id, "drill")[1])
"""


class Stack:
    """gunicorn + Celery worker(s) + beat + our own Redis + a fresh PostgreSQL database.

    ``settings`` are extra environment variables for every process (e.g. ``SWEEP_AFTER_SECONDS``);
    ``wsgi`` is gunicorn's application (default the product's ``grader.wsgi:app``).
    ``root`` and ``bin_dir`` choose the source tree and the virtualenv's ``bin`` the processes run
    from (default: this tree and this interpreter's), so that another version of the product (e.g.
    an earlier commit, see :mod:`benchmarks.compare`) can be measured by the same code.
    Use as a context manager; :meth:`close` stops everything and drops the database.
    """

    def __init__(self, workdir: Path, *, api_workers: int = 2, api_threads: int = 8,
                 worker_concurrency: int = 2, settings: dict[str, Any] | None = None,
                 database_url: str | None = None, wsgi: str = "grader.wsgi:app",
                 root: Path = ROOT, bin_dir: Path = BIN):
        self.root, self.bin = Path(root), Path(bin_dir)
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.api_workers, self.api_threads = api_workers, api_threads
        self.worker_concurrency = worker_concurrency
        self.wsgi = wsgi
        self.redis_port = free_port()
        self.api_port = free_port()
        self._own_database = database_url is None
        self.database_url = database_url or create_database()
        self.procs: dict[str, subprocess.Popen] = {}
        self.env = {
            "PATH": f"{self.bin}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.workdir),
            "DATABASE_URL": self.database_url,
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "CELERY_QUEUE": "grading",
            "GRADER_SECRET_KEY": "drill-secret",
            "INSTANCE_PATH": str(self.workdir / "instance"),
            "PYTHONUNBUFFERED": "1",
            **{k: str(v) for k, v in (settings or {}).items()},
        }
        self.base = f"http://127.0.0.1:{self.api_port}"
        self._key: str | None = None
        self._key_lock = threading.Lock()
        self._commands: dict[str, list[str]] = {}
        self.restarts: list[tuple[str, int | None]] = []  # (name, exit code) restarted by supervise
        self._supervising = threading.Event()

    # -- processes --------------------------------------------------------------------------
    def _start(self, name: str, cmd: list[str]) -> subprocess.Popen:
        log = open(self.workdir / f"{name}.log", "ab")
        proc = subprocess.Popen(cmd, env=self.env, cwd=self.root, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.procs[name] = proc
        self._commands[name] = cmd
        return proc

    def supervise(self, names: tuple[str, ...] = ("worker", "worker1", "beat"),
                  every: float = 0.5) -> None:
        """Restart any of ``names`` that exits on its own, as docker-compose's
        ``restart: unless-stopped`` does (a process stopped by :meth:`stop` is not restarted)."""
        self._supervising.set()

        def loop():
            while self._supervising.is_set():
                for name in names:
                    proc = self.procs.get(name)
                    if proc is not None and proc.poll() is not None and self._supervising.is_set():
                        self.restarts.append((name, proc.returncode))
                        self._start(name, self._commands[name])
                time.sleep(every)

        threading.Thread(target=loop, name="supervise", daemon=True).start()

    def stop(self, name: str, sig: int = signal.SIGTERM, timeout: float = 20.0) -> None:
        """Send ``sig`` to the process group of ``name`` and wait; SIGKILL after ``timeout``."""
        proc = self.procs.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            pass

    def start_redis(self) -> None:
        self._start("redis", ["redis-server", "--port", str(self.redis_port), "--bind",
                              "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize",
                              "no"])
        wait_port(self.redis_port)

    def restart_redis(self, down_seconds: float = 1.0) -> None:
        """Stop our Redis (its queue is in memory only: every waiting message is lost) and start
        it again after ``down_seconds``."""
        self.stop("redis", signal.SIGKILL)
        time.sleep(down_seconds)
        self.start_redis()

    def start_worker(self, name: str = "worker", concurrency: int | None = None):
        return self._start(name, [str(self.bin / "grader"), "worker", "--concurrency",
                                  str(concurrency or self.worker_concurrency), "-n",
                                  f"{name}-{uuid.uuid4().hex[:6]}@%h", "--without-gossip",
                                  "--without-mingle"])

    def start_beat(self):
        return self._start("beat", [str(self.bin / "grader"), "beat", "--schedule",
                                    str(self.workdir / "beat-schedule")])

    def start_api(self, timeout: float = 60.0):
        proc = self._start("api", [str(self.bin / "gunicorn"), "--workers", str(self.api_workers),
                                   "--threads", str(self.api_threads), "--bind",
                                   f"127.0.0.1:{self.api_port}", "--graceful-timeout", "5",
                                   self.wsgi])
        self.wait_api(timeout)
        return proc

    def restart_api(self, sig: int = signal.SIGKILL) -> None:
        self.stop("api", sig)
        self.start_api()

    def worker_children(self, name: str = "worker") -> list[int]:
        """The pool processes (they run the jobs) of worker ``name``."""
        proc = self.procs.get(name)
        return children(proc.pid) if proc is not None else []

    def wait_api(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if requests.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                pass
            api = self.procs.get("api")
            if time.monotonic() > deadline or (api is not None and api.poll() is not None):
                raise RuntimeError("gunicorn did not start:\n" + self.log_tail("api"))
            time.sleep(0.1)

    def wait_workers_ready(self, name: str = "worker", timeout: float = 60.0) -> None:
        """Until the worker logged that it is ready (sandbox self-test passed)."""
        deadline = time.monotonic() + timeout
        while b"ready." not in (self.workdir / f"{name}.log").read_bytes():
            proc = self.procs.get(name)
            if time.monotonic() > deadline or (proc is not None and proc.poll() is not None):
                raise RuntimeError(f"worker {name} did not start:\n" + self.log_tail(name))
            time.sleep(0.1)

    def start_all(self, workers: int = 1, beat: bool = False) -> "Stack":
        self.start_redis()
        self.start_api()
        for i in range(workers):
            self.start_worker(f"worker{i}" if i else "worker")
        for i in range(workers):
            self.wait_workers_ready(f"worker{i}" if i else "worker")
        if beat:
            self.start_beat()
        return self

    def log_tail(self, name: str, chars: int = 4000) -> str:
        path = self.workdir / f"{name}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    # -- API access ---------------------------------------------------------------------------
    def api_key(self) -> str:
        """An instructor key of a course (created directly in the store on first call)."""
        with self._key_lock:
            return self._make_key()

    def _make_key(self) -> str:
        if self._key is None and (self.root != ROOT or self.bin != BIN):
            # another version of the product: its own code creates the key in its own schema
            self._key = subprocess.run(
                [str(self.bin / "python"), "-c", _MAKE_KEY, self.database_url], cwd=self.root,
                env={**self.env, "PYTHONPATH": str(self.root)}, check=True, capture_output=True,
                text=True).stdout.strip().splitlines()[-1]
        if self._key is None:
            from grader.store import Store

            store = Store(self.database_url)
            try:
                courses = store.courses.list_courses()
                course_id = courses[0].id if courses else "drill"
                if not courses:
                    store.courses.create_course(course_id, "Drill course")
                _row, self._key = store.courses.create_key("instructor", course_id, "drill")
            finally:
                store.dispose()
        return self._key

    def session(self) -> requests.Session:
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {self.api_key()}"
        return session

    def submissions_url(self, assignment: str = ASSIGNMENT) -> str:
        return f"{self.base}/api/v1/assignments/{assignment}/submissions"

    def close(self) -> None:
        self._supervising.clear()
        for name in list(self.procs):
            self.stop(name)
        if self._own_database:
            try:
                drop_database(self.database_url)
            except Exception as exc:  # noqa: BLE001 - best effort at teardown
                print(f"could not drop {self.database_url}: {exc}", file=sys.stderr)

    def __enter__(self) -> "Stack":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
