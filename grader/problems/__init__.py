"""The code problems learners implement, keyed by id (``PROBLEMS``).

Each problem module defines one :class:`grader.problems.base.CodeProblem` (contract, starter,
visible examples, hidden cases drawn from a seed, table of known mistakes);
:mod:`grader.problems.scoring` runs and scores a submission against one.
"""
from __future__ import annotations

from grader.problems.base import CodeProblem
from grader.problems.causal_mask import PROBLEM as _CAUSAL_MASK
from grader.problems.mha import PROBLEM as _MHA
from grader.problems.positional_encoding import PROBLEM as _POSITIONAL_ENCODING
from grader.problems.sdpa import PROBLEM as _SDPA
from grader.problems.softmax import PROBLEM as _SOFTMAX

PROBLEMS: dict[str, CodeProblem] = {
    p.id: p for p in (_SOFTMAX, _SDPA, _CAUSAL_MASK, _MHA, _POSITIONAL_ENCODING)
}

__all__ = ["CodeProblem", "PROBLEMS"]
