"""An override and an applied regrade change the same stored results: each takes the
submission's row lock first (``SELECT ... FOR UPDATE`` on PostgreSQL, the write lock on SQLite),
so whichever comes second sees the first one's results and nothing is lost."""
import threading
import time

import pytest
from sqlalchemy import text

from grader.grading.adjustments import Override, adjust, totals
from grader.grading.overrides import record_override
from grader.store import Store

RESULTS = [{"item_id": "a", "kind": "choice", "score": 0.0, "max_score": 2.0,
            "tests": [{"name": "x", "score": 0.0, "max_score": 2.0, "status": "failed",
                       "tags": ["choice"]}], "extra_data": {}},
           {"item_id": "b", "kind": "choice", "score": 1.0, "max_score": 1.0,
            "tests": [{"name": "y", "score": 1.0, "max_score": 1.0, "status": "passed",
                       "tags": ["choice"]}], "extra_data": {}}]


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    url = (f"sqlite:///{tmp_path / 'g.db'}" if request.param == "sqlite"
           else request.getfixturevalue("postgres_url"))
    store = Store(url)
    store.upgrade()
    yield store
    store.dispose()


def graded(store):
    row, _ = store.create_submission("hw", "amy", {"a": {"choice": "A"}}, course_id="c1")
    store.start(row.id)
    store.finish(row.id, 1.0, 3.0, RESULTS)
    return row.id


def adjusted(items, overrides):
    out = adjust(items, None, {k: Override(k, r.score, r.comment) for k, r in overrides.items()})
    return (out, *totals(out))


def test_an_override_then_a_regrade_keeps_the_override(store):
    sid = graded(store)
    record_override(store, sid, "a", 1.5, "fair", "teacher")
    assert store.apply_regrade(sid, 1.0, 3.0, RESULTS, {}, adjust=adjusted)
    row = store.get(sid)
    assert (row.score, [i["score"] for i in row.results]) == (2.5, [1.5, 1.0])
    assert [r.trigger for r in store.history(sid)] == ["initial", "override", "regrade"]
    [decision] = store.overrides.history(sid)
    assert (decision.score, decision.previous_score, decision.engine_score, decision.author) == (
        1.5, 0.0, 0.0, "teacher")


def _waiting_on_a_lock(store) -> bool:
    with store.engine.connect() as conn:
        return conn.execute(text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock'")).scalar() > 0


@pytest.fixture
def pg_store(postgres_url):
    store = Store(postgres_url)
    store.upgrade()
    yield store
    store.dispose()


def test_an_override_waits_for_a_regrade_holding_the_row(pg_store):
    """PostgreSQL: the regrade holds the row while the override asks for it; the override goes
    on when the regrade commits, on the regrade's results (seen waiting in pg_stat_activity;
    SQLite serialises every writer, so there is no row lock to see)."""
    store = pg_store
    sid = graded(store)
    regrading, release = threading.Event(), threading.Event()
    new_b = [{**RESULTS[0]}, {**RESULTS[1], "score": 0.5,
                              "tests": [{**RESULTS[1]["tests"][0], "score": 0.5}]}]

    def slow_adjust(items, overrides):
        regrading.set()
        assert release.wait(30)
        return adjusted(items, overrides)

    regrade = threading.Thread(target=store.apply_regrade,
                               args=(sid, 0.5, 3.0, new_b, {}), kwargs={"adjust": slow_adjust})
    regrade.start()
    assert regrading.wait(30)
    decided = threading.Thread(target=record_override,
                               args=(store, sid, "a", 2.0, "full marks", "teacher"))
    decided.start()
    deadline = time.monotonic() + 30
    while not _waiting_on_a_lock(store):
        assert time.monotonic() < deadline, "the override never waited for the row"
        time.sleep(0.01)
    release.set()
    regrade.join(30)
    decided.join(30)
    row = store.get(sid)
    # the regrade's b (0.5) and the override's a (2.0): both kept
    assert (row.score, [i["score"] for i in row.results]) == (2.5, [2.0, 0.5])
    assert [r.trigger for r in store.history(sid)] == ["initial", "regrade", "override"]
