"""Shared fixtures: an app on a temporary embedded default, and the real services of this machine
(Redis 127.0.0.1:6379, PostgreSQL 127.0.0.1:5432). Under CI=true a missing service fails the test
instead of skipping it."""
from __future__ import annotations

import json
import os
import socket
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PG_ADMIN_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379


def example(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def service_missing(what: str):
    """Fail under CI (the services are part of the machine there), skip elsewhere."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required in CI and is not reachable")
    pytest.skip(f"{what} not reachable")


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def redis_url():
    if not _reachable(REDIS_HOST, REDIS_PORT):
        service_missing("Redis on 127.0.0.1:6379")
    return f"redis://{REDIS_HOST}:{REDIS_PORT}/0"


@pytest.fixture
def postgres_url():
    """A fresh PostgreSQL database for one test, dropped afterwards."""
    if not _reachable("127.0.0.1", 5432):
        service_missing("PostgreSQL on 127.0.0.1:5432")
    import psycopg

    name = f"grader_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    yield url.replace("postgresql://", "postgresql+psycopg://", 1)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')



@pytest.fixture(params=["sqlite", "postgresql"])
def sql_store(request, tmp_path):
    """A created :class:`grader.store.Store` on SQLite and on the real PostgreSQL, disposed after."""
    from grader.store import Store

    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 's.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
    store = Store(url)
    store.create_all()
    yield store
    store.dispose()


@pytest.fixture(scope="module")
def unsafe_dev_sandbox():
    """One ``unsafe-dev`` sandbox (real processes and limits, no isolation) per test module."""
    from grader.sandbox import get_sandbox

    sandbox = get_sandbox("unsafe-dev")
    yield sandbox
    sandbox.close()

@pytest.fixture
def embedded_config(tmp_path):
    """Settings of the embedded default in a temporary instance folder."""
    return {
        "INSTANCE_PATH": str(tmp_path / "instance"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'grader.db'}",
        "CELERY_BROKER_URL": "",
        "GRADER_SECRET_KEY": "test-secret",
        "SWEEP_INTERVAL_SECONDS": 3600,
        # grading on threads of the test process, so tests may patch the grading code; the
        # grading processes of the real default: tests/queue/test_grading_pool.py, and every
        # test against a live `grader serve` (tests/test_readme.py, tests/e2e)
        "INLINE_GRADING": "threads",
    }


@pytest.fixture
def app(embedded_config):
    from grader.app import close_app, create_app

    app = create_app(embedded_config)
    yield app
    close_app(app)


def key_of(app) -> str:
    """The instructor key the embedded default created on ``app``'s first start."""
    from grader.bootstrap import KEY_FILE

    return (Path(app.config["GRADER"]["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()


def instructor_client(app):
    """A test client of ``app`` that sends the local course's instructor key."""
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key_of(app)}"
    return client


@pytest.fixture
def instructor_key(app):
    """The instructor key the embedded default created on first start."""
    return key_of(app)


@pytest.fixture
def client(app):
    """A test client that sends the local course's instructor key."""
    return instructor_client(app)


@pytest.fixture
def anonymous(app):
    return app.test_client()


def wait_final(get_status, timeout: float = 60.0) -> dict:
    """Poll ``get_status()`` (a submission dict) until it is graded or failed."""
    deadline = time.monotonic() + timeout
    while True:
        data = get_status()
        if data["status"] in ("graded", "failed"):
            return data
        if time.monotonic() > deadline:
            raise AssertionError(f"submission not final after {timeout}s: {data}")
        time.sleep(0.05)
