"""A phrase's gap and a negation's scope stay inside their clause (issue 22 items 2 and 6).

Clauses end at punctuation, at a clause opener (but, so, because, than ...), and at "and"/"or"
starting a new clause; a negation scope also ends, once it has covered a word, at a finite verb or
a subject pronoun that starts the next clause of a run-on sentence. Every rubric here gives
all-or-nothing credit, so each expected score is the criteria met."""
import pytest

from grader.rubric import compile_rubric


def one(concept, question="Why is self-attention expensive?"):
    return compile_rubric({"question": question, "max_points": 1, "credit": {"base": 0, "near_miss": 0},
                           "criteria": [{"id": "c", "description": "d", "points": 1, "concepts": [concept]}]})


@pytest.mark.parametrize("answer, points", [
    # "instead of" covered "iteration" six content words on, across the main verb "is"
    ("instead of using recursive functions is by using iteration", 1),
    ("Instead of recursion it is done by iteration.", 1),
    ("rather than recursion the function was iteration based", 1),
    ("it does not use iteration", 0),
    ("instead of iteration", 0),
])
def test_a_negation_scope_ends_at_the_next_clauses_verb(answer, points):
    assert one("iteration", question="How else can a loop be written?").score(answer).points == points


@pytest.mark.parametrize("answer, points", [
    # a long unpunctuated sentence: the scope went on for six content words
    ("Attention does not use recurrence it is computed in parallel", 1),
    ("The weights are not learned they are computed in parallel", 1),
    ("it does not run in parallel", 0),
    ("It does not have to run in parallel", 0),   # the negated verb's own auxiliary
])
def test_a_negation_does_not_run_on_through_a_run_on_sentence(answer, points):
    assert one("parallel").score(answer).points == points


@pytest.mark.parametrize("answer, points", [
    ("No element is removed.", 0),          # the subject's own verb stays in the scope
    ("Nothing is removed from the stack.", 0),
    ("not all elements are removed", 0),
    ("It is wrong to say that the element is removed.", 0),
    ("The top element is removed.", 1),
    ("No element is added, the top one is removed", 1),
])
def test_a_cue_that_negates_a_subject_keeps_the_subjects_verb(answer, points):
    assert one("removed", question="What does pop do to a stack?").score(answer).points == points
