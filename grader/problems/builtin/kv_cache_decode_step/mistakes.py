"""The mistakes ``kv_cache_decode_step`` is checked for, as toggles of one buggy implementation
(:func:`buggy_decode_step`) over :func:`grader.problems.attention_variants.buggy_attention`, and
its cross-case rules. Seen in public KV-cache code and its issues: attending before the new key
is appended (or to the new key alone, the cache unused), the new entry put at the front, the
caches returned in the other order, the training-time causal mask built as tril(ones(Lq, Lk))
applied to a one-query step (it then lets the query see key 0 only), a softmax over the query
axis (with one query every weight is 1), no scaling, and a separate maximum over the cache that
fails on an empty cache."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs
from grader.problems.attention_variants import buggy_attention, sqrt_d_k, working_dtype
from grader.problems.base import Rule
from grader.problems.rules import crashes_only_with, failed_in_category
from grader.problems.spec import mistake


def buggy_decode_step(q, k_new, v_new, cache_k, cache_v, *, append="end", attend="all",
                      order="kv", causal=False, scale=sqrt_d_k, axis=-1):
    """A decoding step with optional mistakes: ``append="front"`` puts the new key and value
    first; ``attend`` ``"cache"`` (the old cache only) or ``"new"`` (the new key only);
    ``order="vk"`` returns (output, new_cache_v, new_cache_k); ``causal`` applies
    tril(ones((1, T + 1))) (key 0 only); ``scale(d_k, d_v)`` and ``axis`` as
    :func:`buggy_attention`'s."""
    dtype = working_dtype(q, k_new, v_new, cache_k, cache_v)
    q, k_new, v_new, cache_k, cache_v = (np.asarray(a, dtype) for a in
                                         (q, k_new, v_new, cache_k, cache_v))
    pairs = ((k_new, cache_k), (v_new, cache_v)) if append == "front" else \
        ((cache_k, k_new), (cache_v, v_new))
    new_k, new_v = (np.concatenate(pair, axis=-2) for pair in pairs)
    keys, values = {"all": (new_k, new_v), "cache": (cache_k, cache_v),
                    "new": (k_new, v_new)}[attend]
    mask = np.tril(np.ones((1, keys.shape[-2]), dtype=bool)) if causal else None
    out, _ = buggy_attention(q, keys, values, mask, scale=scale, axis=axis)
    return (out, new_k, new_v) if order == "kv" else (out, new_v, new_k)


MISTAKES = (
    mistake("new_key_not_attended", "The query attends over the old cache only: append the new "
            "key and value first, then attend over all T + 1 keys (the new token attends to "
            "itself too).", {"attend": "cache"}),
    mistake("cache_not_used", "The query attends to the new key alone, so the cache is unused: "
            "attend over the cached keys and the new one, np.concatenate([cache_k, k_new], "
            "axis=-2).", {"attend": "new"}),
    mistake("cache_prepended", "The new key and value are put at the front of the caches: append "
            "them at the end, np.concatenate([cache_k, k_new], axis=-2), so position t stays at "
            "index t.", {"append": "front"}),
    mistake("caches_swapped", "The caches are returned in the other order: return (output, "
            "new_cache_k, new_cache_v).", {"order": "vk"}),
    mistake("causal_mask_in_decode", "A causal mask tril(ones((Lq, Lk))) is applied to the "
            "decoding step: with one query it lets the query see key 0 only. The new token comes "
            "after every cached one, so it attends to all T + 1 keys, without a mask.",
            {"causal": True}),
    mistake("softmax_query_axis", "The softmax is taken over the query axis: with one query "
            "every weight is 1, so the output is the sum of the values. Take the softmax over "
            "the last (key) axis.", {"axis": -2}, bug="5"),
    mistake("no_scaling", "The scores are not scaled: divide q K^T by sqrt(d_k), as in training.",
            {"scale": lambda d_k, d_v: 1.0}, bug="2"),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
    Rule(tag="fails_with_empty_cache", explains=crashes_only_with("empty"),
         message="Your code fails when the cache is empty (T = 0, the first decoding step): "
                 "after appending, the T + 1 >= 1 keys include the new one, so concatenate "
                 "first and take the maximum over all the scores."),
)
