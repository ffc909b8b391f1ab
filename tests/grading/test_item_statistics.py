"""Classical test theory numbers and the histogram, against values worked out by hand."""
import pytest

from grader.grading.item_statistics import histogram, item_statistics, median, pearson


def test_point_biserial_of_a_right_or_wrong_item_with_the_rest():
    # five learners; item 0/1, rest of the assignment 2, 4, 6, 8, 10 with the item right for
    # the top three: M1 = 8, M0 = 3, s_rest = sqrt(8), p = 0.6, q = 0.4:
    # r_pb = (M1 - M0) / s * sqrt(p q) = 5 / 2.8284 * 0.4899 = 0.8660
    items = [0, 0, 1, 1, 1]
    totals = [2, 4, 7, 9, 11]  # rest + item
    stats = item_statistics(items, totals, 1)
    assert stats == {"difficulty": 0.6, "discrimination": 0.866, "discrimination_undefined": None,
                     "flagged": False}


def test_an_item_the_weaker_learners_get_right_is_flagged():
    items = [1, 1, 0, 0]
    totals = [1 + 2, 1 + 3, 0 + 9, 0 + 10]
    stats = item_statistics(items, totals, 1)
    assert stats["flagged"] is True and stats["discrimination"] < -0.9


@pytest.mark.parametrize("items,totals,reason", [
    ([1, 1, 1], [3, 5, 7], "every learner scored the same on this item"),
    ([0, 1, 1], [4, 5, 5], "every learner scored the same on the rest of the assignment"),
    ([0, 1], [1, 2], "fewer than 3 learners")])
def test_an_undefined_correlation_says_why(items, totals, reason):
    stats = item_statistics(items, totals, 1)
    assert (stats["discrimination"], stats["discrimination_undefined"], stats["flagged"]) == (
        None, reason, False)


def test_pearson_and_median():
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 2, 3], [6, 4, 2]) == pytest.approx(-1.0)
    assert median([5, 1, 3]) == 3 and median([4, 1, 3, 2]) == 2.5 and median([]) is None


def test_histogram_bins_hold_their_lower_bound_and_the_last_its_upper():
    bins = histogram([0, 1.59, 1.6, 8, 16, 16], 16)
    assert [b["learners"] for b in bins] == [2, 1, 0, 0, 0, 1, 0, 0, 0, 2]
    assert (bins[0]["from"], bins[0]["to"], bins[-1]["to"]) == (0.0, 1.6, 16.0)
