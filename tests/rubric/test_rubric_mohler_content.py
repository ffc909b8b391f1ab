"""The Mohler rubrics (before and after refinement) are valid documents for all 21 dev questions."""
from pathlib import Path

import pytest

from grader.rubric import load_rubric_file

MOHLER = Path(__file__).resolve().parents[2] / "rubrics" / "mohler"
QUESTIONS = [f"{a}.{q}" for a in (1, 2, 3) for q in range(1, 8)]


@pytest.mark.parametrize("variant", ["before", "after"])
def test_every_dev_question_has_a_valid_rubric_that_credits_its_reference_answer(variant):
    files = sorted(p.stem for p in (MOHLER / variant).glob("*.yaml"))
    assert files == sorted(QUESTIONS)
    for qid in QUESTIONS:
        rubric = load_rubric_file(MOHLER / variant / f"{qid}.yaml")
        assert rubric.max_points == 5
        # criteria may go beyond the reference (e.g. "a while loop tests first"), but the
        # reference answer itself always earns most of the points
        assert rubric.score(rubric.doc["reference_answer"]).points >= 3, (variant, qid)
