"""The CPU levers of issue 29 (grader/levers.py): each changes the work a grading costs, never
what is graded, stored or announced."""
import pytest
from sqlalchemy import event

from grader import levers
from grader.config import load_config
from grader.content import Assignment, Catalog
from grader.grading import service as service_module
from grader.grading.regrade import follow_regrades
from grader.grading.service import GradingService
from grader.items import Item
from grader.notify import Notifier
from grader.results import ItemResult
from grader.store import Store


def test_lever_names_parse_and_an_unknown_one_stops_the_process_at_start():
    assert levers.parse("all") == frozenset(levers.LEVERS)
    assert levers.parse("") == frozenset(levers.LEVERS)
    assert levers.parse(" NONE ") == frozenset()
    assert levers.parse("worker") == frozenset({"worker"})
    with pytest.raises(ValueError, match="unknown lever\\(s\\) warp"):
        levers.parse("worker,warp")
    with pytest.raises(ValueError, match="CPU_LEVERS"):
        load_config({"CPU_LEVERS": "warp"})


class TwoPoints:
    kind = "fake"

    def grade(self, item, response, ctx):
        return ItemResult(item_id=item.id, kind="fake", score=2.0, max_score=item.points)


@pytest.fixture
def graded_twice(tmp_path, monkeypatch):
    """grade(levers) -> (the stored submission, its webhook delivery's payload, its history
    record, statements sent while grading), on one store."""
    monkeypatch.setattr(service_module, "get_kind", lambda name: TwoPoints())
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    store.create_all()
    catalog = Catalog({"a": Assignment(id="a", title="A", items={
        "q": Item(id="q", kind="fake", prompt="", points=3)})}, None, ".")
    notifier = Notifier(store, catalog, lambda _delivery_id: None)
    service = GradingService(store, catalog, "secret", sandbox_factory=lambda: None,
                             notify=notifier.submission_final)
    service.follow_regrades = follow_regrades
    statements = []
    event.listen(store.engine, "before_cursor_execute",
                 lambda *args, **kwargs: statements.append(args[2]))

    def grade(value):
        monkeypatch.setenv("CPU_LEVERS", value)
        sub, _ = store.create_submission("a", "l", {"q": {"text": "x"}},
                                         callback_url="https://lms.example/hook")
        statements.clear()
        assert service.grade(sub.id).action == "graded"
        sent = len(statements)
        [delivery] = store.webhooks.list("local", submission_id=sub.id)
        return store.get(sub.id), delivery.payload, store.history(sub.id)[-1], sent

    return grade


def test_the_worker_lever_announces_the_same_event_with_three_reads_fewer(graded_twice):
    off_row, off_event, off_record, off_statements = graded_twice("none")
    on_row, on_event, on_record, on_statements = graded_twice("worker")
    for row in (off_row, on_row):
        assert (row.status, row.score, row.max_score) == ("graded", 2.0, 3.0)
    fields = ("type", "replay", "replay_of")
    assert {k: on_event[k] for k in fields} == {k: off_event[k] for k in fields} == {
        "type": "submission.graded", "replay": False, "replay_of": None}
    for payload, row, record in ((off_event, off_row, off_record), (on_event, on_row, on_record)):
        sub = payload["submission"]
        assert (sub["id"], sub["status"], sub["score"], sub["max_score"]) == (
            row.id, "graded", 2.0, 3.0)
        assert sub["finished_at"] == row.finished_at.isoformat()
        # scored_at is when the history record was stored, with or without the lever
        assert sub["scored_at"] == record.created_at.isoformat()
    # with the lever, the record's time is the finish time itself
    assert on_record.created_at == on_row.finished_at
    # not read again: the submission by the regrade check and by the notifier, its history
    assert off_statements - on_statements == 3
