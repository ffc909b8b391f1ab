"""Problem ``transformer_encoder_block(x, params, mask=None)`` in the post-LN order of Vaswani et
al. 2017 (h = LN1(x + MHA(x)); out = LN2(h + FFN(h))): the contract option of
``transformer_encoder_block``, declared by the same :func:`grader.problems.builtin.
transformer_encoder_block.encoder_spec` with ``order="post"``: the same cases and checks, the
same buggy implementation, and each order is the other's mistake."""
from __future__ import annotations

from grader.problems.builtin.transformer_encoder_block import encoder_spec

SPEC = encoder_spec("post")
