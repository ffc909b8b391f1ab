"""Issue 20 item 3, production: deliveries have their own Celery queue, their own workers
(`grader worker --deliveries`, no sandbox) and their own service in docker-compose.yml."""
from __future__ import annotations

import yaml

from grader.cli import worker_argv
from grader.config import delivery_queue
from grader.queue.dispatch import CeleryDispatcher, make_dispatcher
from tests.conftest import ROOT


class RecordingCelery:
    def __init__(self):
        self.sent = []

    def send_task(self, name, args, queue):
        self.sent.append((name, args, queue))


def test_the_delivery_queue_defaults_to_one_per_grading_queue():
    assert delivery_queue({"CELERY_QUEUE": "grading"}) == "grading-deliveries"
    assert delivery_queue({"CELERY_QUEUE": "cs401", "CELERY_DELIVERY_QUEUE": ""}) == \
        "cs401-deliveries"
    assert delivery_queue({"CELERY_QUEUE": "q", "CELERY_DELIVERY_QUEUE": "hooks"}) == "hooks"


def test_the_celery_dispatcher_sends_deliveries_to_their_queue_and_grading_to_its_own():
    celery = RecordingCelery()
    dispatcher = make_dispatcher({"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
                                  "CELERY_QUEUE": "g1"}, None, celery_app=celery)
    assert isinstance(dispatcher, CeleryDispatcher)
    dispatcher.enqueue("s1")
    dispatcher.deliver_webhook("d1")
    dispatcher.regrade("r1")
    dispatcher.problem_trial("t1")  # a trial needs the sandbox: a grading worker's
    assert celery.sent == [("workers.tasks.grade_submission", ["s1"], "g1"),
                           ("workers.tasks.deliver_webhook", ["d1"], "g1-deliveries"),
                           ("workers.tasks.regrade", ["r1"], "g1"),
                           ("workers.tasks.problem_trial", ["t1"], "g1")]


def test_the_celery_app_routes_deliveries_and_retries_to_the_delivery_queue():
    from workers.celery_app import make_celery

    app = make_celery({"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CELERY_QUEUE": "g2",
                       "SWEEP_INTERVAL_SECONDS": 30})
    router = app.amqp.router
    assert router.route({}, "workers.tasks.deliver_webhook")["queue"].name == "g2-deliveries"
    assert router.route({}, "workers.tasks.grade_submission")["queue"].name == "g2"
    assert router.route({}, "workers.tasks.sweep")["queue"].name == "g2"


def test_grader_worker_deliveries_consumes_the_delivery_queue_only():
    config = {"CELERY_QUEUE": "grading"}
    assert worker_argv(config, ["--concurrency", "2"]) == (
        ["worker", "--loglevel", "INFO", "-Q", "grading", "--concurrency", "2"], False)
    assert worker_argv(config, ["--deliveries", "--pool", "threads"]) == (
        ["worker", "--loglevel", "INFO", "-Q", "grading-deliveries", "--pool", "threads"], True)


def test_a_deliveries_worker_skips_the_sandbox_self_test(monkeypatch):
    import workers.tasks as tasks
    from workers.celery_app import make_celery

    checked = []
    monkeypatch.setattr(tasks, "check_sandbox", checked.append)
    app = make_celery({"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CELERY_QUEUE": "g3",
                       "SWEEP_INTERVAL_SECONDS": 30})
    sender = type("Worker", (), {"app": app})()
    tasks._self_test(sender=sender)
    assert len(checked) == 1  # a grading worker checks the sandbox
    app.conf.grader_deliveries_only = True
    tasks._self_test(sender=sender)
    assert len(checked) == 1  # a deliveries worker does not


def test_docker_compose_runs_a_deliveries_service_apart_from_the_grading_worker():
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    deliveries, worker = services["deliveries"], services["worker"]
    assert deliveries["command"].startswith("grader worker --deliveries ")
    assert "--deliveries" not in worker["command"]
    assert "cap_add" not in deliveries and "security_opt" not in deliveries  # no learner code
    assert deliveries["environment"] == worker["environment"]
