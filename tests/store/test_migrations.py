"""Schema migrations: a store made by main before migrations existed (the fixture in
``tests/store/legacy``, made at 2a4cd5d by ``make_fixture.py``) upgrades on SQLite and on
PostgreSQL and reads its submissions, keys and deliveries back unchanged; the baseline revision is
that schema; the models and the revisions agree; processes starting together migrate once."""
from __future__ import annotations

import json
from collections import Counter
import shutil
import threading
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, select, text

from grader.app import close_app
from grader.store import Store, migrate
from grader.store.db import make_engine
from grader.store.models import Base
from tests.conftest import PG_ADMIN_URL

LEGACY = Path(__file__).resolve().parent / "legacy"
FIXTURE = json.loads((LEGACY / "main-2a4cd5d.json").read_text())

#: Columns later revisions added on purpose, with the value an old row gets (beside the legacy
#: columns, which must read back unchanged). Worked out from each revision's text.
ADDED_COLUMNS: dict[str, dict[str, object]] = {
    # 0002: every existing delivery was a webhook and replays nothing
    "webhook_deliveries": {"channel": "webhook", "replay_of": None},
    # 0005_instructor: a course without a time zone reads offset-less dates as UTC, as before;
    # a regrade made before recorded no versions
    "courses": {"time_zone": None},
    "regrades": {"versions": None},
}


def legacy_postgres(url: str) -> str:
    """Load the pg_dump of the legacy store into the fresh database ``url``."""
    import psycopg

    dump = (LEGACY / "main-2a4cd5d.postgresql.sql").read_text()
    script = "\n".join(line for line in dump.splitlines() if not line.startswith("\\"))
    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(script)
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def new_database(request, tmp_path):
    """A factory of empty databases of one dialect (each test runs on SQLite and PostgreSQL)."""
    created: list[str] = []
    if request.param == "postgresql":
        request.getfixturevalue("postgres_url")  # reachable, or skip/fail as conftest decides

    def make() -> str:
        if request.param == "sqlite":
            created.append(f"db{len(created)}.sqlite3")
            return f"sqlite:///{tmp_path / created[-1]}"
        import psycopg

        name = f"grader_test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        created.append(name)
        return PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://") \
            + f"/{name}"

    make.dialect = request.param
    yield make
    if request.param == "postgresql":
        import psycopg

        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            for name in created:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def legacy_url(new_database, tmp_path):
    """A store made by main at 2a4cd5d (create_all, no revision), with its data."""
    url = new_database()
    if new_database.dialect == "sqlite":
        shutil.copy(LEGACY / "main-2a4cd5d.sqlite3", url.removeprefix("sqlite:///"))
        return url
    return legacy_postgres(url)


@pytest.fixture
def empty_url(new_database):
    return new_database()


def plain(value):
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat()
    return value


def read_rows(engine) -> dict[str, list[dict]]:
    """Every row of every table of the current models, as the models read them."""
    out = {}
    with engine.connect() as conn:
        for name, table in sorted(Base.metadata.tables.items()):
            rows = conn.execute(select(table).order_by(*table.primary_key.columns)).mappings()
            out[name] = [{k: plain(v) for k, v in row.items()} for row in rows]
    return out


def schema_of(engine) -> dict:
    """Tables with their columns (type as the dialect writes it, nullability), primary key,
    indexes, unique constraints and foreign keys: what must match between two databases."""
    insp = inspect(engine)
    schema = {}
    for table in sorted(set(insp.get_table_names()) - {"alembic_version"}):
        schema[table] = {
            "columns": {c["name"]: (c["type"].compile(engine.dialect), c["nullable"])
                        for c in insp.get_columns(table)},
            "primary_key": insp.get_pk_constraint(table)["constrained_columns"],
            "indexes": sorted((i["name"], tuple(i["column_names"]), bool(i["unique"]))
                              for i in insp.get_indexes(table)),
            "unique": sorted(tuple(u["column_names"]) for u in insp.get_unique_constraints(table)),
            "foreign_keys": sorted((tuple(f["constrained_columns"]), f["referred_table"],
                                    tuple(f["referred_columns"]))
                                   for f in insp.get_foreign_keys(table)),
        }
    return schema


@pytest.mark.services
def test_baseline_revision_is_the_schema_main_made_before_migrations(legacy_url, empty_url):
    legacy, fresh = make_engine(legacy_url), make_engine(empty_url)
    migrate.upgrade(fresh, migrate.BASELINE)
    assert migrate.current_revision(fresh) == "0001"
    assert schema_of(fresh) == schema_of(legacy)
    assert len(schema_of(legacy)) == 9
    legacy.dispose(), fresh.dispose()


@pytest.mark.services
def test_models_agree_with_the_newest_revision(empty_url):
    """A model changed without a revision (or the reverse) is caught here: Alembic's
    autogenerate comparison of the migrated database with the models finds no difference."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    engine = make_engine(empty_url)
    migrate.upgrade(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                Base.metadata)
    assert diff == []
    assert migrate.current_revision(engine) == migrate.head_revision()
    engine.dispose()


@pytest.mark.services
def test_upgrade_of_a_store_made_before_migrations_loses_nothing(legacy_url, monkeypatch,
                                                                 capsys):
    from grader.cli import main

    engine = make_engine(legacy_url)
    assert migrate.current_revision(engine) is None  # created by create_all, no revision
    monkeypatch.setenv("DATABASE_URL", legacy_url)
    assert main(["db", "upgrade"]) == 0
    assert f"schema at {migrate.head_revision()} (was empty)" in capsys.readouterr().out
    assert main(["db", "current"]) == 0
    assert migrate.current_revision(engine) == migrate.head_revision()

    rows = read_rows(engine)
    for table, old_rows in FIXTURE["rows"].items():
        added = ADDED_COLUMNS.get(table, {})
        assert [{k: v for k, v in row.items() if k not in added} for row in rows[table]] \
            == old_rows, table
        for column, value in added.items():
            assert {row[column] for row in rows[table]} <= {value}, (table, column)
    # and through the store: submissions, keys (the old plaintexts still work), deliveries
    store = Store(legacy_url)
    for old in FIXTURE["rows"]["submissions"]:
        submission = store.get(old["id"])
        assert (submission.status, submission.score, submission.max_score, submission.results,
                submission.responses) == (old["status"], old["score"], old["max_score"],
                                          old["results"], old["responses"])
        assert submission.received_at.isoformat() == old["received_at"]
    keys = FIXTURE["keys"]
    assert store.courses.authenticate(keys["instructor:local"]).role == "instructor"
    assert store.courses.authenticate(keys["lms:cs401"]).course_id == "cs401"
    assert store.courses.authenticate(keys["admin"]).role == "admin"
    assert store.courses.authenticate(keys["revoked:cs401"]) is None
    for old in FIXTURE["rows"]["webhook_deliveries"]:
        delivery = store.webhooks.get(old["id"])
        assert (delivery.status, delivery.attempts, delivery.url, delivery.payload,
                plain(delivery.delivered_at)) == (old["status"], old["attempts"], old["url"],
                                                  old["payload"], old["delivered_at"])
    # running it again changes nothing
    assert store.upgrade() == (migrate.head_revision(), migrate.head_revision())
    assert read_rows(engine) == rows
    store.dispose(), engine.dispose()


@pytest.mark.services
def test_the_api_serves_an_upgraded_store(legacy_url, tmp_path):
    """The app upgrades at start; the old keys authenticate and the old results show."""
    from grader.app import create_app

    app = create_app({"INSTANCE_PATH": str(tmp_path / "instance"), "DATABASE_URL": legacy_url,
                      "CELERY_BROKER_URL": "", "GRADER_SECRET_KEY": "legacy-fixture-secret",
                      "SWEEP_INTERVAL_SECONDS": 3600})
    try:
        client = app.test_client()
        lms = {"Authorization": f"Bearer {FIXTURE['keys']['lms:cs401']}"}
        instructor = {"Authorization": f"Bearer {FIXTURE['keys']['instructor:local']}"}
        [dee] = [s for s in FIXTURE["rows"]["submissions"] if s["learner_id"] == "dee"]
        got = client.get(f"/api/v1/submissions/{dee['id']}", headers=lms).get_json()
        assert (got["status"], got["score"], got["max_score"]) == ("graded", 1.0, 16.0)
        assert got["items"] == dee["results"]
        csv_text = client.get("/api/v1/assignments/attention-basics/grades.csv",
                              headers=lms).get_data(as_text=True)
        assert "\ndee,1,16," in csv_text
        log = client.get("/api/v1/webhooks/deliveries", headers=instructor).get_json()
        assert sorted(d["id"] for d in log) == sorted(
            d["id"] for d in FIXTURE["rows"]["webhook_deliveries"])
        assert client.get("/api/v1/assignments/hw-heads",
                          headers=instructor).get_json()["title"] == "Heads, version 2"
        revoked = {"Authorization": f"Bearer {FIXTURE['keys']['revoked:cs401']}"}
        assert client.get("/api/v1/assignments", headers=revoked).status_code == 401
    finally:
        close_app(app)


@pytest.mark.services
def test_processes_starting_together_migrate_once(empty_url):
    """Six stores upgrade one empty database at once: the lock lets one migrate; the others wait
    and find it done (without the lock PostgreSQL answers 'relation already exists')."""
    results, errors = [], []

    def start():
        try:
            store = Store(empty_url)
            results.append(store.upgrade())
            store.dispose()
        except Exception as exc:  # collected: the assertion below names it
            errors.append(repr(exc))

    threads = [threading.Thread(target=start) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    head = migrate.head_revision()
    assert errors == []
    assert Counter(results) == {(None, head): 1, (head, head): 5}


def test_a_store_with_only_some_tables_is_refused_clearly(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'odd.db'}")
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE submissions (id VARCHAR(36) PRIMARY KEY)"))
    with pytest.raises(migrate.MigrationError, match="some of the store's tables"):
        migrate.upgrade(engine)
