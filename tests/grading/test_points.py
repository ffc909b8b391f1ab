"""Issue 14.6: the points of a code item's tests are rounded for display (hundredths, or
thousandths when that makes them exact: 0.625) and still add up exactly to the item's points; no
test shows rounding dust like 0.5002."""
import pytest

from grader.grading.service import round_points
from grader.problems import PROBLEMS
from grader.problems.scoring import case_points
from grader import results
from grader.results import ItemResult, apportion, split_points


def test_largest_remainder_by_hand():
    # 10 over 3: 1000 hundredths, quotas 333.33 each, floors 999, the 1 left to the first
    assert apportion(10, [1, 1, 1]) == [3.34, 3.33, 3.33]
    # 2 over 3: 200 hundredths, quotas 66.67, floors 198, 2 left to the first two
    assert apportion(2, [1, 1, 1]) == [0.67, 0.67, 0.66]
    # exact quotas stay exact
    assert apportion(1, [1, 2, 3, 4]) == [0.1, 0.2, 0.3, 0.4]
    # exact shares stay exact with one decimal more: 2.5 over 4 -> 0.625 each, and 0.125 over 2
    # (thousandths) -> 0.0625 each; 0.125 over 3 is not exact at 4 decimals -> 42 + 42 + 41
    # thousandths (125 = 41.67 * 3: floors 123, 2 left to the first two)
    assert apportion(2.5, [1, 1, 1, 1]) == [0.625] * 4
    assert apportion(0.125, [1, 1]) == [0.0625, 0.0625]
    assert apportion(0.125, [1, 1, 1]) == [0.042, 0.042, 0.041]
    # the largest remainder wins, not the first: 100 hundredths at weights 1, 2 -> 33.3, 66.7
    assert apportion(1, [1, 2]) == [0.33, 0.67]
    with pytest.raises(ValueError):
        apportion(-1, [1])
    with pytest.raises(ValueError):
        apportion(1, [0, 0])


def test_groups_keep_their_share_exactly():
    # 10 points: weights 2 and 1 -> 6.67 and 3.33 (not exact in thousandths; largest remainder
    # in hundredths: 666.67 -> 667); then 6.67 over 3 tests -> 2.23, 2.22, 2.22 (largest
    # remainder) and 3.33 over 2 -> 1.665 each (exact in thousandths)
    shares = split_points(10, [("a1", "a", 2), ("a2", "a", 2), ("a3", "a", 2),
                               ("b1", "b", 1), ("b2", "b", 1)])
    assert shares == {"a1": 2.23, "a2": 2.22, "a3": 2.22, "b1": 1.665, "b2": 1.665}


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
@pytest.mark.parametrize("points", [10, 16, 7, 3, 2.5, 1])
def test_code_item_tests_are_hundredths_that_add_up(problem, points):
    code = PROBLEMS[problem]
    cases = code.cases(seed=20261130)
    shares = case_points(code, cases, points)
    tests = [results.TestResult(name=name, score=share, max_score=share, status="passed")
             for name, share in shares.items()]
    result = round_points(ItemResult(item_id="x", kind="code", score=points, max_score=points,
                                     tests=tests))
    for test in result.tests:
        assert test.max_score == round(test.max_score, 3) > 0, (test.name, test.max_score)
    assert round(sum(t.max_score for t in result.tests), 9) == points
    # a whole category costs its share of the points (weight / total weight), to a hundredth
    total_weight = sum(code.categories[c] for c in {case.category for case in cases})
    for category in {case.category for case in cases}:
        got = sum(shares[c.name] for c in cases if c.category == category)
        exact = points * code.categories[category] / total_weight
        assert abs(got - exact) < 0.01, (category, got, exact)  # within one hundredth


def test_the_issue_example_has_no_dust():
    """scaled_dot_product_attention at 10 points: before, one test showed 0.5002."""
    code = PROBLEMS["scaled_dot_product_attention"]
    shares = case_points(code, code.cases(seed=1), 10)
    assert 0.5002 not in shares.values()
    assert sorted(set(shares.values())) == sorted(set(round(v, 3) for v in shares.values()))
