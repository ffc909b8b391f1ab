"""A trial of an authored problem whose worker died mid-trial (left ``running``) is queued and
sent again by the sweep, and after ``MAX_GRADING_ATTEMPTS`` starts failed with its upload's
version, never left ``running`` for ever. The dead worker is simulated: the run is started (what
``run_problem_trial`` does first) and never finished; the sweep is given its clock (``now``), so
nothing here depends on timing."""
from __future__ import annotations

from datetime import timedelta

import pytest

from grader.queue.sweep import sweep_trials
from grader.store.models import utcnow

BOUND = timedelta(seconds=300)


@pytest.fixture
def store(sql_store):
    return sql_store


def upload(store, problem_id="cosine-attention"):
    """A pending version and its deciding trial run, as ``POST /problems`` stores them."""
    record = store.content.add_problem_version("cs", problem_id, {"id": problem_id}, "", {}, {},
                                               status="pending")
    return store.problem_trials.create("cs", problem_id, record.version, decides=True)


def later(seconds: float):
    return utcnow() + timedelta(seconds=seconds)


def test_a_trial_whose_worker_died_is_sent_again_after_the_bound_and_not_before(store):
    run = upload(store)
    assert store.problem_trials.start(run.id)  # a worker took it ... and died
    sent = []
    # within the bound: a live worker may still be on it
    found = sweep_trials(store, older_than=BOUND, max_attempts=3, send=sent.append,
                         now=later(60))
    assert found == {"resent": [], "requeued": [], "failed": []} and sent == []
    assert store.problem_trials.get(run.id).status == "running"
    found = sweep_trials(store, older_than=BOUND, max_attempts=3, send=sent.append,
                         now=later(301))
    assert found["requeued"] == [run.id] and sent == [run.id]
    again = store.problem_trials.get(run.id)
    assert (again.status, again.attempts, again.error) == ("queued", 1, None)
    # the next worker runs it to its end: a later sweep finds nothing
    assert store.problem_trials.start(run.id)
    store.problem_trials.finish(run.id, {"refused": None}, None)
    assert sweep_trials(store, older_than=BOUND, max_attempts=3, send=sent.append,
                        now=later(3600))["requeued"] == []
    assert store.problem_trials.get(run.id).status == "done" and sent == [run.id]


def test_a_trial_whose_workers_die_every_time_fails_with_its_version(store):
    run = upload(store)
    other = upload(store, "padding-mask")  # queued, never started: only resent
    sent = []
    for attempt in (1, 2, 3):
        assert store.problem_trials.start(run.id)  # started, then the worker dies
        found = sweep_trials(store, older_than=BOUND, max_attempts=3, send=sent.append,
                             now=later(400 * attempt))
        assert store.problem_trials.get(run.id).attempts == attempt
        assert found["resent"] == [other.id]
        if attempt < 3:
            assert found["requeued"] == [run.id] and found["failed"] == []
    assert found["requeued"] == [] and found["failed"] == [run.id]
    failed = store.problem_trials.get(run.id)
    assert failed.status == "failed"
    assert failed.error == ("worker_lost: the trial was started 3 times and its worker stopped "
                            "before it finished each time")
    version = store.content.problem("cs", "cosine-attention")
    assert version.status == "failed" and version.trial["error"] == failed.error
    assert sent == [other.id, run.id, other.id, run.id, other.id]
    # a failed run is final: not started again, and the version can be tried afresh
    assert not store.problem_trials.start(run.id)
    assert store.content.problem("cs", "padding-mask").status == "pending"
