"""Let instructors see why (issue 22 item 4): ``grader rubric explain``, ``POST
/api/v1/rubrics/<id>/explain`` and the trial report say, per criterion and concept, which words
matched which pattern, which variant a phrase compiled to, where a negation scope began and ended,
which guard fired, and for a near miss what was missing. Also one rule for trial marks above the
maximum (item 5): the command line refuses them as the API does."""
import json

import pytest

from grader.cli import main
from grader.rubric import compile_rubric, trial_report
from grader.rubric.explain import explain, format_explanation

ORDER = {
    "id": "order-why", "question": "Does self-attention know the order of its input?", "max_points": 2,
    "credit": {"base": 0, "near_miss": 0.5},
    "synonyms": {"order": ["order", "position", "word order"]},
    "criteria": [
        {"id": "no-order", "description": "it does not know the order", "points": 1,
         "question_words": "allow", "concepts": ["@not know* @order"]},
        {"id": "encodings", "description": "positional encodings add it", "points": 1,
         "concepts": [{"phrase": "positional encoding*", "gap": 1}]}],
    "misconceptions": [{"id": "knows", "patterns": ["attention know* @order"], "penalty": 1,
                        "message": "Without positional encodings self-attention is blind to order."}],
}


def test_explain_names_the_words_each_pattern_matched_and_the_variant():
    report = explain(compile_rubric(ORDER), "Attention does not know the order.")
    assert report["points"] == 1
    phrase = report["criteria"][0]["concepts"][0]
    assert phrase["kind"] == "phrase" and phrase["matched"]
    # @not is one word position of every negation word; @order three alternatives (one of 2 words)
    assert phrase["variant_count"] == 2
    assert phrase["variant"].startswith("ain|aren|arent|bare|")  # keys (stems) of the negation words
    assert [(w["word"], w["how"]) for w in phrase["words"]] == [
        ("not", "as written"), ("know", "prefix know*"), ("order", "as written")]


def test_explain_shows_where_a_negation_scope_began_and_ended_and_a_negated_match():
    answer = "Attention knows the order, not the positional encoding of each token."
    report = explain(compile_rubric(ORDER), answer)
    (scope,) = report["negations"]
    assert scope["cue"] == "not"
    assert answer[scope["scope"][0]:scope["scope"][1]] == "not the positional encoding of each token"
    assert scope["words"] == ["positional", "encoding", "each", "token"]
    encodings = report["criteria"][1]["concepts"][0]
    assert not encodings["matched"] and encodings["negated"]["cues"] == ["not"]
    assert report["misconceptions"][0]["matched"] and report["misconceptions"][0]["deducted"] == 0


def test_explain_says_what_a_near_miss_missed():
    report = explain(compile_rubric(ORDER), "An encoding is added to each token.")
    near = report["criteria"][1]["concepts"][0]["near_miss"]
    assert near["share"] == 0.5
    assert [f["word"] for f in near["found"]] == ["encoding"]
    assert near["missing"] == ["posit"]
    assert report["criteria"][1]["points"] == 0.25  # 1 point * near_miss 0.5 * share 0.5


def test_explain_names_a_discounted_match_and_the_guard_that_fired():
    rubric = compile_rubric({**ORDER, "criteria": [
        {**ORDER["criteria"][0], "question_words": "discount", "concepts": ["know* @order"]}, ORDER["criteria"][1]]})
    report = explain(rubric, "Does self-attention know the order of its input?")
    assert report["criteria"][0]["concepts"][0]["discounted"]["why"].startswith("made only of the question's words")
    assert [g["id"] for g in report["guards"]] == ["copies_question"]
    text = format_explanation(report)
    assert "guard copies_question fired" in text and "discounted:" in text


def test_the_command_line_explains_a_built_in_rubric(capsys):
    assert main(["rubric", "explain", "seed002-q05-scaling", "It stops the softmax from saturating."]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rubric seed002-q05-scaling v")
    assert "matched" in out
    assert main(["rubric", "explain", "seed002-q05-scaling", "x", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rubric_id"] == "seed002-q05-scaling"


def test_the_api_explains_a_stored_rubric_and_a_built_in_one(client):
    assert client.post("/api/v1/rubrics", json=ORDER).status_code == 201
    report = client.post("/api/v1/rubrics/order-why/explain",
                         json={"text": "Attention does not know the order."}).get_json()
    assert (report["rubric_version"], report["points"]) == (1, 1)
    assert report["criteria"][0]["concepts"][0]["words"][0]["word"] == "not"
    builtin = client.post("/api/v1/rubrics/seed002-q05-scaling/explain", json={"text": "no idea"})
    assert builtin.status_code == 200 and builtin.get_json()["rubric_id"] == "seed002-q05-scaling"
    missing = client.post("/api/v1/rubrics/nope/explain", json={"text": "x"})
    assert missing.status_code == 404
    assert client.post("/api/v1/rubrics/order-why/explain", json={}).status_code == 422
    assert "/api/v1/rubrics/{rubric_id}/explain" in client.get("/api/v1/openapi.json").get_json()["paths"]


def test_the_trial_report_explains_each_over_and_under_marked_response():
    report = trial_report(compile_rubric(ORDER), [
        {"text": "Attention does not know the order; positional encodings add it.", "mark": 2},
        {"text": "It can't tell where a word is.", "mark": 2}])
    (under,) = report["under_marked"]
    assert under["text"] == "It can't tell where a word is."
    assert under["explanation"]["points"] == under["score"]
    assert under["explanation"]["criteria"][0]["concepts"][0]["matched"] is False


def test_marks_above_the_maximum_are_refused_by_the_command_line_as_by_the_api(client, tmp_path, capsys):
    responses = [{"text": "Attention does not know the order.", "mark": 1}, {"text": "x", "mark": 3}]
    with pytest.raises(ValueError, match=r"responses\[1\]\.mark: 3 is above the top mark 2"):
        trial_report(compile_rubric(ORDER), responses)
    (tmp_path / "rubric.yaml").write_text(json.dumps(ORDER))
    (tmp_path / "marked.json").write_text(json.dumps(responses))
    assert main(["rubric", "trial", str(tmp_path / "rubric.yaml"), str(tmp_path / "marked.json")]) == 2
    assert "responses[1].mark: 3 is above the top mark 2" in capsys.readouterr().err
    client.post("/api/v1/rubrics", json=ORDER)
    refused = client.post("/api/v1/rubrics/order-why/trial", json={"responses": responses})
    assert refused.status_code == 422
    assert refused.get_json()["field"] == "responses[1].mark"
    assert "3 is above the top mark 2" in refused.get_json()["message"]
    # another scale is allowed by saying so, on both sides
    assert trial_report(compile_rubric(ORDER), responses, max_mark=5)["agreement"]["n"] == 2
