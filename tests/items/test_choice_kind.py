"""ChoiceKind: loading, validation, grading."""
from pathlib import Path

import pytest

from grader.items.base import GradingContext
from grader.items.choice import ChoiceKind

RUBRICS = Path(__file__).resolve().parents[2] / "rubrics"
CTX = GradingContext(seed=0)


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
