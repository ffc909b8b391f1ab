"""Every registered item kind keeps its secrets and answers a wrong response with a sentence; content
loading knows kinds only through the registry, and its messages name the item once."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.content import ContentError, compile_assignment, public_assignment
from grader.items import BaseKind, kinds, unknown_kind_message
from grader.items.base import MAX_POINTS, points_problem
from grader.problems import PROBLEMS

RUBRICS = Path(__file__).resolve().parents[2] / "rubrics"
MODEL = "Every position is compared with every other position, so the work grows as n squared."

#: One item per registered kind, and the strings its public view must never contain.
#: A kind registered without an entry here fails test_every_registered_kind_has_a_sample.
SAMPLES = {
    "code": ({"id": "c1", "kind": "code", "points": 10, "problem": "scaled_dot_product_attention"},
             [c.name for c in PROBLEMS["scaled_dot_product_attention"].cases(0) if not c.visible]),
    "text": ({"id": "t1", "kind": "text", "points": 4, "rubric": "seed000-q5-quadratic-cost",
              "model_answer": MODEL}, [MODEL, "criteria", "all-pairs"]),
    "choice": ({"id": "m1", "kind": "choice", "points": 2, "prompt": "Why scale?",
                "options": {"A": "to saturate", "B": "to keep the softmax soft"}, "answer": "B",
                "explanation": "Large dot products saturate the softmax."},
               ["Large dot products saturate", "answer"]),
}
KINDS = list(kinds())


def compiled(raw):
    return compile_assignment({"id": "a", "items": [raw]}, RUBRICS).items[raw["id"]]


def test_every_registered_kind_has_a_sample():
    assert set(SAMPLES) == set(KINDS)
    assert all(isinstance(kind, BaseKind) for kind in kinds().values())


@pytest.mark.parametrize("name", KINDS)
def test_public_view_shows_id_kind_prompt_points_and_never_the_spec(name):
    raw, secrets = SAMPLES[name]
    item = compiled(raw)
    view = kinds()[name].public_view(item)
    assert (view["id"], view["kind"], view["prompt"], view["points"]) == \
        (item.id, name, item.prompt, item.points)
    assert "spec" not in view and "answer" not in view and "model_answer" not in view
    text = json.dumps(view)
    assert not [secret for secret in secrets if secret in text]
    assert public_assignment(compile_assignment({"id": "a", "items": [raw]}, RUBRICS))["items"] \
        == [view]


@pytest.mark.parametrize("response", [{}, {"nothing": "here"}, None])
@pytest.mark.parametrize("name", KINDS)
def test_a_wrong_or_empty_response_gets_a_sentence(name, response):
    message = kinds()[name].validate_response(compiled(SAMPLES[name][0]), response)
    assert isinstance(message, str) and len(message.split()) >= 4


@pytest.mark.parametrize("name", KINDS)
@pytest.mark.parametrize("points", [0, -1, 0.0, MAX_POINTS + 0.5, float("nan"), float("inf"), "3",
                                    True, None])
def test_points_outside_0_to_max_are_refused_once_with_the_path(name, points):
    raw = {**SAMPLES[name][0], "points": points}
    with pytest.raises(ContentError) as caught:
        compiled(raw)
    assert str(caught.value) == ("assignment: items[0].points: required number greater than 0, "
                                 f"at most {MAX_POINTS}")
    with pytest.raises(ValueError, match=r"^points: "):  # the kind alone says the same
        kinds()[name].load(raw["id"], raw, RUBRICS)


@pytest.mark.parametrize("name", KINDS)
@pytest.mark.parametrize("points", [0.001, 1, MAX_POINTS])
def test_points_above_0_up_to_max_are_accepted(name, points):
    assert points_problem(points) is None
    assert compiled({**SAMPLES[name][0], "points": points}).points == points


def test_an_unknown_kind_is_named_with_every_registered_kind():
    with pytest.raises(ContentError) as caught:
        compiled({"id": "q1", "kind": "essay", "points": 1})
    assert str(caught.value) == "assignment: items[0].kind: unknown kind 'essay'; use code, text or choice"
    with pytest.raises(ContentError, match=r"items\[0\]\.kind: unknown kind \['essay'\]; use "):
        compiled({"id": "q1", "kind": ["essay"], "points": 1})  # was a TypeError (a 500)
    assert unknown_kind_message("x").endswith(", ".join(KINDS[:-1]) + f" or {KINDS[-1]}")


@pytest.mark.parametrize("raw, message", [
    ({"id": "q1", "kind": "choice", "points": 1, "bogus": 1},
     "items[0].bogus: unknown field for a choice item (allowed: answer, explanation, hidden_tests, id, "
     "kind, options, points, prompt, reveal_answer)"),
    ({"id": "q1", "kind": "choice", "points": 1, "prompt": "p", "options": {"A": "a", "B": "b"}},
     "items[0] (q1): missing field 'answer'"),
    ({"id": "q1", "kind": "choice", "points": 1, "prompt": "p", "options": {"A": "a"}, "answer": "A"},
     "items[0] (q1): options must map at least two letters to texts"),
    ({"id": "q1", "kind": "choice", "points": 1, "prompt": "p", "options": {"A": "a", "B": "b"},
      "answer": "Z"}, "items[0] (q1): answer 'Z' is not one of the options A, B"),
    ({"id": "q1", "kind": "text", "points": 1}, "items[0] (q1): missing field 'rubric'"),
    ({"id": "q1", "kind": "text", "points": 1, "rubric": 3},
     "items[0] (q1): rubric must be a rubric id or a rubric mapping"),
    ({"id": "q1", "kind": "text", "points": 1, "rubric": "seed000-q5-quadratic-cost",
      "hidden_tests": "after_due_date"}, "items[0].hidden_tests: only code items have hidden tests"),
    ({"id": "q1", "kind": "code", "points": 1, "problem": "nope"},
     f"items[0] (q1): problem: unknown problem 'nope' (known: {', '.join(sorted(PROBLEMS))})"),
    ({"id": "q1", "kind": "code", "points": 1, "problem": "softmax", "limits": 3},
     "items[0] (q1): limits: must be a mapping"),
    ({"id": "-q", "kind": "choice", "points": 1},
     "items[0].id: required, 1-100 of letters, digits, '.', '_', '-'"),
])
def test_content_errors_name_the_field_and_the_item_once(raw, message):
    with pytest.raises(ContentError) as caught:
        compiled(raw)
    assert str(caught.value) == f"assignment: {message}"


@pytest.mark.parametrize("length, ok", [(1, True), (100, True), (101, False)])
def test_item_ids_follow_the_one_id_pattern(length, ok):
    raw = {**SAMPLES["choice"][0], "id": "q" * length}
    if ok:
        assert compiled(raw).id == "q" * length
    else:
        with pytest.raises(ContentError, match=r"items\[0\]\.id: required, 1-100 of"):
            compiled(raw)


@pytest.mark.parametrize("name", KINDS)
def test_a_kind_names_its_response_field_and_its_title(name):
    kind = kinds()[name]
    item = compiled(SAMPLES[name][0])
    assert kind.title and kind.response_field
    assert kind.validate_response(item, {kind.response_field: 3}) is not None  # right field, wrong type
