"""The shape of a code problem: its contract, its test cases and its known mistakes.

A :class:`CodeProblem` is pure data plus trusted functions. Nothing here runs learner code: test cases
are lists of calls (arguments built in the trusted process from a seed) and a check that judges the
raw values the sandbox hands back. Known mistakes are :class:`Variant` s, buggy re-implementations run
in the trusted process on the same inputs: when the learner's numbers match a variant, the feedback
names that mistake (docs/references.md, "Refitting the reference" and "Attention mistakes").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

Check = Callable[[list[Any]], "str | None"]

#: What a case's check compares: ``values`` (the learner's values against the reference's),
#: ``shape`` (shapes only, finite output), ``property`` (the learner's outputs against each other
#: or a law such as equivariance, or the output's dtype) or ``inputs`` (arguments unchanged).
BASES = ("values", "shape", "property", "inputs")

#: The credit rule, shown in every contract and applied by :mod:`grader.problems.scoring`.
CREDIT_NOTE = ("Scoring: shape tests count only when the output is finite (no NaN/inf); property "
               "tests (equivariance, dtype, ...) and the inputs-not-modified test count only "
               "once at least one hidden test comparing your values with the expected ones "
               "passes. A right-shaped but wrong-valued answer therefore earns the shapes points "
               "at most.")

#: The NumPy learners' code runs with, ending every contract (:class:`CodeProblem` adds it): the
#: sandbox binds the names NumPy 2.0 removed (grader/sandbox/runner.py, ``NUMPY_1_ALIASES``).
NUMPY_NOTE = ("NumPy: your code runs with NumPy 2.x; the aliases NumPy 2.0 removed (np.float_, "
              "np.NINF, np.NaN, np.product, ...) still work here.")


@dataclass
class Case:
    """One test: ``calls`` (each ``(args, kwargs)``) made on the learner's function, judged by
    ``check(values) -> None | failure message`` on the returned values, in call order.

    ``rows`` gives, per call, the boolean array of output rows that are checked (None: all rows),
    used both by ``check`` and when matching variants. ``traits`` describe the inputs for
    submission-level rules (e.g. ``"cross"`` when Lq != Lk, ``"multihead"``, ``"odd"``).
    ``public`` is set on visible examples only: what learners may see (inputs and expected value).
    ``wrapped`` cases call the learner's function through :data:`grader.problems.inputs.WRAPPER`,
    which also returns the array arguments after the call; ``check`` then receives
    ``(result, arrays_after)`` per call.
    ``basis`` (one of :data:`BASES`) says what the check compares; when not given it is read from
    the check (the factories of :mod:`grader.problems.checks` tag their checks), and a check
    without a tag must be given one (ValueError), so no custom check counts as a value test by
    accident.
    """

    name: str
    category: str
    calls: list[tuple[tuple, dict]]
    check: Check
    rows: list[np.ndarray | None] = field(default_factory=list)
    traits: frozenset[str] = frozenset()
    visible: bool = False
    public: dict[str, Any] | None = None
    wrapped: bool = False  # calls go through grader.problems.inputs.WRAPPER (inputs check)
    basis: str = ""

    def __post_init__(self) -> None:
        self.basis = self.basis or getattr(self.check, "basis", "")
        if self.basis not in BASES:
            raise ValueError(f"case {self.name!r}: basis must be one of {BASES}, "
                             f"got {self.basis!r}")

    def rows_for(self, index: int) -> np.ndarray | None:
        return self.rows[index] if index < len(self.rows) else None


@dataclass(frozen=True)
class Variant:
    """A known mistake, as a buggy implementation with the learner's signature.

    ``tag`` names the mistake (stable: results carry it as ``diagnosis:<tag>``); ``message`` is one sentence a student can
    act on, tied to the concept; ``bug`` refers to the entry in attention-bugs.md (e.g. ``"1"``).
    ``fn`` may raise: a learner whose call raised the same exception type is matched too.
    ``needs`` are case traits the mistake requires (e.g. ``{"masked"}`` for a masking mistake): the
    variant is never claimed on a case without them. ``strict_return`` variants match only a
    learner whose return has the same structure (one array, or an (output, weights) pair).
    """

    tag: str
    message: str
    fn: Callable[..., Any]
    bug: str = ""
    needs: frozenset[str] = frozenset()
    strict_return: bool = False


@dataclass(frozen=True)
class Rule:
    """A mistake recognised from the pattern of results across cases rather than from one case's
    numbers (e.g. "crashes exactly when Lq != Lk", "right with one head, wrong with several").

    ``explains(results)`` receives every :class:`CaseResult` and returns the names of the failing
    cases the rule explains (empty when the pattern is absent).
    """

    tag: str  # names the mistake, as Variant.tag
    message: str
    explains: Callable[[list["CaseResult"]], list[str]]
    bug: str = ""


@dataclass
class CaseResult:
    """A case after the run: the sandbox outcomes of its calls and the verdict."""

    case: Case
    outcomes: list[Any]
    passed: bool
    failure: str = ""
    crashed: bool = False  # a call raised, timed out or returned something unparseable
    uncredited: bool = False  # the check passed but the credit rule withheld the points
    diagnosis_tag: str = ""  # the tag of the mistake that explains the failure
    diagnosis: str = ""
    signals: str = ""  # what the numbers show when no known mistake matched


@dataclass
class CodeProblem:
    """A code problem learners implement.

    ``function`` is the name the learner defines; ``contract`` is the text learners see (signature,
    shapes, mask polarity, return convention, fully-masked-row rule); ``categories`` maps each
    category name to its weight (an item's points are split across categories by weight, then
    equally across the category's tests); ``visible_cases()`` are fixed examples;
    ``hidden_cases(rng)`` draws the hidden ones from ``np.random.default_rng(seed)``.
    ``variants`` and ``rules`` are the known mistakes (see :mod:`grader.problems.diagnosis`);
    ``reference`` is the trusted implementation with the learner's signature: a variant that
    agrees with it on a case cannot explain that case's failure. ``describe(case, values)``, when
    given, summarises the signals in a failing case's numbers that no known mistake explained
    (row sums, weight on blocked positions, NaN fraction), in words that reveal no input or
    expected value. The contract always ends with :data:`NUMPY_NOTE` (added when missing).
    """

    id: str
    function: str
    title: str
    contract: str
    starter: str
    categories: dict[str, float]
    visible_cases: Callable[[], list[Case]]
    hidden_cases: Callable[[np.random.Generator], list[Case]]
    variants: list[Variant] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    describe: Callable[[Case, list[Any]], "str | None"] | None = None
    reference: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        if NUMPY_NOTE not in self.contract:  # every contract states the NumPy version
            self.contract = self.contract.rstrip("\n") + "\n" + NUMPY_NOTE

    def cases(self, seed: int) -> list[Case]:
        """Visible examples then hidden cases drawn from ``seed``. Case names are unique and every
        case's category is one of ``categories`` (ValueError otherwise, a bug in the problem
        definition)."""
        cases = list(self.visible_cases()) + list(self.hidden_cases(np.random.default_rng(seed)))
        names = [case.name for case in cases]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: duplicate case names")
        for case in cases:
            if case.category not in self.categories:
                raise ValueError(f"{self.id}: case {case.name!r} has unknown category "
                                 f"{case.category!r}")
        return cases
