"""A compiled code problem and the records of one grading.

:class:`CodeProblem` is what :func:`grader.problems.compile.compile_problem` makes of a
:class:`grader.problems.spec.ProblemSpec` (a built-in package or an uploaded document): the
contract, the categories, the cases drawn per seed, the known mistakes flattened into
:class:`Variant` s, each pointing at one implementation the executor runs
(:mod:`grader.problems.executor`). A :class:`Case` holds inputs only; checks and diagnosis read the
values the executor computed, and never call an implementation themselves (docs/references.md,
"Refitting the reference" and "Attention mistakes").
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from grader.problems.spec import Picture, ProblemSpec

#: What a case's check compares: ``values`` (the learner's values against the reference's),
#: ``shape`` (shapes only, finite output), ``property`` (the learner's outputs against each other
#: or a law such as equivariance, or the output's dtype) or ``inputs`` (arguments unchanged).
BASES = ("values", "shape", "property", "inputs")

#: The credit rule, shown in every contract and applied by :mod:`grader.problems.scoring`.
CREDIT_NOTE = ("Scoring: shape tests count only when the output is finite (no NaN/inf); property "
               "tests (equivariance, dtype, ...) and the inputs-not-modified test count only "
               "once at least one hidden test comparing your values with the expected ones "
               "passes (tests whose expected output an answer ignoring the inputs also gives, "
               "such as equal entries or identical keys, do not count). A right-shaped but "
               "wrong-valued answer therefore earns the shapes points at most.")

#: The NumPy learners' code runs with, ending every contract (:class:`CodeProblem` adds it): the
#: sandbox binds the names NumPy 2.0 removed (grader/sandbox/runner.py, ``NUMPY_1_ALIASES``).
NUMPY_NOTE = ("NumPy: your code runs with NumPy 2.x; the aliases NumPy 2.0 removed (np.float_, "
              "np.NINF, np.NaN, np.product, ...) still work here.")

#: The implementation index of the reference (:attr:`CodeProblem.implementations`).
REFERENCE = 0


@dataclass(frozen=True)
class Case:
    """One test as drawn: ``calls`` (each ``(args, kwargs)``) made on the learner's function, judged
    by the check named ``check`` (with ``options``) on the values returned, in call order.

    ``rows`` gives, per call, the boolean array of output rows that are checked (None: all rows),
    used both by the check and when matching variants. ``traits`` describe the inputs for mistakes'
    ``needs`` and cross-case rules (e.g. ``"cross"`` when Lq != Lk, ``"multihead"``, ``"odd"``).
    ``data`` is what the check reads besides the values (e.g. a permutation). ``wrapped`` cases
    call the learner's function through :data:`grader.problems.inputs.WRAPPER`, which also returns
    the array arguments after the call. ``basis`` (one of :data:`BASES`) says what the check
    compares. ``key`` identifies the case's values in the executor's cache:
    ``(problem key, seed or None for a visible example, name)``. The arrays are read-only: one
    draw serves every grading of its seed.
    """

    name: str
    category: str
    calls: tuple[tuple[tuple, dict], ...]
    check: str
    basis: str
    key: tuple
    options: Mapping[str, Any] = field(default_factory=dict)
    rows: tuple[np.ndarray | None, ...] = ()
    traits: frozenset[str] = frozenset()
    data: Mapping[str, Any] = field(default_factory=dict)
    visible: bool = False
    wrapped: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "wrapped", self.basis == "inputs")

    def rows_for(self, index: int) -> np.ndarray | None:
        return self.rows[index] if index < len(self.rows) else None


@dataclass(frozen=True)
class Variant:
    """One way of making a known mistake (:class:`grader.problems.spec.Mistake`), in table order:
    the diagnosis tries them in this order and breaks ties by it. ``implementation`` is its index
    in :attr:`CodeProblem.implementations`; ``toggles`` are the keyword arguments of the
    problem's ``buggy`` implementation that make it (None for a mistake given as a function: it
    does not combine with others)."""

    tag: str
    message: str
    implementation: int
    bug: str = ""
    needs: frozenset[str] = frozenset()
    strict_return: bool = False
    toggles: Mapping[str, Any] | None = None


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
    """A case after the run: the sandbox outcomes of its calls, the reference's values and the
    verdict."""

    case: Case
    outcomes: list[Any]
    passed: bool
    expected: list[Any] = field(default_factory=list)
    failure: str = ""
    crashed: bool = False  # a call raised, timed out or returned something unparseable
    uncredited: bool = False  # the check passed but the credit rule withheld the points
    diagnosis_tag: str = ""  # the tag of the mistake that explains the failure
    diagnosis: str = ""
    #: the other mistakes (tag, message) that, made together with ``diagnosis_tag``'s, explain
    #: the failure (grader/problems/combinations.py)
    also: tuple[tuple[str, str], ...] = ()
    signals: str = ""  # what the numbers show when no known mistake matched


SEEDS_KEPT = 32  # draws kept per problem (a regrade, a retry and the tests reuse them)
#: How many seeds every submission's hidden inputs of a built-in problem are drawn from, with the
#: lever ``draws`` (:func:`grader.grading.service.shared_seed`): their draws and values are kept
#: (:meth:`CodeProblem.keep`), however many other seeds are drawn.
DRAW_SEEDS = 32
#: At most this many kept seeds per problem (a process with several secret keys: the tests).
KEPT_SEEDS = 4 * DRAW_SEEDS


@dataclass(eq=False)
class CodeProblem:
    """A compiled code problem (:func:`grader.problems.compile.compile_problem`).

    ``implementations`` are the reference (index :data:`REFERENCE`) then every mistake's
    implementations in table order (``variants`` point into it); ``checks`` maps check names to
    check functions; ``draw(seed)`` draws the hidden cases of a seed (cached: :meth:`cases`);
    ``executor`` computes the implementations' values on cases (in process for built-ins). The
    contract always ends with :data:`NUMPY_NOTE`.
    """

    spec: ProblemSpec
    contract: str
    categories: dict[str, float]
    visible: tuple[Case, ...]
    implementations: tuple[Callable[..., Any], ...]
    variants: tuple[Variant, ...]
    checks: Mapping[str, Callable[..., Any]]
    draw: Callable[[int], tuple[Case, ...]]
    executor: Any = None
    #: the course adapter of a problem compiled with ``contract:`` options
    #: (:class:`grader.problems.course.adapter.CourseAdapter`); None: today's contract
    course: Any = None
    _drawn: OrderedDict = field(default_factory=OrderedDict, repr=False)
    _kept: OrderedDict = field(default_factory=OrderedDict, repr=False)  # seed -> draw or None
    _kept_memo: dict = field(default_factory=dict, repr=False)  # kept seed -> {key: value}
    _memo: dict = field(default_factory=dict, repr=False)  # {key: value} of the visible examples
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def function(self) -> str:
        return self.spec.contract.function

    @property
    def starter(self) -> str:
        return self.spec.contract.starter

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return self.spec.contract.parameter_names

    @property
    def rules(self) -> tuple[Rule, ...]:
        return tuple(self.spec.rules)

    @property
    def describe(self) -> Callable[..., "str | None"] | None:
        return self.spec.describe

    @property
    def pictures(self) -> tuple[Picture, ...]:
        return self.spec.pictures

    def visible_cases(self) -> list[Case]:
        """The visible examples (fixed inputs, shown with their expected values)."""
        return list(self.visible)

    def cases(self, seed: int) -> list[Case]:
        """The visible examples, then the hidden cases drawn from ``seed`` (each case from its own
        generator, :func:`grader.problems.draws.case_rng`). The last draws are kept."""
        with self._lock:
            hidden = self._kept.get(seed) or self._drawn.get(seed)
        if hidden is None:
            hidden = self.draw(seed)  # outside the lock: another seed need not wait
            with self._lock:
                if seed in self._kept:
                    self._kept[seed] = hidden
                else:
                    self._drawn[seed] = hidden
                    while len(self._drawn) > SEEDS_KEPT:
                        self._drawn.popitem(last=False)
        return list(self.visible) + list(hidden)

    def kept(self, seed: int | None, key: str, make: Callable[[], Any]) -> Any:
        """``make()``, made once and kept when ``seed`` is a kept seed (:meth:`keep`) or None
        (what depends on the visible examples only), else made anew: what a grading builds
        from a seed's cases (their calls), shared by every grading of the seed. ``make()``'s
        value must not be changed by its users."""
        with self._lock:
            store = self._memo if seed is None else self._kept_memo.get(seed)
            if store is not None and key in store:
                return store[key]
        value = make()
        with self._lock:
            store = self._memo if seed is None else self._kept_memo.get(seed)
            if store is not None:
                store.setdefault(key, value)
        return value

    def keep(self, seed: int) -> None:
        """Keep ``seed``'s draw, and its executor's values, however many other seeds are drawn
        (one of the seeds shared by all submissions, lever ``draws``): the last
        :data:`KEPT_SEEDS` seeds kept."""
        with self._lock:
            if seed not in self._kept:
                self._kept[seed] = self._drawn.pop(seed, None)
                self._kept_memo[seed] = {}
                while len(self._kept) > KEPT_SEEDS:
                    self._kept_memo.pop(self._kept.popitem(last=False)[0], None)
        keep = getattr(self.executor, "keep", None)
        if keep is not None:
            keep(seed)
