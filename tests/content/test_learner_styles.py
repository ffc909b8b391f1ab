"""Built-in rubrics on answers written the way learners write them, terse and long (issue 22 item 5).

The answers and the marks an instructor gives them, worked out by hand, are in
``learner_answers.yaml`` beside this file (every built-in rubric is all or nothing per criterion, so
each mark is the sum of the points of the criteria the answer meets). Every built-in rubric has
answers there: a new rubric comes with its own."""
from pathlib import Path

import pytest
import yaml

from grader.rubric import load_rubric_file

ROOT = Path(__file__).resolve().parents[2]
TEXT = ROOT / "rubrics" / "text"
ANSWERS = yaml.safe_load((Path(__file__).resolve().parent / "learner_answers.yaml").read_text(encoding="utf-8"))
CASES = [(rubric_id, case["answer"], case["points"]) for rubric_id, cases in ANSWERS.items() for case in cases]


def test_every_built_in_rubric_has_learner_answers_excellent_and_wrong():
    assert set(ANSWERS) == {p.stem for p in TEXT.glob("*.yaml")}
    for rubric_id, cases in ANSWERS.items():
        top = load_rubric_file(TEXT / f"{rubric_id}.yaml").max_points
        marks = [c["points"] for c in cases]
        assert top in marks and 0 in marks, rubric_id  # a full-marks answer and a wrong one each


@pytest.mark.parametrize("rubric_id, answer, points", CASES, ids=[f"{r}-{i}" for i, (r, _, _) in enumerate(CASES)])
def test_learner_style_answers_earn_what_an_instructor_gives(rubric_id, answer, points):
    assert load_rubric_file(TEXT / f"{rubric_id}.yaml").score(answer).points == pytest.approx(points, abs=1e-4)
