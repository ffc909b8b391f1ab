"""Issue 26.3: the analytics of a class with known mistakes in known numbers report exactly those
numbers. Ten learners submit to a course copy of attention-basics (sdpa: code, 10 points;
quadratic-cost: text, 5; no-positions: choice, 1, key B), graded for real:

| learners | sdpa                               | quadratic-cost                      | choice |
| L0-L3    | correct: 10                        | the model answer: 5                 | A: 0   |
| L4-L6    | divides by d_k: 8 (scale_by_d_k)   | "linear ..., cheap": 0 (2 misc.)    | B: 1   |
| L7-L8    | softmax over queries: 1.0 (shapes) | "linear time ...": 0 (1 misc.)      | B: 1   |
| L9       | no code: 0                         | the model answer: 5                 | B: 1   |

Totals 15 x4, 9 x3, 2 x2, 6: mean 9.7, median 9. (The query-axis softmax earns the shapes point
only: every value test has Lq != Lk or batch axes, and its identical-keys test is degenerate, so it
anchors no inputs credit.) "zoe" submitted only to another
assignment (not submitted here); "fay"'s only attempt failed to grade."""
import numpy as np
import pytest

from grader.app import close_app
from tests.conftest import EXAMPLES, ROOT

CORRECT = (EXAMPLES / "sdpa_correct.py").read_text()
DIVIDES = (EXAMPLES / "sdpa_divides_by_dk.py").read_text()
QUERY_AXIS = (ROOT / "grader/problems/builtin/scaled_dot_product_attention/samples/"
              "bug_softmax_query_axis.py").read_text()
MODEL = (EXAMPLES / "quadratic_cost_model_answer.txt").read_text()
CHEAP = "Attention is linear in the sequence length, so long inputs are cheap."
LINEAR_TIME = "Attention takes linear time, one step per token."

CLASS = [(CORRECT, MODEL, "A")] * 4 + [(DIVIDES, CHEAP, "B")] * 3 + \
    [(QUERY_AXIS, LINEAR_TIME, "B")] * 2 + [(None, MODEL, "B")]


@pytest.fixture(scope="module")
def analytics(tmp_path_factory):
    from grader.app import create_app
    from grader.bootstrap import KEY_FILE

    base = tmp_path_factory.mktemp("class")
    app = create_app({"INSTANCE_PATH": str(base / "instance"),
                      "DATABASE_URL": f"sqlite:///{base / 'grader.db'}",
                      "CELERY_BROKER_URL": "", "GRADER_SECRET_KEY": "test-secret",
                      "SWEEP_INTERVAL_SECONDS": 3600})
    key = (base / "instance" / KEY_FILE).read_text().strip()
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    assert client.post("/api/v1/assignments/attention-basics/copy",
                       json={"id": "class"}).status_code == 201
    ids = []
    for number, (code, text, choice) in enumerate(CLASS):
        responses = {"quadratic-cost": {"text": text}, "no-positions": {"choice": choice}}
        if code is not None:
            responses["sdpa"] = {"code": code}
        ids.append(client.post("/api/v1/assignments/class/submissions", json={
            "learner_id": f"L{number}", "responses": responses}).get_json()["id"])
    client.post("/api/v1/assignments/attention-basics/submissions", json={
        "learner_id": "zoe", "responses": {"no-positions": {"choice": "B"}}})
    store = app.extensions["grader"].store
    failed, _ = store.create_submission("class", "fay", {"no-positions": {"choice": "B"}},
                                        course_id="local")
    store.start(failed.id)
    store.fail(failed.id, "infrastructure fault after 3 attempt(s): sandbox unavailable")
    scores = [client.get(f"/api/v1/submissions/{sid}?wait=60").get_json()["score"]
              for sid in ids]
    assert scores == [15.0] * 4 + [9.0] * 3 + [2.0] * 2 + [6.0]
    report = client.get("/api/v1/assignments/class/analytics").get_json()
    csv_text = client.get("/api/v1/assignments/class/analytics.csv").get_data(as_text=True)
    yield report, csv_text
    close_app(app)


def item(report, item_id):
    return next(i for i in report["items"] if i["item_id"] == item_id)


def test_learners_and_the_score_distribution(analytics):
    report, _ = analytics
    assert report["learners"] == {"submitted": 11, "graded": 10, "not_submitted": ["zoe"],
                                  "latest_failed": ["fay"]}
    score = report["score"]
    assert (score["mean"], score["median"], score["min"], score["max"]) == (9.7, 9.0, 2.0,
                                                                            15.0)
    # bins of 1.6 points: 2 in [1.6, 3.2), 6 in [4.8, 6.4), 9 in [8, 9.6), 15 in [14.4, 16]
    assert [b["learners"] for b in score["histogram"]] == [0, 2, 0, 1, 0, 3, 0, 0, 0, 4]


def test_code_mistakes_and_hidden_categories(analytics):
    sdpa = item(analytics[0], "sdpa")
    assert [(m["tag"], m["learners"], m["share"]) for m in sdpa["mistakes"]] == [
        ("diagnosis:scale_by_d_k", 3, 0.3), ("diagnosis:softmax_query_axis", 2, 0.2)]
    assert "sqrt(d_k)" in sdpa["mistakes"][0]["message"]
    categories = {c["category"]: c for c in sdpa["categories"]}
    # 4 hidden scaling tests each for the 9 learners with code; only the 4 correct pass them
    assert (categories["scaling"]["tests"], categories["scaling"]["passed"],
            categories["scaling"]["pass_rate"], categories["scaling"]["learners_all_passed"]) \
        == (36, 16, 0.4444, 4)
    # 3 softmax tests: the correct and the d_k learners pass them (7 x 3 = 21 of 27)
    assert (categories["softmax"]["passed"], categories["softmax"]["pass_rate"]) == (21, 0.7778)
    # mean (4 x 10 + 3 x 8 + 2 x 1 + 0) / 10 = 6.6 of 10
    assert (sdpa["learners"], sdpa["mean"], sdpa["difficulty"]) == (10, 6.6, 0.66)


def test_text_criteria_misconceptions_and_phrases(analytics):
    text = item(analytics[0], "quadratic-cost")
    assert {c["id"]: (c["learners_met"], c["hit_rate"]) for c in text["criteria"]} == {
        "all-pairs": (5, 0.5), "quadratic-growth": (5, 0.5), "long-sequences": (5, 0.5),
        "remedies": (5, 0.5)}
    assert {m["id"]: (m["learners"], m["rate"]) for m in text["misconceptions"]} == {
        "attention-linear": (5, 0.5), "long-sequences-cheap": (3, 0.3)}
    assert text["low_scoring_answers"] == 5
    # every phrase of the low answers is theirs alone (the model answer has none of them);
    # runs of 3 content words that follow one another are one phrase, as an answer wrote it
    assert [(p["phrase"], p["learners"], p["others"]) for p in text["low_score_phrases"]] == [
        ("attention is linear in the sequence length", 3, 0), ("so long inputs are cheap", 3, 0),
        ("one step per token", 2, 0), ("attention takes linear time", 2, 0)]


def test_item_statistics_flag_the_choice_the_weaker_learners_got_right(analytics):
    choice = item(analytics[0], "no-positions")
    assert [(o["letter"], o["learners"]) for o in choice["options"]] == [
        ("A", 4), ("B", 6), ("C", 0), ("D", 0)]
    # point-biserial with the rest: key-choosers' rest mean (8 x 3 + 1 x 2 + 5) / 6 =
    # 5.1667, the others' 15, population sd of the rest 5.3935, p = 0.6:
    # (5.1667 - 15) / 5.3935 * sqrt(0.6 * 0.4) = -0.8932
    assert (choice["difficulty"], choice["discrimination"], choice["flagged"]) == (0.6, -0.8932,
                                                                                   True)
    sdpa = item(analytics[0], "sdpa")
    codes = np.array([10] * 4 + [8] * 3 + [1] * 2 + [0])
    rest = np.array([5] * 4 + [1] * 3 + [1] * 2 + [6])
    assert sdpa["discrimination"] == round(float(np.corrcoef(codes, rest)[0, 1]), 4)
    assert sdpa["flagged"] is (sdpa["discrimination"] < 0.2)


def test_all_of_it_is_in_the_csv(analytics):
    _, csv_text = analytics
    lines = csv_text.splitlines()
    assert lines[0] == "section,item_id,key,label,value,learners,share"
    assert "summary,,score_mean,,9.7,," in lines
    assert any(line.startswith("mistake,sdpa,diagnosis:scale_by_d_k,") and
               line.endswith(",3,0.3") for line in lines)
    assert "item,no-positions,flagged,choice,true,10," in lines
    assert "not_submitted,,zoe,,,," in lines and "latest_failed,,fay,,,," in lines
