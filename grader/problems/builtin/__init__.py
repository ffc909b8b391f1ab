"""The built-in code problems, one package each (``grader/problems/builtin/<id>/``: its
declaration ``SPEC`` in ``__init__.py``, its cases and mistakes, and ``samples/``: correct and
buggy implementations with what each must get). Adding a problem is its package plus one line
in :data:`PACKAGES`."""
from __future__ import annotations

PACKAGES = (
    "softmax",
    "scaled_dot_product_attention",
    "causal_mask",
    "multi_head_attention",
    "positional_encoding",
    "rotary_embedding",
    "rotary_embedding_halves",
    "grouped_query_attention",
    "kv_cache_decode_step",
    "sliding_window_attention",
    "linear_attention",
    "combine_attention_partials",
    "softmax_backward",
    "attention_backward",
    "layer_norm",
    "transformer_encoder_block",
    "transformer_encoder_block_post_ln",
)

#: The built-in assignment generated from :data:`PACKAGES`: one code item per built-in problem.
FAMILY_ASSIGNMENT = "attention-family"


def family_assignment() -> dict:
    """The document of :data:`FAMILY_ASSIGNMENT`: every registered built-in problem as a code item
    of 10 points, item id = the problem id with hyphens (grader/content.py loads it beside the
    assignment files, so a new problem appears in it without another edit)."""
    from grader.problems import PROBLEMS

    return {"id": FAMILY_ASSIGNMENT, "title": "The attention family, every built-in problem",
            "description": "Every built-in code problem, each graded by hidden numeric tests with "
                           "misconception diagnosis: " + ", ".join(
                               p.title for p in PROBLEMS.values()) + ".",
            "items": [{"id": p.id.replace("_", "-"), "kind": "code", "points": 10,
                       "problem": p.id} for p in PROBLEMS.values()]}
