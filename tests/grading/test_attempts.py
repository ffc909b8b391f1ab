"""Issue 26.2: one rule says which attempt counts (latest, best, best per item), and a failed
grading or an attempt being graded never replaces a graded one. Expected values by hand."""
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import pytest

from grader.grading.attempts import count_one, counted_attempts, counts_for

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


@dataclass
class Row:
    id: str
    learner_id: str
    status: str
    score: float | None
    max_score: float | None
    minute: int
    items: dict = field(default_factory=dict)  # item id -> (score, max)

    @property
    def received_at(self):
        return T0 + timedelta(minutes=self.minute)

    @property
    def results(self):
        return [{"item_id": k, "score": s, "max_score": m} for k, (s, m) in self.items.items()]


def graded(sid, learner, minute, **items):
    score = sum(s for s, _ in items.values())
    return Row(sid, learner, "graded", score, sum(m for _, m in items.values()), minute, items)


# amy: three graded attempts; code 6/10 then 10/10 then 4/10, text 5/5, 1/5, 3/5
AMY = [graded("a1", "amy", 1, code=(6, 10), text=(5, 5)),     # 11
       graded("a2", "amy", 2, code=(10, 10), text=(1, 5)),    # 11 (ties a1, newer)
       graded("a3", "amy", 3, code=(4, 10), text=(3, 5))]     # 7


def test_latest_is_the_latest_graded_attempt():
    counted = count_one("amy", AMY, "latest")
    assert (counted.score, counted.max_score, counted.sources) == (7, 15, ("a3",))


def test_best_is_the_highest_score_and_the_newer_of_equal_ones():
    counted = count_one("amy", AMY, "best")
    assert (counted.score, counted.sources, counted.primary.id) == (11, ("a2",), "a2")


def test_best_per_item_adds_each_items_best():
    counted = count_one("amy", AMY, "best_per_item")
    # code: 10 (a2), text: 5 (a1) -> 15 of 15, from two attempts, newest first
    assert (counted.score, counted.max_score) == (15, 15)
    assert counted.sources == ("a2", "a1")
    assert {k: (v.score, v.submission_id) for k, v in counted.items.items()} == {
        "code": (10, "a2"), "text": (5, "a1")}


def test_best_per_item_counts_only_the_items_of_the_latest_graded_attempt():
    rows = [graded("b1", "bo", 1, code=(8, 10), old=(5, 5)), graded("b2", "bo", 2, code=(3, 10))]
    counted = count_one("bo", rows, "best_per_item")
    assert (counted.score, counted.max_score, set(counted.items)) == (8, 10, {"code"})


@pytest.mark.parametrize("policy", ["latest", "best", "best_per_item"])
def test_a_failed_or_pending_attempt_never_replaces_a_graded_one(policy):
    rows = [graded("c1", "cy", 1, code=(9, 10)),
            Row("c2", "cy", "failed", None, None, 2),
            Row("c3", "cy", "queued", None, None, 3)]
    counted = count_one("cy", rows, policy)
    assert (counted.status, counted.score, counted.sources) == ("graded", 9, ("c1",))
    assert counted.latest.id == "c3" and counted.attempts == 3
    assert not counts_for(counted, rows[1]) and counts_for(counted, rows[0])


def test_without_a_graded_attempt_the_latest_attempt_stands_with_no_score():
    rows = [Row("d1", "di", "failed", None, None, 1), Row("d2", "di", "failed", None, None, 2)]
    counted = count_one("di", rows, "best")
    assert (counted.status, counted.score, counted.sources) == ("failed", None, ("d2",))
    assert counts_for(counted, rows[1]) and not counts_for(counted, rows[0])


def test_counted_attempts_groups_learners_in_id_order_and_ignores_row_order():
    rows = [AMY[2], graded("z1", "zed", 5, code=(1, 10)), AMY[0], AMY[1]]
    counted = counted_attempts(rows, "best")
    assert list(counted) == ["amy", "zed"]
    assert (counted["amy"].score, counted["zed"].score) == (11, 1)


def test_an_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="attempt policy"):
        count_one("amy", AMY, "first")
