"""A built-in problem's cases under a course's ``contract:`` options (issue 21, part 1): the
cases stay canonical, but a course keeps only those it can take (its input ranks, its mask
shapes; a softmax's axis its inputs have; for always-causal heads, the cases without a mask or
with the causal one) and some calls carry what the course's signature implies (a softmax's
:class:`~.adapter.DefaultAxis`, always-causal heads' causal mask). A case's rank and mask are
read off its inputs drawn with a fixed seed (the case's construction fixes them)."""
from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any, Callable, Mapping

import numpy as np

from grader.problems.course.adapter import DefaultAxis
from grader.problems.course.options import profile
from grader.problems.spec import CaseSpec, Draw, Inputs, ProblemSpec


def first_call(case: CaseSpec) -> tuple[tuple, dict] | None:
    inputs = case.inputs
    if isinstance(inputs, Draw):
        try:
            inputs = inputs(np.random.default_rng(0))
        except Exception:  # noqa: BLE001 - a draw that needs another seed: kept as it is
            return None
    return inputs.calls[0] if inputs.calls else None


def rank(case: CaseSpec) -> int | None:
    call = first_call(case)
    if call is None:
        return None
    arrays = [a for a in call[0] if isinstance(a, np.ndarray)]
    return arrays[0].ndim if arrays else None


def _with_default_axis(axis: int) -> Callable[[Inputs], Inputs]:
    def convert_calls(inputs: Inputs) -> Inputs:
        calls = tuple((tuple(args) + (DefaultAxis(axis),), kwargs)
                      if len(args) == 1 and "axis" not in kwargs else (args, kwargs)
                      for args, kwargs in inputs.calls)
        return replace(inputs, calls=calls)
    return convert_calls


def _mapped(case: CaseSpec, change: Callable[[Inputs], Inputs]) -> CaseSpec:
    inputs = case.inputs
    if isinstance(inputs, Inputs):
        return replace(case, inputs=change(inputs))
    construct = inputs.construct

    @functools.wraps(construct)
    def drawn(rng, **params):
        return change(construct(rng, **params))

    return replace(case, inputs=Draw(drawn, inputs.params))


def _axis_fits(case: CaseSpec, axis: int) -> bool:
    call = first_call(case)
    if call is None or len(call[0]) != 1 or "axis" in call[1]:
        return True
    x = call[0][0]
    ndim = np.ndim(x)
    return -ndim <= axis < ndim


def _causal_call(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Multi-head attention's canonical call with the causal mask (L, L) its heads always
    apply (a call that has one keeps it)."""
    if len(args) > 6 and args[6] is not None:
        return args, kwargs
    L = np.shape(args[0])[-2]
    return tuple(args[:6]) + (np.tril(np.ones((L, L), dtype=bool)),), kwargs


def _causal_fits(case: CaseSpec) -> bool:
    """A case always-causal heads can take: no mask, or the causal (L, L) one; and not a law
    that needs full attention (permutation equivariance)."""
    if case.check == "relation":
        return False
    call = first_call(case)
    if call is None:
        return False
    args = call[0]
    mask = args[6] if len(args) > 6 else None
    if mask is None:
        return True
    L = np.shape(args[0])[-2]
    return np.shape(mask) == (L, L) and bool(np.array_equal(mask, np.tril(np.ones((L, L)))))


def mask_shape(mask: Any, Q: Any) -> str | None:
    """The kind of an attention mask (:data:`~.options.MASK_SHAPES`) for queries ``Q``; None
    when there is no mask."""
    if mask is None:
        return None
    shape, Lq = np.shape(mask), np.shape(Q)[-2]
    if len(shape) == 2:
        return "[Lq, Lk]"
    if len(shape) == 3:
        return "[1, Lq, Lk]" if shape[0] == 1 else "[B, Lq, Lk]"
    return "[B, 1, 1, Lk]" if shape[-2] == 1 and Lq != 1 else "[B, 1, Lq, Lk]"


def masked(case: CaseSpec, index: int) -> bool:
    call = first_call(case)
    return call is not None and len(call[0]) > index and call[0][index] is not None


def _mask_fits(case: CaseSpec, index: int, shapes: tuple[str, ...]) -> bool:
    """A case whose mask the course's ``mask_shapes`` admit (as it is, or (Lq, Lk) sent as
    (1, Lq, Lk) on batched inputs); a case without a mask always fits."""
    call = first_call(case)
    if call is None:
        return True
    args = call[0]
    kind = mask_shape(args[index] if len(args) > index else None, args[0])
    if kind is None or kind in shapes:
        return True
    return kind == "[Lq, Lk]" and "[1, Lq, Lk]" in shapes and np.ndim(args[0]) >= 3


def course_cases(spec: ProblemSpec, options: Mapping[str, Any]) -> tuple[CaseSpec, ...]:
    cases = spec.cases
    if "mask_shapes" in options:
        index = profile(spec.id).mask_input
        cases = tuple(c for c in cases if _mask_fits(c, index, options["mask_shapes"]))
    if options.get("causal"):
        cases = tuple(_mapped(c, lambda inputs: replace(inputs, calls=tuple(
            _causal_call(*call) for call in inputs.calls))) for c in cases if _causal_fits(c))
    if "ranks" in options:
        cases = tuple(c for c in cases if rank(c) in (None, *options["ranks"]))
    if "default_axis" in options:
        # a law on two outputs of the function (shift invariance along the rows) keeps its
        # axis: the call passes today's default, -1, explicitly
        axis = options["default_axis"]
        cases = tuple(c if c.check == "relation" else _mapped(c, _with_default_axis(axis))
                      for c in cases if _axis_fits(c, axis))
    return cases


def mask_shapes_sent(spec: ProblemSpec, adapter: Any, kept: tuple[CaseSpec, ...]
                     ) -> tuple[str, ...]:
    """The mask shapes (:func:`mask_shape`) the ``kept`` cases send through ``adapter`` (an
    attention problem's; empty for others), in :data:`~.options.MASK_SHAPES` order."""
    from grader.problems.course.options import MASK_SHAPES

    index = profile(spec.id).mask_input
    if index is None or spec.id != "scaled_dot_product_attention":
        return ()
    found = set()
    for case in kept:
        call = first_call(case)
        if call is not None and masked(case, index):
            args = adapter.call(*call)[0]
            found.add(mask_shape(args[index], args[0]))
    return tuple(s for s in MASK_SHAPES if s in found)
