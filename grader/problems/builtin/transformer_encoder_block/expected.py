"""What each sample submission of ``transformer_encoder_block`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import whole

# wrong on every input: no value test passes, so the property and inputs tests are withheld
EVERYWHERE = whole("values", "heads", "masking", "properties", "dtypes", "inputs")

EXPECTED: dict[str, tuple[str, object]] = {
    "bug_post_ln": ("post_ln", EVERYWHERE),
    "bug_attention_residual_missing": ("attention_residual_missing", EVERYWHERE),
    "bug_ffn_residual_missing": ("ffn_residual_missing", EVERYWHERE),
    "bug_residual_of_normalised": ("residual_of_normalised", EVERYWHERE),
    "bug_layer_norms_swapped": ("layer_norms_swapped", EVERYWHERE),
    "bug_relu_on_output": ("relu_on_output", EVERYWHERE),
    # outside the heads cases there is one head: d_head = d_model
    "bug_scale_by_sqrt_d_model": ("scale_by_sqrt_d_model", whole("heads")),
    # the heads case under a causal mask too
    "bug_mask_ignored": ("mask_ignored", whole("masking", also="mask-elsewhere")),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
    # right, but caches a fused W_qkv in the caller's params dict (a key added)
    "bug_modifies_params": ("modifies_inputs", whole("inputs")),
}
