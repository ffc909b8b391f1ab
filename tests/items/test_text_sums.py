"""The tests of a text item add up to the item score (Gradescope sums tests), whatever the engine
capped: keyword stuffing, a copied question, penalties beyond the credit earned."""
import pytest

from grader.config import load_config
from grader.items import GradingContext, get_kind
from grader.runtime import builtin_assignments


@pytest.fixture(scope="module")
def item(tmp_path_factory):
    config = load_config(INSTANCE_PATH=str(tmp_path_factory.mktemp("i")))
    return builtin_assignments(config)["attention-basics"].items["quadratic-cost"]


@pytest.mark.parametrize("text", [
    "quadratic quadratic quadratic pairs pairs every pair expensive sparse",
    "Why is self-attention described as having O(n²) computational cost with respect to sequence "
    "length, and what does this imply for very long sequences?",
    "It is linear in n, so it is cheap for long sequences. Every pair of tokens is scored.",
    "Every pair of positions gets a score, n x n, so memory and compute grow quadratically; long "
    "documents become prohibitively expensive, hence sparse attention.",
])
def test_tests_add_up_to_the_item_score(item, text):
    result = get_kind("text").grade(item, {"text": text}, GradingContext(seed=0))
    assert round(sum(t.score for t in result.tests), 4) == result.score
    assert 0 <= result.score <= result.max_score
