"""What each sample submission of ``combine_attention_partials`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import Where, whole

# the empty and stability cases have equal maxima in the rows both partials cover, so a
# rescaling mistake costs the rescaling and dtypes tests only
RESCALING = whole("rescaling", "dtypes")
# wrong wherever a partial holds anything: no value test passes, so the inputs test is withheld
EVERYWHERE = whole("rescaling", "empty", "stability", "dtypes", "inputs")

EXPECTED: dict[str, tuple[str, object]] = {
    "bug_l_not_rescaled": ("l_not_rescaled", RESCALING),
    "bug_o_not_rescaled": ("o_not_rescaled", RESCALING),
    "bug_rescale_inverted": ("rescale_inverted", RESCALING),
    "bug_exp2_rescale": ("exp2_rescale", RESCALING),
    # m = m_a is also wrong in the rows a does not cover (m_a = -inf)
    "bug_max_not_updated": ("max_not_updated", whole("rescaling", "dtypes", "empty")),
    # NaN only in the rows neither partial covers
    "bug_empty_merge_nan": ("empty_merge_nan", Where(lambda t: "empty-both" in t)),
    "bug_unstable_rescale": ("unstable_rescale", whole("stability")),
    "bug_returns_normalised_output": ("returns_normalised_output", EVERYWHERE),
    "bug_o_weighted_by_l": ("o_weighted_by_l", EVERYWHERE),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
}
