"""The lever ``statements`` (grader/levers.py): the grading's statements built once, with bound
parameters, give the same rows, history records, regrade checks and LTI lookups as the
statements built per grading, on SQLite and on PostgreSQL."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import event

from grader.store.models import utcnow
from tests.grading.test_levers import lti_platform, record_three_targets

LEVERS = ("worker", "worker,statements")


@pytest.fixture
def store(sql_store):
    """:func:`tests.conftest.sql_store` (SQLite and PostgreSQL) with course ``c``."""
    sql_store.courses.create_course("c", "C")
    return sql_store


def _fields(row, *skip):
    return {k: v for k, v in vars(row).items()
            if not k.startswith("_") and k not in ("id", "submission_id", "queued_at", *skip)}


def _graded(store, monkeypatch, levers, results):
    monkeypatch.setenv("CPU_LEVERS", levers)
    sub, _ = store.create_submission("a", "l", {"q": {"text": "x"}}, course_id="c")
    started = store.start(sub.id)
    again = store.start(sub.id)  # a redelivered job takes over: attempts 2
    stored = store.finish(sub.id, 2.5, 4.0, results, {"q": "v1"}, returning=True)
    late = store.finish(sub.id, 1.0, 4.0, results, returning=True)  # already graded: nothing
    return sub, started, again, stored, late


def test_a_grading_stores_and_returns_the_same_with_statements_built_once(store, monkeypatch):
    results = [{"item_id": "q", "score": 2.5, "max_score": 4.0, "output": "ünïcode ✓",
                "tests": [], "extra_data": {"seed": 2 ** 63 - 1}}]
    seen = {}
    for levers in LEVERS:
        sub, started, again, stored, late = _graded(store, monkeypatch, levers, results)
        assert (started.status, started.attempts, again.attempts) == ("running", 1, 2)
        assert started.started_at.tzinfo is not None
        assert late is False
        assert (stored.status, stored.score, stored.max_score, stored.results) == (
            "graded", 2.5, 4.0, results)
        row = store.get(sub.id)
        [record] = store.history(sub.id)
        assert record.created_at == row.finished_at == stored.finished_at
        assert row.results == results and record.versions == {"q": "v1"}
        seen[levers] = (_fields(started, "started_at", "received_at"),
                        _fields(stored, "started_at", "finished_at", "received_at"),
                        _fields(row, "started_at", "finished_at", "received_at"),
                        _fields(record, "created_at"))
    assert seen[LEVERS[0]] == seen[LEVERS[1]]
    # a submission not queued: not started either way
    for levers in LEVERS:
        monkeypatch.setenv("CPU_LEVERS", levers)
        assert store.start("no-such-submission") is None
        assert store.finish("no-such-submission", 1.0, 1.0, [], returning=True) is False


def test_the_regrade_check_finds_the_same_runs(store, monkeypatch):
    since = utcnow() - timedelta(seconds=5)
    regrades = store.regrades

    def found():
        out = []
        for levers in LEVERS:
            monkeypatch.setenv("CPU_LEVERS", levers)
            out.append([run.id for run in regrades.applied_since("c", "a", since)])
        assert out[0] == out[1]
        return out[0]

    assert found() == []
    regrades.create("c", "a", dry_run=True)  # a dry run applies nothing
    regrades.create("c", "b", dry_run=False)  # another assignment's
    failed = regrades.create("c", "a", dry_run=False)
    regrades.set_status(failed.id, "failed", [])
    assert found() == []
    applied = regrades.create("c", "a", dry_run=False)
    assert found() == [applied.id]
    assert [r.id for r in regrades.applied_since("c", "a", utcnow() + timedelta(seconds=5))] == []


def test_the_lti_lookup_finds_the_same_targets(store, monkeypatch):
    lti = store.lti

    def found(course):
        out = []
        for levers in LEVERS:
            monkeypatch.setenv("CPU_LEVERS", levers)
            rows, has_platform = lti.grade_targets_in_course(course, "a", "l")
            out.append(([r.resource_link_id for r in rows], has_platform))
        assert out[0] == out[1]
        return out[0]

    assert found("c") == ([], False)
    platform = lti_platform(lti, "c")
    assert found("c") == ([], True)
    record_three_targets(lti, platform, "c")
    assert found("c") == (["link-2", "link-1"], True)
    assert found("other-course") == ([], False)


def test_statements_built_once_send_one_statement_each(store, monkeypatch):
    sent = []
    event.listen(store.engine, "before_cursor_execute",
                 lambda *args, **kwargs: sent.append(args[2].split()[0].upper()))
    monkeypatch.setenv("CPU_LEVERS", "worker,statements")
    sub, _ = store.create_submission("a", "l", {"q": {"text": "x"}}, course_id="c")
    sent.clear()
    store.start(sub.id)
    store.finish(sub.id, 1.0, 1.0, [], returning=True)
    store.regrades.applied_since("c", "a", utcnow() - timedelta(seconds=5))
    store.lti.grade_targets_in_course("c", "a", "l")
    assert sent == ["UPDATE", "UPDATE", "INSERT", "SELECT", "SELECT"]
