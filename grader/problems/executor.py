"""Computing the reference's and the known mistakes' values on a problem's cases.

Checks and diagnosis never call an implementation: they ask an executor for the values of
implementation ``i`` (:attr:`grader.problems.base.CodeProblem.implementations`; 0 is the
reference) on a case, and read them. The built-in problems' implementations are trusted Python
and run here, in process (:class:`InProcessExecutor`); an uploaded problem's are instructor code
and run only in the sandbox, behind the same interface. Values are cached per case (a case's key
holds its problem, seed and name), for the last :data:`SEEDS_KEPT` seeds: a regrade, a retry and
the tests' many gradings of one seed compute each value once.

A value is ``(value, error)``: the return, or :data:`NO_VALUE` and the exception as
``"TypeName: message"`` (a raising mistake is a signature too: a learner whose call raised the
same is matched).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from grader.problems.base import KEPT_SEEDS, SEEDS_KEPT, Case

#: The value of a call that raised.
NO_VALUE: Any = type("NoValue", (), {"__repr__": lambda self: "NO_VALUE"})()

Computed = tuple[Any, "str | None"]


class Executor(Protocol):
    """Computes implementation values on cases."""

    def values(self, implementation: int | tuple[int, ...], case: Case,
               upcast_inputs: bool = False) -> list[Computed]:
        """One :data:`Computed` per call of ``case`` for ``implementation``: an index into the
        problem's implementations, or a tuple of variant indices (the mistakes made together,
        :func:`grader.problems.compile.combination`). ``upcast_inputs`` runs the calls on float64 copies
        of float32 arguments (NumPy promotes float32 code to float64 as soon as a float64 scalar
        enters, which moves where an unstable softmax overflows)."""


def upcast(value: Any) -> Any:
    """``value`` as float64 when it is a float32 array, else unchanged."""
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        return value.astype(np.float64)
    return value


def has_float32(case: Case, index: int) -> bool:
    """True when call ``index`` of ``case`` has a float32 array argument."""
    args, kwargs = case.calls[index]
    return any(isinstance(a, np.ndarray) and a.dtype == np.float32
               for a in (*args, *kwargs.values()))


def _run(implementation, args: tuple, kwargs: dict) -> Computed:
    try:  # the built-ins' implementations silence NumPy's floating-point warnings themselves
        return implementation(*args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 - a raising mistake is a signature too
        return NO_VALUE, f"{type(exc).__name__}: {exc}"


class InProcessExecutor:
    """Runs trusted implementations (the built-in problems') in this process, caching values per
    case for the last :data:`SEEDS_KEPT` seeds (``case.key[1]``; visible examples are kept).
    Reads take no lock (a dict lookup is atomic); two threads computing the same value at once
    store the same result."""

    def __init__(self, implementations: Sequence[Any],
                 combine: Callable[[tuple[int, ...]], Any] | None = None):
        self.implementations = tuple(implementations)
        self.combine = combine
        self._combined: dict[tuple[int, ...], Any] = {}
        self._by_seed: OrderedDict = OrderedDict()
        self._kept: OrderedDict = OrderedDict()  # seed -> values, never evicted by other seeds
        self._lock = threading.Lock()

    def keep(self, seed: int) -> None:
        """Keep ``seed``'s values however many other seeds are computed (the last
        :data:`~grader.problems.base.KEPT_SEEDS` seeds kept; :meth:`CodeProblem.keep`)."""
        with self._lock:
            if seed not in self._kept:
                self._kept[seed] = self._by_seed.pop(seed, None) or {}
                while len(self._kept) > KEPT_SEEDS:
                    self._kept.popitem(last=False)

    def _implementation(self, key: int | tuple[int, ...]) -> Any:
        if isinstance(key, int):
            return self.implementations[key]
        if key not in self._combined:
            self._combined[key] = self.combine(key) if self.combine else None
        if self._combined[key] is None:
            raise ValueError(f"variants {key} do not combine")
        return self._combined[key]

    def values(self, implementation: int | tuple[int, ...], case: Case,
               upcast_inputs: bool = False) -> list[Computed]:
        seed = case.key[1]
        key = (implementation, case.name, upcast_inputs)
        found = (self._kept.get(seed) or self._by_seed.get(seed, _EMPTY)).get(key)
        if found is not None:
            return found
        fn = self._implementation(implementation)
        if upcast_inputs:
            computed = [_run(fn, tuple(map(upcast, args)), {k: upcast(v) for k, v in kwargs.items()})
                        for args, kwargs in case.calls]
        else:
            computed = [_run(fn, args, kwargs) for args, kwargs in case.calls]
        with self._lock:
            if seed in self._kept:
                self._kept[seed][key] = computed
                return computed
            self._by_seed.setdefault(seed, {})[key] = computed
            if len(self._by_seed) > SEEDS_KEPT + 1:  # + the visible examples (seed None)
                del self._by_seed[next(s for s in self._by_seed if s is not None)]
        return computed


_EMPTY: dict = {}
