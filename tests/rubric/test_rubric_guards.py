"""Engine-wide guards: keyword stuffing, word salad, copies of the question, endorsed and refuted
misconceptions, negated answers to a false claim, and criteria voided by a misconception."""
from __future__ import annotations

import random

import pytest

from grader.rubric import compile_rubric
from grader.rubric.analysis import analyse
from grader.rubric.guards import (copies_question, endorsing_verdict,
                                  form_problem, refuted)

RUBRIC = {
    "question": "Why does self-attention cost O(n^2) in the sequence length n?",
    "max_points": 4,
    "criteria": [
        {"id": "pairs", "description": "every pair is scored", "points": 2, "concepts": ["every pair"]},
        {"id": "growth", "description": "quadratic growth", "points": 1, "question_words": "allow",
         "concepts": [{"any": ["quadratic*", "n^2"]}]},
        {"id": "expensive", "description": "long inputs are expensive", "points": 1,
         "concepts": ["expensive|prohibitive"]},
    ],
}
GOOD = "A score is computed for every pair of tokens, so the cost is quadratic and long inputs get expensive."


@pytest.fixture(scope="module")
def rubric():
    return compile_rubric(RUBRIC)


def test_good_prose_answer_earns_full_marks_without_notes(rubric):
    result = rubric.score(GOOD)
    assert (result.points, result.notes) == (4.0, [])


def test_repeated_keywords_without_sentence_structure_earn_nothing(rubric):
    result = rubric.score("quadratic quadratic quadratic pairs pairs every pair expensive sparse")
    assert result.points == 0.0
    assert "repeated keywords" in result.notes[0] and '"quadratic" 3 times' in result.notes[0]


@pytest.mark.parametrize("answer", ["push, pop, top, isEmpty", "linked list, array",
                                    "repetition, termination test, eventually terminate, occur infinitely",
                                    "every pair scored quadratic expensive"])
def test_terse_keyword_lists_without_repeats_are_not_refused(answer):
    assert form_problem(analyse(answer)) is None


def test_long_word_salad_of_rubric_words_earns_nothing(rubric):
    rng = random.Random(1)
    vocabulary = "every pair quadratic expensive score token the of cost n^2 attention matrix".split()
    salad = " ".join(rng.choice(vocabulary) for _ in range(3300))
    result = rubric.score(salad)
    assert result.points == 0.0
    assert "no sentence structure" in result.notes[0]


def test_a_long_answer_that_does_not_repeat_itself_is_not_capped(rubric):
    # issue 12, part 7: a correct, non-repetitive 537-word answer got 2.5/5 from a 500-word rule
    # learners never saw. Length alone limits nothing now: GOOD meets all three criteria (4/4).
    filler = " ".join(f"In part {i} the author discusses topic{i} and idea{i} at length." for i in range(47))
    answer = GOOD + " " + filler + " Done."  # 19 + 47 * 11 + 1 words
    assert len(answer.split()) == 537
    result = rubric.score(answer)
    assert (result.points, result.notes, result.guards) == (4.0, [], [])


def test_repeated_text_caps_the_credit_at_the_share_not_repeated(rubric):
    # GOOD has 12 content words (score computed every pair tokens so cost quadratic long inputs get
    # expensive); pasted three times, the last 24 of 36 repeat four-word sequences said before:
    # cap = 1 - 24/36 = 0.3333 of 4 points = 1.3332 (4 earned, 2.6668 taken away)
    result = rubric.score(" ".join([GOOD] * 3))
    assert result.points == 1.3332
    assert result.guards == [{"id": "repetition", "cap": 0.3333, "deducted": 2.6668, "reason": result.notes[0]}]
    assert result.notes[0].startswith("67% of this answer repeats what it already said")


def test_the_question_pasted_back_earns_nothing(rubric):
    result = rubric.score(RUBRIC["question"])
    assert result.points == 0.0
    assert "repeats the question" in result.notes[0]


@pytest.mark.parametrize("answer,expected", [
    ("Why does self-attention cost O(n^2) in the sequence length?", True),
    ("Self-attention does not cost O(n^2) in the sequence length n.", False),   # a (wrong) answer, not a copy
    ("Self-attention costs O(n^2) in n because every pair is scored.", False),
    ("C++ programs begin execution at main", False),                           # one new word is the answer
])
def test_copy_of_the_question_is_recognised(answer, expected):
    question = frozenset(analyse(RUBRIC["question"]).index)
    if answer.startswith("C++"):
        question = frozenset(analyse("Where do C++ programs begin execution?").index)
    assert copies_question(analyse(answer), question) is expected


SPOT = {
    "question": "Spot the error: \"The output is a weighted sum of the keys.\"",
    "max_points": 2,
    "criteria": [{"id": "values", "description": "the values are blended", "points": 2, "concepts": ["value*"]}],
    "misconceptions": [{"id": "sum-of-keys", "patterns": [{"phrase": "sum key*", "gap": 2}], "penalty": 1,
                        "message": "The values are blended.", "voids": ["values"]}],
}


@pytest.mark.parametrize("answer", [
    "The value of this statement is low: the sum is over the keys, and that is correct.",
    "The values are irrelevant: it is a weighted sum of the keys, nothing is wrong with it.",
])
def test_restating_the_error_in_the_question_words_endorses_it(answer):
    result = compile_rubric(SPOT).score(answer)
    assert [m.id for m in result.misconceptions if m.matched] == ["sum-of-keys"]
    assert result.points == 0.0
    assert "Not credited" in result.criteria[0].feedback


@pytest.mark.parametrize("answer", [
    "It is wrong that it is a weighted sum of the keys: it blends the values.",
    "The statement says a weighted sum of the keys; it should be the values.",
    "A weighted sum of the keys? That is false. The values are blended.",
    "It is a weighted sum of the values, not a sum of the keys.",
])
def test_quoting_the_error_to_refute_it_is_not_penalised(answer):
    result = compile_rubric(SPOT).score(answer)
    assert not any(m.matched for m in result.misconceptions)
    assert result.points == 2.0


def test_a_bare_verdict_does_not_refute_the_claim_that_follows():
    a = analyse("False, attention knows the order.")
    assert refuted(a, (2, 3, 4)) is False   # "attention knows order": "False" judges the question's statement
    assert refuted(analyse("It is false that attention knows the order."), (3, 4, 5)) is True


def test_negated_restatement_of_a_false_claim_counts_despite_question_words():
    rubric = compile_rubric({
        "question": "Dividing the scores changes which token gets the highest weight.",
        "max_points": 1,
        "criteria": [{"id": "verdict", "description": "false", "points": 1,
                      "concepts": [{"phrase": "chang* highest", "gap": 3, "polarity": "negated"}]}],
    })
    assert rubric.score("It doesn't change which token gets the highest weight; it softens it.").points == 1.0
    assert rubric.score("It changes which token gets the highest weight, as it said above, really.").points == 0.0


def test_backtracking_regexes_exponential_refused_at_upload_polynomial_warned():
    """Both shapes used to be accepted and cut off per search; an upload now refuses the
    exponential one and warns about the polynomial one (the per-answer time budget bounds it; it is
    tested in tests/hostile/test_rubric_uploads.py)."""
    from grader.rubric import RubricError, compile_rubric

    doc = {"id": "rx", "question": "Anything?", "max_points": 1,
           "criteria": [{"id": "c", "description": "d", "points": 1,
                         "concepts": [{"regex": "^(a?){30}a{30}$"}, {"regex": "a*a*a*a*a*a*b"}],
                         "require": "any"}]}
    with pytest.raises(RubricError) as info:
        compile_rubric(doc, upload=True)
    assert [e["path"] for e in info.value.errors] == ["criteria[0].concepts[0].regex"]
    warned = compile_rubric(doc).warnings
    assert [w["path"] for w in warned if w["path"].endswith(".regex")] == ["criteria[0].concepts[0].regex",
                                                                           "criteria[0].concepts[1].regex"]


@pytest.mark.parametrize("answer,verdict", [
    ("The statement is correct: attention sees every token at once.", "The statement is correct"),
    ("There is no error. Attention knows the order.", "There is no error"),
    ("Yes, this is right because the keys are blended.", "this is right"),
    ("Nothing's wrong with it.", "Nothing's wrong"),
    ("True. It reads one token at a time.", "True."),
    ("I think the claim is entirely valid, since dot products compare vectors.", "the claim is entirely valid"),
    ("The statement has no mistake in it.", "The statement has no mistake"),
    ("That's correct.", "That's correct"),
    ("There is no error. This is correct.", "There is no error"),
    ("Nothing is wrong. The statement is true.", "Nothing is wrong"),
])
def test_endorsing_verdicts_are_found(answer, verdict):
    span = endorsing_verdict(analyse(answer))
    assert span is not None and answer[span[0]:span[1]] == verdict


@pytest.mark.parametrize("answer", [
    "The statement is not correct: attention is permutation-equivariant.",
    "I don't think the statement is correct.",
    "It is true that attention sees every token, but it does not know their order.",
    "The statement is true only for the keys.",
    "The claim is correct, except that the values are blended, not the keys.",
    "Is the statement correct? No: the values are blended.",
    "Error: the blend is over the values; with values it is correct.",
    "There is an error: the output mixes the values.",
    "False. It is correct to blend values, not keys.",
    "Error: the output is a weighted sum of the values. This is correct because values carry the content.",
])
def test_refutations_concessions_and_fixes_are_not_endorsing_verdicts(answer):
    assert endorsing_verdict(analyse(answer)) is None


FALSE_STATEMENT = {
    "question": "Spot the error: the output is a weighted sum of the keys.",
    "max_points": 3,
    "statement": False,
    "criteria": [
        {"id": "values", "description": "values are blended", "points": 2, "concepts": ["value*"]},
        {"id": "keys-score", "description": "keys give the scores", "points": 1, "concepts": [{"phrase": "key* score*", "gap": 2}]},
    ],
    "misconceptions": [
        {"id": "other", "patterns": ["queries blended"], "penalty": 1, "message": "no"},
        {"id": "sum-of-keys", "patterns": [{"phrase": "sum key*", "gap": 2}], "penalty": 1, "message": "values, not keys"},
    ],
}


def test_an_endorsing_verdict_voids_every_criterion_and_fires_the_trap():
    score = compile_rubric({**FALSE_STATEMENT, "trap": "sum-of-keys"}).score(
        "The statement is right. Values are ignored; the keys give the scores.")
    assert [c.points for c in score.criteria] == [0.0, 0.0]
    fired = {m.id: (m.penalty, m.evidence) for m in score.misconceptions if m.matched}
    assert fired == {"sum-of-keys": (1.0, [[4, 22]])}  # the content words of "statement is right"
    assert score.points == 0.0


def test_the_trap_defaults_to_the_first_misconception_and_refutations_keep_full_marks():
    rubric = compile_rubric(FALSE_STATEMENT)
    assert [m.id for m in rubric.score("There is no error here.").misconceptions if m.matched] == ["other"]
    assert rubric.score("The statement is wrong: the values are blended, keys give the scores.").points == 3.0


def test_a_true_or_unmarked_statement_ignores_verdicts():
    unmarked = {k: v for k, v in FALSE_STATEMENT.items() if k != "statement"}
    assert compile_rubric(unmarked).score("The statement is correct: values and keys give scores.").points == 3.0
    assert compile_rubric({**unmarked, "statement": True}).score(
        "The statement is correct: values and keys give scores.").points == 3.0


# -- issue 12, part 2: guards that zeroed correct answers; tuning; which guard fired -------------------
TWO_OPTIONS = {
    "question": "Is softmax applied over the rows or over the columns of the score matrix?",
    "max_points": 2, "credit": {"base": 0, "near_miss": 0},
    "criteria": [{"id": "rows", "description": "over the rows (one distribution per query)", "points": 2,
                  "question_words": "allow", "concepts": ["row*"], "feedback": {}}],
    "misconceptions": [{"id": "columns", "patterns": ["column*"], "penalty": 2, "message": "rows, not columns"}],
}


@pytest.mark.parametrize("answer", ["Softmax is applied over the rows of the score matrix.",
                                    "Over the rows of the score matrix.", "The rows."])
def test_an_answer_choosing_one_option_of_the_question_is_not_a_copy(answer):
    # the reproduction: a full-credit answer repeating one of the two options was zeroed as a copy
    # of the question; it picks "rows" and not "columns": 2 of 2
    result = compile_rubric(TWO_OPTIONS).score(answer)
    assert (result.points, result.guards) == (2.0, [])


def test_the_whole_two_option_question_pasted_back_is_still_a_copy():
    result = compile_rubric(TWO_OPTIONS).score(TWO_OPTIONS["question"])
    assert result.points == 0.0 and [g["id"] for g in result.guards] == ["copies_question"]


CHAIN = {
    "question": "Where do the queries, keys and values come from?", "max_points": 2,
    "credit": {"base": 0, "near_miss": 0},
    "criteria": [{"id": "embeddings", "description": "projections of the token embeddings", "points": 2,
                  "concepts": [{"phrase": "token embedding*", "gap": 1}]}],
}


@pytest.mark.parametrize("answer", [
    "token -> embedding -> query, token -> embedding -> key, token -> embedding -> value",
    "token embedding -> W_Q -> query; token embedding -> W_K -> key; token embedding -> W_V -> value",
    "input -> token embedding -> projection -> query/key/value; token embedding -> projection again",
])
def test_a_terse_chain_of_terms_is_not_a_bag_of_keywords(answer):
    # 9+ content words, no function words, under 60 % distinct: the old guard zeroed it; no keyword
    # is repeated side by side, so it is scored: "token embedding" earns 2 of 2
    result = compile_rubric(CHAIN).score(answer)
    assert (result.points, result.guards) == (2.0, [])


def test_guards_can_be_switched_off_or_tuned_per_rubric(rubric):
    stuffing = "quadratic quadratic quadratic pairs pairs every pair expensive sparse"
    assert rubric.score(stuffing).points == 0.0
    off = compile_rubric({**RUBRIC, "guards": {"keyword_list": False}})
    assert (off.score(stuffing).points, off.score(stuffing).guards) == (4.0, [])
    pasted = " ".join([GOOD] * 3)
    lenient = compile_rubric({**RUBRIC, "guards": {"repetition": {"max_repeated_share": 0.9}}})
    assert lenient.score(pasted).points == 4.0          # 67 % repeated is under the tuned 90 %
    strict = compile_rubric({**RUBRIC, "guards": {"keyword_list": {"min_adjacent_repeats": 4}}})
    assert strict.score(stuffing).points == 4.0         # 3 side-by-side repeats are under 4


@pytest.mark.parametrize("guards,path", [
    ({"keyword_list": {"min_words": "six"}}, "guards.keyword_list.min_words"),
    ({"keyword_list": {"colour": 1}}, "guards.keyword_list.colour"),
    ({"repetition": "yes"}, "guards.repetition"),
    ({"spelling": False}, "guards.spelling"),
])
def test_guard_settings_are_validated_with_their_path(guards, path):
    from grader.rubric import RubricError

    with pytest.raises(RubricError) as info:
        compile_rubric({**RUBRIC, "guards": guards})
    assert [e["path"] for e in info.value.errors] == [path]


def test_the_trial_report_says_which_guard_fired_on_which_answer(rubric):
    from grader.rubric import trial_report

    responses = [{"id": "good", "text": GOOD, "mark": 4},
                 {"id": "stuffed", "text": "quadratic quadratic quadratic pairs pairs every pair expensive sparse",
                  "mark": 0},
                 {"id": "copy", "text": RUBRIC["question"], "mark": 0},
                 {"id": "pasted", "text": " ".join([GOOD] * 3), "mark": 2}]
    report = trial_report(rubric, responses)
    assert report["guards"] == [{"id": "keyword_list", "fired": 1, "responses": ["stuffed"]},
                                {"id": "copies_question", "fired": 1, "responses": ["copy"]},
                                {"id": "repetition", "fired": 1, "responses": ["pasted"]}]
    assert [row["guards"] for row in report["over_marked"] + report["under_marked"]] == []
    assert report["agreement"]["rmse"] == pytest.approx(((1.3332 - 2) ** 2 / 4) ** 0.5, abs=1e-4)
