"""The code problems learners implement, keyed by id (``PROBLEMS``).

Each built-in problem is a package under ``grader/problems/builtin/`` whose ``SPEC`` declares it
(:mod:`grader.problems.spec`); :func:`grader.problems.compile.compile_problem` turns it into the
:class:`grader.problems.base.CodeProblem` that :mod:`grader.problems.scoring` grades against.
"""
from __future__ import annotations

from importlib import import_module

from grader.problems.base import CodeProblem
from grader.problems.builtin import PACKAGES
from grader.problems.compile import compile_problem


def _builtin() -> dict[str, CodeProblem]:
    problems = {}
    for package in PACKAGES:
        problem = compile_problem(import_module(f"grader.problems.builtin.{package}").SPEC)
        problems[problem.id] = problem
    return problems


PROBLEMS: dict[str, CodeProblem] = _builtin()

__all__ = ["CodeProblem", "PROBLEMS"]
