"""A code problem as a declaration: what :func:`grader.problems.compile.compile_problem` turns into
the :class:`grader.problems.base.CodeProblem` that grading uses.

A declaration is data plus trusted implementations, and nothing here draws, runs or judges:

* :class:`Contract`: the function learners write (name, parameters in call order), the text they
  read and the starter file they get;
* :class:`CaseSpec`: one test, named (the name is its id: it seeds the test's own draw, so adding
  or removing a case moves no other case's inputs), in a category, with its inputs (fixed
  :class:`Inputs` for a visible example, a :class:`Draw` for a hidden test), a check picked by
  name from :data:`grader.problems.checks.CHECKS` with its options, and traits;
* :class:`Mistake`: a known mistake (tag, the sentence a learner gets, the case traits it needs)
  with one or more implementations that reproduce it;
* :class:`Picture`: how the visible examples are drawn on the result page;
* :class:`ProblemSpec`: all of it, plus the categories' weights, the reference implementation,
  cross-case rules and the signals read off a failing case.

Built-in problems write these in Python (``grader/problems/builtin/<id>/``); an uploaded problem
document is read into the same declaration. Modelled on Hypothesis's strategies (inputs as values
with named bounds), mutmut's operator table (mistakes as rows) and PrairieLearn's question folders
(one package per problem).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of a parameter that has none.
REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Param:
    """One parameter of the learner's function: its name and default (``REQUIRED`` if none)."""

    name: str
    default: Any = REQUIRED


@dataclass(frozen=True)
class Contract:
    """The function a learner writes: ``function`` (its name), ``params`` (in call order), the
    ``text`` learners read (signature, shapes, conventions, tolerances) and the ``starter``."""

    function: str
    params: tuple[Param, ...]
    text: str
    starter: str

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)


Call = tuple[tuple, dict]


@dataclass(frozen=True)
class Inputs:
    """A case's inputs: ``calls`` (each ``(args, kwargs)``, made on the learner's function in
    order), ``data`` the check may read (e.g. the permutation of an equivariance test) and the
    ``traits`` this particular construction guarantees (e.g. ``"wide-rows"``)."""

    calls: tuple[Call, ...]
    data: Mapping[str, Any] = field(default_factory=dict)
    traits: frozenset[str] = frozenset()


def inputs(*calls: Call, traits=(), **data) -> Inputs:
    """``Inputs`` of ``calls`` with ``traits`` and check ``data``."""
    return Inputs(tuple(calls), dict(data), frozenset(traits))


@dataclass(frozen=True)
class Draw:
    """How a hidden case's inputs are drawn: ``construct(rng, **params)`` returns
    :class:`Inputs`. ``construct`` is a named constructor (its ``__name__`` and ``params`` say what
    is drawn, e.g. ``stability_rows(offsets=[...], jitter=100.0)``); it builds the condition its
    case is named after and asserts it with :func:`grader.problems.conditions.require`."""

    construct: Callable[..., Inputs]
    params: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self, rng: np.random.Generator) -> Inputs:
        return self.construct(rng, **self.params)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.construct.__name__}({args})"


def draw(construct: Callable[..., Inputs], **params) -> Draw:
    """A :class:`Draw` of ``construct`` with ``params``."""
    return Draw(construct, params)


@dataclass(frozen=True)
class CaseSpec:
    """One test. ``inputs`` are fixed for a visible example (``visible``, shown to learners with the
    expected value) and a :class:`Draw` for a hidden test (or fixed, for an edge case). ``check`` names the comparison
    (:data:`grader.problems.checks.CHECKS`, or the problem's own ``checks``) and ``options`` are
    its arguments (e.g. ``{"atol": 1e-4}``). ``traits`` describe the inputs for mistakes'
    ``needs`` and cross-case rules, beside those the problem's ``traits`` function reads off the
    inputs."""

    name: str
    category: str
    inputs: Inputs | Draw
    check: str = "values"
    options: Mapping[str, Any] = field(default_factory=dict)
    traits: frozenset[str] = frozenset()
    visible: bool = False


def example(name: str, category: str, *calls: Call, check: str = "values", traits=(),
            **options) -> CaseSpec:
    """A visible example on fixed ``calls``."""
    return CaseSpec(name, category, Inputs(tuple(calls)), check, options, frozenset(traits),
                    visible=True)


def hidden(name: str, category: str, inputs: Draw | Inputs, check: str = "values", traits=(),
           **options) -> CaseSpec:
    """A hidden test drawn by ``inputs`` (or on fixed inputs, e.g. an edge case n = 1)."""
    return CaseSpec(name, category, inputs, check, options, frozenset(traits))


def fixed(*calls: Call) -> Inputs:
    """Fixed inputs: ``calls``."""
    return Inputs(tuple(calls))


@dataclass(frozen=True)
class Mistake:
    """A known mistake: ``tag`` (stable; results carry it as ``diagnosis:<tag>``), the ``message``
    a learner can act on, ``bug`` (its entry in docs/references.md, "Attention mistakes"), the case
    traits it ``needs`` (never claimed on a case without them: no mask, no masking diagnosis) and
    the ways it is made: ``toggles`` (each a mapping of keyword arguments of the problem's
    ``buggy`` implementation, e.g. ``{"scale": ...}``; mistakes given as toggles combine, so a
    learner who makes two of them at once is told both) and ``implementations`` (functions with
    the learner's signature, for a mistake no toggle expresses). ``strict_return`` mistakes match
    only a learner whose return has the same structure (one array, or an (output, weights)
    pair)."""

    tag: str
    message: str
    implementations: tuple[Callable[..., Any], ...] = ()
    bug: str = ""
    needs: frozenset[str] = frozenset()
    strict_return: bool = False
    toggles: tuple[Mapping[str, Any], ...] = ()


def mistake(tag: str, message: str, *toggles: Mapping[str, Any], implementations=(),
            bug: str = "", needs=(), strict_return: bool = False) -> Mistake:
    """A :class:`Mistake` made by each of ``toggles`` (keyword arguments of the problem's
    ``buggy`` implementation) and by each of ``implementations``."""
    return Mistake(tag, message, tuple(implementations), bug, frozenset(needs), strict_return,
                   tuple(dict(t) for t in toggles))


@dataclass(frozen=True)
class Picture:
    """How each visible example is drawn (grader/web/heatmap.py): ``shows`` (``"weights"``,
    ``"output"``, ``"mask"``, ``"encoding"``), ``scale`` (``"unit"`` 0..1 or ``"diverging"``),
    the axis names of its ``rows`` and ``columns``, and ``call``: ``"example"`` (the example's own
    call, its output drawn) or ``"identity_values"`` (attention called with V = the identity, so
    the output IS the weight matrix; batched examples show batch element 0) or ``"squeezed"``
    (the example's own output without its length-1 axes). ``result``: for a function that
    returns several results (e.g. ``(m, l, o)``), the index of the one drawn (default: the
    first)."""

    shows: str
    scale: str
    rows: str
    columns: str
    call: str = "example"
    result: int | None = None


@dataclass(frozen=True)
class ProblemSpec:
    """A code problem's declaration (see the module docstring).

    ``categories`` maps each category to its weight (an item's points are split across the
    categories by weight, then equally across a category's tests). ``reference`` is the trusted
    implementation with the learner's signature; ``returns_weights`` says it returns
    ``(output, weights)`` (the weights are checked when a learner returns them too) and
    ``show_weights`` whether the visible examples show the expected weights. ``buggy(*args,
    **toggles)`` is the implementation the mistakes' toggles switch on (with no toggle it computes
    what the reference does, in the inputs' floating dtype). ``traits(args, kwargs)`` reads the traits of a call's inputs (e.g. ``"masked"``, ``"batched"``), ``rows(args,
    kwargs)`` the output rows that are checked (None: all; fully masked query rows are not),
    ``conditions(name, args, kwargs)`` asserts what a case's name states of its first call
    (e.g. "Lq != Lk" in the name: the draw has it), for every case.
    ``rules`` are cross-case patterns (:class:`grader.problems.base.Rule`), ``describe(case,
    values)`` the signals of a failing case's numbers that no mistake explains, ``checks`` the
    problem's own named checks besides the shared ones. ``balance`` names a trait (e.g.
    ``"batched"``): in every category with cases that have it and cases that lack it, each side
    gets half of the category's points (:func:`grader.problems.scoring.case_points`), so code
    right on one side only loses the same share whichever side it handles; empty: no balance.
    ``canonical(value)`` maps a learner's returned value to the form the mistakes' values take
    before diagnosis compares them (never for the score): e.g. an additive mask with any large
    negative constant read as -inf.
    """

    id: str
    title: str
    contract: Contract
    categories: Mapping[str, float]
    cases: tuple[CaseSpec, ...]
    reference: Callable[..., Any]
    mistakes: tuple[Mistake, ...] = ()
    buggy: Callable[..., Any] | None = None
    rules: tuple[Any, ...] = ()
    describe: Callable[..., "str | None"] | None = None
    traits: Callable[[tuple, dict], frozenset[str]] | None = None
    rows: Callable[[tuple, dict], "np.ndarray | None"] | None = None
    conditions: Callable[[str, tuple, dict], None] | None = None
    checks: Mapping[str, Callable[..., "str | None"]] = field(default_factory=dict)
    pictures: tuple[Picture, ...] = ()
    balance: str = ""
    returns_weights: bool = False
    show_weights: bool = False
    canonical: Callable[[Any], Any] | None = None
