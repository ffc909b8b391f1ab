"""Drawing an authored problem's inputs: dimensions, then each argument in call order.

A category's :class:`Plan` is the document's ``dims`` and ``arguments`` with the category's
overrides applied (``dims``, ``shapes``, ``scale``, ``arguments``) and its ``where`` conditions.
:func:`draw_case` draws one case from a case's own generator (:mod:`grader.problems.draws`): each
dimension uniformly from its inclusive range (again, up to :data:`TRIES` times, until every
condition holds; then :class:`~grader.problems.conditions.CaseConditionError` names the condition,
a problem fault the trial reports), then each argument:

* an array (``shape``): float64 standard normal times ``scale``; ``float: [lo, hi]`` uniform,
  ``int: [lo, hi]`` integers (bounds may be dimension names), ``dtype`` float32 / int64;
* a scalar: ``float: [lo, hi]`` (a Python float), ``int: [lo, hi]``, ``dim: <name>`` (the drawn
  size), ``value: <constant>``;
* a mask (boolean, True = may attend, the convention of ``torch.nn.functional.
  scaled_dot_product_attention``): ``causal`` (key j <= query i), ``random`` (each entry True with
  probability 0.7, every row keeping one True) or ``padding`` (per batch element a length n in
  [1, L]: keys j < n), broadcast to ``shape``; every query row attends to at least one key.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from grader.problems.authored.schema import MAX_ENTRIES, condition_terms
from grader.problems.conditions import CaseConditionError
from grader.problems.spec import Inputs

TRIES = 200
_OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}


@dataclass(frozen=True)
class Plan:
    """What one category draws: ``dims`` (name -> [lo, hi]), ``arguments`` (name -> spec, in call
    order) and the ``where`` conditions on the dimensions."""

    category: str
    dims: Mapping[str, list[int]]
    arguments: Mapping[str, Mapping[str, Any]]
    where: tuple[str, ...] = ()
    then: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __repr__(self) -> str:  # Draw's repr names the category, not every field
        return f"Plan({self.category!r})"


def _merged(found: dict, test: dict | None) -> dict:
    """A category's overrides with one test's on top (``where`` conditions add up)."""
    if not test:
        return found
    merged = dict(found)
    for key in ("shapes", "scale", "dims", "arguments", "then"):
        merged[key] = {**found.get(key, {}), **test.get(key, {})}
    merged["where"] = [*found.get("where", ()), *test.get("where", ())]
    return merged


def plan(doc: dict, category: str, test: dict | None = None) -> Plan:
    """The :class:`Plan` of ``category`` in the validated document ``doc`` (with the overrides
    of ``test``, one entry of the category's ``tests``)."""
    found = _merged(doc["categories"][category], test)
    dims = {**doc["dims"], **found.get("dims", {})}
    arguments = {}
    for name, spec in doc["arguments"].items():
        spec = dict(found.get("arguments", {}).get(name, spec))
        if name in found.get("shapes", {}):
            spec["shape"] = found["shapes"][name]
        if name in found.get("scale", {}):
            spec["scale"] = spec.get("scale", 1.0) * found["scale"][name]
        arguments[name] = spec
    return Plan(category, dims, arguments, tuple(found.get("where", ())),
                {name: shift["add"] for name, shift in found.get("then", {}).items()})


def _term(term: str, sizes: dict[str, int]) -> int:
    return sizes[term] if term in sizes else int(term)


def holds(condition: str, sizes: dict[str, int]) -> bool:
    """True when the ``where`` condition holds for the drawn ``sizes``."""
    left, op, right = condition_terms(condition)
    value = _term(left[0], sizes)
    if len(left) == 3:
        divisor = _term(left[2], sizes)
        value = value % divisor if divisor else -1
    return _OPS[op](value, _term(right, sizes))


def draw_sizes(rng: np.random.Generator, found: Plan) -> dict[str, int]:
    """Each dimension from its range until every condition holds."""
    for _ in range(TRIES):
        sizes = {name: int(rng.integers(lo, hi + 1)) for name, (lo, hi) in found.dims.items()}
        if all(holds(c, sizes) for c in found.where):
            return sizes
    failing = next(c for c in found.where if not holds(c, sizes))
    raise CaseConditionError(f"no draw of the dimensions in {TRIES} tries meets {failing!r}")


def _shape(spec: Mapping[str, Any], sizes: dict[str, int]) -> tuple[int, ...]:
    shape = tuple(sizes[s] if isinstance(s, str) else int(s) for s in spec["shape"])
    if int(np.prod(shape, dtype=np.int64)) > MAX_ENTRIES:
        raise CaseConditionError(f"an array of shape {shape}: more than {MAX_ENTRIES} entries")
    return shape


def _bound(bound: Any, sizes: dict[str, int]) -> int:
    return sizes[bound] if isinstance(bound, str) else int(bound)


def _mask(rng: np.random.Generator, kind: str, shape: tuple[int, ...]) -> np.ndarray:
    if not shape:
        raise CaseConditionError("a mask needs at least one axis")
    keys = shape[-1]
    if kind == "causal":
        if len(shape) == 1:
            return np.ones(shape, dtype=bool)  # one query: it may attend to every key
        return np.broadcast_to(np.tril(np.ones(shape[-2:], dtype=bool)), shape).copy()
    if kind == "padding":
        batch = shape[0] if len(shape) > 1 else 1
        lengths = rng.integers(1, keys + 1, size=batch)
        base = np.arange(keys)[None, :] < lengths[:, None]  # (batch, keys)
        if len(shape) == 1:
            return base[0].copy()
        return np.broadcast_to(base.reshape((batch,) + (1,) * (len(shape) - 2) + (keys,)),
                               shape).copy()
    mask = rng.random(shape) < 0.7
    rows = mask.reshape(-1, keys)
    rows[np.arange(rows.shape[0]), rng.integers(0, keys, rows.shape[0])] = True
    return rows.reshape(shape)


def draw_argument(rng: np.random.Generator, spec: Mapping[str, Any], sizes: dict[str, int]
                  ) -> Any:
    """One argument's value (see the module docstring)."""
    if "dim" in spec:
        return int(sizes[spec["dim"]])
    if "value" in spec:
        return spec["value"]
    if "mask" in spec:
        return _mask(rng, spec["mask"], _shape(spec, sizes))
    if "shape" not in spec:
        if "int" in spec:
            lo, hi = (_bound(b, sizes) for b in spec["int"])
            return int(rng.integers(lo, max(lo, hi) + 1))
        lo, hi = spec["float"]
        return float(rng.uniform(lo, hi))
    shape = _shape(spec, sizes)
    if "int" in spec:
        lo, hi = (_bound(b, sizes) for b in spec["int"])
        return rng.integers(lo, max(lo, hi) + 1, size=shape, dtype=np.int64)
    if spec.get("spacing") == "even":
        array = _even(rng, spec["float"], shape, spec.get("axis", -1))
    elif "float" in spec:
        lo, hi = spec["float"]
        array = rng.uniform(lo, hi, shape)
    else:
        array = rng.standard_normal(shape)
    array = array * spec.get("scale", 1.0)
    if "offsets" in spec:
        array = array + _offsets(rng, spec, shape)
    if spec.get("float32_exact"):
        array = array.astype(np.float32).astype(np.float64)
    return array.astype(spec.get("dtype", "float64"))


def _slices(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    """The shape of the slices' index: ``shape`` without ``axis``, kept as length 1."""
    if not -len(shape) <= axis < len(shape):
        raise CaseConditionError(f"axis {axis} of a {len(shape)}-D array")
    kept = list(shape)
    kept[axis] = 1
    return tuple(kept)


def _even(rng: np.random.Generator, bounds, shape: tuple[int, ...], axis: int) -> np.ndarray:
    """Each slice along ``axis``: its entries evenly spaced over [lo, hi], in random order."""
    lo, hi = bounds
    grid = np.linspace(lo, hi, shape[axis])
    moved = np.moveaxis(np.empty(shape), axis, -1)
    flat = moved.reshape(-1, shape[axis])
    for row in range(flat.shape[0]):
        flat[row] = rng.permutation(grid)
    return np.moveaxis(flat.reshape(moved.shape), -1, axis)


def _offsets(rng: np.random.Generator, spec: Mapping[str, Any], shape: tuple[int, ...]
             ) -> np.ndarray:
    """One offset per slice along ``axis`` (the offsets in random order, each moved by up to
    ``jitter``); the number of slices must be the number of offsets."""
    index = _slices(shape, spec.get("axis", -1))
    offsets = np.asarray(spec["offsets"], dtype=np.float64)
    if int(np.prod(index)) != offsets.size:
        raise CaseConditionError(f"{offsets.size} offsets for {int(np.prod(index))} slices of "
                                 f"an array of shape {shape}")
    jitter = spec.get("jitter", 0.0)
    moved = rng.permutation(offsets) + rng.uniform(-jitter, jitter, offsets.size)
    return moved.reshape(index)


def draw_case(rng: np.random.Generator, plan: Plan) -> Inputs:
    """One call's inputs for ``plan``, positional in call order; the drawn sizes are kept as
    the case's ``data`` (``sizes``)."""
    sizes = draw_sizes(rng, plan)
    args = tuple(draw_argument(rng, spec, sizes) for spec in plan.arguments.values())
    calls = [(args, {})]
    if plan.then:  # an invariance: the same call with some arguments moved
        names = list(plan.arguments)
        moved = list(args)
        for name, spec in plan.then.items():
            first = args[names.index(name)]
            moved[names.index(name)] = np.asarray(first + draw_argument(rng, spec, sizes),
                                                  dtype=np.asarray(first).dtype)
        calls.append((tuple(moved), {}))
    return Inputs(tuple(calls), {"sizes": sizes})


__all__ = ["Plan", "draw_argument", "draw_case", "draw_sizes", "holds", "plan"]
