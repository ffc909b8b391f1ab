"""What a course's conventions add to a problem's diagnosis (issue 21, part 1): a rule per
fixed sentence of a return without the course's form, the mistakes only a course has (a
softmax keeping axis -1 as its default, fused weights without a bias), and checks
whose message names the course's dtype."""
from __future__ import annotations

import functools
from typing import Any, Callable, Mapping

import numpy as np

from grader.problems.base import CaseResult, Rule
from grader.problems.course import convert, text
from grader.problems.course.adapter import FORM_STATUS, CourseAdapter, DefaultAxis
from grader.problems.spec import Mistake, ProblemSpec, mistake


def form_rules(adapter: CourseAdapter) -> tuple[Rule, ...]:
    """One rule per fixed sentence of a return without the course's form: it explains the
    tests whose call came back in another form."""
    options = adapter.options
    found: dict[str, str] = {}
    if adapter.kind in ("attention", "mha") and options.get("returns"):
        found.update(convert.returns_message(options["returns"]))
    if adapter.kind == "causal_mask" and options.get("shape") == "[1, n, n]":
        found[convert.CAUSAL_SHAPE[0]] = convert.CAUSAL_SHAPE[1]
    if adapter.kind == "encoding":
        if options.get("shape") == "[1, L, d]":
            found[convert.ENCODING_SHAPE[0]] = convert.ENCODING_SHAPE[1]
        if options.get("padding_row"):
            found[convert.PADDING_ROW[0]] = convert.PADDING_ROW[1]
        if options.get("layout") == "halves":
            found[convert.INTERLEAVED[0]] = convert.INTERLEAVED[1]
    return tuple(Rule(tag=tag, message=adapter.named(message),
                      explains=_form_explains(adapter.named(message)))
                 for tag, message in found.items())


def _form_explains(message: str) -> Callable[[list[CaseResult]], list[str]]:
    def explains(results: list[CaseResult]) -> list[str]:
        return [r.case.name for r in results if r.crashed and any(
            o is not None and o.status == FORM_STATUS and o.error == message
            for o in r.outcomes)]
    return explains


def course_checks(spec: ProblemSpec, options: Mapping[str, Any],
                  names: Mapping[str, str] | None = None) -> dict:
    """The problem's checks, the causal mask's dtype test saying the course's dtype (in the
    course's ``names``): a boolean mask where the course's is numbers (it comes back as uint8,
    :func:`.convert.causal_mask`) is told "the mask is boolean", any other wrong mask (an
    additive one) that it is not zeros and ones."""
    checks = dict(spec.checks)
    mask = options.get("mask", "")
    sentence = text.rename(text.CAUSAL_DTYPE.get(mask) or "", names or {})
    other = text.rename(text.CAUSAL_NOT_ZERO_ONE.get(mask, sentence), names or {})
    if spec.id == "causal_mask" and sentence and "boolean" in checks:
        original = checks["boolean"]

        @functools.wraps(original)
        def course_dtype(got, expected, case):
            if original(got, expected, case) is None:
                return None
            return sentence if _learners_own_form(got[0], mask) else other

        course_dtype.basis = original.basis  # type: ignore[attr-defined]
        checks["boolean"] = course_dtype
    return checks


def _learners_own_form(value: Any, mask: str) -> bool:
    """The causal mask ``value`` (after :func:`.convert.causal_mask`) is a well-formed mask of
    another dtype than the course's: a boolean one under a numeric course (it comes back as
    uint8), a boolean or 0/1 one under an additive course (it comes back as 0 / -inf). Linear
    in the array's size."""
    dtype = getattr(value, "dtype", None)
    if mask != "additive":
        return dtype == np.uint8
    if dtype is None or dtype.kind != "f":
        return True  # not a float array at all
    with np.errstate(all="ignore"):
        return bool(np.all((value == 0) | (value == -np.inf)))


def course_mistakes(spec: ProblemSpec, options: Mapping[str, Any]) -> tuple[Mistake, ...]:
    """The mistakes only a course's convention has: a softmax whose default axis is today's
    (the last) where the course's is another; fused multi-head weights without the output
    bias, without the projection bias b_qkv, or without both."""
    if spec.id == "multi_head_attention" and options.get("weights") == "fused":
        reference = spec.reference

        def no_output_bias(*args, **kwargs):
            out = reference(*args, **kwargs)
            pair = isinstance(out, tuple)
            bias = convert.output_bias(np.shape(args[0])[-1])
            return (out[0] - bias, out[1]) if pair else out - bias

        def no_qkv_bias(X, *args, **kwargs):  # the attention of the X - u the course sends
            return reference(np.asarray(X, dtype=np.float64)
                             - convert.input_shift(np.shape(X)[-1]), *args, **kwargs)

        def no_biases(*args, **kwargs):
            out, weights = no_qkv_bias(*args, **kwargs)
            return out - convert.output_bias(np.shape(args[0])[-1]), weights

        return (mistake("output_bias_missing", text.NO_OUTPUT_BIAS,
                        implementations=(no_output_bias,)),
                mistake("qkv_bias_missing", text.NO_QKV_BIAS, implementations=(no_qkv_bias,)),
                mistake("biases_missing", text.NO_BIASES, implementations=(no_biases,)))
    if spec.id != "softmax" or "default_axis" not in options:
        return ()
    axis = options["default_axis"]
    reference = spec.reference

    def last_axis_default(x, axis=-1):
        return reference(x, -1 if isinstance(axis, DefaultAxis) else axis)

    return (mistake("default_axis_last", f"Your softmax's default axis is the last one (axis=-1); "
                    f"this course's default axis is {axis}: def softmax(x, axis={axis}), so a "
                    "call without an axis normalises that axis.",
                    implementations=(last_axis_default,)),)
