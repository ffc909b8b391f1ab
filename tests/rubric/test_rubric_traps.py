"""Issue 12, part 1: silent traps of the rubric language become errors or warnings (at upload, in
the trial report and in `grader rubric trial`), or simply work."""
from __future__ import annotations

import json

import pytest

from grader.rubric import RubricError, compile_rubric, parse_rubric, trial_report


def one(concept, question="Which function turns scores into weights?", **extra):
    """A one-criterion rubric (1 point) with base credit and near misses off, so a score is the
    criterion alone."""
    return compile_rubric({"question": question, "max_points": 1, "credit": {"base": 0, "near_miss": 0},
                           "criteria": [{"id": "c", "description": "d", "points": 1, "concepts": [concept]}],
                           **extra})


# -- a hyphenated alternative with a wildcard -------------------------------------------------------
@pytest.mark.parametrize("answer", ["softmax", "Softmaxed rows", "soft-max", "soft max", "normalise", "normalised"])
def test_hyphenated_wildcard_alternative_no_longer_disables_its_list(answer):
    # the reproduction matched nothing, not even "softmax": the hyphenated alternative swallowed
    # the rest of the list; each alternative now matches on its own (1 of 1 point)
    assert one("softmax*|soft-max*|normalis*").score(answer).points == 1.0


@pytest.mark.parametrize("concept,answer,points", [
    ("one-hot", "a one-hot vector", 1.0), ("one-hot", "a one hot vector", 1.0), ("one-hot", "onehot", 1.0),
    ("one-hot", "hot", 0.0),                     # a part of the word is not the word
    ("low-rank*", "a low-ranking matrix", 1.0), ("low-rank*", "lowrank", 1.0),
])
def test_hyphenated_alternatives_match_split_spaced_and_joined(concept, answer, points):
    assert one(concept).score(answer).points == points


# -- | binds tighter than a space -------------------------------------------------------------------
def test_precedence_of_bar_over_space_is_kept_and_warned_about():
    rubric = one("dot product*|similarity|inner product|score")
    # the defined reading: "dot", then product*|similarity|inner, then product|score
    assert rubric.score("the dot product score").points == 1.0
    assert rubric.score("a similarity").points == 0.0
    assert rubric.warnings == [{"path": "criteria[0].concepts[0]", "message": (
        "'|' binds tighter than a space: 'dot product*|similarity|inner product|score' reads as dot then "
        "(product* | similarity | inner) then (product | score). If you meant alternatives of several words, "
        'list them: any: ["dot product*", "similarity", "inner product", "score"]')}]


@pytest.mark.parametrize("concept,path", [
    ({"any": ["softmax", "data member*|attribut*"]}, "criteria[0].concepts[0].any[1]"),
    ({"phrase": "weights sum|add one|1", "gap": 3}, "criteria[0].concepts[0]"),
])
def test_every_phrase_mixing_bars_and_spaces_is_warned_about(concept, path):
    assert [w["path"] for w in one(concept).warnings] == [path]


def test_bar_in_a_synonym_entry_is_warned_about_once():
    rubric = one("@sim", synonyms={"sim": ["dot product|similarity", "cosine"]})
    assert [w["path"] for w in rubric.warnings] == ["synonyms.sim[0]"]


def test_phrases_without_a_bar_and_space_mix_give_no_warning():
    assert one({"any": ["softmax|normalis*", "dot product", "@not learned"]}).warnings == []


def test_warnings_are_in_the_trial_report_and_the_upload_response(client):
    rubric = one("dot product*|similarity|inner product|score")
    report = trial_report(rubric, [{"text": "dot product score", "mark": 1}])
    assert report["warnings"] == rubric.warnings
    text = """
id: traps
question: What normalises the scores?
max_points: 1
criteria:
  - {id: c, description: d, points: 1, concepts: ["dot product*|similarity|inner product|score"]}
"""
    resp = client.post("/api/v1/rubrics", data=text, content_type="application/yaml")
    assert resp.status_code == 201
    assert [w["path"] for w in resp.get_json()["warnings"]] == ["criteria[0].concepts[0]"]
    assert client.get("/api/v1/rubrics/traps").get_json()["warnings"] == resp.get_json()["warnings"]
    trial = client.post("/api/v1/rubrics/traps/trial", json={"responses": [{"text": "similarity", "mark": 1}]})
    assert [w["path"] for w in trial.get_json()["warnings"]] == ["criteria[0].concepts[0]"]


def test_grader_rubric_trial_prints_the_warnings(tmp_path, capsys):
    from grader.cli import main

    (tmp_path / "r.yaml").write_text(
        "question: What normalises the scores?\nmax_points: 1\ncriteria:\n"
        '  - {id: c, description: d, points: 1, concepts: ["dot product*|similarity|inner product|score"]}\n')
    (tmp_path / "m.json").write_text(json.dumps([{"text": "dot product score", "mark": 1}]))
    assert main(["rubric", "trial", str(tmp_path / "r.yaml"), str(tmp_path / "m.json")]) == 0
    out = capsys.readouterr().out
    assert "warning criteria[0].concepts[0]: '|' binds tighter than a space" in out


# -- the one-typo tolerance of wildcards ----------------------------------------------------------------
@pytest.mark.parametrize("concept,answer", [
    ("quadratic*", "quadradic"), ("quadratic", "quadradic"),   # the reproduction: both match now
    ("quadratic*", "qaudratic"), ("quadratic", "qaudratic"),   # a transposition
    ("quadratic*", "quadraticaly"), ("normalis*", "normalsation"),
])
def test_wildcards_keep_the_one_typo_tolerance_of_plain_words(concept, answer):
    assert one(concept, question="How does the cost grow?").score(answer).points == 1.0


# -- YAML reads some unquoted words as something else ---------------------------------------------------
@pytest.mark.parametrize("field,value,hint", [
    ("id", "null", 'YAML reads an unquoted null, ~ or a missing value as no value: to mean the word, quote it'),
    ("id", "~", "YAML reads an unquoted null"),
    ("description", "yes", "YAML reads an unquoted yes/no/on/off/true/false as the boolean true"),
    ("id", "1.5", 'YAML reads 1.5 as a number: to mean the text, quote it, e.g. "1.5"'),
])
def test_yaml_values_that_are_not_text_say_how_to_quote_them(field, value, hint):
    text = ("question: q\nmax_points: 1\ncriteria:\n"
            f"  - id: {'c' if field != 'id' else value}\n"
            f"    description: {'d' if field != 'description' else value}\n"
            "    points: 1\n    concepts: [x]\n")
    with pytest.raises(RubricError) as info:
        compile_rubric(parse_rubric(text))
    [error] = [e for e in info.value.errors if e["path"] == f"criteria[0].{field}"]
    assert hint in error["message"]


def test_a_no_in_a_synonym_list_says_to_quote_it():
    with pytest.raises(RubricError) as info:
        compile_rubric(parse_rubric("question: q\nmax_points: 1\nsynonyms: {neg: [no, not]}\n"
                                    "criteria: [{id: c, description: d, points: 1, concepts: ['@neg x']}]\n"))
    assert info.value.errors[0]["path"] == "synonyms.neg[0]"
    assert "the boolean false: to mean the word, quote it" in info.value.errors[0]["message"]


# -- other silent non-matches -------------------------------------------------------------------------
def test_a_concept_made_only_of_question_words_is_warned_about():
    rubric = one({"any": ["what function does", "body"]}, question="What does a function definition include?")
    assert rubric.warnings[0]["path"] == "criteria[0].concepts[0].any[0]"
    assert "every word of this alternative is a word of the question" in rubric.warnings[0]["message"]


def test_a_reference_answer_that_misses_a_criterion_is_warned_about():
    rubric = one("softmax", reference_answer="The normalising function is applied row by row.")
    assert rubric.warnings == [{"path": "reference_answer", "message": (
        "the reference answer does not meet c (it earns 0 of 1): check those criteria's wording")}]


def test_an_unused_synonym_set_is_warned_about():
    assert one("softmax", synonyms={"sim": ["similarity"]}).warnings == [
        {"path": "synonyms.sim", "message": "synonym set @sim is never used"}]
