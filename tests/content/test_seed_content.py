"""Every gradable seed item is built in, its own answer earns full marks, and wrong answers do not.

Content: rubrics/assignments/seed-00{0,1,2}.yaml and rubrics/text/seed00*.yaml, written from the seed
banks in the shared seeds folder (000: choice + O(n^2) text, 001: justify / spot-the-error / why /
edge-case, 002: fill-in quiz).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from grader.content import load_assignment
from grader.items import get_kind
from grader.items.base import GradingContext

CONTENT = Path(__file__).resolve().parents[2] / "rubrics"
SEED_FILES = sorted((CONTENT / "assignments").glob("seed-*.yaml"))
CTX = GradingContext(seed=0)


def _load(path):
    return load_assignment(path, CONTENT), {i["id"]: i for i in yaml.safe_load(path.read_text())["items"]}


ASSIGNMENTS = {path.stem: _load(path) for path in SEED_FILES}


def grade(assignment_id, item_id, response):
    item = ASSIGNMENTS[assignment_id][0].items[item_id]
    return get_kind(item.kind).grade(item, response, CTX)


def text_items():
    for aid, (assignment, raw) in ASSIGNMENTS.items():
        for item in assignment.items.values():
            if item.kind == "text":
                yield pytest.param(aid, item.id, raw[item.id], id=f"{aid}/{item.id}")


def choice_items():
    for aid, (assignment, raw) in ASSIGNMENTS.items():
        for item in assignment.items.values():
            if item.kind == "choice":
                yield pytest.param(aid, item, id=f"{aid}/{item.id}")


def test_every_seed_item_is_built_in():
    counts = {aid: {} for aid in ASSIGNMENTS}
    for aid, (assignment, _) in ASSIGNMENTS.items():
        for item in assignment.items.values():
            counts[aid][item.kind] = counts[aid].get(item.kind, 0) + 1
    assert counts == {
        "seed-000": {"choice": 4, "text": 1},
        "seed-001": {"text": 31},   # 10 justify + 7 spot-the-error + 7 why + 7 edge cases
        "seed-002": {"text": 10},   # the quiz's fill-in items
    }


@pytest.mark.parametrize("aid,item_id,raw", list(text_items()))
def test_seed_model_answer_earns_full_marks(aid, item_id, raw):
    result = grade(aid, item_id, {"text": raw["model_answer"]})
    missed = [t.name for t in result.tests if t.score != t.max_score]
    assert result.score == result.max_score, missed


@pytest.mark.parametrize("aid,item_id,raw", [p for p in text_items() if p.values[0] == "seed-002"])
def test_quiz_accepted_line_with_its_explanation_earns_full_marks(aid, item_id, raw):
    text = f"{raw['model_answer']} — {raw['accepted_explanation']}"
    result = grade(aid, item_id, {"text": text})
    assert result.score == result.max_score


@pytest.mark.parametrize("aid,item_id,raw", list(text_items()))
def test_empty_and_off_topic_answers_earn_nothing(aid, item_id, raw):
    assert grade(aid, item_id, {"text": ""}).score == 0
    assert grade(aid, item_id, {"text": "I am not sure, I did not revise this topic."}).score == 0


@pytest.mark.parametrize("aid,item_id,raw", list(text_items()))
def test_restating_the_question_earns_no_more_than_a_third(aid, item_id, raw):
    item = ASSIGNMENTS[aid][0].items[item_id]
    result = grade(aid, item_id, {"text": item.compiled.question})
    assert result.score <= result.max_score / 3 + 1e-9


@pytest.mark.parametrize("aid,item", list(choice_items()))
def test_choice_key_earns_the_points_and_every_other_option_none(aid, item):
    kind = get_kind("choice")
    for letter in item.spec["options"]:
        result = kind.grade(item, {"choice": letter.lower()}, CTX)
        assert result.score == (item.points if letter == item.spec["answer"] else 0)
        assert item.spec["explanation"][:40] in result.tests[0].output


@pytest.mark.parametrize("aid,item_id,raw", [p for p in text_items() if p.values[1].startswith("tf")])
def test_flipping_the_verdict_of_a_justify_item_loses_the_verdict(aid, item_id, raw):
    answer = raw["model_answer"]
    flipped = re.sub(r"^(True|False)", lambda m: "False" if m.group(1) == "True" else "True", answer)
    right = grade(aid, item_id, {"text": answer})
    wrong = grade(aid, item_id, {"text": flipped})
    assert wrong.score <= right.score - 2
    assert "misconception:wrong-verdict" in {tag for t in wrong.tests for tag in t.tags}
