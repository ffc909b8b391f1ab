"""The SVG heatmap and the result page's data (evidence segments, summaries, pictures)."""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from grader.web import feedback, heatmap

SVG = "{http://www.w3.org/2000/svg}"


def cells(markup: str) -> list[tuple[str, str]]:
    """(fill, text) of every cell, row by row."""
    root = ET.fromstring(str(markup))
    fills = [r.get("fill") for r in root.iter(SVG + "rect")]
    texts = [t.text for t in root.iter(SVG + "text") if t.get("class") == "cell"]
    return list(zip(fills, texts))


def test_unit_scale_runs_from_white_to_dark_blue_with_the_values_written():
    markup = heatmap.svg([[0.0, 1.0], [0.5, "nan"]], "Your weights")
    assert cells(markup) == [
        ("rgb(255, 255, 255)", "0.00"), ("rgb(8, 48, 107)", "1.00"),
        # halfway: (255 + 8) / 2 = 131.5 -> 132, (255 + 48) / 2 = 151.5 -> 152,
        # (255 + 107) / 2 = 181 (Python rounds half to even)
        ("rgb(132, 152, 181)", "0.50"), ("rgb(80, 80, 80)", "NaN")]
    root = ET.fromstring(str(markup))
    assert root.get("role") == "img"
    assert root.find(SVG + "title").text == "Your weights"
    assert root.find(SVG + "desc").text == ("2 rows (row) by 2 columns (column). "
                                            "row 0: 0.00, 1.00; row 1: 0.50, NaN.")


def test_diverging_scale_is_symmetric_around_zero():
    # magnitude 2: -2 is full red, 2 full blue, 0 white, 1 halfway to blue: (255 + 33) / 2 = 144,
    # (255 + 102) / 2 = 178.5 -> 178 (Python rounds half to even), (255 + 172) / 2 = 213.5 -> 214
    fills = [f for f, _ in cells(heatmap.svg([[-2, 0, 1, 2]], "t", "diverging", 2.0))]
    assert fills == ["rgb(178, 24, 43)", "rgb(255, 255, 255)", "rgb(144, 178, 214)",
                     "rgb(33, 102, 172)"]
    assert heatmap.magnitude_of([[1, -3]], [["-inf", 2]]) == 3.0


def test_cell_text_keeps_at_least_4_5_to_1_contrast():
    def ratio(a, b):
        hi, lo = max(a, b), min(a, b)
        return (hi + 0.05) / (lo + 0.05)

    white = 1.0
    for t in [i / 20 for i in range(21)]:
        for scale, value in (("unit", t), ("diverging", 2 * t - 1)):
            fill = heatmap.colour(value, scale, 1.0)
            lum = heatmap._luminance(fill)
            text = heatmap.text_colour(fill)
            assert ratio(lum, white if text == "#fff" else 0.0) >= 4.5, (scale, value, fill)


def test_titles_are_escaped_and_bad_matrices_refused():
    assert "&lt;script&gt;" in str(heatmap.svg([[1]], "<script>"))
    with pytest.raises(ValueError, match="rectangular"):
        heatmap.svg([[1, 2], [3]], "ragged")
    with pytest.raises(ValueError):
        heatmap.svg([], "empty")
    assert heatmap.label(-0.0001) == "0.00" and heatmap.label(-math.inf) == "-inf"
    assert heatmap.cell_value("inf") == math.inf and math.isnan(heatmap.cell_value("oops"))


def test_segments_cut_the_answer_at_every_span_boundary():
    answer = "Every token attends to every other token."
    # C1 covers "token attends" (6-19), M1 covers "attends to every" (12-28), overlapping
    parts = feedback.segments(answer, [("C1", 6, 19, False), ("M1", 12, 28, True),
                                       ("C2", 50, 60, False)])  # C2 lies outside: dropped
    assert [(p.text, p.labels, p.ending, p.misconception) for p in parts] == [
        ("Every ", [], [], False),
        ("token ", ["C1"], [], False),
        ("attends", ["C1", "M1"], ["C1"], True),
        (" to every", ["M1"], ["M1"], True),
        (" other token.", [], [], False),
    ]
    assert "".join(p.text for p in parts) == answer


def test_summaries_become_paragraphs_and_lists():
    text = "You scored 8 of 10.\nDiagnosis:\n- divided by d_k\n- second\n\nLast."
    assert feedback.blocks(text) == [
        {"kind": "p", "text": "You scored 8 of 10."}, {"kind": "p", "text": "Diagnosis:"},
        {"kind": "ul", "items": ["divided by d_k", "second"]}, {"kind": "p", "text": "Last."}]
    assert [feedback.points(v) for v in (8.0, 8.5, 6.6667, None)] == ["8", "8.5", "6.67", "-"]


def test_text_item_view_quotes_the_evidence_from_the_answer():
    answer = "Attention compares all pairs, so cost grows as n squared."
    item = {"item_id": "q", "kind": "text", "score": 2.0, "max_score": 3.0, "output": "",
            "tests": [
                {"name": "pairs", "score": 2.0, "max_score": 2.0, "status": "passed",
                 "output": "Good.", "tags": ["criterion", "criterion:pairs"],
                 "extra_data": {"evidence": [[19, 28]]}},  # "all pairs"
                {"name": "memory", "score": 0.0, "max_score": 1.0, "status": "failed",
                 "output": "Say what it means for memory.", "tags": ["criterion"],
                 "extra_data": {"evidence": []}}]}
    view = feedback.item_view(item, {"text": answer}, {"prompt": "Why?"})
    assert [(c["label"], c["passed"], c["quotes"]) for c in view["criteria"]] == [
        ("C1", True, ["all pairs"]), ("C2", False, [])]
    assert [(s.text, s.labels) for s in view["answer"] if s.labels] == [("all pairs", ["C1"])]


def test_pictures_of_an_item_are_drawn_on_one_scale():
    item = {"item_id": "pe", "kind": "code", "score": 0, "max_score": 1, "tests": [],
            "extra_data": {"pictures": [
                {"example": "ex", "shows": "encoding", "scale": "diverging", "rows": "position",
                 "columns": "dimension", "expected": [[0.5, -0.5]], "learner": [[2.0, 0.0]],
                 "finding": "differ"},
                {"example": "broken", "shows": "output", "expected": [[1], [2, 3]],
                 "learner": None}]}}
    pictures = feedback.item_view(item, {"code": "x"}, None)["pictures"]
    assert len(pictures) == 1  # the ragged one is left out
    # shared magnitude 2: the expected 0.5 is a quarter of the way to blue
    assert cells(pictures[0]["expected"])[0][0] == str(
        "rgb" + str(heatmap._mix(heatmap.WHITE, heatmap.DIVERGING_BLUE, 0.25)))
    assert re.search(r"<title>Your encoding</title>", str(pictures[0]["learner"]))
