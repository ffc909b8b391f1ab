"""TextKind and ChoiceKind: loading, validation, grading."""
from pathlib import Path

import pytest

from grader.items.base import GradingContext
from grader.items.choice import ChoiceKind
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


def test_text_item_misconception_is_a_negative_test_and_score_stays_non_negative():
    kind = TextKind()
    item = kind.load("q5", Q5, RUBRICS)
    result = kind.grade(item, {"text": "Self-attention is linear in n."}, CTX)
    mis = [t for t in result.tests if "misconception" in t.tags]
    assert len(mis) == 1 and mis[0].score < 0
    assert result.score == 0


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


MC = {"prompt": "Why scale?", "points": 2, "options": {"A": "a", "B": "b", "C": "c"}, "answer": "b",
      "explanation": "Large dot products saturate the softmax."}
TF = {"prompt": "Order?", "points": 1, "options": {"T": "True", "F": "False"}, "answer": "F",
      "explanation": "Attention is order-blind."}


def test_choice_key_earns_points_case_insensitively_with_explanation():
    kind = ChoiceKind()
    item = kind.load("mc", MC, RUBRICS)
    right = kind.grade(item, {"choice": "b"}, CTX)
    wrong = kind.grade(item, {"choice": "A"}, CTX)
    assert right.score == 2 and right.tests[0].status == "passed"
    assert wrong.score == 0 and "the answer is B" in wrong.tests[0].output
    assert "saturate" in wrong.tests[0].output


def test_true_false_accepts_words_and_booleans():
    kind = ChoiceKind()
    item = kind.load("tf", TF, RUBRICS)
    assert kind.grade(item, {"choice": "false"}, CTX).score == 1
    assert kind.grade(item, {"choice": False}, CTX).score == 1
    assert kind.grade(item, {"choice": "True"}, CTX).score == 0


def test_choice_validation_lists_the_valid_letters():
    kind = ChoiceKind()
    item = kind.load("mc", MC, RUBRICS)
    assert kind.validate_response(item, {"choice": "E"}) == "choice 'E' is not one of the options: A, B, C"
    assert kind.public_view(item) == {"id": "mc", "kind": "choice", "prompt": "Why scale?", "points": 2.0,
                                      "options": {"A": "a", "B": "b", "C": "c"}}


def test_choice_key_must_be_an_option():
    with pytest.raises(ValueError, match="answer 'Z' is not one of the options"):
        ChoiceKind().load("mc", {**MC, "answer": "Z"}, RUBRICS)
