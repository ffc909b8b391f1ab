"""Issue 16.4: the Celery tasks are defined once, at module level, under the names queued messages
already carry, with their retries declared; one sweep serves both dispatchers."""
from __future__ import annotations

import warnings
from datetime import timedelta
from types import SimpleNamespace

import pytest

from grader.grading.service import Outcome
from grader.queue.sweep import IDEMPOTENCY_TTL, sweep

NAMES = {"workers.tasks.grade_submission", "workers.tasks.deliver_webhook",
         "workers.tasks.regrade", "workers.tasks.problem_trial", "workers.tasks.sweep"}
CONFIG = {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CELERY_QUEUE": "q-tasks",
          "SWEEP_INTERVAL_SECONDS": 30.0, "SWEEP_AFTER_SECONDS": 300}


def make_app(**extra):
    from workers.celery_app import make_celery

    return make_celery({**CONFIG, **extra})


def test_every_app_has_the_tasks_under_their_old_names_without_a_duplicate_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # DuplicateTaskNameWarning was raised by the second app
        first, second = make_app(), make_app(CELERY_QUEUE="q-other")
    for app in (first, second):
        assert NAMES <= set(app.tasks)
        assert all(app.tasks[name].app is app for name in NAMES)
    assert second.tasks["workers.tasks.sweep"].app.conf.grader_config["CELERY_QUEUE"] == "q-other"
    assert first.conf.beat_schedule["sweep-stale-submissions"]["task"] == "workers.tasks.sweep"


def test_grading_retries_are_declared():
    from sqlalchemy.exc import InterfaceError, OperationalError

    from workers.tasks import GradeLater

    task = make_app().tasks["workers.tasks.grade_submission"]
    assert set(task.autoretry_for) == {OperationalError, InterfaceError, GradeLater}
    assert (task.retry_backoff, task.retry_backoff_max, task.retry_jitter) == (2, 60, True)
    assert task.max_retries is None and task.acks_late and task.reject_on_worker_lost


class FakeService:
    def __init__(self, outcomes):
        self.outcomes = list(outcomes)
        self.graded: list[str] = []

    def grade(self, submission_id):
        self.graded.append(submission_id)
        return self.outcomes.pop(0)


@pytest.fixture
def eager_app(monkeypatch):
    import workers.tasks

    app = make_app()
    app.conf.task_always_eager = True
    fake = FakeService([Outcome("retry", reason="sandbox busy"), Outcome("graded", score=1.0)])
    monkeypatch.setattr(workers.tasks, "_service", fake)
    return app, fake


def test_a_retry_outcome_is_graded_again(eager_app):
    app, fake = eager_app
    result = app.tasks["workers.tasks.grade_submission"].apply(args=["sub-1"])
    assert result.get() == {"action": "graded", "score": 1.0}
    assert fake.graded == ["sub-1", "sub-1"]


class FakeStore:
    def __init__(self, stale, requeued, due):
        self._stale, self._requeued = stale, requeued
        self.webhooks = SimpleNamespace(due=self._due)
        self._deliveries = due
        self.due_before = None
        self.forgot = None

    def stale(self, older_than):
        self.older_than = older_than
        return [SimpleNamespace(id=i) for i in self._stale]

    def requeue(self, submission_id):
        return submission_id in self._requeued

    def _due(self, now=None):
        self.due_before = now
        return [SimpleNamespace(id=i) for i in self._deliveries]

    def forget_idempotency_keys(self, older_than):
        self.forgot = older_than


def test_the_sweep_requeues_what_is_still_stale_and_resends_overdue_deliveries():
    store = FakeStore(stale=["a", "b"], requeued={"a"}, due=["d1"])
    graded, delivered = [], []
    ids = sweep(store, older_than=timedelta(seconds=7), grade=graded.append,
                deliver=delivered.append, webhook_grace=timedelta(seconds=60))
    assert ids == graded == ["a"]  # "b" finished meanwhile: not graded again
    assert delivered == ["d1"] and store.older_than == timedelta(seconds=7)
    assert store.forgot == IDEMPOTENCY_TTL == timedelta(hours=48)


def test_the_celery_sweep_task_and_the_inline_dispatcher_run_the_one_sweep(monkeypatch):
    import grader.queue.dispatch as dispatch
    import workers.tasks

    calls = []
    monkeypatch.setattr(workers.tasks, "sweep_store", lambda store, **kw: calls.append(kw) or [])
    monkeypatch.setattr(dispatch, "sweep", lambda store, **kw: calls.append(kw) or [])
    resent = []
    monkeypatch.setattr(workers.tasks, "sweep_trials", lambda store, **kw: resent.append(kw))
    monkeypatch.setattr(workers.tasks, "_service", SimpleNamespace(store=None, max_attempts=3))
    app = make_app(SWEEP_AFTER_SECONDS=12)
    app.conf.task_always_eager = True
    app.tasks["workers.tasks.sweep"].apply().get()
    inline = dispatch.InlineDispatcher(lambda _schedule: SimpleNamespace(store=None),
                                       sweep_after=34)
    try:
        inline.sweep()
    finally:
        inline.pool.shutdown()
    assert [c["older_than"] for c in calls] == [timedelta(seconds=12), timedelta(seconds=34)]
    assert [c.get("webhook_grace", timedelta(0)) for c in calls] == [timedelta(seconds=60),
                                                                      timedelta(0)]
    # the Celery sweep also sends lost trials again, and fails one its workers never finish
    assert [(kw["older_than"], kw["max_attempts"]) for kw in resent] == [
        (timedelta(seconds=12), 3)]
