"""Hooks the grading path uses: the grading service wrapper and the Celery task signals."""
import io
import json
import logging

import pytest
from prometheus_client import REGISTRY

from grader.grading.service import Outcome
from grader.observability import instrument_celery, instrument_service
from grader.observability.logs import configure_logging, current


def sample(name, **labels):
    return REGISTRY.get_sample_value(name, labels) or 0.0


class FakeService:
    """A grading service whose runs end as told."""

    def __init__(self, result):
        self.result = result
        self.seen = []
        self.store = None

    def grade(self, submission_id):
        self.seen.append(current("submission_id"))
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def test_grading_runs_are_timed_by_outcome_with_the_id_bound():
    service = instrument_service(FakeService(Outcome("retry", reason="sandbox busy")))
    before = sample("grader_grading_seconds_count", outcome="retry")
    assert service.grade("sub-9").action == "retry"
    assert service.seen == ["sub-9"] and current("submission_id") is None
    assert sample("grader_grading_seconds_count", outcome="retry") == before + 1
    assert instrument_service(service).grade is service.grade  # wrapping twice is a no-op


def test_a_crashing_grading_run_is_counted_as_error_and_reraised():
    service = instrument_service(FakeService(RuntimeError("bug")))
    before = sample("grader_gradings_total", outcome="error")
    with pytest.raises(RuntimeError):
        service.grade("sub-10")
    assert sample("grader_gradings_total", outcome="error") == before + 1


def test_celery_task_lines_carry_the_submission_and_task_ids():
    from celery import signals

    from workers.celery_app import celery_app as app

    instrument_celery(app)
    task = app.tasks["workers.tasks.grade_submission"]
    stream = io.StringIO()
    handler = configure_logging(level="INFO", fmt="json", stream=stream)
    try:
        signals.task_prerun.send(sender=task, task_id="t-1", task=task, args=["sub-11"], kwargs={})
        logging.getLogger("grader.grading").info("inside the task")
        signals.task_postrun.send(sender=task, task_id="t-1", task=task, args=["sub-11"],
                                  kwargs={}, retval=None, state="SUCCESS")
        logging.getLogger("grader.grading").info("after the task")
    finally:
        logging.getLogger().removeHandler(handler)
    inside, after = (json.loads(line) for line in stream.getvalue().splitlines())
    assert (inside["submission_id"], inside["task_id"]) == ("sub-11", "t-1")
    assert (after["submission_id"], after["task_id"]) == (None, None)
