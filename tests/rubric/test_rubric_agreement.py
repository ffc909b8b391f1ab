"""Agreement statistics, the trial report, the keyword baseline and the Mohler evaluation."""
import math

import pytest

from grader.rubric import agreement, compile_rubric, trial_report
from grader.rubric.agreement import quadratic_weighted_kappa
from grader.rubric.baseline import crude_stem, keyword_overlap
from grader.rubric.evaluate import changed_scores, evaluate


def test_pearson_and_rmse_match_hand_computation():
    rep = agreement([1, 2, 3, 4], [2, 2, 4, 4], max_points=5)
    # r = cov / (sd_x sd_y): x - 2.5 = (-1.5, -.5, .5, 1.5), y - 3 = (-1, -1, 1, 1)
    assert rep["pearson_r"] == pytest.approx(4 / math.sqrt(5 * 4))
    assert rep["rmse"] == pytest.approx(math.sqrt((1 + 0 + 1 + 0) / 4))
    assert rep["exact_agreement"] == 0.5 and rep["within_one_agreement"] == 1.0


def test_quadratic_weighted_kappa_perfect_opposite_and_known_value():
    assert quadratic_weighted_kappa([0, 1, 2], [0, 1, 2], 3) == pytest.approx(1.0)
    assert quadratic_weighted_kappa([0, 2], [2, 0], 3) == pytest.approx(-1.0)
    # O = [[1,0],[1,1]] (rows rater a), E = outer((1,2),(2,1))/3, W = [[0,1],[1,0]]
    assert quadratic_weighted_kappa([0, 1, 1], [0, 0, 1], 2) == pytest.approx(1 - 1 / (5 / 3))


def test_agreement_undefined_correlation_is_none():
    assert agreement([2, 2, 2], [1, 2, 3], 5)["pearson_r"] is None


def test_agreement_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="3 scores but 2 human marks"):
        agreement([1, 2, 3], [1, 2], 5)


RUBRIC = compile_rubric({
    "question": "Why scale attention scores?", "max_points": 2,
    "criteria": [{"id": "var", "description": "variance", "points": 1, "concepts": ["variance"]},
                 {"id": "sat", "description": "saturation", "points": 1, "concepts": ["saturat*"]}],
    "misconceptions": [{"id": "dk", "patterns": ["divide by d_k"], "penalty": 1, "message": "sqrt"}],
})


def test_trial_report_lists_over_and_under_marked_responses_and_counts():
    responses = [
        {"text": "the variance grows and softmax saturates", "mark": 2},
        {"text": "variance", "mark": 2},                       # under-marked by the rubric (1 vs 2)
        {"text": "saturation and variance", "mark": 0},         # over-marked (2 vs 0)
        {"text": "divide by d_k", "mark": 0},
    ]
    rep = trial_report(RUBRIC, responses)
    assert [r["index"] for r in rep["over_marked"]] == [2]
    assert [r["index"] for r in rep["under_marked"]] == [1]
    assert {c["id"]: c["matched"] for c in rep["criteria"]} == {"var": 3, "sat": 2}
    assert rep["misconceptions"] == [{"id": "dk", "matched": 1}]
    assert rep["agreement"]["n"] == 4


def test_trial_report_rescales_marks_from_another_scale():
    rep = trial_report(RUBRIC, [{"text": "variance saturates", "mark": 5}, {"text": "", "mark": 0}], max_mark=5)
    assert rep["agreement"]["rmse"] == 0


def test_trial_report_names_a_bad_response():
    with pytest.raises(ValueError, match=r"responses\[1\]\.mark"):
        trial_report(RUBRIC, [{"text": "a", "mark": 1}, {"text": "b", "mark": "high"}])


def test_keyword_overlap_is_the_share_of_reference_content_words():
    assert crude_stem("locations") == crude_stem("location")
    assert keyword_overlap("memory location", "A location in memory that can store a value.") == pytest.approx(2 / 4)
    assert keyword_overlap("", "File scope.") == 0


def test_evaluate_reports_per_question_and_overall(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "questions.tsv").write_text("question_id\tquestion\treference_answer\tscore_max\n"
                                        "1.1\tWhat is a variable?\tA location in memory.\t5\n")
    (data / "answers.tsv").write_text(
        "question_id\tanswer_id\tstudent_answer\tgrader_1\tgrader_2\tscore_avg\n"
        "1.1\t0\ta memory location\t5\t5\t5\n1.1\t1\ta location\t3\t2\t2.5\n1.1\t2\tno idea\t0\t0\t0\n")
    rub = tmp_path / "rubrics" / "before"
    rub.mkdir(parents=True)
    rubric = ("question: What is a variable?\nmax_points: 2\ncriteria:\n"
              "  - {id: mem, description: memory, points: 1, concepts: [memory]}\n"
              "  - {id: loc, description: location, points: 1, concepts: [location]}\n")
    (rub / "1.1.yaml").write_text(rubric + "credit: {base: 0}\n")
    rep = evaluate(data, tmp_path / "rubrics", ("before", "after"))
    assert set(rep["overall"]) == {"baseline", "before"}
    # all or nothing: 2/2, 1/2, 0/2 scaled to 5, 2.5, 0 - exactly the human marks
    assert rep["overall"]["before"]["rmse"] == pytest.approx(0.0)
    assert rep["overall"]["before"]["r"] == pytest.approx(1.0)
    assert (rep["overall"]["before"]["zeros"], rep["overall"]["before"]["mean"]) == (1, 2.5)
    assert rep["overall"]["before"]["bias"] == pytest.approx(0.0)
    assert rep["per_question"][0]["n"] == 3
    all_or_nothing = rep["answer_scores"]
    # default credit: "a location" is on topic, so it also earns 0.3 of the missed point: 1.3/2 =
    # 3.25 of 5; "no idea" negates its only word and earns nothing. Errors 0, 0.75, 0:
    # RMSE = sqrt(0.75^2 / 3) = 0.4330
    (rub / "1.1.yaml").write_text(rubric)
    rep = evaluate(data, tmp_path / "rubrics", ("before",))
    assert rep["overall"]["before"]["rmse"] == pytest.approx(0.4330, abs=1e-4)
    assert rep["overall"]["before"]["mean"] == pytest.approx((5 + 3.25 + 0) / 3, abs=1e-3)
    # bias: mean of (score - mark) = (0 + 0.75 + 0) / 3
    assert rep["overall"]["before"]["bias"] == pytest.approx(0.25, abs=1e-3)
    # one answer of three moved (2.5 -> 3.25) between the two credit settings
    assert rep["answer_scores"]["before"] == {"1.1/0": 5.0, "1.1/1": 3.25, "1.1/2": 0.0}
    assert changed_scores(all_or_nothing, rep["answer_scores"]) == {"before": {"changed": 1, "up": 1, "down": 0}}


def test_marked_responses_load_from_json_and_tsv(tmp_path):
    from grader.rubric import load_marked_responses

    (tmp_path / "m.json").write_text('[{"text": "variance", "mark": 1}]')
    (tmp_path / "m.tsv").write_text("answer_id\tstudent_answer\tscore_avg\n7\tvariance grows\t4.5\n")
    assert load_marked_responses(tmp_path / "m.json") == [{"text": "variance", "mark": 1.0, "id": 0}]
    assert load_marked_responses(tmp_path / "m.tsv") == [{"text": "variance grows", "mark": 4.5, "id": "7"}]
    (tmp_path / "bad.jsonl").write_text('{"text": "x", "mark": "high"}\n')
    with pytest.raises(ValueError, match=r"responses\[0\]\.mark"):
        load_marked_responses(tmp_path / "bad.jsonl")
