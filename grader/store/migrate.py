"""Schema migrations of the store, with Alembic.

The schema is the chain of revisions in ``grader/store/migrations/versions``: ``0001`` (the
baseline) is exactly the schema ``create_all`` made on main up to commit 2a4cd5d, and every later
change to :mod:`grader.store.models` comes with one new revision after the current head (ids are
sequential, ``0002``, ``0003``, ...; ``grader db revision -m "..." --autogenerate`` writes a draft
to review). ``tests/store/test_migrations.py`` fails when the models and the revisions disagree.

:func:`upgrade` brings any store to the head revision:

- an empty database gets every revision in order;
- a database made by ``create_all`` before migrations existed (tables, but no
  ``alembic_version``) is first recorded at the baseline, then upgraded, losing nothing;
- a database at an older revision is upgraded; one already at the head is left alone.

It runs at every start of the API and of each worker (and from ``grader db upgrade``), so
several processes may call it at once: a lock makes one of them migrate while the others wait
and then find nothing to do (PostgreSQL: a transaction-scoped advisory lock, released at commit,
and the DDL itself is transactional; SQLite: an exclusive ``flock`` on ``<database>.migrate-lock``
beside the file).
"""
from __future__ import annotations

import fcntl
import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

log = logging.getLogger(__name__)

SCRIPT_LOCATION = Path(__file__).resolve().parent / "migrations"
#: The revision equal to the schema of main before migrations (2a4cd5d).
BASELINE = "0001"
#: Tables the baseline created; a database holding them without ``alembic_version`` is a store made
#: by ``create_all`` before migrations existed.
BASELINE_TABLES = frozenset({"submissions", "grade_records", "courses", "api_keys",
                             "idempotency_keys", "assignments", "rubrics", "webhook_deliveries",
                             "regrades"})
#: Key of the PostgreSQL advisory lock that serialises migrations (any constant shared by all
#: processes of one deployment; the same one ``create_all`` used before).
PG_LOCK_KEY = 7274001


class MigrationError(RuntimeError):
    """The database is in a state no revision describes (e.g. some baseline tables missing)."""


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic configuration for our script directory, bound to ``connection`` when given."""
    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest revision id of the script directory."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at; ``None`` for an empty database or one made by
    ``create_all`` before migrations existed."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


@contextmanager
def _migration_lock(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that holds the deployment-wide migration lock."""
    database = engine.url.database
    if engine.dialect.name == "sqlite" and database and database != ":memory:":
        lock_path = Path(f"{database}.migrate-lock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with open(lock_path, "a") as lock_file:
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            try:
                with engine.begin() as conn:
                    yield conn
            finally:
                fcntl.flock(lock_file, fcntl.LOCK_UN)
        return
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_LOCK_KEY})
        yield conn


def upgrade(engine: Engine, revision: str = "head") -> tuple[str | None, str]:
    """Migrate the database of ``engine`` to ``revision`` (default: the head) under the migration
    lock. Returns (revision before, revision after). Raises :class:`MigrationError` for a
    database that holds only some of the baseline tables and no revision."""
    with _migration_lock(engine) as conn:
        before = MigrationContext.configure(conn).get_current_revision()
        config = alembic_config(conn)
        if before is None:
            present = set(inspect(conn).get_table_names()) & BASELINE_TABLES
            if present == BASELINE_TABLES:  # made by create_all before migrations existed
                log.warning("store without schema revision: recording it at the baseline %s",
                            BASELINE)
                command.stamp(config, BASELINE)
            elif present:
                raise MigrationError(
                    f"the database has some of the store's tables ({', '.join(sorted(present))}) "
                    f"but not {', '.join(sorted(BASELINE_TABLES - present))}, and no schema "
                    "revision; restore it from a backup or point DATABASE_URL at an empty one")
        command.upgrade(config, revision)
        after = MigrationContext.configure(conn).get_current_revision()
    if after != before:
        log.warning("store schema upgraded from %s to %s", before or "nothing", after)
    return before, after
