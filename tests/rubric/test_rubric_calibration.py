"""Calibration: fitting a monotone map from raw rubric points to marks, cross-validating it, the
optional ``calibration`` field of the rubric language, and what a scored answer records."""
import json
import math

import numpy as np
import pytest

from grader.items.base import GradingContext
from grader.items.text import TextKind
from grader.rubric import RubricError, compile_rubric, trial_report
from grader.rubric.calibration import (Calibration, cross_validated, fit_isotonic, fit_linear, fold_of,
                                       recommend)


# -- fitting --------------------------------------------------------------------------------------
def test_isotonic_fit_on_five_points_pools_the_violating_pair():
    # marks 1, 3, 2, 4, 5 at raw 0..4: pool-adjacent-violators pools (3, 2) into 2.5, 2.5; the other
    # points already rise. No three consecutive points are collinear, so all five are kept.
    cal = fit_isotonic([0, 1, 2, 3, 4], [1, 3, 2, 4, 5], max_points=5)
    assert cal.method == "isotonic"
    assert cal.points == ((0, 1), (1, 2.5), (2, 2.5), (3, 4), (4, 5))
    # straight lines between the points, flat beyond the last one
    assert cal.apply(0.5, 5) == 1.75       # halfway from 1 to 2.5
    assert cal.apply(1.5, 5) == 2.5        # on the flat step
    assert cal.apply(2.5, 5) == 3.25       # halfway from 2.5 to 4
    assert cal.apply(4.5, 5) == 5          # beyond the last raw score: its mark


def test_isotonic_fit_pools_tied_raw_scores_by_their_mean():
    # raw 1 has marks 4 and 2 (mean 3, weight 2), raw 2 has 1 and 3 (mean 2, weight 2), raw 3 has 5.
    # 3 > 2 violates the order: pooled (3*2 + 2*2) / 4 = 2.5 for both; then 5.
    cal = fit_isotonic([1, 1, 2, 2, 3], [4, 2, 1, 3, 5], max_points=5)
    assert cal.points == ((1, 2.5), (2, 2.5), (3, 5))
    assert cal.apply(0, 5) == 2.5          # below the first raw score: its mark


def test_isotonic_fit_of_falling_marks_is_refused_not_constant():
    # marks fall as raw rises: pooling ends with one block (mean 2.5), a constant map: refused
    assert fit_isotonic([0, 1, 2, 3], [4, 3, 2, 1], max_points=5) is None


def test_linear_fit_shrinks_the_slope_toward_one():
    # x = 0..4, y = 1,2,2,3,4, max 4 -> prior penalty 4^2/8 = 2. Centred: Sxx = 4+1+0+1+4 = 10,
    # Sxy = (-2)(-1.4) + (-1)(-0.4) + 0 + (1)(0.6) + (2)(1.6) = 7. b = (7 + 2*1) / (10 + 2) = 0.75,
    # a = 2.4 - 0.75*2 = 0.9: 0.9 at raw 0, 3.9 at raw 4; the line crosses neither 0 nor 4 inside.
    cal = fit_linear([0, 1, 2, 3, 4], [1, 2, 2, 3, 4], max_points=4)
    assert cal.points == ((0, 0.9), (4, 3.9))
    assert cal.apply(2, 4) == 2.4


def test_linear_fit_with_equal_raw_scores_moves_only_the_level_and_clamps():
    # Sxx = Sxy = 0: the slope is the prior's, 1; a = mean(y) - 1*2 = 4 - 2 = 2. The line reaches 5
    # at raw 3, where a point is added, and stays at 5 (clamped) up to raw 5.
    cal = fit_linear([2, 2, 2], [3, 4, 5], max_points=5)
    assert cal.points == ((0, 2), (3, 5), (5, 5))
    assert cal.apply(4, 5) == 5


def test_linear_fit_of_falling_marks_keeps_the_minimum_slope():
    # x = (0, 5), y = (5, 0), max 5: penalty 25/8 = 3.125, Sxx = 12.5, Sxy = -12.5,
    # b = (-12.5 + 3.125) / (12.5 + 3.125) = -0.6 -> the minimum 0.1; a = 2.5 - 0.1*2.5 = 2.25
    cal = fit_linear([0, 5], [5, 0], max_points=5)
    assert cal.points == ((0, 2.25), (5, 2.75))


# -- cross-validation -----------------------------------------------------------------------------
MARKS = [3, 1, 2, 1, 5, 0]


def test_folds_are_stratified_by_mark_and_deterministic():
    # sorted by (mark, position): #5 (0), #1 (1), #3 (1), #2 (2), #0 (3), #4 (5); dealt round-robin
    # into 3 folds: #5->0, #1->1, #3->2, #2->0, #0->1, #4->2
    assert fold_of(MARKS, 3).tolist() == [1, 1, 0, 2, 2, 0]
    assert fold_of(MARKS, 3).tolist() == fold_of(list(MARKS), 3).tolist()


def test_each_response_is_scored_by_a_map_fitted_without_it():
    # All raw scores 1: each fold's line has slope 1 and passes through the mean of its *training*
    # marks at raw 1, so a response's prediction is that mean. Fold 0 (#2, #5) trains on #0 #1 #3 #4:
    # (3+1+1+5)/4 = 2.5; fold 1 (#0, #1) on #2 #3 #4 #5: (2+1+5+0)/4 = 2; fold 2 (#3, #4) on
    # #0 #1 #2 #5: (3+1+2+0)/4 = 1.5. A map fitted on all six would give every response 2.
    pred, fallbacks = cross_validated([1] * 6, MARKS, 5, "linear", 3)
    assert pred.tolist() == [2, 2, 2.5, 1.5, 1.5, 2.5]
    assert fallbacks == 0


def test_recommendation_reports_before_and_cross_validated_after():
    cal, report = recommend([1] * 6, MARKS, 5, k=3)
    # before: raw 1 against the marks: squares 4, 0, 1, 0, 16, 1 -> sqrt(22/6)
    assert report["before"]["rmse"] == pytest.approx(math.sqrt(22 / 6))
    assert report["before"]["pearson_r"] is None  # constant raw scores
    # after: the predictions above: errors -1, 1, .5, .5, -3.5, 2.5 -> squares sum 21 -> sqrt(21/6)
    assert report["linear"]["rmse"] == pytest.approx(math.sqrt(21 / 6))
    assert report["method"] == "linear" and report["improves"] is True
    # the map offered is fitted on all six: mean 2 at raw 1, slope 1 -> 1 at 0, 5 from raw 4
    assert report["map"] == {"method": "linear", "points": [[0, 1], [4, 5], [5, 5]]}
    assert cal.apply(1, 5) == 2
    assert report["folds"] == 3 and "3-fold" in report["protocol"]
    assert any("slope shrunk toward 1" in w for w in report["warnings"])


def test_too_few_marked_responses_give_no_map_and_say_why():
    cal, report = recommend([0, 1, 2, 3, 4], [1, 2, 3, 4, 5], 5)
    assert cal is None and report["map"] is None
    assert report["reason"].startswith("5 marked responses: calibration needs at least 6")


def test_isotonic_is_offered_only_from_thirty_responses():
    # a step: raw 0 -> mark 1, raw 5 -> mark 5, 15 of each; the isotonic map fits it exactly
    raw, marks = [0] * 15 + [5] * 15, [1] * 15 + [5] * 15
    cal, report = recommend(raw, marks, 5)
    assert report["method"] == "isotonic" and report["isotonic"]["rmse"] == 0
    assert cal.points == ((0, 1), (5, 5))
    _, small = recommend(raw[10:20], marks[10:20], 5)  # 5 + 5 responses: the line is offered
    assert small["method"] == "linear"


# -- the rubric language --------------------------------------------------------------------------
def rubric(**extra):
    # all-or-nothing criteria (no base credit, no near misses), so raw points are 0, 2 or 4 by hand
    return {"question": "Why scale attention scores by the square root of d_k?", "max_points": 4,
            "credit": {"base": 0, "near_miss": 0},
            "criteria": [{"id": "var", "description": "variance grows", "points": 2, "concepts": ["variance"]},
                         {"id": "sat", "description": "softmax saturates", "points": 2,
                          "concepts": ["saturat*"]}], **extra}


def errors_of(doc):
    with pytest.raises(RubricError) as exc:
        compile_rubric(doc)
    return {(e["path"], e["message"]) for e in exc.value.errors}


def test_invalid_calibrations_are_named_with_their_path_and_reason():
    errs = errors_of(rubric(calibration={"method": "iso", "points": [[0, 1], [3, 1], [2, 0], [7, 1], "x"]}))
    assert errs == {
        ("calibration.method", "must be one of isotonic, linear, manual (got 'iso')"),
        ("calibration.points[2]", "raw 2 must be above the previous raw 3 (raw scores strictly increase)"),
        ("calibration.points[2]", "mark 0 is below the previous mark 1: a calibration never gives a higher "
                                  "raw score a lower mark"),
        ("calibration.points[3]", "raw 7 is outside 0..4 (max_points)"),
        ("calibration.points[4]", "a pair [raw, mark] of two numbers, got 'x'"),
    }
    assert errors_of(rubric(calibration={"method": "manual", "points": [[0, 2], [4, 2]]})) == {
        ("calibration.points", "every mark is the same: a constant map would give every answer the same "
                               "score; drop calibration instead")}
    assert errors_of(rubric(calibration=[[0, 1]])) == {
        ("calibration", "calibration is a mapping {method: isotonic|linear|manual, points: [[raw, mark], ...]}")}
    assert errors_of(rubric(calibration={"points": [[0, 1]], "fit": 1})) == {
        ("calibration.fit", "unknown field (calibration has method and points)"),
        ("calibration.method", "required: isotonic, linear or manual"),
        ("calibration.points", "needs 2 to 50 [raw, mark] pairs, got 1")}


CALIBRATED = rubric(calibration={"method": "manual", "points": [[0, 1], [2, 3], [4, 4]]})


def test_a_rubric_without_calibration_scores_as_before():
    result = compile_rubric(rubric()).score("The variance grows with d_k.")
    assert (result.points, result.raw_points, result.calibration) == (2.0, 2.0, None)


def test_calibrated_scores_record_raw_and_calibrated_points():
    compiled = compile_rubric(CALIBRATED)
    met = compiled.score("The variance grows with d_k.")        # raw 2 -> the point (2, 3)
    assert (met.raw_points, met.points, met.calibration) == (2.0, 3.0, "manual")
    assert met.to_dict()["raw_points"] == 2.0 and met.rubric_version == 1
    none = compiled.score("It makes training nicer.")           # raw 0 -> 1
    assert (none.raw_points, none.points) == (0.0, 1.0)
    both = compiled.score("Variance grows and softmax saturates.")  # raw 4 -> 4
    assert both.points == 4.0


def test_calibration_never_lifts_a_blank_answer_or_a_guarded_one():
    compiled = compile_rubric(CALIBRATED)
    assert compiled.score("").points == 0.0 and compiled.score("  ?! ").points == 0.0
    copy = compiled.score("Why scale attention scores by the square root of d_k?")
    assert copy.notes and copy.raw_points == 0.0
    assert copy.points == 0.0  # min(calibrated 1, raw 0): a copy of the question still earns nothing


def test_learner_feedback_shows_the_calibration_and_tests_add_up():
    kind = TextKind()
    item = kind.load("why-scale", {"points": 8, "rubric": CALIBRATED}, content_dir=None)
    result = kind.grade(item, {"text": "The variance grows with d_k."}, GradingContext(seed=0))
    # raw 2 of 4 -> calibrated 3 of 4; scaled by 8/4: raw 4, calibrated 6 of 8
    assert result.score == 6.0
    calibration = [t for t in result.tests if "calibration" in t.tags]
    assert len(calibration) == 1 and calibration[0].score == 2.0
    assert calibration[0].output == ("The rubric's points (4 of 8) are mapped onto the instructor's marking "
                                     "scale by the rubric's calibration (manual map): 6 of 8.")
    assert sum(t.score for t in result.tests) == result.score
    assert (result.extra_data["rubric_raw_points"], result.extra_data["calibration"]) == (2.0, "manual")


# -- the trial report -----------------------------------------------------------------------------
def test_trial_report_numbers_are_rounded_for_display():
    doc = rubric()
    doc["max_points"] = 3
    doc["criteria"][1]["points"] = 1
    report = trial_report(compile_rubric(doc), [{"text": "variance", "mark": 1}] * 3)
    assert report["tolerance"] == 0.6  # 0.2 * 3 is 0.6000000000000001 in floating point
    assert '"tolerance": 0.6,' in json.dumps(report)


def test_trial_report_has_a_calibration_section_with_a_paste_ready_map():
    responses = [{"text": t, "mark": m} for t, m in [
        ("Variance grows and softmax saturates.", 4), ("The variance grows.", 4), ("The variance grows.", 3),
        ("It saturates.", 4), ("No idea.", 1), ("Because.", 2), ("Variance.", 3), ("Softmax saturates.", 3)]]
    report = trial_report(compile_rubric(rubric()), responses)
    cal = report["calibration"]
    assert cal["n"] == 8 and cal["folds"] == 5 and cal["method"] == "linear"
    # raw 4, 2, 2, 2, 0, 0, 2, 2 against 4, 4, 3, 4, 1, 2, 3, 3: squares 0,4,1,4,1,4,1,1 -> sqrt(16/8)
    assert cal["before"]["rmse"] == round(math.sqrt(2), 4)
    assert cal["after"]["rmse"] < cal["before"]["rmse"] and cal["improves"] is True
    # the offered map is valid rubric language: the next version compiles with it
    nxt = compile_rubric(rubric(calibration=cal["map"], version=2))
    assert nxt.calibration == Calibration("linear", tuple(tuple(p) for p in cal["map"]["points"]))


def test_trial_of_a_calibrated_rubric_shows_raw_and_calibrated_scores():
    report = trial_report(compile_rubric(CALIBRATED), [{"text": "The variance grows.", "mark": 1}])
    row = report["over_marked"][0]
    assert (row["raw_score"], row["score"]) == (2.0, 3.0)
    assert report["calibration"]["current"]["points"] == [[0, 1], [2, 3], [4, 4]]
    assert report["calibration"]["map"] is None  # one response: too few to fit another map


def test_apply_many_matches_apply():
    cal = Calibration("manual", ((0, 1), (2, 3), (4, 4)))
    assert cal.apply_many(np.array([0, 1, 3, 4]), 4).tolist() == [1, 2, 3.5, 4]
