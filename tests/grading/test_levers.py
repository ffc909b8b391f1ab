"""The CPU levers of issue 29 (grader/levers.py): each changes the work a grading costs, never
what is graded, stored or announced."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sqlalchemy import event

from grader import levers
from grader.config import load_config
from grader.content import Assignment, Catalog
from grader.grading import service as service_module
from grader.grading.regrade import follow_regrades
from grader.grading.service import GradingService
from grader.items import Item
from grader.notify import Notifier
from grader.problems import PROBLEMS
from grader.problems.compare import close_everywhere, mismatch, tolerance_scaled
from grader.results import ItemResult
from grader.store import Store
from tests.problems.conftest import FakeSandbox
from tests.problems.problem_helpers import grade_file, submission_names


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


# -- checks ----------------------------------------------------------------------------------

_entries = st.one_of(st.floats(-3, 3), st.sampled_from([np.nan, np.inf, -np.inf, 0.0]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_entries, min_size=6, max_size=6), st.lists(_entries, min_size=6, max_size=6),
       st.lists(st.sampled_from([0.0, 1e-7, 1e-5, 3e-4, 1.0]), min_size=6, max_size=6),
       st.one_of(st.none(), st.lists(st.booleans(), min_size=2, max_size=2)))
def test_the_checks_lever_gives_every_verdict_and_message_as_before(expected, got, nudge,
                                                                    rows):
    """Arrays near, far from, equal to each other, with NaN and inf on either side, some rows
    unchecked: the same message (or None) with the lever as without it."""
    expected = np.array(expected).reshape(2, 3)
    # half the entries of got: expected nudged by a small amount (within or just past
    # tolerance), the others drawn on their own
    got = np.where(np.arange(6).reshape(2, 3) % 2 == 0, expected + np.array(nudge).reshape(2, 3),
                   np.array(got).reshape(2, 3))
    rows = None if rows is None else np.array(rows)
    verdicts = []
    for value in ("none", "checks"):
        with pytest.MonkeyPatch.context() as patch, np.errstate(invalid="ignore"):
            patch.setenv("CPU_LEVERS", value)
            verdicts.append(mismatch(got, expected, rows=rows))
    assert verdicts[0] == verdicts[1]


def test_close_everywhere_decides_only_what_isclose_would_pass():
    expected = np.array([[1.0, np.inf], [2.0, -1.0]])
    near = expected + 5e-5  # within atol 1e-5 + rtol 1e-4 * |e|
    assert not close_everywhere(near, expected, None, 1e-4, 1e-5)  # an inf expected: not here
    assert close_everywhere(near, expected, np.array([False, True]), 1e-4, 1e-5)  # row 0 skipped
    assert not close_everywhere(expected[1] + 1e-3, expected[1], None, 1e-4, 1e-5)
    assert close_everywhere(np.zeros((2, 0)), np.zeros((2, 0)), None, 1e-4, 1e-5)
    assert mismatch(expected[1] + 1e-3, expected[1]) is not None
    with tolerance_scaled(100.0):  # a problem's looser tolerance reaches the fast test
        assert mismatch(expected[1] + 1e-3, expected[1]) is None


# -- worker: the LTI channel's one lookup ------------------------------------------------------

def lti_platform(lti, course_id: str):
    """An LTI platform registered for ``course_id`` (deployment ``d1``)."""
    return lti.create_platform(
        issuer="https://lms.example.edu", client_id="tool-1", deployment_ids=["d1"],
        auth_login_url="https://lms.example.edu/auth",
        auth_token_url="https://lms.example.edu/token",
        key_set_url="https://lms.example.edu/jwks", course_id=course_id)


def record_three_targets(lti, platform, course_id: str) -> None:
    """Grade targets of assignment ``a``: links 2 and 1 of learner ``l``, link 3 of ``other``."""
    for link, learner in (("link-2", "l"), ("link-1", "l"), ("link-3", "other")):
        lti.record_grade_target(platform_id=platform.id, deployment_id="d1",
                                resource_link_id=link, user_sub=f"sub-{learner}",
                                course_id=course_id, assignment_id="a", learner_id=learner,
                                lineitem_url=f"https://lms.example.edu/{link}",
                                lineitems_url=None, scopes=[])


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_grade_targets_and_the_platform_test_come_from_one_statement(backend, tmp_path,
                                                                     request):
    url = (f"sqlite:///{tmp_path / 'l.db'}" if backend == "sqlite"
           else request.getfixturevalue("postgres_url"))
    store = Store(url)
    store.create_all()
    store.courses.create_course("c1", "C 1")
    store.courses.create_course("c2", "C 2")
    lti = store.lti
    assert lti.grade_targets_in_course("c1", "a", "l") == ([], False)
    platform = lti_platform(lti, "c1")
    assert lti.grade_targets_in_course("c1", "a", "l") == ([], True)
    assert lti.grade_targets_in_course("c2", "a", "l") == ([], False)  # another course's
    record_three_targets(lti, platform, "c1")
    statements = []
    event.listen(store.engine, "before_cursor_execute",
                 lambda *args, **kwargs: statements.append(args[2]))
    rows, has_platform = lti.grade_targets_in_course("c1", "a", "l")
    assert len(statements) == 1
    assert has_platform is True
    assert [r.resource_link_id for r in rows] == ["link-2", "link-1"]  # by id, as recorded
    assert [r.id for r in rows] == [r.id for r in lti.grade_targets("c1", "a", "l")]
    store.dispose()


# -- all levers: every built-in's samples graded alike -------------------------------------------

_TIMINGS = ("execution_time", "sandbox_seconds", "grading_seconds", "seconds")


def _untimed(value):
    """A result record without its timings (which differ from run to run)."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in _TIMINGS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


@pytest.fixture
def fake_sandbox():
    return FakeSandbox()


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_every_sample_is_graded_alike_with_no_lever_and_with_all(monkeypatch, fake_sandbox,
                                                                  problem):
    """Scores, statuses, tags and every message of each built-in problem's correct and buggy
    samples, for two seeds: the same with ``CPU_LEVERS=none`` as with ``all``."""
    names = submission_names(problem, "correct_")[:1] + submission_names(problem, "bug_")
    assert names
    for name in names:
        for seed in (3, 2 ** 40 + 17):
            records = []
            for value in ("none", "all"):
                monkeypatch.setenv("CPU_LEVERS", value)
                records.append(_untimed(grade_file(fake_sandbox, problem, name,
                                                   seed=seed).to_dict()))
            assert records[0] == records[1], (name, seed)


def test_all_and_none_stand_alone():
    with pytest.raises(ValueError, match="'all' and 'none' stand alone"):
        levers.parse("none,draws")
    with pytest.raises(ValueError, match="'all' and 'none' stand alone"):
        levers.parse("all, none")
