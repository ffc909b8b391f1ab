"""A rubric that loaded yesterday loads today (issue 22 item 3).

``legacy/stored_rubrics.json`` (made once by ``legacy/make_fixture.py``) holds every rubric document
the repository stored at an earlier commit (built-in, Mohler and example rubrics, the rubric in the
legacy store, and an upload with the issue's regular expression that the API accepted before
98a8f1a), a few answers each, the score each got from its own commit's engine, and every later
change of that score with the commit that made it. Each must load today and score what the last
recorded commit gave: a score that moves again, or a document that stops loading, fails here until
the change is deliberate and recorded."""
import json
from pathlib import Path

import pytest

from grader.rubric import compile_rubric, parse_rubric

FIXTURE = json.loads((Path(__file__).resolve().parent / "legacy" / "stored_rubrics.json").read_text(encoding="utf-8"))
DOCUMENTS = FIXTURE["documents"]


def expected(answer: dict) -> float:
    return answer["history"][-1]["score"] if answer["history"] else answer["score_at_commit"]


def test_the_fixture_covers_every_kind_of_stored_rubric():
    sources = {d["source"].split("/")[0] if "/" in d["source"] else d["source"] for d in DOCUMENTS}
    assert {"rubrics", "examples", "tests"} <= sources
    assert len(DOCUMENTS) >= 150 and sum(len(d["answers"]) for d in DOCUMENTS) >= 700
    assert any(d["stem"] == "pointer-assignment" for d in DOCUMENTS)


@pytest.mark.parametrize("document", DOCUMENTS, ids=[f"{d['stem']}@{d['commit']}-{d['id'][:6]}" for d in DOCUMENTS])
def test_a_stored_rubric_loads_and_scores_as_recorded(document):
    rubric = compile_rubric(parse_rubric(document["text"], document["format"]), rubric_id=document["stem"])
    got = [round(rubric.score(a["text"]).points, 4) for a in document["answers"]]
    assert got == [expected(a) for a in document["answers"]]


def test_the_issues_frozen_regex_loads_and_an_upload_of_it_is_only_warned_about():
    (document,) = [d for d in DOCUMENTS if d["stem"] == "pointer-assignment"]
    # accepted by the API at its commit, refused from the merge that added the overlap check on
    assert [h["result"][:8] for h in document["load_history"]] == ["refused:", "loads"]
    doc = parse_rubric(document["text"], "yaml")
    warnings = compile_rubric(doc, upload=True).warnings
    assert [w["path"] for w in warnings if w["path"].endswith(".regex")] == ["criteria[0].concepts[0].any[0].regex"]
    assert "polynomial time" in warnings[0]["message"]
    rubric = compile_rubric(doc)
    assert rubric.score("int *p; p = &a[0];").criteria[0].met
    assert rubric.score("p = arr;").criteria[0].met
    assert not rubric.score("p is the array").criteria[0].met
