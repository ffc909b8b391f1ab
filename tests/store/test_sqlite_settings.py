"""The SQLite settings of every store connection (grader/store/db.py ``make_engine``): the
write-ahead log, ``synchronous=NORMAL`` and a 30 s busy timeout; a ``:memory:`` store works
without the log; PostgreSQL gets none of them. And the README's durability line for SQLite:
a process killed right after a commit loses nothing."""
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from sqlalchemy import text

from grader.store import Store

ROOT = Path(__file__).resolve().parents[2]


def _pragmas(connection) -> tuple:
    return tuple(connection.execute(text(f"PRAGMA {name}")).scalar()
                 for name in ("journal_mode", "synchronous", "busy_timeout"))


def test_every_sqlite_connection_uses_the_write_ahead_log_and_normal_sync(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    store.create_all()
    # two connections open at once: both new ones, both set up (synchronous 1 is NORMAL)
    with store.engine.connect() as first, store.engine.connect() as second:
        assert _pragmas(first) == _pragmas(second) == ("wal", 1, 30000)
    store.create_submission("a", "l", {"q": {"text": "x"}})
    assert (tmp_path / "g.db-wal").exists()
    store.dispose()


def test_an_in_memory_store_keeps_its_memory_journal_and_works():
    store = Store("sqlite://")  # one connection per thread; WAL does not apply to memory
    store.create_all()
    with store.engine.connect() as connection:
        assert _pragmas(connection) == ("memory", 1, 30000)
    sub, _ = store.create_submission("a", "l", {"q": {"text": "x"}})
    assert store.get(sub.id).status == "queued"
    store.dispose()


def test_postgresql_connections_keep_the_server_settings(postgres_url):
    store = Store(postgres_url)
    store.create_all()
    with store.engine.connect() as connection:
        assert connection.execute(text("SHOW synchronous_commit")).scalar() == "on"
        assert connection.execute(text("SHOW lock_timeout")).scalar() == "0"
    store.dispose()


def test_a_process_killed_right_after_a_commit_loses_no_submission(tmp_path):
    """synchronous=NORMAL in WAL mode: a commit is in the log file when it returns, so a process
    that dies before any checkpoint (SIGKILL, no clean-up) leaves it to the next one."""
    url = f"sqlite:///{tmp_path / 'g.db'}"
    made = Store(url)
    made.create_all()
    made.dispose()  # the child is the only process with the file open
    child = textwrap.dedent(f"""
        import os, signal, sys
        from grader.store import Store
        store = Store({url!r})
        sub, _ = store.create_submission("a", "l", {{"q": {{"text": "kept"}}}})
        sys.stdout.write(sub.id + "\\n")
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run([sys.executable, "-c", child], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == -signal.SIGKILL, done.stderr
    submission_id = done.stdout.strip()
    assert (tmp_path / "g.db-wal").stat().st_size > 0  # not checkpointed into the file
    store = Store(url)
    stored = store.get(submission_id)
    assert (stored.status, stored.responses) == ("queued", {"q": {"text": "kept"}})
    store.dispose()
