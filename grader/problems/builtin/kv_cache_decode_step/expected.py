"""What each sample submission of ``kv_cache_decode_step`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import some, whole

#: The categories whose tests judge the output with T >= 1 (d_k = 1 but in scaling).
OUTPUT = ("output", "scaling", "dtypes")

EXPECTED: dict[str, tuple[str, object]] = {
    # the old cache only: at T = 0 a softmax over no key raises
    "bug_new_key_not_attended": ("new_key_not_attended", whole("empty cache", *OUTPUT)),
    # right at T = 0, where the new key is all there is
    "bug_cache_not_used": ("cache_not_used", whole(*OUTPUT)),
    "bug_causal_mask_in_decode": ("causal_mask_in_decode", whole(*OUTPUT)),
    # with one query every weight is 1: right at T = 0
    "bug_softmax_query_axis": ("softmax_query_axis", whole(*OUTPUT)),
    "bug_no_scaling": ("no_scaling", whole("scaling")),
    # attention does not depend on the keys' order: the hidden output tests pass, the visible
    # example and the dtypes test (which judge the caches too) fail; at T = 0 front = end
    "bug_cache_prepended": ("cache_prepended", some("caches", "output", "dtypes")),
    # d_v != d_k in the shapes test; the hidden output tests judge the output only
    "bug_caches_swapped": ("caches_swapped", some("shapes", "caches", "output", "empty cache",
                                                  "dtypes")),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
    "bug_fails_with_empty_cache": ("fails_with_empty_cache", whole("empty cache")),
}
