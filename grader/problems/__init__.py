"""The code problems learners implement, keyed by id (``PROBLEMS``).

Each problem module defines one :class:`grader.problems.base.CodeProblem` (contract, starter,
visible examples, hidden cases drawn from a seed, catalogue of known mistakes);
:mod:`grader.problems.grading` runs and scores a submission against one.
"""
from __future__ import annotations

from grader.problems.base import CodeProblem
from grader.problems.sdpa import PROBLEM as _SDPA

PROBLEMS: dict[str, CodeProblem] = {p.id: p for p in (_SDPA,)}

__all__ = ["CodeProblem", "PROBLEMS"]
