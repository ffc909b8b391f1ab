"""Built-in rubrics on answers written the way learners write them, terse and long (issue 22 item 5).

Every built-in rubric gives all-or-nothing criteria (``credit: {base: 0, near_miss: 0}``), so each
expected score is the sum of the points of the criteria the answer meets, worked out by hand in
the comment beside it."""
from pathlib import Path

import pytest

from grader.rubric import load_rubric_file

TEXT = Path(__file__).resolve().parents[2] / "rubrics" / "text"

CASES = [
    # why03 (one-hot 1, derivative-zero 1, variance-one 1). The excellent answer: saturation,
    # its gradient vanishes (same sentence), variance back to about 1: 3 (it earned 2: the discount
    # threw away "gradient vanishes", every word of which is the question's)
    ("seed001-why03-vanishing-gradients",
     "Large dot products, whose spread grows with d_k, drive the softmax into saturation where it is almost "
     "one-hot and its gradient vanishes; dividing by sqrt(d_k) brings the variance back to about 1 so learning "
     "keeps going.", 3),
    # the terse answer: one-hot; gradients vanish beside it; scaling prevents it (the saturation
    # the answer named): 3 (it earned 1)
    ("seed001-why03-vanishing-gradients",
     "Big scores make softmax one-hot so gradients vanish. Scaling by 1/sqrt(d_k) prevents it.", 3),
    ("seed001-why03-vanishing-gradients",
     "without it the softmax saturates (nearly one hot), its derivative is ~0 so no gradient flows; dividing "
     "by sqrt dk keeps the scores at unit variance", 3),
    # only the question's words, or a reason with no saturation in it: 0
    ("seed001-why03-vanishing-gradients", "The scaling factor prevents vanishing gradients.", 0),
    ("seed001-why03-vanishing-gradients", "Scaling by sqrt(d_k) prevents overflow in the exponent.", 0),
    ("seed001-why03-vanishing-gradients",
     "Because dividing by d_k makes the softmax sharper so the gradients vanish.", 0),
    # why07 (roles 2, partial by three concepts; expressive 1): the matrices named, not the three roles
    # (0); "the roles differ" is the point of expressive (1; it earned 0: only "different roles" counted)
    ("seed001-why07-three-projections",
     "3 learned matrices W_Q W_K W_V so the roles differ; raw x for all would be symmetric and each token "
     "would attend to itself most", 1),
    # why02 (negatives 1, positive 1, amplifies 1)
    ("seed001-why02-softmax-vs-sum",
     "Scores can be negative, so dividing by the sum can give negative weights or divide by zero; softmax "
     "exponentiates so every weight is positive and it emphasises the largest score smoothly.", 3),
    ("seed001-why02-softmax-vs-sum",
     "negatives! sum could be 0 or negative. softmax: exp makes everything positive + sharpens, and it's "
     "differentiable", 3),
    # why06 (equivariant, no order, add positions)
    ("seed001-why06-positional-encodings",
     "Self-attention is permutation equivariant: shuffling the rows just shuffles the outputs, so it cannot "
     "see the order unless we add positional encodings to the embeddings.", 3),
    ("seed001-why06-positional-encodings", "attention ignores order (permutation equivariant) so we add position info", 3),
    # edge01 (equal scores, uniform 1/n, average of the values)
    ("seed001-edge01-identical-keys",
     "Every key is the same so every score in a row is equal and softmax gives uniform weights, 1/n each; the "
     "output is just the average of the values.", 3),
    ("seed001-edge01-identical-keys", "uniform, 1/n each -> plain average of V", 3),
]


@pytest.mark.parametrize("rubric_id, answer, points", CASES)
def test_learner_style_answers_earn_what_an_instructor_gives(rubric_id, answer, points):
    assert load_rubric_file(TEXT / f"{rubric_id}.yaml").score(answer).points == points
