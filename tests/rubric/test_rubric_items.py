"""TextKind: loading, validation, grading (ChoiceKind: tests/items/test_choice_kind.py)."""
from pathlib import Path

import pytest

from grader.items.base import GradingContext
from grader.items.text import TextKind

RUBRICS = Path(__file__).resolve().parents[2] / "rubrics"
CTX = GradingContext(seed=0)
Q5 = {"id": "q5", "kind": "text", "points": 4, "prompt": "Why O(n^2)?", "rubric": "seed000-q5-quadratic-cost"}


def test_text_item_scales_rubric_points_and_reports_each_criterion():
    kind = TextKind()
    item = kind.load("q5", Q5, RUBRICS)
    result = kind.grade(item, {"text": "Every token attends to every other token, so the cost is quadratic."}, CTX)
    by_tag = {t.tags[1]: t for t in result.tests}
    assert result.max_score == 4
    assert by_tag["criterion:all-pairs"].score == pytest.approx(1.6)
    assert by_tag["criterion:quadratic-growth"].status == "passed"
    assert by_tag["criterion:remedies"].status == "failed"
    assert result.score == pytest.approx(2.4)
    assert result.extra_data["rubric_id"] == "seed000-q5-quadratic-cost"
    assert result.extra_data["rubric_version"] == 1


def lines(result):
    """The tests list as a person reads it in the Gradescope layout."""
    return [(t.name, t.score, t.max_score, t.status) for t in result.tests]


def test_a_misconception_with_nothing_to_deduct_from_is_one_clear_line():
    # issue 14, item 6: this answer showed "[FAIL] Misconception: attention-linear: -1/0" followed
    # by "[PASS] Adjustment to the item score: 1/0". It earns no criterion, so the penalty (1 of 5
    # points, 0.8 of the item's 4) has nothing to take away: one line says so, and no adjustment.
    kind = TextKind()
    item = kind.load("q5", Q5, RUBRICS)
    result = kind.grade(item, {"text": "Self-attention is linear in n."}, CTX)
    assert lines(result)[4:] == [("Deduction for a misconception: attention-linear", 0.0, 0.0, "failed")]
    assert result.tests[4].output.startswith("Nothing deducted (no points left): claims self-attention itself is "
                                             "linear in sequence length. Standard self-attention is not linear in n")
    assert result.score == 0 == sum(t.score for t in result.tests)


def test_a_deduction_shows_what_was_taken_away_and_why():
    # all-pairs (2 of 5 points = 1.6 of 4) is met; attention-linear takes its full penalty, 1 of 5
    # points = 0.8: 1.6 - 0.8 = 0.8
    kind = TextKind()
    item = kind.load("q5", Q5, RUBRICS)
    result = kind.grade(item, {"text": "Every token attends to every other token, but self-attention is "
                                       "linear in n."}, CTX)
    assert lines(result)[0] == ("a score is computed between every pair of positions (an n x n score matrix)",
                                1.6, 1.6, "passed")
    assert lines(result)[4:] == [("Deduction for a misconception: attention-linear", -0.8, 0.0, "failed")]
    assert result.tests[4].output.startswith("-0.8: claims self-attention itself is linear in sequence length. "
                                             "Standard self-attention is not linear in n")
    assert result.score == 0.8 == round(sum(t.score for t in result.tests), 4)


def test_a_deduction_larger_than_the_credit_says_the_score_stops_at_zero():
    # 1 of 2 rubric points earned (x1.5 = 1.5 item points); the penalty is 1.5 rubric points
    # (2.25 item points) but only the 1 point earned can go: -1.5 item points, total 0
    raw = {"points": 3, "rubric": {
        "question": "Which vectors are blended?", "max_points": 2,
        "criteria": [{"id": "v", "description": "values", "points": 1, "concepts": ["values"]},
                     {"id": "w", "description": "weights", "points": 1, "concepts": ["weights"]}],
        "misconceptions": [{"id": "keys", "patterns": ["sum keys"], "penalty": 1.5,
                            "message": "The keys only score; the values are blended."}]}}
    kind = TextKind()
    item = kind.load("blend", raw, RUBRICS)
    result = kind.grade(item, {"text": "The values, as a sum of keys."}, CTX)
    assert lines(result) == [("values", 1.5, 1.5, "passed"), ("weights", 0.0, 1.5, "failed"),
                             ("Deduction for a misconception: keys", -1.5, 0.0, "failed")]
    # issue 22 item 5: one clear line, what it took away and why (it read "-1.5 points (the penalty is
    # 2.25 points, but a score never goes below 0): ...", under a "-1.5/0" score line)
    assert result.tests[2].output == "-1.5: The keys only score; the values are blended."
    assert result.score == 0
    described = {**raw, "rubric": {**raw["rubric"], "misconceptions": [
        {**raw["rubric"]["misconceptions"][0], "description": "says the keys are blended"}]}}
    result = kind.grade(kind.load("blend", described, RUBRICS), {"text": "The values, as a sum of keys."}, CTX)
    assert result.tests[2].output == "-1.5: says the keys are blended. The keys only score; the values are blended."
    assert "penalty" not in result.tests[2].output


def test_a_guard_is_a_limit_line_that_says_why():
    # keyword stuffing meets all four criteria (5 of 5 = 4 item points), then the keyword-list
    # guard takes all of it away
    kind = TextKind()
    item = kind.load("q5", Q5, RUBRICS)
    result = kind.grade(item, {"text": "quadratic quadratic quadratic pairs pairs every pair expensive sparse"}, CTX)
    assert [t.score for t in result.tests[:4]] == [1.6, 0.8, 0.8, 0.8]
    assert lines(result)[4] == ("Limit: a list of repeated keywords", -4.0, 0.0, "failed")
    assert result.tests[4].output.startswith('-4 points: This answer is a list of repeated keywords ("quadratic" 3 times)')
    assert result.score == 0 and result.extra_data["guards"] == ["keyword_list"]


def test_base_credit_is_its_own_line():
    # default credit: memory (1 of 2 rubric points) is met; the answer is on topic, so it also earns
    # 0.3 of the missed point: 1.3 rubric points x 2 = 2.6 item points, 0.6 of them base credit
    raw = {"points": 4, "rubric": {
        "question": "Explain attention.", "max_points": 2,
        "criteria": [{"id": "m", "description": "memory", "points": 1, "concepts": ["memory"]},
                     {"id": "c", "description": "compute", "points": 1, "concepts": ["compute"]}]}}
    kind = TextKind()
    item = kind.load("cost", raw, RUBRICS)
    result = kind.grade(item, {"text": "It needs memory."}, CTX)
    assert lines(result) == [("memory", 2.0, 2.0, "passed"), ("compute", 0.0, 2.0, "failed"),
                             ("Credit for an on-topic answer", 0.6, 0.0, "passed")]
    assert result.tests[2].output == ("+0.6 points: an answer on the question's topic earns 30% of the points "
                                      "its criteria did not award.")
    assert result.score == 2.6


def test_the_public_view_shows_every_length_limit():
    kind = TextKind()
    item = kind.load("q5", Q5, RUBRICS)
    # and the rubric version it scores with (issue 26.1): a built-in file follows its file
    assert kind.public_view(item) == {"id": "q5", "kind": "text", "prompt": "Why O(n^2)?", "points": 4.0,
                                      "max_characters": 20_000, "rubric_version": {
                                          "rubric_id": "seed000-q5-quadratic-cost", "version": 1,
                                          "follows": "latest"}}
    raw = {"points": 1, "rubric": {"question": "Explain.", "max_points": 1, "max_words": 50,
                                   "criteria": [{"id": "v", "description": "values", "points": 1,
                                                 "concepts": ["values"]}]}}
    limited = kind.load("short", raw, RUBRICS)
    assert kind.public_view(limited)["max_words"] == 50
    result = kind.grade(limited, {"text": " ".join(f"word{i}" for i in range(60)) + " values"}, CTX)
    assert result.score == 0  # "values" is word 61: not read
    assert result.output == ("Only the first 50 words were read (the limit for this question is 50 words; "
                             "this answer has 61).")


def test_text_item_accepts_an_inline_rubric():
    raw = {"prompt": "Name the blended vectors", "points": 2, "rubric": {
        "question": "Which vectors are blended?", "max_points": 1,
        "criteria": [{"id": "v", "description": "values", "points": 1, "concepts": ["values"]}]}}
    kind = TextKind()
    item = kind.load("inline", raw, RUBRICS)
    assert kind.grade(item, {"text": "the values"}, CTX).score == 2


def test_text_item_with_invalid_rubric_names_the_field():
    raw = {"prompt": "p", "points": 1, "rubric": {"question": "q", "max_points": 1,
           "criteria": [{"id": "v", "description": "d", "points": 1, "concepts": [" "]}]}}
    with pytest.raises(ValueError, match=r"rubric\.criteria\[0\]\.concepts\[0\]: empty phrase"):
        TextKind().load("bad", raw, RUBRICS)


def test_text_item_unknown_rubric_file_is_a_value_error():
    with pytest.raises(ValueError, match="no rubric file"):
        TextKind().load("x", {**Q5, "rubric": "nope"}, RUBRICS)


def test_text_response_must_be_a_string():
    kind = TextKind()
    item = kind.load("q5", Q5, RUBRICS)
    assert kind.validate_response(item, {"text": 3}) == "text must be a string"
    assert kind.validate_response(item, {"code": "x"}) is not None
    assert kind.validate_response(item, {"text": "fine"}) is None
    assert "rubric" not in kind.public_view(item)
