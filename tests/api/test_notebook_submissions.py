"""Notebooks through the REST API: a code response {"notebook": ...} is graded (real sandbox) with
the notes first; what is not a notebook is a 422 naming the field, and nothing is stored."""
from __future__ import annotations

import json

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests.conftest import EXAMPLES, wait_final

URL = "/api/v1/assignments/attention-basics/submissions"


def _notebook() -> str:
    return nbformat.writes(new_notebook(cells=[
        new_markdown_cell("Scaled dot-product attention"),
        new_code_cell("%matplotlib inline"),
        new_code_cell((EXAMPLES / "sdpa_divides_by_dk.py").read_text())]))


def test_a_notebook_is_graded_like_its_code(client):
    for notebook in (_notebook(), json.loads(_notebook())):  # its text, or the JSON itself
        posted = client.post(URL, json={"learner_id": "nb", "responses": {
            "sdpa": {"notebook": notebook}}})
        assert posted.status_code == 202, posted.get_json()
        done = wait_final(lambda: client.get(f"/api/v1/submissions/{posted.get_json()['id']}"
                                             ).get_json())
        sdpa = done["items"][0]
        assert (done["status"], sdpa["score"], sdpa["max_score"]) == ("graded", 8, 10)
        assert sdpa["output"].startswith("Read from your notebook: 2 code cells, in order")
        assert "- code cell 1, line 1: %matplotlib inline (an IPython magic)" in sdpa["output"]


def test_what_is_not_a_notebook_is_a_422_naming_the_field(client, app):
    for notebook, words in (("{not json", "notebook: is not valid JSON (line 1, column 2"),
                            ({"cells": []}, "notebook: is JSON but not a Jupyter notebook")):
        answer = client.post(URL, json={"learner_id": "nb", "responses": {
            "sdpa": {"notebook": notebook}}})
        assert answer.status_code == 422
        body = answer.get_json()
        assert body["field"] == "responses.sdpa"
        assert body["message"].startswith(f"responses.sdpa: {words}")
    assert app.extensions["grader"].store.attempts_of("local", "attention-basics", "nb") == []


def test_a_notebook_can_be_prechecked(client):
    answer = client.post("/api/v1/assignments/attention-basics/prechecks", json={
        "learner_id": "nb", "responses": {"sdpa": {"notebook": _notebook()}}})
    assert answer.status_code == 200, answer.get_json()
    [item] = answer.get_json()["items"]
    assert (item["passed"], item["total"]) == (2, 3)
    assert item["output"].startswith("Read from your notebook: 2 code cells")
    prechecks = client.application.extensions["grader_prechecks"]
    prechecks.close()
