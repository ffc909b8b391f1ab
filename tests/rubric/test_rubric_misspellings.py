"""Misspelling tolerance reads a non-word as a misspelling of a rubric word, never a real word as
another one (issue 22 item 1): "list" is not "last", "node" is not "none", "either" is not
"neither". Misconceptions and negation words match as written unless the rubric asks otherwise.

Every rubric here gives all-or-nothing credit (``credit: {base: 0, near_miss: 0}``), so each
expected score is the sum of the criteria met minus the penalties that fire."""
import pytest

from grader.rubric import compile_rubric

ALL_OR_NOTHING = {"base": 0, "near_miss": 0}

QUEUE = {
    "question": "How does a queue order its elements?", "max_points": 4, "credit": ALL_OR_NOTHING,
    "criteria": [{"id": "fifo", "description": "first in first out", "points": 4,
                  "concepts": [{"any": ["fifo", "first in first out"]}]}],
    "misconceptions": [{"id": "lifo", "patterns": [{"phrase": "last in first out", "gap": 2}], "penalty": 3,
                        "message": "A queue is first in first out; last in first out is a stack."}],
}


@pytest.mark.parametrize("answer, points", [
    # the reported kind: "list" was read as "last", and the penalty fired on a correct answer
    ("A queue is a list where the first in is the first out.", 4),
    ("It is a list; first in first out.", 4),
    ("Like a waiting line: a list in which the first in is first out.", 4),
    # the misconception itself still fires when it is written (4 - 3)
    ("A queue is a list where the first in is the first out, not last in first out.", 4),
    ("The last in is the first out, then first in first out.", 1),
])
def test_a_correct_word_never_fires_a_misconception_as_a_misspelling(answer, points):
    assert compile_rubric(QUEUE).score(answer).points == points


LEAF = {
    "question": "What is a leaf of a binary tree?", "max_points": 2, "credit": ALL_OR_NOTHING,
    "criteria": [{"id": "no-children", "description": "a node without children", "points": 2,
                  "concepts": [{"phrase": "@not child*", "gap": 2}]}],
}


@pytest.mark.parametrize("answer, points", [
    ("A leaf is a node with no children.", 2),
    ("a node that has no child", 2),
    ("It doesn't have any children.", 2),
    # "node" was read as "none", "either" as "neither": the phrase matched affirmative answers
    ("An internal node is a node with two children.", 0),
    ("A node with either a left or a right child.", 0),
    ("every node has children", 0),
])
def test_negation_words_of_a_phrase_match_exactly(answer, points):
    assert compile_rubric(LEAF).score(answer).points == points


def rubric(concept, **extra):
    return compile_rubric({"question": "Explain the cost of self-attention.", "max_points": 1,
                           "credit": ALL_OR_NOTHING,
                           "criteria": [{"id": "c", "description": "d", "points": 1, "concepts": [concept]}],
                           **extra})


def test_a_non_word_is_still_a_misspelling_of_a_rubric_word():
    r = rubric("quadratic")
    assert r.score("the cost is quadradic in n").points == 1  # not an English word: one edit
    assert r.score("the cost is quadratic").points == 1
    assert r.score("the cost is quadrant").points == 0       # two edits, and a word of its own


def test_a_word_of_the_rubrics_own_vocabulary_is_not_a_misspelling_of_another():
    # "enqueued" is no dictionary word, but two edits from "dequeued" (8 letters: fuzzy 2 allows it)
    concept = {"phrase": "dequeued", "fuzzy": 2}
    assert rubric(concept).score("the item is enqueued").points == 1
    own = rubric(concept, reference_answer="An enqueued item waits at the back until it is dequeued.")
    assert own.score("the item is enqueued").points == 0
    assert own.score("the item is dequeued").points == 1
    assert own.score("the item is dequeud").points == 1  # a misspelling still counts


LINEAR = {
    "question": "How does the cost of self-attention grow with n?", "max_points": 2, "credit": ALL_OR_NOTHING,
    "criteria": [{"id": "quadratic", "description": "quadratic", "points": 2, "concepts": ["quadratic"]}],
    "misconceptions": [{"id": "linear", "patterns": ["attention linear"], "penalty": 2,
                        "message": "Self-attention is quadratic in n, not linear."}],
}


def test_misconceptions_match_as_written_unless_they_ask_for_misspellings():
    # "lineer" is one edit from "linear": the criterion's default tolerance would take it, a
    # misconception's does not (2 for the criterion, nothing deducted)
    assert compile_rubric(LINEAR).score("attention is lineer, I mean quadratic").points == 2
    assert compile_rubric(LINEAR).score("attention is linear, I mean quadratic").points == 0
    asks = {**LINEAR, "misconceptions": [{**LINEAR["misconceptions"][0], "fuzzy": 1}]}
    assert compile_rubric(asks).score("attention is lineer, I mean quadratic").points == 0
    pattern = {**LINEAR, "misconceptions": [{**LINEAR["misconceptions"][0],
                                              "patterns": [{"phrase": "attention linear", "fuzzy": 1}]}]}
    assert compile_rubric(pattern).score("attention is lineer, I mean quadratic").points == 0
    # the rubric's defaults are the criteria's: they do not make misconceptions tolerant
    defaults = {**LINEAR, "defaults": {"fuzzy": 2}}
    assert compile_rubric(defaults).score("attention is lineer, I mean quadratic").points == 2
