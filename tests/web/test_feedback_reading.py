"""grader/web/feedback.py's reading aids, on results written by hand: a diagnosis said once per
item, failed tests grouped by category, the lines of the learner's code a message names."""
from __future__ import annotations

from grader.web.feedback import (code_lines, error_lines, failed_groups, item_view, said_once,
                                 without_pictured_weights, without_repeated_error)

DIAGNOSIS = "The scores are divided by d_k instead of sqrt(d_k): scale by 1/sqrt(d_k)."
SUMMARY = f"You scored 8 of 10.\nDiagnosis:\n- {DIAGNOSIS} (2 tests)"


def _test(name, category, passed, output, visibility="hidden"):
    return {"name": name, "status": "passed" if passed else "failed", "score": 1 if passed else 0,
            "max_score": 1, "output": output, "visibility": visibility,
            "tags": [category, visibility]}


def test_a_diagnosis_the_summary_says_is_left_out_of_the_row():
    row = f"Failed: the output differs\nDiagnosis: {DIAGNOSIS}\nExpected output:\n[1.]"
    assert said_once(row, SUMMARY) == "Failed: the output differs\nExpected output:\n[1.]"
    other = "Diagnosis: the softmax normalised the query axis."
    assert said_once(other, SUMMARY) == other  # not in the summary: kept
    assert said_once("Diagnosis: ", SUMMARY) == "Diagnosis: "  # nothing said: kept


def test_failed_tests_are_grouped_by_category_in_order_with_the_first_open():
    tests = [{"name": n, "passed": p, "category": c} for n, c, p in [
        ("s1", "shapes", True), ("m1", "masking", False), ("s2", "scaling", False),
        ("m2", "masking", False), ("m3", "masking", True), ("s3", "scaling", False)]]
    groups = failed_groups(tests)
    assert [(g["category"], [t["name"] for t in g["tests"]], g["total"], g["open"])
            for g in groups] == [("masking", ["m1", "m2"], 3, True),
                                 ("scaling", ["s2", "s3"], 2, False)]
    assert failed_groups([{"name": "a", "passed": True, "category": "x"}]) == []


def test_the_lines_a_message_names_are_found_within_the_code():
    texts = ["Your code has a syntax error on line 6: SyntaxError: '[' was never closed.",
             "Failed: ValueError: bad (line 13 of your code)\n  File \"submission.py\", line 13",
             "(line 99 of your code)",  # past the end of a 14-line file: not a line of it
             "x" * 5000 + "(line 2 of your code)"]  # past the 4000 characters searched
    assert error_lines(texts, 14) == [6, 13]
    lines = code_lines("a\nb\nc", [2])
    assert lines == [{"number": 1, "text": "a", "marked": False},
                     {"number": 2, "text": "b", "marked": True},
                     {"number": 3, "text": "c", "marked": False}]


def test_the_weights_a_picture_shows_are_not_repeated_in_the_row():
    row = "Failed: differs\nExpected output:\n[1.]\nReceived output:\n[2.]\nExpected weights:\n[1.]"
    assert without_pictured_weights(row) == ("Failed: differs\nExpected output:\n[1.]\nReceived "
                                             "output:\n[2.]\n(The expected and received "
                                             "weights are in the picture above.)")
    assert without_pictured_weights("Failed: differs") == "Failed: differs"


def test_an_item_view_reads_once():
    item = {"item_id": "sdpa", "kind": "code", "score": 8, "max_score": 10,
            "output": SUMMARY + "\nYour code raised on line 2.",
            "tests": [_test("scaling: a", "scaling", False,
                            f"Failed: differs (line 2 of your code)\nDiagnosis: {DIAGNOSIS}"),
                      _test("scaling: b", "scaling", False, f"Failed: differs\nDiagnosis: "
                            f"{DIAGNOSIS}"),
                      _test("shapes: c", "shapes", True, "Passed.")]}
    view = item_view(item, {"code": "import numpy as np\nraise ValueError\n"}, None)
    assert [t["message"] for t in view["tests"]] == [
        "Failed: differs (line 2 of your code)", "Failed: differs", "Passed."]
    assert [(g["category"], len(g["tests"]), g["total"]) for g in view["groups"]] == [
        ("scaling", 2, 2)]
    assert view["error_lines"] == view["editor_lines"] == [2]
    assert not view["blank"]
    # a notebook's lines are marked in the listing, not in the editor (which shows the box)
    notebook = item_view(item, {"notebook": {"cells": [], "metadata": {}, "nbformat": 4,
                                             "nbformat_minor": 5}}, None)
    assert notebook["editor_lines"] == []
    assert item_view({**item, "tests": []}, None, None)["blank"]


def test_a_traceback_does_not_repeat_the_error_of_its_row():
    row = ("Failed: ValueError: bad shape (line 13 of your code)\n"
           "Traceback (most recent call last):\n"
           '  File "submission.py", line 13, in f\n'
           "    return w @ V\n"
           "ValueError: bad shape\n"
           "Expected output:\n[1.]")
    assert without_repeated_error(row) == (
        "Failed: ValueError: bad shape (line 13 of your code)\n"
        "Traceback (most recent call last):\n"
        '  File "submission.py", line 13, in f\n'
        "    return w @ V\n"
        "Expected output:\n[1.]")
    other = row.replace("ValueError: bad shape\nExpected", "ValueError: another\nExpected")
    assert without_repeated_error(other) == other  # not the same error: kept
    assert without_repeated_error("Failed: differs") == "Failed: differs"
