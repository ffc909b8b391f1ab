"""``compile_problem``: a problem declaration (:class:`grader.problems.spec.ProblemSpec`) into the
:class:`grader.problems.base.CodeProblem` that grading, the pictures, the public view and the
trial (:mod:`grader.problems.trial`) use. The built-in packages and an uploaded problem document
go through it alike, as rubrics go through ``compile_rubric``: every error is reported with its
path (``cases[3] (shapes: 1-D input): check: unknown check 'shape'``), all at once.
"""
from __future__ import annotations

import keyword
from typing import Any, Callable, Mapping

import numpy as np

from grader.problems.base import NUMPY_NOTE, REFERENCE, Case, CodeProblem, Variant
from grader.problems.checks import CHECKS
from grader.problems.draws import CaseGenerators, draw_inputs, make_case
from grader.problems.executor import InProcessExecutor
from grader.problems.spec import CaseSpec, Picture, ProblemSpec

PICTURE_CALLS = ("example", "identity_values", "squeezed")


class ProblemError(ValueError):
    """A declaration that cannot be compiled; ``errors`` lists every fault with its path."""

    def __init__(self, problem_id: str, errors: list[str]):
        self.errors = errors
        super().__init__(f"problem {problem_id!r}: " + "; ".join(errors))


def _identifier(name: Any) -> bool:
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


def _contract_errors(spec: ProblemSpec) -> list[str]:
    errors = []
    if not _identifier(spec.contract.function):
        errors.append(f"contract: function: {spec.contract.function!r} is not a Python name")
    names = spec.contract.parameter_names
    for index, name in enumerate(names):
        if not _identifier(name):
            errors.append(f"contract: params[{index}]: {name!r} is not a Python name")
    if len(set(names)) != len(names):
        errors.append("contract: params: parameter names repeat")
    return errors


def _case_errors(spec: ProblemSpec, checks: dict) -> list[str]:
    errors, seen = [], set()
    for index, case in enumerate(spec.cases):
        where = f"cases[{index}] ({case.name})"
        if case.name in seen:
            errors.append(f"{where}: name: another case has this name")
        seen.add(case.name)
        if case.category not in spec.categories:
            errors.append(f"{where}: category: {case.category!r} is not one of the categories "
                          f"({', '.join(spec.categories)})")
        if case.check not in checks:
            errors.append(f"{where}: check: unknown check {case.check!r} (known: "
                          f"{', '.join(sorted(checks))})")
    return errors


def _other_errors(spec: ProblemSpec) -> list[str]:
    errors = [f"categories: {name}: weight must be a number greater than 0"
              for name, weight in spec.categories.items()
              if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight <= 0]
    for index, found in enumerate(spec.mistakes):
        if not found.tag or not found.message or not (found.implementations or found.toggles):
            errors.append(f"mistakes[{index}] ({found.tag}): a tag, a message and at least one "
                          "way to make it (toggles or an implementation) are required")
    errors += [f"mistakes[{index}] ({found.tag}): toggles: the problem has no buggy "
               "implementation to switch them on" for index, found in enumerate(spec.mistakes)
               if found.toggles and spec.buggy is None]
    errors += [f"pictures[{index}]: call: must be one of {', '.join(PICTURE_CALLS)}"
               for index, picture in enumerate(spec.pictures) if picture.call not in PICTURE_CALLS]
    if not callable(spec.reference):
        errors.append("reference: required")
    return errors


def toggled(buggy: Callable[..., Any], toggles: Mapping[str, Any]) -> Callable[..., Any]:
    """``buggy`` with the keyword ``toggles`` switched on, with the learner's signature."""
    def implementation(*args, **kwargs):
        return buggy(*args, **kwargs, **toggles)

    return implementation


def _variants(spec: ProblemSpec) -> tuple[tuple[Callable, ...], tuple[Variant, ...]]:
    implementations: list[Callable] = [spec.reference]
    variants = []
    for found in spec.mistakes:
        ways = [(toggled(spec.buggy, t), t) for t in found.toggles] + \
            [(fn, None) for fn in found.implementations]
        for fn, toggles in ways:
            implementations.append(fn)
            variants.append(Variant(found.tag, found.message, len(implementations) - 1,
                                    found.bug, found.needs, found.strict_return, toggles))
    return tuple(implementations), tuple(variants)


def combination(buggy: Callable[..., Any] | None, variants: tuple[Variant, ...]
                ) -> Callable[..., Any] | None:
    """The implementation that makes every one of ``variants`` at once (their toggles merged), or
    None when they do not combine: one is given as a function, or two set the same toggle."""
    merged: dict[str, Any] = {}
    for variant in variants:
        if buggy is None or variant.toggles is None or set(variant.toggles) & set(merged):
            return None
        merged.update(variant.toggles)
    return toggled(buggy, merged)


def _case_maker(spec: ProblemSpec, checks: dict) -> Callable[..., Case]:
    names = spec.contract.parameter_names

    def make(case: CaseSpec, seed: int | None, generators: CaseGenerators | None = None) -> Case:
        inputs = draw_inputs(case, seed, spec.conditions, generators)
        basis = checks[case.check].basis
        made = make_case(case, inputs, (spec.id, seed, case.name), basis, spec.traits, spec.rows)
        if basis == "inputs":  # the array and dict arguments' names, for "modified x in place"
            args = made.calls[0][0]
            made.options["names"] = tuple(names[i] for i, a in enumerate(args)
                                          if isinstance(a, (np.ndarray, dict)) and i < len(names))
        return made

    return make


def compile_problem(spec: ProblemSpec, executor: Callable[[tuple], Any] | None = None
                    ) -> CodeProblem:
    """Check ``spec`` and compile it. Raises :class:`ProblemError` listing every fault with its
    path; a hidden case whose draw lacks its condition raises
    :class:`grader.problems.conditions.CaseConditionError` when the seed is drawn.
    ``executor(implementations)`` makes the executor (default: in process, for the built-ins'
    trusted implementations; an uploaded problem's runs them in the sandbox)."""
    checks = {**CHECKS, **spec.checks}
    errors = _contract_errors(spec) + _case_errors(spec, checks) + _other_errors(spec)
    if errors:
        raise ProblemError(spec.id, errors)
    implementations, variants = _variants(spec)
    make = _case_maker(spec, checks)
    visible = tuple(make(case, None) for case in spec.cases if case.visible)
    hidden = tuple(case for case in spec.cases if not case.visible)
    contract = spec.contract.text
    if NUMPY_NOTE not in contract:  # every contract states the NumPy version
        contract = contract.rstrip("\n") + "\n" + NUMPY_NOTE

    def draw(seed: int) -> tuple[Case, ...]:
        generators = CaseGenerators(seed)
        return tuple(make(case, seed, generators) for case in hidden)

    if executor is None:
        made = InProcessExecutor(implementations, lambda key: combination(
            spec.buggy, tuple(variants[i] for i in key)))
    else:
        made = executor(implementations)
    return CodeProblem(spec=spec, contract=contract, categories=dict(spec.categories),
                       visible=visible, implementations=implementations, variants=variants,
                       checks=checks, draw=draw, executor=made)


__all__ = ["REFERENCE", "Picture", "ProblemError", "compile_problem"]
