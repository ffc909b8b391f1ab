"""The submission store's state machine on SQLite and on the real PostgreSQL."""
from datetime import timedelta

import pytest

from grader.store import Store
from grader.store.db import content_digest


@pytest.fixture
def store(sql_store):
    return sql_store


def test_submission_is_stored_queued_with_digest_and_timestamp(store):
    sub, _ = store.create_submission("a1", "learner", {"q": {"text": "hi"}})
    got = store.get(sub.id)
    assert got.status == "queued"
    assert got.responses == {"q": {"text": "hi"}}
    assert got.content_sha256 == content_digest("a1", "learner", {"q": {"text": "hi"}})
    assert len(got.content_sha256) == 64
    assert got.received_at is not None


def test_digest_depends_on_content():
    assert content_digest("a", "l", {"x": {"text": "1"}}) != content_digest("a", "l", {"x": {"text": "2"}})


def test_finishing_twice_stores_one_result(store):
    sub, _ = store.create_submission("a1", "learner", {})
    assert store.start(sub.id)
    assert store.finish(sub.id, 3.0, 5.0, [{"item_id": "q", "score": 3.0}])
    assert not store.finish(sub.id, 5.0, 5.0, [{"item_id": "q", "score": 5.0}])
    got = store.get(sub.id)
    assert (got.status, got.score, got.results) == ("graded", 3.0, [{"item_id": "q", "score": 3.0}])


def test_a_failure_never_replaces_a_graded_result(store):
    sub, _ = store.create_submission("a1", "learner", {})
    store.start(sub.id)
    store.finish(sub.id, 4.0, 5.0, [])
    assert not store.fail(sub.id, "sandbox died")
    assert not store.start(sub.id)
    got = store.get(sub.id)
    assert (got.status, got.score, got.failure_reason) == ("graded", 4.0, None)


def test_start_counts_attempts_and_takes_over_a_running_job(store):
    sub, _ = store.create_submission("a1", "learner", {})
    assert store.start(sub.id)
    assert store.start(sub.id)  # redelivered after a lost worker
    assert store.get(sub.id).attempts == 2


def test_stale_finds_old_queued_and_running_only(store):
    old, _ = store.create_submission("a1", "l1", {})
    running, _ = store.create_submission("a1", "l2", {})
    store.start(running.id)
    done, _ = store.create_submission("a1", "l3", {})
    store.start(done.id)
    store.finish(done.id, 1, 1, [])
    later = store.get(old.id).queued_at + timedelta(seconds=100)
    stale = {s.id for s in store.stale(timedelta(seconds=10), now=later)}
    assert stale == {old.id, running.id}
    assert store.stale(timedelta(seconds=1000), now=later) == []


def test_requeue_sets_queued_again(store):
    sub, _ = store.create_submission("a1", "learner", {})
    store.start(sub.id)
    assert store.requeue(sub.id, reason="retrying")
    got = store.get(sub.id)
    assert (got.status, got.failure_reason) == ("queued", "retrying")


def test_last_scored_at_is_the_newest_history_record(store):
    sub, _ = store.create_submission("a1", "learner", {})
    assert store.last_scored_at(sub.id) is None  # never graded
    store.start(sub.id)
    store.finish(sub.id, 3.0, 5.0, [{"item_id": "q", "score": 3.0}])
    assert store.last_scored_at(sub.id) == store.history(sub.id)[-1].created_at
    assert store.apply_regrade(sub.id, 4.0, 5.0, [{"item_id": "q", "score": 4.0}], {"v": 2})
    history = store.history(sub.id)
    assert [r.trigger for r in history] == ["initial", "regrade"]
    assert store.last_scored_at(sub.id) == history[-1].created_at
    from sqlalchemy import text

    with store.engine.connect() as conn:  # the attribute is ``trigger``, the column stays ``kind``
        assert conn.execute(text("SELECT kind FROM grade_records WHERE submission_id = :s "
                                 "ORDER BY id"), {"s": sub.id}).scalars().all() == [
            "initial", "regrade"]


def test_one_statement_work_commits_on_its_own(store):
    """Reads, start, fail and a keyless insert run without an explicit transaction on
    PostgreSQL; what they write is visible to a second store (another process) at once."""
    other = Store(str(store.engine.url.render_as_string(hide_password=False)))
    try:
        sub, created = store.create_submission("a1", "learner", {"q": {"text": "x"}})
        assert created and other.status(sub.id) == "queued"
        assert store.start(sub.id).status == "running"
        assert other.get(sub.id).attempts == 1
        assert store.fail(sub.id, "sandbox died")
        assert (other.status(sub.id), other.get(sub.id).failure_reason) == ("failed",
                                                                           "sandbox died")
    finally:
        other.dispose()


def test_json_columns_keep_every_value_json_can_hold(store):
    results = [{"item_id": "q", "score": 2.5, "tests": [{"tags": ["a", "b"], "extra_data": {
        "evidence": [[0, 4]], "big": 2 ** 70 + 1, "text": "d\u2019k \u2264 \u221a", "none": None}}]}]
    sub, _ = store.create_submission("a1", "learner", {"q": {"text": "\u00e9"}})
    store.start(sub.id)
    store.finish(sub.id, 2.5, 5.0, results)
    got = store.get(sub.id)
    assert got.results == results  # 2**70 + 1 goes through json, not orjson (64-bit integers only)
    assert got.responses == {"q": {"text": "\u00e9"}}


def test_digests_keep_the_values_stored_before_they_were_one_function():
    """``content_sha256`` and the Idempotency-Key request digest were two functions; records already
    stored must still match, so the values are pinned (computed by the two old functions)."""
    from grader.store.db import canonical_digest
    assert content_digest("a1", "learner", {"q": {"text": "hé"}}) == \
        "189bdc42a919990dd58bddbd719fcfd2ffb064946f29c80265a2aba494f22fd2"
    assert canonical_digest({"assignment_id": "a1", "learner_id": "l", "callback_url": None,
                             "responses": {"q": {"text": "hé"}}}) == \
        "38d6fb352162fe128dad572800a051f421e245901d7a7eae11e334ed713c39b4"
