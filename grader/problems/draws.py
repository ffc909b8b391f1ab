"""Drawing a problem's cases: each case from its own generator, as read-only data.

A hidden case's inputs come from its own PCG64 generator whose state is a hash (BLAKE2b) of the
submission's seed and the case's own name only, so adding, removing or reordering cases moves no
other case's inputs (Hypothesis and PrairieLearn seed each variant the same way). One bit
generator per draw is re-seeded for each case in turn (setting its state costs 2 us; building a
generator from a ``SeedSequence`` costs 20 us, which is most of a small problem's draw). Every
array of a drawn case is made read-only, so one draw can serve every grading of its seed (the
cases are cached per seed, :meth:`grader.problems.base.CodeProblem.cases`) and no implementation
can change it for the next one.
"""
from __future__ import annotations

import hashlib
from typing import Any, Callable

import numpy as np

from grader.problems.base import Case
from grader.problems.conditions import CaseConditionError
from grader.problems.spec import CaseSpec, Draw, Inputs


class CaseGenerators:
    """The generators of one draw's cases: ``generators(name)`` is the generator of the case
    called ``name`` for the submission seed ``seed`` (>= 0). Each call re-seeds the one bit
    generator, so a case's generator must not be used once the next one is asked for (a case's
    constructor draws all it needs before returning)."""

    def __init__(self, seed: int):
        self.seed = int(seed)
        self._bits = np.random.PCG64(0)

    def __call__(self, name: str) -> np.random.Generator:
        digest = hashlib.blake2b(f"{self.seed}\0{name}".encode("utf-8"), digest_size=32).digest()
        self._bits.state = {"bit_generator": "PCG64", "has_uint32": 0, "uinteger": 0,
                            "state": {"state": int.from_bytes(digest[:16], "little"),
                                      "inc": int.from_bytes(digest[16:], "little") | 1}}
        return np.random.Generator(self._bits)


def case_rng(seed: int, name: str) -> np.random.Generator:
    """The generator of the case called ``name`` for the submission seed ``seed`` (>= 0)."""
    return CaseGenerators(seed)(name)


def frozen(value: Any) -> Any:
    """``value`` with every ndarray in it (in tuples, lists and dicts) made read-only."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (tuple, list)):
        for item in value:
            frozen(item)
    elif isinstance(value, dict):
        for item in value.values():
            frozen(item)
    return value


#: How many times a hidden case's constructor may draw again when its inputs lack a condition it
#: requires (:func:`grader.problems.conditions.require`). A redraw continues the case's own
#: generator, so it is as determined by the seed as the first draw, and a draw that held its
#: conditions the first time is unchanged. Conditions that fail one draw in five still fail all
#: 64 with probability 0.2 ** 64 (~1e-45).
MAX_REDRAWS = 64


def draw_inputs(spec: CaseSpec, seed: int | None,
                conditions: Callable[[str, tuple, dict], None] | None = None,
                generators: CaseGenerators | None = None) -> Inputs:
    """The inputs of ``spec``: its fixed inputs (a visible example), or its draw for ``seed``
    (from ``generators``, when given, the draw's :class:`CaseGenerators`);
    ``conditions(name, args, kwargs)`` then checks the first call. A draw whose inputs lack a
    condition is drawn again from the same generator, up to :data:`MAX_REDRAWS` times (a rare
    draw never fails a grading). Raises :class:`CaseConditionError` naming the case when fixed
    inputs, or every redraw, lack a condition."""
    if not isinstance(spec.inputs, Draw):
        return _checked(spec, spec.inputs, conditions)
    generators = generators or CaseGenerators(seed or 0)
    rng = generators(spec.name)
    for _ in range(MAX_REDRAWS):
        try:
            found = spec.inputs(rng)
        except CaseConditionError as exc:
            failure = CaseConditionError(f"hidden case {spec.name!r}: {exc}")
            continue
        try:
            return _checked(spec, found, conditions)
        except CaseConditionError as exc:
            failure = exc
    raise failure


def _checked(spec: CaseSpec, found: Inputs,
             conditions: Callable[[str, tuple, dict], None] | None) -> Inputs:
    """``found`` once ``conditions`` hold on its first call; else :class:`CaseConditionError`
    naming the case."""
    try:
        if conditions is not None and found.calls:
            conditions(spec.name, *found.calls[0])
    except CaseConditionError as exc:
        raise CaseConditionError(f"hidden case {spec.name!r}: {exc}") from None
    return found


def make_case(spec: CaseSpec, inputs: Inputs, key: tuple, basis: str,
              traits: Callable[[tuple, dict], frozenset] | None,
              rows: Callable[[tuple, dict], Any] | None) -> Case:
    """The :class:`Case` of ``spec`` on ``inputs``: traits are the case's own, the construction's
    and what ``traits`` reads off the first call; ``rows`` gives each call's checked rows."""
    calls = tuple((tuple(args), dict(kwargs)) for args, kwargs in inputs.calls)
    frozen(calls)
    frozen(dict(inputs.data))
    read = traits(*calls[0]) if traits is not None and calls else frozenset()
    return Case(name=spec.name, category=spec.category, calls=calls, check=spec.check,
                basis=basis, key=key, options=dict(spec.options),
                rows=tuple(rows(*call) if rows is not None else None for call in calls),
                traits=frozenset(read) | spec.traits | inputs.traits, data=dict(inputs.data),
                visible=spec.visible)
