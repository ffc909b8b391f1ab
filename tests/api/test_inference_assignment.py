"""The built-in assignment of issue 24's inference problems, and the generated family assignment,
list each problem with its contract, starter and visible examples (never a hidden test)."""
from __future__ import annotations

from grader.problems import PROBLEMS

INFERENCE = {"rotary-embedding": "rotary_embedding",
             "grouped-query-attention": "grouped_query_attention",
             "kv-cache-decode-step": "kv_cache_decode_step",
             "sliding-window-attention": "sliding_window_attention",
             "linear-attention": "linear_attention"}


def lists_its_problems(client, assignment: str, problems: dict[str, str]) -> None:
    """``assignment`` lists ``problems`` (item id -> problem id) in order, 10 points each, each
    with its contract, its starter and its visible examples, never a hidden test."""
    body = client.get(f"/api/v1/assignments/{assignment}").get_json()
    assert [item["id"] for item in body["items"]] == list(problems)
    assert body["max_score"] == 10 * len(problems)
    for item in body["items"]:
        problem = PROBLEMS[problems[item["id"]]]
        assert item["kind"] == "code" and item["points"] == 10
        assert item["contract"].startswith(f"def {problem.function}(")
        assert item["starter"] == problem.starter
        hidden = {c.name for c in problem.cases(0) if not c.visible}
        assert {e["name"] for e in item["visible_tests"]} == {c.name for c in problem.visible}
        assert not hidden & {e["name"] for e in item["visible_tests"]}


def test_the_inference_assignment_lists_its_five_problems_with_their_contracts(client):
    lists_its_problems(client, "attention-inference", INFERENCE)


def test_the_family_assignment_lists_every_registered_problem(client):
    body = client.get("/api/v1/assignments/attention-family").get_json()
    assert {item["id"] for item in body["items"]} >= set(INFERENCE)
    assert len(body["items"]) == len(PROBLEMS)


def test_the_learner_page_shows_every_inference_problem_and_its_examples(anonymous):
    # the decoding step's example has three expected results of different shapes
    page = anonymous.get("/learn/attention-inference")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    for problem in INFERENCE.values():
        assert f"def {PROBLEMS[problem].function}(" in text
    assert "example: an empty cache (T = 0)" in text
