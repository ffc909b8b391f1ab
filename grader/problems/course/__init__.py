"""A built-in problem compiled with a code item's ``contract:`` options (issue 21, part 1).

:func:`compile_course` gives the :class:`grader.problems.base.CodeProblem` an item grades
against: the built-in problem itself when the options are today's contract (none, ``{}``, or
every default written out: the item is graded exactly as before), else the same problem
compiled again (:func:`grader.problems.compile.compile_problem`) from a declaration whose
contract text, starter, messages and cases are the course's (:mod:`.wording`,
:mod:`.cases`, :mod:`.mistakes`), with a
:class:`~.adapter.CourseAdapter` that converts calls and returns at the sandbox boundary. The
cases, reference, mistakes, checks and diagnosis stay canonical; compiled problems are cached
per (problem id, options), so the same seed and options draw the same inputs. Multi-head
attention under another weights layout also sends its visible examples in the other layouts
(:mod:`.layouts`), to name code written for one of them.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace
from typing import Any, Mapping

from grader.problems.base import CodeProblem
from grader.problems.compile import compile_problem
from grader.problems.course import cases, mistakes, text, wording
from grader.problems.course.adapter import CourseAdapter, DefaultAxis
from grader.problems.course.options import (FUSED_NAMES, ContractOptionError, key_of,
                                            normalise, profile)
from grader.problems.spec import REQUIRED, Contract, Param, ProblemSpec

#: Compiled course problems by (problem id, options), the most recently used last; an item keeps
#: its own reference, so one evicted is compiled again (to the same cases) only for a new item.
_CACHE: "OrderedDict[tuple, CodeProblem]" = OrderedDict()
_CACHE_SIZE = 128
_LOCK = threading.Lock()

_KINDS = {"scaled_dot_product_attention": "attention", "causal_mask": "causal_mask",
          "positional_encoding": "encoding", "multi_head_attention": "mha",
          "grouped_query_attention": "attention", "attention_backward": "attention",
          "transformer_encoder_block": "encoder", "transformer_encoder_block_post_ln": "encoder"}


def options_of(problem: CodeProblem, raw: Any) -> dict[str, Any]:
    """The normalised options of ``raw`` for ``problem`` (empty: today's contract). Raises
    :class:`ContractOptionError` naming the field."""
    return normalise(problem.id, raw, problem.parameter_names, problem.function)


def compile_course(problem: CodeProblem, raw: Any) -> CodeProblem:
    """``problem`` under the ``contract:`` options ``raw`` (see the module docstring). Raises
    :class:`ContractOptionError` naming the field."""
    options = options_of(problem, raw)
    if not options:
        return problem
    key = (problem.id, key_of(options))
    with _LOCK:
        found = _CACHE.get(key)
        if found is not None:
            _CACHE.move_to_end(key)
    if found is None:
        found = _compile(problem, options)
        with _LOCK:
            found = _CACHE.setdefault(key, found)
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return found


# -- the adapter ---------------------------------------------------------------------------------

def _order(canonical: tuple[str, ...], course: tuple[str, ...]) -> tuple[tuple[str, ...],
                                                                           tuple[int, ...]]:
    """(course names in canonical order, canonical index of each course position). Names that
    are the canonical ones up to case, reordered, map by name; otherwise by position."""
    lower = [c.lower() for c in canonical]
    if sorted(n.lower() for n in course) == sorted(lower) and len(set(lower)) == len(lower):
        order = tuple(lower.index(n.lower()) for n in course)
        names = tuple(course[order.index(i)] for i in range(len(canonical)))
        return names, order
    return tuple(course), tuple(range(len(canonical)))


def _adapter(spec: ProblemSpec, options: Mapping[str, Any]) -> CourseAdapter:
    canonical = spec.contract.parameter_names
    default = FUSED_NAMES if options.get("weights") == "fused" else canonical
    if options.get("causal"):  # always-causal heads: no mask parameter (the last)
        names, order = _order(canonical[:-1], tuple(options.get("parameters",
                                                                default[:-1])))
        names += (canonical[-1],)
    else:
        names, order = _order(canonical, tuple(options.get("parameters", default)))
    defaults = tuple(None if p.default is REQUIRED else p.default for p in spec.contract.params)
    return CourseAdapter(problem_id=spec.id, function=options.get("function",
                                                                  spec.contract.function),
                         canonical=canonical, names=names, order=order, defaults=defaults,
                         options=dict(options), mask_index=profile(spec.id).mask_input,
                         kind=_KINDS.get(spec.id, ""))


# -- compiling -----------------------------------------------------------------------------------

def _compile(problem: CodeProblem, options: Mapping[str, Any]) -> CodeProblem:
    spec = problem.spec
    adapter = _adapter(spec, options)
    names = wording.names_of(spec, adapter)
    course_order = tuple(adapter.names[i] for i in adapter.order)
    line = text.signature(adapter.function, course_order,
                          wording.course_defaults(spec, adapter))
    params = []
    for index, param in enumerate(spec.contract.params):
        default = param.default
        if param.name == "axis" and "default_axis" in options:
            default = options["default_axis"]
        params.append(Param(adapter.names[index], default))
    # the visible examples' names in the course's names (their inputs are fixed: no draw
    # moves); a hidden test's name seeds its draw and stays
    kept = tuple(replace(c, name=text.rename(c.name, names)) if c.visible else c
                 for c in cases.course_cases(spec, options))
    _check_kept(spec, options, kept)
    contract = Contract(adapter.function, tuple(params),
                        wording.contract_text(spec, options, adapter, line,
                                              cases.mask_shapes_sent(spec, adapter, kept)),
                        wording.starter(spec, options, adapter, line))
    known = tuple(replace(m, message=wording.message(spec, options, names, m.tag, m.message))
                  for m in mistakes.course_mistakes(spec, options) + tuple(spec.mistakes))
    rules = mistakes.form_rules(adapter) + tuple(
        replace(r, message=wording.message(spec, options, names, r.tag, r.message))
        for r in spec.rules)
    course_spec = replace(spec, contract=contract, cases=kept, mistakes=known, rules=rules,
                          checks=mistakes.course_checks(spec, options, names))
    compiled = compile_problem(course_spec)
    compiled.course = replace(adapter, test_names={
        c.name: wording.test_name(spec, options, names, c.name) for c in kept if not c.visible})
    return compiled


def _check_kept(spec: ProblemSpec, options: Mapping[str, Any], kept: tuple) -> None:
    """Raises :class:`ContractOptionError` when the options leave no hidden test, or no hidden
    test with a mask in a problem that has some."""
    index = profile(spec.id).mask_input
    if index is not None and any(cases.masked(c, index) for c in spec.cases) and not any(
            cases.masked(c, index) for c in kept if not c.visible):
        field = "contract.mask_shapes" if "mask_shapes" in options else "contract.ranks"
        raise ContractOptionError(field, "no hidden test of this problem has a mask under "
                                         "these options: the masking could not be checked")
    if not any(not c.visible for c in kept):
        raise ContractOptionError("contract.ranks", "no hidden test of this problem uses only "
                                                    "these input ranks")
    if "default_axis" in options and not any(
            not c.visible and _default_axis_call(c) for c in kept):
        raise ContractOptionError("contract.default_axis", "no hidden test calls the function "
                                  f"without an axis on an input that has axis "
                                  f"{options['default_axis']}: the default could not be checked")


def _default_axis_call(case) -> bool:
    """The case's first call leaves the axis to the course's default (it carries a
    :class:`~.adapter.DefaultAxis`)."""
    call = cases.first_call(case)
    return call is not None and any(isinstance(a, DefaultAxis) for a in call[0])


mask_shape = cases.mask_shape

__all__ = ["ContractOptionError", "compile_course", "mask_shape", "options_of"]
