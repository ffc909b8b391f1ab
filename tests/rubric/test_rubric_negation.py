"""Issue 12, part 3: negation read like a person reads it - not too far, not missed - and
exclusions a rubric can state ("masked" is not "un-masked")."""
from __future__ import annotations

from pathlib import Path

import pytest

from grader.rubric import RubricError, compile_rubric, load_rubric_file
from grader.rubric.analysis import analyse

Q5 = load_rubric_file(Path(__file__).resolve().parents[2] / "rubrics" / "text" / "seed000-q5-quadratic-cost.yaml")


def negated_words(text):
    a = analyse(text)
    return [w for w, n in zip(a.surface, a.neg) if n >= 0]


# -- too far: the scope stops at a coordinating conjunction that starts a new verb phrase -----------
@pytest.mark.parametrize("text,negated", [
    ("the mask is not fixed and can grow with the sequence", ["fixed"]),        # the reproduction
    ("the weights are not stored and are computed per input", ["stored"]),
    ("it is not learned, and it changes with every input", ["learned"]),      # a comma ends it anyway
    ("the cost is not linear or will not stay small", ["linear", "stay", "small"]),  # the second not
    ("it is not fixed and static", ["fixed", "static"]),                       # no new verb phrase: both
])
def test_negation_scope_stops_where_a_new_verb_phrase_starts(text, negated):
    assert negated_words(text) == negated


def test_the_mask_example_earns_the_growth_criterion():
    rubric = compile_rubric({
        "question": "Is the causal mask the same size for every input?", "max_points": 2,
        "credit": {"base": 0, "near_miss": 0},
        "criteria": [{"id": "grows", "description": "it grows with the sequence", "points": 2,
                      "concepts": [{"phrase": "grow* sequence|length", "gap": 2}]}],
        "misconceptions": [{"id": "fixed", "patterns": ["mask fixed"], "penalty": 1, "message": "It is not."}],
    })
    # "grow" is no longer negated (2 points); "not fixed" is negated, so no misconception
    result = rubric.score("The mask is not fixed and can grow with the sequence.")
    assert (result.points, [m.matched for m in result.misconceptions]) == (2.0, [False])


# -- not at all: negations of several words, and hardly/scarcely/barely ------------------------------
FULL = ("Every token is compared with every other token, so the cost is quadratic. Long sequences are {} "
        "cheap; they become prohibitively expensive, which is why sparse attention exists.")


@pytest.mark.parametrize("negation", ["far from", "anything but", "by no means", "in no way", "hardly",
                                      "scarcely", "barely", "no longer"])
def test_negations_of_several_words_keep_the_cheap_misconception_from_firing(negation):
    # the reproduction: "far from cheap" fired long-sequences-cheap (-1) and voided long-sequences
    # (-1): 3/5 instead of 5/5. all-pairs 2 + quadratic-growth 1 + long-sequences 1 + remedies 1 = 5
    result = Q5.score(FULL.format(negation))
    assert [m.id for m in result.misconceptions if m.matched] == []
    assert result.points == 5.0


def test_without_the_negation_the_cheap_claim_still_fires():
    # the same answer saying long sequences *are* cheap: -1 and long-sequences voided: 2+1+0+1-1 = 3
    result = Q5.score(FULL.format("quite"))
    assert [m.id for m in result.misconceptions if m.matched] == ["long-sequences-cheap"]
    assert result.points == 3.0


@pytest.mark.parametrize("text,negated", [
    ("tokens far from the query still get weight", []),        # a distance, not a negation
    ("it fails to scale to long inputs", ["scale", "long", "inputs"]),
    ("the model is unable to see future tokens", ["see", "future", "tokens"]),
    ("it is not at all quadratic", ["quadratic"]),
])
def test_multiword_cues_and_their_look_alikes(text, negated):
    assert negated_words(text) == negated


# -- contractions answer to a rubric's "not" --------------------------------------------------------
@pytest.mark.parametrize("answer", ["when you don't define one", "when you dont define one",
                                    "if the class doesn't define any", "when one is not defined"])
@pytest.mark.parametrize("phrase", ["not|n't defin*", "not defin*"])
def test_a_rubric_not_matches_every_spelling_of_not(answer, phrase):
    rubric = compile_rubric({"question": "When does C++ create a default constructor?", "max_points": 1,
                             "credit": {"base": 0, "near_miss": 0},
                             "criteria": [{"id": "c", "description": "d", "points": 1,
                                           "concepts": [{"phrase": phrase, "gap": 2}]}]})
    assert rubric.score(answer).points == 1.0


# -- an exclusion a rubric can state: not right after these words ------------------------------------
def excluding(concept):
    return compile_rubric({"question": "Which attention weights are forced to zero?", "max_points": 1,
                           "credit": {"base": 0, "near_miss": 0},
                           "criteria": [{"id": "c", "description": "d", "points": 1, "concepts": [concept]}]})


@pytest.mark.parametrize("answer,points", [
    ("only the masked positions get zero weight", 1.0),
    ("the un-masked positions get the weight", 0.0),
    ("the un masked positions", 0.0),
    ("masked, un-masked: both kinds appear", 1.0),      # the first mention is not excluded
])
def test_not_after_excludes_a_match_right_after_the_listed_words(answer, points):
    assert excluding({"phrase": "masked", "not_after": "un|non"}).score(answer).points == points


@pytest.mark.parametrize("answer,points", [
    ("the scaling factor is constant", 1.0),
    ("a non-constant factor", 0.0),
    ("a non constant factor", 0.0),
    ("a non–constant factor", 1.0),  # an en dash is punctuation between two words, not a prefix
])
def test_not_after_in_a_list_and_inherited_from_the_criterion(answer, points):
    rubric = compile_rubric({"question": "What does the causal mask do?", "max_points": 1,
                             "credit": {"base": 0, "near_miss": 0},
                             "criteria": [{"id": "c", "description": "d", "points": 1, "not_after": ["non"],
                                           "concepts": [{"any": ["constant", "fixed"]}]}]})
    assert rubric.score(answer).points == points


def test_without_not_after_the_old_meaning_is_kept():
    # a rubric valid today means the same: "constant" still matches inside "non-constant"
    assert excluding("constant").score("a non-constant factor").points == 1.0


# -- issue 22 item 2: @not next to a synonym set counts every negation word ---------------------
MEMORY = {
    "question": "Why can a linked list grow where an array cannot?", "max_points": 2,
    "credit": {"base": 0, "near_miss": 0},
    "synonyms": {"limit": ["constraint*", "limit*", "restriction*", "bound*", "fixed size"]},
    "criteria": [{"id": "no-limit", "description": "no memory limit", "points": 2,
                  "concepts": [{"phrase": "@not memory @limit", "gap": 2}]}],
}


@pytest.mark.parametrize("answer, points", [
    # 44 negation words x 5 limits were cut at 64 variants: only ain't ... doesnt survived
    ("Linked lists do not have a memory constraint.", 2),
    ("there is no memory limit", 2),
    ("it never hits a memory restriction", 2),
    ("it grows without any memory bound", 2),
    ("it doesn't have a memory constraint", 2),
    ("it has a memory limit", 0),
])
def test_not_beside_a_synonym_set_counts_every_negation_word(answer, points):
    assert compile_rubric(MEMORY).score(answer).points == points


ORDER = {
    "question": "Does self-attention know the order of its input?", "max_points": 1,
    "credit": {"base": 0, "near_miss": 0}, "synonyms": {"order": ["order", "position", "word order"]},
    "criteria": [{"id": "no-order", "description": "it does not know the order", "points": 1,
                  "question_words": "allow", "concepts": ["@not know* @order"]}],
}


@pytest.mark.parametrize("answer, points", [
    ("Attention does not know the order.", 1),
    ("Attention doesn't know the order.", 1),
    ("It doesn't know the word order.", 1),
    ("self-attention cannot know positions", 1),
    ("Attention knows the order.", 0),
])
def test_a_new_instructors_not_phrase_matches_not_as_well_as_contractions(answer, points):
    assert compile_rubric(ORDER).score(answer).points == points


def test_a_phrase_of_too_many_variants_is_refused_at_upload_and_warned_about_when_stored():
    doc = {"question": "q?", "max_points": 1,
           "synonyms": {"pair": [f"alpha{i} beta{i}" for i in range(11)]},  # two words each: 11 sequences
           "criteria": [{"id": "c", "description": "d", "points": 1, "concepts": ["@pair @pair @pair"]}]}
    with pytest.raises(RubricError) as exc:
        compile_rubric(doc, upload=True)
    assert exc.value.errors[0]["path"] == "criteria[0].concepts[0]"
    assert "'@pair @pair @pair' stands for 1,331 word sequences" in exc.value.errors[0]["message"]
    stored = compile_rubric(doc)
    assert any(w["path"] == "criteria[0].concepts[0]" and "only its first 1,000 are matched" in w["message"]
               for w in stored.warnings)
    assert stored.score("alpha0 beta0 alpha1 beta1 alpha2 beta2").points == 1


# -- "without" with a pronoun object negates only the pronoun (issue 22 item 5) ------------------
@pytest.mark.parametrize("text,negated", [
    ("Without it the scores grow with d_k", []),                 # it: the scaling; the scores do grow
    ("without them the model fails", []),
    ("attention works without positional encodings", ["positional", "encodings"]),  # a noun object
    ("it works without this scaling", ["scaling"]),              # 'this' is a determiner here
])
def test_without_a_pronoun_negates_only_the_pronoun(text, negated):
    assert negated_words(text) == negated
