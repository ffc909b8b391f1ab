"""Issue 26.2: the late penalty and the instructor's overrides are lines of the item results, so
every reader sees one score and each item's lines add up to it. Values worked out by hand."""
import pytest

from grader.deadlines import Lateness
from grader.grading.adjustments import (Override, adjust, engine_results, engine_score,
                                        late_penalty, late_summary, override_of, totals)


def item(item_id, score, maximum):
    tests = [{"name": "all", "score": score, "max_score": maximum, "tags": ["values"],
              "status": "passed" if score == maximum else "failed"}]
    return {"item_id": item_id, "kind": "code", "score": score, "max_score": maximum,
            "tests": tests, "extra_data": {}}


def late(percent, days=2):
    return Lateness(status="late", due_at="2031-06-01T23:59:00+02:00",
                    submitted_at="2031-06-03T10:00:00+00:00", seconds_late=days * 86400 - 5,
                    days_late=days, policy="penalty_per_day", penalty_percent=percent)


def lines_add_up(results):
    for result in results:
        assert round(sum(t["score"] for t in result["tests"]), 4) == result["score"]


def test_the_deduction_is_a_share_of_the_points_possible_split_by_the_items_scores():
    # 13 of 16, two days late at 10 % a day: 20 % of 16 = 3.2 points; every item keeps
    # 1 - 3.2/13 of its points: code 8 - 1.9692, text 4 - 0.9846, choice the rest 0.2462
    results = adjust([item("code", 8, 10), item("text", 4, 5), item("choice", 1, 1)], late(20))
    assert [r["score"] for r in results] == [6.0308, 3.0154, 0.7538]
    assert totals(results) == (9.8, 16.0)
    assert [late_penalty(r) for r in results] == [1.9692, 0.9846, 0.2462]
    assert late_summary(results)["penalty_points"] == 3.2
    lines_add_up(results)
    assert results[0]["tests"][-1]["tags"] == ["late-penalty"]
    assert "2 days late" in results[0]["tests"][-1]["output"]


def test_the_penalty_never_takes_more_than_the_score():
    # 2 of 15 at 50 %: 7.5 points would be taken, the score has 2: the code item goes to 0, the
    # text item had nothing and gets no line
    results = adjust([item("code", 2, 10), item("text", 0, 5)], late(50))
    assert [r["score"] for r in results] == [0.0, 0.0]
    assert [len(r["tests"]) for r in results] == [2, 1]
    assert late_summary(results)["penalty_points"] == 2.0


def test_a_fixed_penalty_on_full_marks():
    # 15 of 15 at 25 %: 3.75 points; code keeps 10 - 2.5, text 5 - 1.25
    results = adjust([item("code", 10, 10), item("text", 5, 5)], late(25, days=4))
    assert [r["score"] for r in results] == [7.5, 3.75]
    lines_add_up(results)


def test_an_on_time_submission_says_so_and_loses_nothing():
    on_time = Lateness("on_time", "2031-06-01T23:59:00+02:00", "2031-06-01T20:00:00+00:00",
                       0.0, 0, "penalty_per_day", 0.0)
    results = adjust([item("code", 8, 10)], on_time)
    assert results[0]["score"] == 8 and len(results[0]["tests"]) == 1
    assert late_summary(results) == {**on_time.to_dict(), "penalty_points": 0.0}


def test_an_override_is_final_and_its_line_is_the_difference():
    results = adjust([item("code", 8, 10), item("text", 4, 5), item("choice", 1, 1)], late(20),
                     {"code": Override("code", 9, "Right idea; the test missed it.")})
    assert [r["score"] for r in results] == [9.0, 3.0154, 0.7538]
    assert totals(results)[0] == 12.7692
    line = results[0]["tests"][-1]
    assert (line["tags"], line["score"]) == (["override"], 2.9692)
    assert "Right idea" in line["output"] and "set this item's score to 9 of 10" in line["output"]
    assert override_of(results[0]) == {"score": 9, "engine_score": 6.0308,
                                       "comment": "Right idea; the test missed it."}
    assert engine_score(results[0]) == 6.0308
    # the instructor's score counts: the penalty of that item is not counted as taken
    assert late_penalty(results[0]) == 0.0
    lines_add_up(results)


@pytest.mark.parametrize("override", [0.0, 10.0, 4.25])
def test_adjusting_again_starts_from_the_tests(override):
    original = [item("code", 8, 10), item("text", 4, 5)]
    once = adjust(original, late(20), {"code": Override("code", override)})
    twice = adjust(once, late(20), {"code": Override("code", override)})
    assert twice == once
    assert engine_results(once) == original
    assert adjust(once) == original  # no lateness, no override: what the tests gave
