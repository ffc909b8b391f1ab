"""Rubric validation: every error, with its path."""
import pytest

from grader.rubric import RubricError, compile_rubric, parse_rubric

VALID = """
question: Why scale by sqrt(d_k)?
max_points: 2
criteria:
  - id: variance
    description: variance grows with d_k
    points: 1
    concepts: ["variance grows"]
  - id: saturation
    description: softmax saturates
    points: 1
    concepts: [{any: ["saturat*", "one-hot"]}]
"""


def errors_of(doc):
    with pytest.raises(RubricError) as info:
        compile_rubric(doc)
    return {(e["path"], e["message"]) for e in info.value.errors}


def test_valid_yaml_and_json_compile_to_the_same_scores():
    import json
    doc = parse_rubric(VALID, "yaml")
    from_json = parse_rubric(json.dumps(doc), None)
    text = "its variance grows and softmax saturates"
    assert compile_rubric(doc).score(text).points == compile_rubric(from_json).score(text).points == 2


def test_all_errors_are_reported_with_paths():
    doc = parse_rubric(VALID)
    doc["criteria"][1]["concepts"] = [{"any": ["ok", "  "]}, ""]
    doc["criteria"][0]["points"] = -1
    doc["criteria"][0]["colour"] = "red"
    errs = errors_of(doc)
    paths = {p for p, _ in errs}
    assert ("criteria[1].concepts[0].any[1]", "empty phrase") in errs
    assert ("criteria[1].concepts[1]", "empty phrase") in errs
    assert "criteria[0].points" in paths
    assert "criteria[0].colour" in paths


def test_points_must_add_up_to_max_points():
    doc = parse_rubric(VALID)
    doc["max_points"] = 3
    assert any(p == "max_points" and "add up to 2" in m for p, m in errors_of(doc))


def test_semantic_errors_have_paths():
    doc = parse_rubric(VALID)
    doc["criteria"][0]["concepts"] = ["the of", "@nope", {"regex": "("}, "a*"]
    errs = errors_of(doc)
    paths = {p for p, _ in errs}
    assert "criteria[0].concepts[2].regex" in paths    # schema error: invalid regular expression


def test_compile_errors_are_collected_not_first_only():
    doc = parse_rubric(VALID)
    doc["criteria"][0]["concepts"] = ["the of", "@nope", "ab*"]
    errs = errors_of(doc)
    assert {p for p, _ in errs} == {"criteria[0].concepts[0]", "criteria[0].concepts[1]", "criteria[0].concepts[2]"}


def test_trailing_spaces_in_phrases_are_stripped():
    doc = parse_rubric(VALID)
    doc["synonyms"] = {"sat": ["saturates ", " one hot"]}
    doc["criteria"][1]["concepts"] = ["softmax @sat"]
    assert compile_rubric(doc).score("softmax saturates").criteria[1].met


def test_unparseable_text_is_a_rubric_error():
    with pytest.raises(RubricError) as info:
        parse_rubric("criteria: [", "yaml")
    assert info.value.errors[0]["path"] == ""


def test_duplicate_criterion_ids_rejected():
    doc = parse_rubric(VALID)
    doc["criteria"][1]["id"] = "variance"
    assert ("criteria[1].id", "duplicate id 'variance'") in errors_of(doc)


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|aa)*", r"(.)\1", "x" * 400])
def test_dangerous_or_oversized_regex_is_refused_at_upload_and_loads_when_stored(pattern):
    doc = parse_rubric(VALID)
    doc["criteria"][0]["concepts"] = [{"regex": pattern}]
    with pytest.raises(RubricError) as info:
        compile_rubric(doc, upload=True)
    assert {e["path"] for e in info.value.errors} == {"criteria[0].concepts[0].regex"}
    # a rubric stored before the check (any version before 0b86145 took it) still loads, warned
    stored = compile_rubric(doc)
    assert "criteria[0].concepts[0].regex" in {w["path"] for w in stored.warnings}


def test_a_regex_that_does_not_parse_is_refused_stored_or_not():
    doc = parse_rubric(VALID)
    doc["criteria"][0]["concepts"] = [{"regex": "(unclosed"}]
    assert {p for p, _ in errors_of(doc)} == {"criteria[0].concepts[0].regex"}


def test_ordinary_regex_is_accepted():
    doc = parse_rubric(VALID)
    doc["criteria"][0]["concepts"] = [{"regex": r"\bn\s*\^\s*2\b"}]
    assert compile_rubric(doc).score("cost n ^ 2 and softmax saturates").points == 2


def test_oversized_rubrics_are_refused_with_the_field():
    doc = parse_rubric(VALID)
    doc["criteria"] = [{"id": f"c{i}", "description": "d", "points": 1, "concepts": [f"word{i}"]}
                       for i in range(101)]
    doc["max_points"] = 101
    assert "criteria" in {p for p, _ in errors_of(doc)}


def test_deeply_nested_concepts_are_refused():
    concept = "leaf"
    for _ in range(20):
        concept = {"any": [concept]}
    doc = parse_rubric(VALID)
    doc["criteria"][0]["concepts"] = [concept]
    assert any("nest at most" in m for _, m in errors_of(doc))


def test_absurdly_nested_document_is_a_rubric_error_not_a_crash():
    with pytest.raises(RubricError, match="nested too deeply"):
        parse_rubric("[" * 50_000 + "]" * 50_000, "json")


def test_one_pass_reports_missing_question_points_sum_and_unknown_synonym():
    doc = parse_rubric(VALID)
    del doc["question"]
    doc["max_points"] = 5
    doc["criteria"][0]["concepts"] = ["@quad"]
    errs = errors_of(doc)
    assert ("question", "Missing data for required field.") in errs
    assert any(p == "max_points" and "add up to 2" in m for p, m in errs)
    assert any(p == "criteria[0].concepts[0]" and "unknown synonym @quad" in m for p, m in errs)


@pytest.mark.parametrize("field", ["max_points", "points", "penalty"])
@pytest.mark.parametrize("value", [1e308, float("inf"), 1001])
def test_points_are_finite_and_at_most_1000(field, value):
    doc = parse_rubric(VALID)
    doc["misconceptions"] = [{"id": "m", "patterns": ["wrong"], "penalty": 1, "message": "no"}]
    target = {"max_points": doc, "points": doc["criteria"][0],
              "penalty": doc["misconceptions"][0]}[field]
    target[field] = value
    paths = {p for p, _ in errors_of(doc)}
    expected = {"max_points": "max_points", "points": "criteria[0].points",
                "penalty": "misconceptions[0].penalty"}[field]
    assert expected in paths


def test_voids_must_name_a_criterion():
    doc = parse_rubric(VALID)
    doc["misconceptions"] = [{"id": "m", "patterns": ["wrong"], "penalty": 1, "message": "no",
                              "voids": ["variance", "nope"]}]
    assert {p for p, _ in errors_of(doc)} == {"misconceptions[0].voids[1]"}


def test_trap_must_name_a_misconception_of_a_false_statement():
    doc = {"question": "Spot the error: q.", "max_points": 1, "trap": "nope",
           "criteria": [{"id": "a", "description": "a", "points": 1, "concepts": ["alpha"]}],
           "misconceptions": [{"id": "m", "patterns": ["beta"], "penalty": 1, "message": "m"}]}
    with pytest.raises(RubricError) as exc:
        compile_rubric(doc)
    assert sorted(e["message"] for e in exc.value.errors if e["path"].startswith("trap")) == [
        "trap needs statement: false", "unknown misconception 'nope'"]
    assert compile_rubric({**doc, "statement": False, "trap": "m"}).score("Nothing is wrong.").points == 0.0


@pytest.mark.parametrize("length", [1, 80, 81, 100])
def test_rubric_and_criterion_ids_of_1_to_100_characters_are_accepted(length):
    """One id pattern for assignments, items and rubrics (grader/ids.py): rubric ids allowed 80
    characters, the others 100; the longer limit refuses nothing valid before."""
    doc = parse_rubric(VALID, "yaml")
    doc["id"] = "r" * length
    doc["criteria"][0]["id"] = "c" * length
    assert compile_rubric(doc).id == "r" * length


@pytest.mark.parametrize("bad", ["r" * 101, "-starts-with-a-dash", "has space", ""])
def test_rubric_and_criterion_ids_outside_the_pattern_are_refused(bad):
    doc = parse_rubric(VALID, "yaml")
    doc["id"] = bad
    doc["criteria"][0]["id"] = bad
    assert {path for path, _ in errors_of(doc)} == {"id", "criteria[0].id"}
