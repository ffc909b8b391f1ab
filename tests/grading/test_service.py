"""The grading service: one stored result per submission, infrastructure faults never scored."""
import pytest

from grader.content import Assignment, Catalog
from grader.grading import service as service_module
from grader.grading.service import MISSING_RESPONSE, GradingService, submission_seed
from grader.items import Item
from grader.results import InfrastructureError, ItemResult
from grader.store import Store


class FakeKind:
    """Scores 1 point per character of the text, up to the item's points; can simulate faults."""

    kind = "fake"

    def __init__(self):
        self.faults = 0
        self.calls = 0

    def grade(self, item, response, ctx):
        self.calls += 1
        if self.faults:
            self.faults -= 1
            raise InfrastructureError("sandbox pool is down")
        score = float(min(item.points, len(response["text"])))
        return ItemResult(item_id=item.id, kind="fake", score=score, max_score=item.points)


@pytest.fixture
def kind(monkeypatch):
    fake = FakeKind()
    monkeypatch.setattr(service_module, "get_kind", lambda name: fake)
    return fake


@pytest.fixture
def service(tmp_path, kind):
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    store.create_all()
    assignment = Assignment(id="a", title="A", items={
        "q1": Item(id="q1", kind="fake", prompt="", points=3),
        "q2": Item(id="q2", kind="fake", prompt="", points=2),
    })
    yield GradingService(store, Catalog({"a": assignment}, None, "."), "secret",
                         sandbox_factory=lambda: None,
                         max_attempts=2)
    store.dispose()  # its pooled connection holds the database's three files open


def test_items_left_out_score_zero_with_a_note(service):
    sub, _ = service.store.create_submission("a", "l", {"q1": {"text": "ab"}})
    outcome = service.grade(sub.id)
    got = service.store.get(sub.id)
    assert (outcome.action, got.status, got.score, got.max_score) == ("graded", "graded", 2.0, 5.0)
    q2 = [r for r in got.results if r["item_id"] == "q2"][0]
    assert (q2["score"], q2["output"]) == (0.0, MISSING_RESPONSE)


def test_grading_a_final_submission_again_changes_nothing(service, kind):
    sub, _ = service.store.create_submission("a", "l", {"q1": {"text": "abc"}})
    assert service.grade(sub.id).action == "graded"
    assert service.grade(sub.id).action == "skipped"
    assert kind.calls == 1
    assert service.store.get(sub.id).score == 3.0


def test_an_infrastructure_fault_is_retried_then_graded(service, kind):
    kind.faults = 1
    sub, _ = service.store.create_submission("a", "l", {"q1": {"text": "abc"}})
    first = service.grade(sub.id)
    assert first.action == "retry"
    assert service.store.get(sub.id).status == "queued"
    assert service.store.get(sub.id).score is None
    assert service.grade(sub.id).action == "graded"
    assert service.store.get(sub.id).score == 3.0


def test_persistent_infrastructure_faults_mark_failed_never_zero(service, kind):
    kind.faults = 10
    sub, _ = service.store.create_submission("a", "l", {"q1": {"text": "abc"}})
    assert service.grade(sub.id).action == "retry"
    outcome = service.grade(sub.id)
    got = service.store.get(sub.id)
    assert outcome.action == "failed"
    assert got.status == "failed"
    assert got.score is None
    assert "sandbox pool is down" in got.failure_reason


def test_a_bug_in_a_kind_is_an_infrastructure_fault(service, monkeypatch):
    class Broken:
        def grade(self, *args):
            raise KeyError("oops")

    monkeypatch.setattr(service_module, "get_kind", lambda name: Broken())
    sub, _ = service.store.create_submission("a", "l", {"q1": {"text": "abc"}})
    service.grade(sub.id)
    service.grade(sub.id)
    got = service.store.get(sub.id)
    assert (got.status, got.score) == ("failed", None)
    assert "internal error: KeyError" in got.failure_reason


def test_seed_is_secret_dependent_and_per_submission():
    assert submission_seed("s", "id1") == submission_seed("s", "id1")
    assert submission_seed("s", "id1") != submission_seed("s", "id2")
    assert submission_seed("s", "id1") != submission_seed("t", "id1")
    assert 0 <= submission_seed("s", "id1") < 2 ** 64


def test_a_job_that_never_completes_is_failed_not_redelivered_forever(service, kind):
    sub, _ = service.store.create_submission("a", "l", {"q1": {"text": "abc"}})
    for _ in range(service.max_attempts + 1):  # each start is a redelivery of a job that died
        assert service.store.start(sub.id) is not None
    outcome = service.grade(sub.id)
    got = service.store.get(sub.id)
    assert (outcome.action, got.status, got.score) == ("failed", "failed", None)
    assert "did not complete" in got.failure_reason
    assert kind.calls == 0


def test_test_points_add_up_to_the_item_points():
    from grader.grading.service import round_points
    from grader.results import TestResult

    third = 10 / 30
    result = ItemResult("i", "code", score=10.0, max_score=10.0, tests=[
        TestResult(name=str(n), score=third, max_score=third, status="passed") for n in range(30)])
    round_points(result)
    assert round(sum(t.score for t in result.tests), 4) == 10.0
    assert round(sum(t.max_score for t in result.tests), 4) == 10.0
    assert {t.score for t in result.tests[:-1]} == {0.3333}


def test_a_fault_replaces_the_sandbox_before_the_next_job(tmp_path, monkeypatch, request):
    created = []

    class Sandbox:
        def close(self):
            created.append("closed")

    class Crashing:
        def grade(self, item, response, ctx):
            ctx.sandbox.run("src", [], None)
            raise TypeError("limits were garbage")

    def factory():
        created.append("new")
        return type("S", (Sandbox,), {"run": lambda self, *a: None})()

    monkeypatch.setattr(service_module, "get_kind", lambda name: Crashing())
    store = Store(f"sqlite:///{tmp_path / 'f.db'}")
    request.addfinalizer(store.dispose)
    store.create_all()
    assignment = Assignment(id="a", title="A", items={
        "q1": Item(id="q1", kind="x", prompt="", points=1)})
    service = GradingService(store, Catalog({"a": assignment}, None, "."), "s", factory)
    sub, _ = store.create_submission("a", "l", {"q1": {"code": "x"}})
    assert service.grade(sub.id).action == "retry"
    assert created == ["new", "closed"]
    service.grade(sub.id)
    assert created == ["new", "closed", "new", "closed"]
