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


GAP = {"phrase": "cost quadratic", "gap": 3}


@pytest.mark.parametrize("answer, points", [
    ("The cost is quadratic in n.", 1),
    ("the cost of attention grows quadratic", 1),
    ("the cost and memory are quadratic", 1),          # "and memory": no new clause
    # the gap ran across "and the", "so", "than" into the next clause
    ("The cost grows with n and the memory is quadratic", 0),
    ("The cost is low so memory is quadratic", 0),
    ("The cost is lower than the quadratic one", 0),
    ("The cost is low because memory is quadratic", 0),
])
def test_a_gap_stays_inside_its_clause(answer, points):
    assert one(GAP).score(answer).points == points


@pytest.mark.parametrize("concept, answer, points", [
    ("more than one", "there can be more than one constructor", 1),   # the phrase writes "than"
    ({"phrase": "heavier than nickel", "gap": 1}, "the penny is heavier than the nickel", 1),
    ({"phrase": "more one", "gap": 1}, "there can be more than one constructor", 1),  # a quantity, no clause
    ({"phrase": "more one", "gap": 1}, "more than 1", 1),
    ({"phrase": "mass nickel", "gap": 2}, "the penny has more mass than the nickel", 0),
])
def test_a_phrase_that_writes_the_clause_opener_crosses_it(concept, answer, points):
    assert one(concept).score(answer).points == points


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


@pytest.mark.parametrize("answer, points", [
    # notation: a "(" touching the word (or ^) before it, its ")", and a "." between two touching
    # words are part of the formula, not a clause break (they cut "exp(-inf)=0" into three clauses)
    ("exp(-inf)=0", 1),
    ("exp(-inf) = 0", 1),
    ("exp(max(x)) = 0", 1),          # nested,
    # prose punctuation still ends the clause
    ("we take exp (of the scores) and 0 is the mask", 0),
    ("we take exp. 0 is the mask", 0),
])
def test_a_formula_is_one_clause(answer, points):
    assert one({"phrase": "exp 0", "gap": 3}).score(answer).points == points


@pytest.mark.parametrize("answer, points", [
    ("var(q.k) grows with d_k", 1),       # "q.k" is a dot product, not a sentence end
    ("the var is q. k grows with d_k", 0),
])
def test_a_dot_between_touching_words_ends_no_sentence(answer, points):
    assert one({"all": ["var", "grow*"], "same_sentence": True}).score(answer).points == points
