"""The mistakes ``layer_norm`` is checked for: the unbiased variance (np.var(ddof=1),
torch.var's default), eps outside the square root, the eps argument ignored or left out, the
statistics over the batch axis (batch norm) or the whole array, gamma and beta swapped, the
variance taken about 0 (E[x^2]) or the mean not subtracted at all (RMSNorm), and the mean
taken without keepdims."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs
from grader.problems.base import Rule
from grader.problems.rules import failed_in_category
from grader.problems.spec import mistake


def buggy_layer_norm(x, gamma, beta, eps=1e-5, *, ddof=0, eps_place="inside", axis=-1,
                     swap_affine=False, centre_variance=True, centre=True, keepdims=True):
    """Layer norm with optional mistakes (no toggle: the reference's values): ``ddof`` 1 is the
    unbiased variance; ``eps_place`` "outside" (sqrt(var) + eps), "fixed" (1e-5 whatever eps
    says), "none" (no eps); ``axis`` 0 or None (the whole array) for the statistics;
    ``swap_affine`` multiplies by beta and adds gamma; ``centre_variance`` False takes
    mean(x^2) for the variance; ``centre`` False subtracts no mean at all (RMSNorm);
    ``keepdims`` False takes the mean without keepdims."""
    x = np.asarray(x)
    x = x.astype(np.result_type(x.dtype, np.float32))
    gamma, beta = np.asarray(gamma).astype(x.dtype), np.asarray(beta).astype(x.dtype)
    with np.errstate(all="ignore"):
        mean = np.mean(x, axis=axis, keepdims=keepdims) if centre else 0.0
        centred = x - mean
        about = centred if centre_variance else x
        n = x.size if axis is None else x.shape[axis]
        var = np.sum(about ** 2, axis=axis, keepdims=True) / (n - ddof)
        if eps_place == "outside":
            xhat = centred / (np.sqrt(var) + eps)
        else:
            used = {"inside": eps, "fixed": 1e-5, "none": 0.0}[eps_place]
            xhat = centred / np.sqrt(var + used)
        return xhat * beta + gamma if swap_affine else xhat * gamma + beta


MISTAKES = (
    mistake("unbiased_variance", "The variance is the unbiased one (divided by d - 1, as "
            "np.var(ddof=1) or torch.var by default): layer norm divides by d, "
            "var = np.mean((x - mean) ** 2, axis=-1, keepdims=True).", {"ddof": 1}),
    mistake("eps_outside_sqrt", "eps is added outside the square root (sqrt(var) + eps): it "
            "belongs inside, (x - mean) / np.sqrt(var + eps).", {"eps_place": "outside"}),
    mistake("eps_ignored", "The eps argument is ignored (a fixed 1e-5 is used): use the eps "
            "passed in.", {"eps_place": "fixed"}),
    mistake("no_eps", "No eps is added to the variance, so a row with (nearly) equal entries "
            "divides by (nearly) zero: (x - mean) / np.sqrt(var + eps).", {"eps_place": "none"}),
    mistake("batch_axis", "The mean and variance are taken over axis 0 (the batch, as batch "
            "norm does): layer norm normalises each vector over its own last axis (axis=-1).",
            {"axis": 0}),
    mistake("whole_array", "The mean and variance are taken over the whole array: layer norm "
            "normalises each vector over its last axis (axis=-1, keepdims=True).",
            {"axis": None}),
    mistake("gamma_beta_swapped", "gamma and beta are swapped: the output is "
            "x_hat * gamma + beta (gamma scales, beta shifts).", {"swap_affine": True}),
    mistake("variance_not_centred", "The variance is computed as mean(x ** 2), without "
            "subtracting the mean: var = mean((x - mean) ** 2) (or mean(x ** 2) - mean ** 2).",
            {"centre_variance": False}),
    mistake("not_centred", "The mean is never subtracted (that is RMSNorm): layer norm computes "
            "(x - mean) / sqrt(var + eps) with the mean over the last axis.", {"centre": False}),
    mistake("no_keepdims", "The mean is taken without keepdims=True, so it broadcasts against "
            "the wrong axis: use x.mean(axis=-1, keepdims=True).", {"keepdims": False}),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
)
