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
)
