"""The mistakes ``combine_attention_partials`` is checked for: the merge of FlashAttention's
running statistics as public ports and course solutions get it wrong (an accumulator or the
normaliser not rescaled when the maximum changes, the factor inverted, exp2 for exp, the maximum
never updated, exp(-inf + inf) = NaN for rows no key reached, exp(m) taken unshifted, the
normalised output returned or the outputs weighted as if normalised)."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs
from grader.problems.base import Rule
from grader.problems.rules import failed_in_category
from grader.problems.spec import mistake


def buggy_combine(m_a, l_a, o_a, m_b, l_b, o_b, *, rescale_l=True, rescale_o=True, sign=1,
                  base="e", update_max=True, guard=True, stable=True, normalise=False,
                  o_weighted=False):
    """The merge with optional mistakes (no toggle: the reference's values): ``rescale_l`` /
    ``rescale_o`` False add l or o without the factors exp(m_x - m); ``sign`` -1 uses
    exp(m - m_x); ``base`` "2" uses 2 ** (m_x - m); ``update_max`` False keeps m = m_a;
    ``guard`` False computes exp(m_x - m) also where m = -inf (NaN for rows empty in both);
    ``stable`` False computes exp(m_x) / exp(m); ``normalise`` returns o / l as o;
    ``o_weighted`` adds l_x * o_x as if o were normalised."""
    m_a, l_a, o_a, m_b, l_b, o_b = (np.asarray(v, dtype=np.result_type(v, np.float32))
                                    for v in (m_a, l_a, o_a, m_b, l_b, o_b))
    with np.errstate(all="ignore"):
        m = np.maximum(m_a, m_b) if update_max else m_a
        shift = np.where(np.isneginf(m), 0.0, m) if guard else m

        def factor(m_x):
            if not stable:
                return np.exp(m_x) / np.exp(shift)
            exponent = sign * (m_x - shift)
            return np.power(2.0, exponent) if base == "2" else np.exp(exponent)

        alpha, beta = factor(m_a), factor(m_b)
        if guard and sign < 0:  # the inverted factor of an empty partial: exp(+inf) * 0
            alpha, beta = np.where(np.isneginf(m_a), 0.0, alpha), np.where(np.isneginf(m_b), 0.0,
                                                                          beta)
        l = alpha * l_a + beta * l_b if rescale_l else l_a + l_b
        wa, wb = (alpha * l_a, beta * l_b) if o_weighted else (alpha, beta)
        o = wa[..., None] * o_a + wb[..., None] * o_b if rescale_o else o_a + o_b
        if normalise:
            o = o / l[..., None]
        return m, l, o


MISTAKES = (
    mistake("l_not_rescaled", "The normaliser l is added without rescaling (l = l_a + l_b): "
            "each partial's l counts exp(score - m_x) for its own maximum m_x, so multiply it by "
            "exp(m_x - m) with m = max(m_a, m_b) before adding, as o is.", {"rescale_l": False}),
    mistake("o_not_rescaled", "The unnormalised output o is added without rescaling "
            "(o = o_a + o_b): when the maximum changes, each accumulator must be multiplied by "
            "exp(m_x - m), m = max(m_a, m_b), as l is.", {"rescale_o": False}),
    mistake("rescale_inverted", "The rescaling factor is inverted: exp(m - m_x) instead of "
            "exp(m_x - m). With m = max(m_a, m_b) every factor must be at most 1 (the partial "
            "with the smaller maximum shrinks).", {"sign": -1}),
    mistake("exp2_rescale", "The rescaling uses 2 ** (m_x - m) (exp2, as in kernels whose scores "
            "were multiplied by log2(e)), but m and the scores are in natural units here: use "
            "np.exp(m_x - m).", {"base": "2"}),
    mistake("max_not_updated", "The merged maximum m is not the maximum of both partials (m_a is "
            "kept): return m = np.maximum(m_a, m_b) and rescale both partials to it.",
            {"update_max": False}),
    mistake("empty_merge_nan", "Rows where both partials cover no keys (m = -inf) give NaN: "
            "exp(m_x - m) is exp(-inf + inf). Shift by 0 where m is -inf (e.g. "
            "np.where(np.isneginf(m), 0, m)), so such rows stay m = -inf, l = 0, o = 0.",
            {"guard": False}),
    mistake("unstable_rescale", "The factors are computed as exp(m_x) / exp(m), which overflows "
            "(inf/inf = NaN) or underflows (0/0) once the scores are in the hundreds: compute "
            "exp(m_x - m) directly.", {"stable": False}),
    mistake("returns_normalised_output", "The returned o is normalised (divided by l): the "
            "partial's o is the UNnormalised sum of exp(score - m) * v, so that partials can be "
            "merged again; the caller divides by l at the end.", {"normalise": True}),
    mistake("o_weighted_by_l", "The outputs are weighted by l_x * exp(m_x - m) as if o_a and o_b "
            "were normalised outputs: they are unnormalised sums, so multiply them by "
            "exp(m_x - m) only.", {"o_weighted": True}),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
)

