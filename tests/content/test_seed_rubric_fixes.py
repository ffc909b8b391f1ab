"""Built-in rubric content fixed after instructors' QA (answers a human marks right that the rubric
missed, each worked out by hand against the rubric's criteria). Each rubric's version went up."""
from pathlib import Path

import pytest

from grader.rubric import load_rubric_file

TEXT = Path(__file__).resolve().parents[2] / "rubrics" / "text"


def met(rubric: str, answer: str) -> dict[str, bool]:
    result = load_rubric_file(TEXT / f"{rubric}.yaml").score(answer)
    return {c.id: c.met for c in result.criteria}


@pytest.mark.parametrize("answer", [
    "The variance grows like d_k, so the std grows like √d_k. Normalising means dividing by the "
    "std, so by √d_k.",
    "Mistake: variance ∝ d_k ⇒ sd ∝ √d_k, and we divide by the sd.",
])
def test_std_and_sd_are_the_standard_deviation(answer):
    # "standard deviation|std|sd|spread" read as "standard" then (deviation|std|...)
    assert met("seed001-err06-scale-by-dk", answer) == {"std-grows": True, "divide-by-std": True}


@pytest.mark.parametrize("rubric, criterion, answer", [
    ("seed001-edge02-dominant-score", "one-hot", "The softmax turns into an argmax."),
    ("seed001-edge07-large-dk", "one-hot", "The softmax turns into an argmax."),
    ("seed001-err03-scaling-optional", "saturation", "Unscaled, the softmax acts like an argmax."),
    ("seed001-edge06-causal-mask", "no-peeking", "Generation is left-to-right."),
])
def test_a_one_word_alternative_of_a_two_word_one_matches_alone(rubric, criterion, answer):
    # "argmax|hard max" read as (argmax|hard) then max: "argmax" alone never matched
    assert met(rubric, answer)[criterion] is True


def test_what_the_scaling_prevents_meets_the_purpose():
    answer = ("keep the dot products from growing with the dimension, so the softmax does not "
              "saturate and its gradients do not vanish")
    assert met("seed002-q05-scaling", answer) == {"tiny-gradients": True}


@pytest.mark.parametrize("answer, expected", [
    ("it scales with the square of the sequence length", True),
    ("it grows with the square of n", True),
    ("it is linear in the length", False),
])
def test_the_square_of_the_length_is_quadratic(answer, expected):
    assert met("seed002-q09-complexity", answer) == {"quadratic": expected}
