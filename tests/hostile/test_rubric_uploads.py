"""Rubric uploads and trials that try to burn CPU (issue 10, part 4): each reproduction and at
least two variants of each kind are refused quickly, or stopped by the time budgets.

Kinds: YAML alias bombs (and other documents that expand when walked), synonym sets that expand
exponentially, regular expressions that backtrack, too many regular expressions, answers that make
a rubric within the limits slow, and trials that would hold a request thread.
"""
from __future__ import annotations

import json
import time

import pytest

from grader.rubric import (RubricError, ScoringTimeout, TrialTooSlow, compile_rubric, parse_rubric,
                           trial_report)
from grader.rubric.budget import SCORE_BUDGET_SECONDS, collector_seconds
from grader.rubric.schema import MAX_DOCUMENT_NODES, MAX_REGEX_CONCEPTS

# Generous bounds for containment (the work takes milliseconds); they are not speed targets. Times
# are CPU time of this process (the budgets count CPU time, so a busy machine does not move them);
# the trial's total budget is wall-clock time (it bounds how long a request thread is held).
REFUSE_WITHIN = 1.0
BUDGET_SLACK = 0.5


def cpu() -> float:
    """CPU seconds of this thread outside full garbage collections: what the budgets count (the
    process's CPU time also holds other threads' work in a long test run)."""
    return time.thread_time() - collector_seconds()


def alias_bomb(levels: int, per_level: int) -> str:
    """A rubric whose only concept is ``levels`` nested any-groups, each listing the previous one
    ``per_level`` times through a YAML alias: per_level ** levels phrases once expanded."""
    lines = ['a0: &a0 "x y"']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} {{any: [" + ",".join([f"*a{i - 1}"] * per_level) + "]}")
    return ("x: {" + ", ".join(lines) + "}\nquestion: q\nmax_points: 1\n"
            f"criteria: [{{id: c, description: d, points: 1, concepts: [*a{levels}]}}]\n")


def refused(text: str, fmt: str | None = None) -> tuple[list[dict], float]:
    started = cpu()
    with pytest.raises(RubricError) as info:
        compile_rubric(parse_rubric(text, fmt))
    return info.value.errors, cpu() - started


# -- YAML alias bombs ----------------------------------------------------------------------------
@pytest.mark.parametrize("levels,per_level", [(6, 6), (6, 8), (9, 9)])
def test_yaml_alias_bomb_is_refused_before_anything_is_built(levels, per_level):
    # 6 levels of 6 aliases = 6**6 = 46,656 phrases once expanded (> 20,000 values): the
    # reproduction (about 360 bytes; it cost 37-45 s of CPU per upload); 8 per level did not finish
    text = alias_bomb(levels, per_level)
    assert len(text.encode()) < 600
    errors, seconds = refused(text)
    assert seconds < REFUSE_WITHIN
    assert errors == [{"path": "", "message": f"the rubric document has more than {MAX_DOCUMENT_NODES:,} "
                       "values once its YAML aliases (*name) are expanded; split it or remove repeated aliases"}]


def test_recursive_yaml_alias_is_refused():
    errors, seconds = refused("question: q\nmax_points: 1\nloop: &a [x, *a]\ncriteria: []\n")
    assert seconds < REFUSE_WITHIN
    assert "refers to the node that defines its anchor" in errors[0]["message"]


def test_alias_bomb_through_merge_keys_and_synonyms_is_refused():
    # the same kind through "<<" merge keys feeding a synonym list
    lines = ["s0: &s0 {k0: [a, b, c, d, e, f, g, h]}"]
    for i in range(1, 6):
        merged = ", ".join(f"k{i}{j}: *s{i - 1}" for j in range(8))
        lines.append(f"s{i}: &s{i} {{{merged}}}")
    text = "z: {" + ", ".join(lines) + "}\nquestion: q\nmax_points: 1\nsynonyms: {x: [a]}\n" \
           "criteria: [{id: c, description: d, points: 1, concepts: [a]}]\nextra: *s5\n"
    errors, seconds = refused(text)
    assert seconds < REFUSE_WITHIN
    assert "once its YAML aliases" in errors[0]["message"]


def test_small_aliases_still_work():
    # a rubric valid today that reuses a list through an alias keeps working
    text = """
question: Why scale?
max_points: 2
x-alts: &alts ["variance", "spread"]
criteria:
  - {id: a, description: a, points: 1, concepts: [{any: *alts}]}
  - {id: b, description: b, points: 1, concepts: [{all: *alts}]}
"""
    doc = parse_rubric(text)
    doc.pop("x-alts")
    assert compile_rubric(doc).score("the variance and the spread grow").points == 2


def test_oversized_json_document_is_refused_without_validation():
    # JSON has no aliases, but a large body is walked by validation too: the same node cap applies
    doc = {"question": "q", "max_points": 1,
           "criteria": [{"id": "c", "description": "d", "points": 1, "concepts": ["x"] * 25_000}]}
    errors, seconds = refused(json.dumps(doc), "json")
    assert seconds < REFUSE_WITHIN
    assert errors[0]["message"].startswith(f"the rubric document has more than {MAX_DOCUMENT_NODES:,} values")


def test_yaml_bomb_upload_answers_422_quickly(client):
    started = cpu()
    resp = client.post("/api/v1/rubrics", data=alias_bomb(6, 6), content_type="application/yaml")
    elapsed = cpu() - started
    assert resp.status_code == 422
    assert resp.get_json()["code"] == "invalid_rubric"
    assert "YAML aliases" in resp.get_json()["message"]
    assert elapsed < REFUSE_WITHIN


# -- synonyms that expand exponentially (same kind: an upload that burns CPU) ----------------------
@pytest.mark.parametrize("depth,width,error", [
    (5, 10, None),            # 39 s of CPU before synonym sets were expanded once each
    (19, 100, "expands (synonyms included) to more than 32 words"),
    (3, 100, None),
])
def test_nested_synonym_sets_compile_in_milliseconds(depth, width, error):
    synonyms = {f"s{i}": [f"@s{i + 1} @s{i + 1}"] * width for i in range(depth)}
    synonyms[f"s{depth}"] = ["word"]
    doc = {"question": "q", "max_points": 1, "synonyms": synonyms,
           "criteria": [{"id": "c", "description": "d", "points": 1, "concepts": ["@s0"]}]}
    started = cpu()
    if error is None:
        rubric = compile_rubric(doc)
        # @s0 stands for 2**depth copies of "word" in a row: that many match, one fewer does not
        assert rubric.score(" ".join(["word"] * 2 ** depth)).criteria[0].met
        assert not rubric.score(" ".join(["word"] * (2 ** depth - 1))).criteria[0].met
    else:
        with pytest.raises(RubricError) as info:
            compile_rubric(doc)
        assert any(error in e["message"] for e in info.value.errors)
    assert cpu() - started < REFUSE_WITHIN


# -- regular expressions that backtrack ----------------------------------------------------------
def regex_rubric(patterns_per_criterion: list[list[str]]) -> dict:
    return {"question": "q", "max_points": len(patterns_per_criterion),
            "criteria": [{"id": f"c{i}", "description": "d", "points": 1, "require": "any",
                          "concepts": [{"regex": p} for p in patterns]}
                         for i, patterns in enumerate(patterns_per_criterion)]}


def test_issue_reproduction_overlapping_repeats_times_fifty_is_refused():
    pattern = r"\w*\w*\w*\w*\w*\d\b"
    started = cpu()
    with pytest.raises(RubricError) as info:  # 100 regexes: over the cap, refused before any is parsed
        compile_rubric(regex_rubric([[pattern] * 50, [pattern] * 50]))
    assert cpu() - started < REFUSE_WITHIN
    assert info.value.errors == [{"path": f"criteria[0].concepts[{MAX_REGEX_CONCEPTS}]", "message": (
        f"a rubric has at most {MAX_REGEX_CONCEPTS} regular-expression concepts (each is searched in every "
        "answer); use phrases")}]
    # once, the pattern is accepted with a warning: polynomial, and every answer's budget bounds it
    warnings = compile_rubric(regex_rubric([[pattern]]), upload=True).warnings
    assert [w["path"] for w in warnings] == ["criteria[0].concepts[0].regex"]
    assert "polynomial time" in warnings[0]["message"]


@pytest.mark.parametrize("pattern,reason", [
    (r"\w*\w*", "polynomial time"),
    (r"\d+\.?\d+", "polynomial time"),                 # nullable item between the repeats
    (r"[a-z]+\b\w*", "polynomial time"),               # zero-width item between, overlapping sets
    (r"x{0,28}x{0,28}", "polynomial time"),            # bounded but variable
    (r"(?:foo\w*)\w+", "polynomial time"),             # the first repeat ends inside a group
    (r"a.*b.*c.*d.*e.*z", "polynomial time"),          # mandatory items the first repeat can take
    (r"(?:x?){28}x{28}", "exponential time"),          # Cox's a?^n a^n
    (r"^(a?){30}a{30}$", "exponential time"),
    ("x?" * 28 + "x" * 28, "exponential time"),         # written out
    (r"(?:ab?)+", "exponential time"),
    (r"(a+)+", "exponential time"),
    (r"(a|aa)*", "exponential time"),
])
def test_backtracking_regex_shapes_are_refused_or_warned_at_upload(pattern, reason):
    """Exponential shapes are refused at upload; polynomial ones are accepted with a warning (the
    per-answer CPU budget bounds them, as it bounds a stored rubric's exponential one, which loads
    with a warning: issue 22 item 3)."""
    if reason == "exponential time":
        with pytest.raises(RubricError) as info:
            compile_rubric(regex_rubric([[pattern]]), upload=True)
        assert info.value.errors[0]["path"] == "criteria[0].concepts[0].regex"
        assert reason in info.value.errors[0]["message"]
    for upload in ((False, True) if reason == "polynomial time" else (False,)):
        warnings = compile_rubric(regex_rubric([[pattern]]), upload=upload).warnings
        assert warnings[0]["path"] == "criteria[0].concepts[0].regex"
        assert reason in warnings[0]["message"]


@pytest.mark.parametrize("pattern", [
    r"^\W*(true|correct|yes)\b", r"\b1\s*/\s*(n|L|T)\b", r"\d+(?:\.\d+)?", r"colou?r", r"\s?-?\s?",
    r"\w+\s+\w+", r"[a-z]+\d+", r"\bn\s*\^\s*2\b",
])
def test_ordinary_regexes_stay_valid(pattern):
    compile_rubric(regex_rubric([[pattern]]))


def test_more_than_the_cap_of_regex_concepts_is_refused():
    patterns = [rf"\bterm{i}\b" for i in range(MAX_REGEX_CONCEPTS + 1)]
    with pytest.raises(RubricError) as info:
        compile_rubric(regex_rubric([patterns]))
    assert info.value.errors == [{"path": f"criteria[0].concepts[{MAX_REGEX_CONCEPTS}]",
                                  "message": f"a rubric has at most {MAX_REGEX_CONCEPTS} regular-expression "
                                  "concepts (each is searched in every answer); use phrases"}]
    compile_rubric(regex_rubric([patterns[:MAX_REGEX_CONCEPTS]]))  # the cap itself is allowed


def test_regex_cap_counts_nested_and_misconception_regexes():
    doc = regex_rubric([[r"\ba\b"] * 10])
    doc["criteria"][0]["concepts"].append({"any": [{"regex": r"\bb\b"}] * 6})
    doc["misconceptions"] = [{"id": "m", "patterns": [{"not": {"regex": r"\bc\b"}}] * 5, "penalty": 1,
                              "message": "m"}]
    with pytest.raises(RubricError) as info:
        compile_rubric(doc)
    assert "regular-expression concepts" in info.value.errors[0]["message"]


# -- one time budget per answer ------------------------------------------------------------------
@pytest.mark.parametrize("pattern,answer", [
    (r"a.*b", "a" * 20_000),                 # quadratic search, allowed by the static check
    (r"x[^z]*y", "x" * 20_000),
    (r"\bq\w*\s.*k", "q " * 10_000),
])
def test_a_slow_regex_stops_at_the_answer_budget(pattern, answer):
    rubric = compile_rubric(regex_rubric([[pattern]]))
    started = cpu()
    with pytest.raises(ScoringTimeout):
        rubric.score(answer)
    assert cpu() - started < SCORE_BUDGET_SECONDS + BUDGET_SLACK


def test_a_large_phrase_rubric_on_a_hostile_answer_stops_at_the_budget():
    # 100 criteria x 19 six-word phrases (gap 10) whose words fill a 20,000-character answer
    # but whose last word appears only at its end: about 1 s of matching without a budget
    import random

    rng = random.Random(0)
    words = [f"w{i}ord" for i in range(8)]
    criteria = [{"id": f"c{c}", "description": "d", "points": 1, "require": "any", "concepts": [
        {"phrase": " ".join(f"{rng.choice(words)}|{rng.choice(words)}" for _ in range(5)) + " rare",
         "gap": 10, "order": "any" if j % 2 else "fixed"} for j in range(19)]} for c in range(100)]
    rubric = compile_rubric({"question": "q", "max_points": 100, "criteria": criteria})
    answer = " ".join(rng.choice(words) for _ in range(2900))[:19_990] + " rare"
    started = cpu()
    with pytest.raises(ScoringTimeout):
        rubric.score(answer, budget=0.05)
    assert cpu() - started < 0.05 + BUDGET_SLACK


def test_a_timed_out_answer_is_an_infrastructure_fault_not_a_zero():
    from grader.items.base import GradingContext, Item
    from grader.items.text import TextKind
    from grader.results import InfrastructureError

    rubric = compile_rubric({**regex_rubric([[r"a.*b"]]), "id": "slow"})
    item = Item("q1", "text", "q", 1.0, {}, rubric)
    with pytest.raises(InfrastructureError, match="rubric 'slow' v1: the rubric took more than"):
        TextKind().grade(item, {"text": "a" * 20_000}, GradingContext(seed=0))


# -- trials that would hold a request thread -----------------------------------------------------
def test_trial_names_the_response_the_rubric_cannot_score_in_time():
    rubric = compile_rubric(regex_rubric([[r"a.*b"]]))
    responses = [{"text": "ab", "mark": 1}, {"text": "a" * 20_000, "mark": 0}, {"text": "b", "mark": 0}]
    with pytest.raises(TrialTooSlow) as info:
        trial_report(rubric, responses)
    assert (info.value.index, str(info.value).split(":")[0]) == (1, "responses[1]")


def test_trial_stops_at_its_total_budget():
    rubric = compile_rubric(regex_rubric([[r"\bterm\b"]]))
    responses = [{"text": "a term " * 2000, "mark": 1}] * 5000
    with pytest.raises(TrialTooSlow) as info:
        trial_report(rubric, responses, budget=0.2)
    # stopped by its budget (not by finishing): some, not all, of the responses were scored
    assert info.value.index is None and 0 < info.value.scored < 5000
    assert f"of 5000 responses in its 0.2 s budget" in str(info.value)


RUBRIC_SLOW = """
id: slow-regex
question: What is attention?
max_points: 1
criteria:
  - {id: c, description: d, points: 1, concepts: [{regex: "a.*b"}]}
"""


def test_trial_endpoint_answers_422_naming_the_slow_response(client):
    assert client.post("/api/v1/rubrics", data=RUBRIC_SLOW, content_type="application/yaml").status_code == 201
    started = cpu()
    resp = client.post("/api/v1/rubrics/slow-regex/trial", json={"responses": [
        {"text": "ab", "mark": 1}, {"text": "a" * 20_000, "mark": 0}]})
    assert cpu() - started < SCORE_BUDGET_SECONDS + BUDGET_SLACK
    body = resp.get_json()
    assert (resp.status_code, body["code"], body["field"]) == (422, "rubric_too_slow", "responses[1]")


def test_trial_endpoint_stops_at_its_budget(app, client):
    app.config["RUBRIC_TRIAL_SECONDS"] = 0.2
    rubric = RUBRIC_SLOW.replace('{regex: "a.*b"}', '"attention"').replace("slow-regex", "plain")
    assert client.post("/api/v1/rubrics", data=rubric, content_type="application/yaml").status_code == 201
    responses = [{"text": "attention weighs tokens " * 500, "mark": 1}] * 150
    resp = client.post("/api/v1/rubrics/plain/trial", json={"responses": responses})
    body = resp.get_json()
    # the budget that applied, named in the answer (not the time the request took)
    assert (resp.status_code, body["code"], body["field"]) == (422, "trial_too_large", "responses")
    assert "of 150 responses in its 0.2 s budget" in body["message"]
