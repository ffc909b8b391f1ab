"""What each sample submission of ``linear_attention`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import whole

#: Every category with a values test: a wrong feature map, normaliser or attention form changes
#: every output, so no values test passes and the inputs test is not credited either.
EVERYTHING = ("values", "feature map", "causal", "dtypes", "inputs")

EXPECTED: dict[str, tuple[str, object]] = {
    "bug_elu_without_plus_one": ("elu_without_plus_one", whole(*EVERYTHING)),
    "bug_no_feature_map": ("no_feature_map", whole(*EVERYTHING)),
    "bug_no_normaliser": ("no_normaliser", whole(*EVERYTHING)),
    "bug_softmax_instead": ("softmax_instead", whole(*EVERYTHING)),
    "bug_feature_map_on_scores": ("feature_map_on_scores", whole(*EVERYTHING)),
    # right without causal=True
    "bug_causal_ignored": ("causal_ignored", whole("causal")),
    "bug_causal_excludes_current": ("causal_excludes_current", whole("causal")),
    "bug_causal_global_normaliser": ("causal_global_normaliser", whole("causal")),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
}
