"""scaled_dot_product_attention: correct styles get full marks, each known mistake loses the right
categories and is named in the feedback."""
from __future__ import annotations

import numpy as np
import pytest

from grader.problems import PROBLEMS, examples
from tests.problems.problem_helpers import diagnoses, grade_file, grade_source

PROBLEM = "scaled_dot_product_attention"


def test_dividing_by_d_k_loses_exactly_the_scaling_points_and_names_the_scaling(fake_sandbox):
    result = grade_file(fake_sandbox, PROBLEM, "bug_scale_by_d_k")
    assert result.score == 8.0
    scaling = [t for t in result.tests if t.tags[0] == "scaling"]
    assert scaling and all(t.status == "failed" and t.score == 0 for t in scaling)
    assert all("divided by d_k instead of sqrt(d_k)" in t.output for t in scaling)


def test_max_scores_sum_to_the_item_points(fake_sandbox):
    result = grade_file(fake_sandbox, PROBLEM, "correct_matmul", points=7.5)
    assert sum(t.max_score for t in result.tests) == pytest.approx(7.5, abs=1e-4)
    assert result.max_score == 7.5


def test_output_says_how_many_hidden_tests_ran_and_that_they_count(fake_sandbox):
    result = grade_file(fake_sandbox, PROBLEM, "correct_matmul")
    hidden = [t for t in result.tests if t.visibility == "hidden"]
    assert len(hidden) >= 15
    assert f"{len(hidden)} hidden tests ran; they are worth " in result.output
    assert "count towards your score" in result.output and "You scored 10 of 10" in result.output


def test_hidden_failures_show_no_expected_values_but_visible_ones_do(fake_sandbox):
    result = grade_file(fake_sandbox, PROBLEM, "bug_no_scaling")
    hidden = [t for t in result.tests if t.visibility == "hidden" and t.status == "failed"]
    visible = [t for t in result.tests if t.visibility == "visible" and t.status == "failed"]
    assert hidden and visible
    assert not any("Expected" in t.output or "Received" in t.output for t in hidden)
    assert all("Expected output:" in t.output and "Received output:" in t.output for t in visible)


def test_unexplained_difference_reports_where_and_by_how_much(fake_sandbox):
    source = (
        "import numpy as np\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n"
        "        s = np.where(mask, s, -np.inf)\n"
        "    w = np.exp(s - s.max(-1, keepdims=True))\n"
        "    out = (w / w.sum(-1, keepdims=True)) @ V\n"
        "    out[..., 0, 0] += 0.5\n"
        "    return out\n")
    result = grade_source(fake_sandbox, PROBLEM, source)
    failing = [t for t in result.tests if t.status == "failed"]
    assert failing and diagnoses(result) == set()
    assert any("largest difference 0.5 at index (0, 0" in t.output for t in failing)


def test_exception_messages_full_of_numbers_are_withheld_for_hidden_tests(fake_sandbox):
    source = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
              "    raise ValueError(str(Q.ravel().tolist()))\n")
    result = grade_source(fake_sandbox, PROBLEM, source)
    hidden = [t for t in result.tests if t.visibility == "hidden"]
    assert result.score == 0
    assert all("message withheld" in t.output for t in hidden)


def test_syntax_error_scores_zero_with_the_message(fake_sandbox):
    result = grade_source(fake_sandbox, PROBLEM, "def scaled_dot_product_attention(:\n")
    assert result.score == 0 and result.status == "graded"
    assert "Your code has a syntax error on line 1: SyntaxError:" in result.output
    assert all(t.status == "failed" for t in result.tests)


def test_missing_function_scores_zero_and_says_so(fake_sandbox):
    result = grade_source(fake_sandbox, PROBLEM, "def attention(Q, K, V):\n    return V\n")
    assert result.score == 0
    assert "no function named scaled_dot_product_attention" in result.tests[0].output


def test_all_calls_of_a_submission_go_in_one_sandbox_run(fake_sandbox):
    grade_file(fake_sandbox, PROBLEM, "correct_matmul")
    assert fake_sandbox.runs == 1


def test_hidden_inputs_depend_on_the_seed_and_are_reproducible():
    problem = PROBLEMS[PROBLEM]
    first, again, other = problem.cases(11), problem.cases(11), problem.cases(12)
    hidden = [i for i, c in enumerate(first) if not c.visible]
    q = lambda cases, i: cases[i].calls[0][0][0]  # noqa: E731
    assert all(np.array_equal(q(first, i), q(again, i)) for i in hidden)
    assert not any(np.array_equal(q(first, i), q(other, i)) for i in hidden
                   if first[i].category == "scaling")


def test_visible_examples_do_not_depend_on_the_seed():
    problem = PROBLEMS[PROBLEM]
    a = [c.calls for c in problem.cases(1) if c.visible]
    b = [c.calls for c in problem.cases(2) if c.visible]
    assert len(a) == 3 and all(x[0][0][i] is y[0][0][i] for x, y in zip(a, b) for i in range(3))
    assert examples.public_examples(problem) == examples.public_examples(problem)


def test_unmatched_masking_mistake_reports_weight_on_blocked_positions(fake_sandbox):
    source = (
        "import numpy as np\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n"
        "        s = np.where(mask, s, -1.0)\n"
        "    w = np.exp(s - s.max(-1, keepdims=True))\n"
        "    w = w / w.sum(-1, keepdims=True)\n"
        "    return w @ V, w\n")
    result = grade_source(fake_sandbox, PROBLEM, source)
    failing = [t for t in result.tests if t.status == "failed"]
    # every masked case fails: the masking ones and the scaling and stability cases with a mask
    masked_scaling = {c.name for c in PROBLEMS[PROBLEM].cases(0) if "mask-elsewhere" in c.traits}
    assert failing and {t.tags[0] for t in failing if t.name not in masked_scaling} == {"masking"}
    assert masked_scaling <= {t.name for t in failing}
    # On the stability cases with a mask (with and without a batch axis) the scores are in the
    # thousands, where a fill of -1 and a fill of 0 give the same weights: those two cases are
    # (fairly) named mask_fill_zero.
    stability = {t.name for t in failing if t.tags[0] == "stability"}
    assert stability == {"stability: logits in the thousands under a mask",
                         "stability: logits in the thousands under a mask, no batch axis"}
    assert all("diagnosis:mask_fill_zero" in t.tags for t in failing if t.name in stability)
    others = [t for t in failing if t.name not in stability]
    assert not {tag for t in others for tag in t.tags if tag.startswith("diagnosis:")}
    hidden = [t for t in others if t.visibility == "hidden"]
    # a hidden test names the signal, not how much weight (the learner's values chose it)
    assert all("What the numbers show: blocked positions receive some of a row's weight"
               in t.output and "%" not in t.output for t in hidden)


def test_unmatched_normalisation_mistake_reports_row_sums(fake_sandbox):
    source = (
        "import numpy as np\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n"
        "        s = np.where(mask, s, -np.inf)\n"
        "    w = np.exp(s - s.max(-1, keepdims=True))\n"
        "    w = w / (w.sum(-1, keepdims=True) + 1.0)\n"
        "    return w @ V\n")
    result = grade_source(fake_sandbox, PROBLEM, source)
    softmax = [t for t in result.tests if t.tags[0] == "softmax" and t.visibility == "hidden"]
    assert softmax and all(t.status == "failed" for t in softmax)
    assert all("rows of the weights do not sum to 1" in t.output and "between" not in t.output
               for t in softmax)


def test_two_mistakes_at_once_are_both_named_in_their_own_categories(fake_sandbox):
    source = (
        "import numpy as np\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    s = Q @ np.swapaxes(K, -1, -2) / Q.shape[-1]\n"
        "    if mask is not None:\n"
        "        s = np.where(mask, s, 0.0)\n"
        "    w = np.exp(s - s.max(-1, keepdims=True))\n"
        "    return (w / w.sum(-1, keepdims=True)) @ V\n")
    result = grade_source(fake_sandbox, PROBLEM, source)
    by_category = {}
    for test in result.tests:
        if test.status == "failed":
            by_category.setdefault(test.tags[0], set()).update(
                tag for tag in test.tags if tag.startswith("diagnosis:"))
    # the stability cases with a mask fail with the masking mistake (d_k = 1 there): the stability
    # point is half for the 3 batched tests (0.167, 0.167, 0.166 in case order, in the item's
    # thousandths; it is the third) and half for the 2 unbatched ones (0.25 each)
    # the scaling case under a mask shows both mistakes at once: both are named there
    assert by_category == {"scaling": {"diagnosis:scale_by_d_k", "diagnosis:mask_fill_zero"},
                           "masking": {"diagnosis:mask_fill_zero"},
                           "stability": {"diagnosis:mask_fill_zero"}}
    assert result.score == pytest.approx(10 - 2 - 2 - 0.166 - 0.25, abs=1e-6)
