"""The adapter between a problem's canonical calls and values and a course's (issue 21, part 1).

A :class:`CourseAdapter` is attached to a problem compiled with ``contract:`` options
(:func:`grader.problems.course.compile_course`). The problem's cases, reference, mistakes,
checks and diagnosis stay canonical; at the sandbox boundary, on the trusted side,
:meth:`CourseAdapter.call` turns a canonical call into the course's (parameter order, the mask
in the course's convention, a default the course's signature supplies) and
:meth:`CourseAdapter.outcome` turns what came back into the canonical value (or a
``"contract"`` outcome naming what lacks the course's form: :class:`~.convert.FormError`).
:meth:`CourseAdapter.shown` writes a canonical value the course's way, for the visible
examples.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np

from grader.problems.course import convert
from grader.problems.course.text import rename
from grader.problems.inputs import arguments_after
from grader.sandbox.api import CallOutcome

#: The kinds whose mask is (L, L) over one sequence X (the others': (Lq, Lk) over Q and K).
SELF_ATTENTION = ("mha", "encoder")

#: The failure of a return the course's conversion could not read at all.
UNREADABLE = ("Your function returned a value that cannot be read in this course's form (see "
              "what the contract says it returns).")

#: The status of a call whose return lacks the course's form (its ``error`` says which).
FORM_STATUS = "contract"

#: A check's shape failure (:func:`grader.problems.compare.compare`): what, got, expected.
_SHAPES = re.compile(r"the (\w+) has shape \(([\d, ]*)\), expected \(([\d, ]*)\)")


class DefaultAxis(int):
    """The axis a softmax course uses when the caller passes none: the canonical call carries
    it (the reference and the mistakes take it), the course's call leaves it out."""


@dataclass(frozen=True)
class CourseAdapter:
    """Canonical call -> course call, and course return -> canonical value.

    ``canonical`` are the problem's parameter names, ``names`` the course's parameter names in
    canonical order, ``order`` the canonical index of each course parameter in the course's
    call order; ``defaults`` the canonical parameters'
    defaults (filled in when a later parameter is passed); ``options`` the normalised options
    (:func:`grader.problems.course.options.normalise`); ``mask_index`` the canonical index of a
    boolean mask parameter; ``kind`` says which return conversion applies (``"attention"``,
    ``"causal_mask"``, ``"encoding"`` or ``""``); ``test_names`` the name each hidden test is
    shown under, in the course's words (:func:`~.wording.test_name`; the case's own name seeds
    its draw and stays)."""

    problem_id: str
    function: str
    canonical: tuple[str, ...]
    names: tuple[str, ...]
    order: tuple[int, ...]
    defaults: tuple[Any, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    mask_index: int | None = None
    kind: str = ""
    test_names: Mapping[str, str] = field(default_factory=dict)

    def _canonical(self, args: tuple, kwargs: dict) -> list[Any]:
        values = list(args) + [_MISSING] * (len(self.defaults) - len(args))
        for index, name in enumerate(self.canonical):
            if name in kwargs:
                values[index] = kwargs[name]
        return values

    def call(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """The course's call of canonical ``(args, kwargs)``: every parameter positional, in the
        course's order (one not given is passed as its canonical default, e.g. ``mask=None``:
        a course whose signature has no default for it is called alike), the mask in the
        course's convention; a softmax's :class:`DefaultAxis` is left out. Under
        ``mask_required`` a call without a mask gets one that allows every key (the same
        attention, so the canonical case is unchanged); under ``mask_shapes`` with
        ``[1, Lq, Lk]`` an (Lq, Lk) mask on batched inputs is sent as (1, Lq, Lk), which
        broadcasts alike."""
        values = self._canonical(args, kwargs)
        mask = self.options.get("mask")
        if self.options.get("mask_required") and self.mask_index is not None \
                and (values[self.mask_index] is None or values[self.mask_index] is _MISSING):
            values[self.mask_index] = _allow_all(values, self.kind in SELF_ATTENTION)
        shapes = self.options.get("mask_shapes", ())
        if "[1, Lq, Lk]" in shapes and self.mask_index is not None \
                and isinstance(values[self.mask_index], np.ndarray) \
                and values[self.mask_index].ndim == 2 and np.ndim(values[0]) >= 3:
            values[self.mask_index] = values[self.mask_index][None]  # the same broadcast
        if mask and self.mask_index is not None and self.mask_index < len(values) \
                and values[self.mask_index] is not _MISSING:
            values[self.mask_index] = convert.mask_to_course(
                values[self.mask_index], mask, convert.floating_dtype(tuple(values)))
        if self.kind == "mha" and self.options.get("weights") in ("per-head", "fused"):
            values = convert.head_weights(values, self.options["weights"])
        course = [values[i] for i in self.order]
        while course and isinstance(course[-1], DefaultAxis):
            course.pop()  # the course's own default stands for it
        filled = []
        for position, value in enumerate(course):
            if value is _MISSING:
                value = self.defaults[self.order[position]]
            filled.append(int(value) if isinstance(value, DefaultAxis) else value)
        return tuple(filled), {}

    def value(self, value: Any, args: tuple, kwargs: dict) -> Any:
        """The canonical form of the learner's ``value`` returned on canonical ``(args,
        kwargs)``. Raises :class:`~.convert.FormError`."""
        options = self.options
        if self.kind == "mha" and options.get("weights") == "fused":
            try:
                value = convert.returns(value, options.get("returns", "output"), ())
            except convert.FormError as error:
                if error.read is not convert.UNREAD:
                    error.read = convert.without_output_bias(error.read, args[0])
                raise
            return convert.without_output_bias(value, args[0])
        if self.kind in ("attention", "mha") and options.get("returns"):
            return convert.returns(value, options["returns"], tuple(self._canonical(args, kwargs)))
        if self.kind == "causal_mask" and (options.get("mask") or options.get("shape")):
            return convert.causal_mask(value, options.get("mask", "allowed"),
                                       options.get("shape", "[n, n]"), int(args[0]))
        if self.kind == "encoding" and any(k in options for k in ("layout", "shape",
                                                                   "padding_row")):
            return convert.encoding(value, options.get("layout", "interleaved"),
                                    options.get("shape", "[L, d]"),
                                    options.get("padding_row", False), int(args[0]),
                                    int(args[1]))
        return value

    def shown(self, value: Any, args: tuple, kwargs: dict) -> Any:
        """A canonical ``value`` (the reference's, or a learner's converted one) as the course
        writes it."""
        options = self.options
        if self.kind in ("attention", "mha") and options.get("returns"):
            out, weights = (value if isinstance(value, tuple) and len(value) == 2
                            else (value, None))
            return {"output+weights": (out, weights), "weights+output": (weights, out),
                    "weights": weights}.get(options["returns"], value)
        if self.kind == "causal_mask" and isinstance(value, np.ndarray) and value.ndim == 2:
            return convert.causal_shown(value, options.get("mask", "allowed"),
                                        options.get("shape", "[n, n]"))
        if self.kind == "encoding":
            return convert.encoding_shown(value, options.get("layout", "interleaved"),
                                          options.get("shape", "[L, d]"),
                                          options.get("padding_row", False))
        return value

    def picture(self, matrix: Any) -> Any:
        """A canonical 2-D picture ``matrix`` (a causal mask, an encoding) as the course writes
        it: True or 1 = blocked for a blocked-polarity mask (an additive one is drawn as today,
        1 = may attend: its -inf entries cannot be drawn), the halves layout and a zero row 0
        for an encoding; anything else unchanged."""
        options = self.options
        if not isinstance(matrix, np.ndarray) or matrix.ndim != 2:
            return matrix
        if self.kind == "causal_mask" and options.get("mask") in ("blocked", "numeric-blocked"):
            return 1.0 - matrix
        if self.kind == "encoding":
            return convert.encoding_shown(matrix, options.get("layout", "interleaved"), "[L, d]",
                                          options.get("padding_row", False))
        return matrix

    def outcome(self, outcome: CallOutcome | None, args: tuple, kwargs: dict,
                wrapped: bool, sent: tuple) -> CallOutcome | None:
        """``outcome`` of the course's call ``sent`` (its positional arguments) with the value
        in canonical form; a value without the course's form becomes a :data:`FORM_STATUS`
        outcome whose ``error`` is the fixed sentence and whose ``value`` is the value read in
        canonical form when it reads unambiguously so (:attr:`.convert.FormError.read`, for the
        diagnosis only; None when not). For a wrapped (inputs-not-modified) call
        the arrays after the call are mapped back to the canonical arguments: one unchanged is
        the canonical argument itself, one changed stays as the learner left it."""
        if outcome is None or outcome.status != "ok":
            return outcome
        value = outcome.value
        try:
            if wrapped and isinstance(value, tuple) and len(value) == 2 \
                    and isinstance(value[1], tuple):
                return replace(outcome, value=(self.value(value[0], args, kwargs),
                                               self._arrays_back(value[1], args, kwargs, sent)))
            return replace(outcome, value=self.value(value, args, kwargs))
        except convert.FormError as error:
            read = None if wrapped else error.read
            return CallOutcome(FORM_STATUS, value=read, error=self.named(error.message),
                               seconds=outcome.seconds)
        except Exception:  # noqa: BLE001 - an odd learner value must not crash grading
            return CallOutcome(FORM_STATUS, error=UNREADABLE, seconds=outcome.seconds)

    def failure(self, message: str) -> str:
        """A check's failure ``message`` on the canonical value with its shapes in the course's
        form: a course whose causal mask or encoding has a leading axis of length one (``[1, n,
        n]``, ``[1, L, d]``) reads "the output has shape (1, 9, 8), expected (1, 9, 7)" where
        the canonical check says (9, 8) and (9, 7). Other messages are returned unchanged."""
        leading = (self.kind == "causal_mask" and self.options.get("shape") == "[1, n, n]") or (
            self.kind == "encoding" and self.options.get("shape") == "[1, L, d]")
        found = _SHAPES.fullmatch(message) if leading and len(message) < 400 else None
        if found is None:
            return message
        what, got, expected = found.groups()
        return f"the {what} has shape {_leading(got)}, expected {_leading(expected)}"

    def named(self, sentence: str) -> str:
        """A fixed sentence of :mod:`.convert` in the course's parameter names (``seq_len``,
        ``d_model`` -> the course's ``length``, ``depth``)."""
        return rename(sentence, dict(zip(self.canonical, self.names)))

    def _arrays_back(self, after: tuple, args: tuple, kwargs: dict, sent: tuple) -> tuple:
        """The wrapper's flat ``after`` (:func:`grader.problems.inputs.arguments_after` of the
        arguments as sent: an array each, a dict as its size and its entries) in the canonical
        arguments' order and form: an argument that came back unchanged is the canonical one."""
        canonical = self._canonical(args, kwargs)
        found: dict[int, tuple[Any, list]] = {}  # canonical index -> (as sent, its entries back)
        position = 0
        for p, argument in enumerate(sent):
            size = len(arguments_after((argument,)))
            if size:
                found[self.order[p]] = (argument, list(after[position:position + size]))
            position += size
        if position != len(after):
            return after
        back: list = []
        for index, argument in enumerate(canonical):
            flat = list(arguments_after((argument,)))
            if not flat:
                continue
            if index not in found:  # one not sent: unchanged
                back += flat
                continue
            before, entries = found[index]
            same = all(isinstance(one, np.ndarray) and one.shape == np.shape(was)
                       and np.array_equal(one, was, equal_nan=True)
                       for one, was in zip(entries, arguments_after((before,))))
            back += flat if same else entries
        return tuple(back)


def _leading(shape: str) -> str:
    """``"9, 8"`` (a shape's text without its parentheses) -> ``"(1, 9, 8)"``."""
    return str((1, *(int(size) for size in shape.replace(" ", "").split(",") if size)))


def _allow_all(values: list, self_attention: bool) -> Any:
    """A mask allowing every key, (Lq, Lk), for attention's (Q, K, ...), or (L, L) for
    self-attention's (X, ...) (None when they are not arrays): the mask of a call without one,
    for a course whose function always gets one."""
    Q = values[0]
    K = Q if self_attention else values[1]
    if not (isinstance(Q, np.ndarray) and isinstance(K, np.ndarray) and Q.ndim >= 2
            and K.ndim >= 2):
        return None
    return np.ones((Q.shape[-2], K.shape[-2]), dtype=bool)


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


_MISSING: Any = _Missing()
