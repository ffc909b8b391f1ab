"""The question-word discount compares word families (issue 22 item 6): "eroded" is a word of a
question that says "erosion" (stems "erod" and "eros": one family). All-or-nothing credit."""
import pytest

from grader.rubric import compile_rubric
from grader.rubric.lexicon import stem, stem_family

QUESTION = "What does erosion do to a riverbank?"


def worn(question_words="discount"):
    return compile_rubric({"question": QUESTION, "max_points": 1, "credit": {"base": 0, "near_miss": 0},
                           "criteria": [{"id": "worn", "description": "the bank is worn away", "points": 1,
                                         "question_words": question_words,
                                         "concepts": [{"any": ["erod*", "wash* away", "wear* away"]}]}]})


@pytest.mark.parametrize("answer, points", [
    ("the riverbank is eroded", 0),     # the question's own word, derived: earns nothing by itself
    ("it erodes the bank", 0),
    ("it washes away the soil", 1),
    ("the current wears away the bank", 1),
])
def test_a_derivation_of_a_question_word_is_discounted(answer, points):
    assert worn().score(answer).points == points


def test_question_words_allow_keeps_crediting_them():
    assert worn("allow").score("the riverbank is eroded").points == 1


@pytest.mark.parametrize("a, b, family", [
    ("eroded", "erosion", True), ("decide", "decision", True), ("divided", "division", True),
    ("list", "last", False), ("mask", "masked", True), ("token", "tokens", True), ("mass", "mask", False),
])
def test_word_families(a, b, family):
    assert (stem_family(stem(a)) == stem_family(stem(b))) is family
