"""A built-in problem compiled with a code item's ``contract:`` options (issue 21, part 1).

:func:`compile_course` gives the :class:`grader.problems.base.CodeProblem` an item grades
against: the built-in problem itself when the options are today's contract (none, ``{}``, or
every default written out: the item is graded exactly as before), else the same problem
compiled again (:func:`grader.problems.compile.compile_problem`) from a declaration whose
contract text, starter, messages and cases are the course's (:mod:`.text`), with a
:class:`~.adapter.CourseAdapter` that converts calls and returns at the sandbox boundary. The
cases, reference, mistakes, checks and diagnosis stay canonical; compiled problems are cached
per (problem id, options), so the same seed and options draw the same inputs.
"""
from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from dataclasses import replace
from typing import Any, Callable, Mapping

import numpy as np

from grader.problems.base import CaseResult, CodeProblem, Rule
from grader.problems.compile import compile_problem
from grader.problems.course import convert, text
from grader.problems.course.adapter import FORM_STATUS, CourseAdapter, DefaultAxis
from grader.problems.course.options import (ContractOptionError, key_of, normalise,
                                            profile)
from grader.problems.spec import (REQUIRED, CaseSpec, Contract, Draw, Inputs, Mistake, Param,
                                  ProblemSpec, mistake)

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


#: Multi-head attention's parameters with fused weights, unless the course names them.
FUSED_NAMES = ("X", "W_qkv", "b_qkv", "W_o", "b_o", "num_heads", "mask")


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


# -- cases ---------------------------------------------------------------------------------------

def _first_call(case: CaseSpec) -> tuple[tuple, dict] | None:
    inputs = case.inputs
    if isinstance(inputs, Draw):
        try:
            inputs = inputs(np.random.default_rng(0))
        except Exception:  # noqa: BLE001 - a draw that needs another seed: kept as it is
            return None
    return inputs.calls[0] if inputs.calls else None


def _rank(case: CaseSpec) -> int | None:
    call = _first_call(case)
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
    call = _first_call(case)
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
    call = _first_call(case)
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


def _masked(case: CaseSpec, index: int) -> bool:
    call = _first_call(case)
    return call is not None and len(call[0]) > index and call[0][index] is not None


def _mask_fits(case: CaseSpec, index: int, shapes: tuple[str, ...]) -> bool:
    """A case whose mask the course's ``mask_shapes`` admit (as it is, or (Lq, Lk) sent as
    (1, Lq, Lk) on batched inputs); a case without a mask always fits."""
    call = _first_call(case)
    if call is None:
        return True
    args = call[0]
    kind = mask_shape(args[index] if len(args) > index else None, args[0])
    if kind is None or kind in shapes:
        return True
    return kind == "[Lq, Lk]" and "[1, Lq, Lk]" in shapes and np.ndim(args[0]) >= 3


def _cases(spec: ProblemSpec, options: Mapping[str, Any]) -> tuple[CaseSpec, ...]:
    cases = spec.cases
    if "mask_shapes" in options:
        index = profile(spec.id).mask_input
        cases = tuple(c for c in cases if _mask_fits(c, index, options["mask_shapes"]))
    if options.get("causal"):
        cases = tuple(_mapped(c, lambda inputs: replace(inputs, calls=tuple(
            _causal_call(*call) for call in inputs.calls))) for c in cases if _causal_fits(c))
    if "ranks" in options:
        cases = tuple(c for c in cases if _rank(c) in (None, *options["ranks"]))
    if "default_axis" in options:
        # a law on two outputs of the function (shift invariance along the rows) keeps its
        # axis: the call passes today's default, -1, explicitly
        axis = options["default_axis"]
        cases = tuple(c if c.check == "relation" else _mapped(c, _with_default_axis(axis))
                      for c in cases if _axis_fits(c, axis))
    return cases


# -- messages ------------------------------------------------------------------------------------

def _names(spec: ProblemSpec, adapter: CourseAdapter) -> dict[str, str]:
    """Today's names -> the course's (with fused weights the parameters are those of
    :data:`FUSED_NAMES`: W_q, W_k, W_v stay the names of the three blocks)."""
    base = FUSED_NAMES if adapter.options.get("weights") == "fused" else adapter.canonical
    found = dict(zip(base, adapter.names))
    found[spec.contract.function] = adapter.function
    return found


def _message(spec: ProblemSpec, options: Mapping[str, Any], names: Mapping[str, str], tag: str,
             message: str) -> str:
    mask, returns = options.get("mask"), options.get("returns")
    if spec.id == "causal_mask":
        override = {"mask_inverted": text.CAUSAL_INVERTED.get(mask),
                    "additive_mask": text.CAUSAL_ADDITIVE.get(mask)}.get(tag)
        if mask in ("blocked", "numeric-blocked"):
            override = override or text.CAUSAL_BLOCKED.get(tag)
    elif options.get("causal"):
        override = {"mask_ignored": text.NOT_CAUSAL}.get(tag)
    else:
        override = {"mask_inverted": text.INVERTED.get(mask),
                    "returns_weights_first": text.RETURNS_FIRST.get(returns),
                    "mask_added_as_float": text.NUMERIC_ADDED if mask == "numeric-allowed"
                    else None}.get(tag)
    message = override or message
    if mask:
        message = message.replace(text.APPLY["allowed"], text.APPLY[mask])
        message = message.replace("the mask is boolean", "the mask is " + text.MASK_SHORT[mask])
    return text.rename(message, names)


def _form_rules(adapter: CourseAdapter) -> tuple[Rule, ...]:
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
    return tuple(Rule(tag=tag, message=message, explains=_form_explains(message))
                 for tag, message in found.items())


def _form_explains(message: str) -> Callable[[list[CaseResult]], list[str]]:
    def explains(results: list[CaseResult]) -> list[str]:
        return [r.case.name for r in results if r.crashed and any(
            o is not None and o.status == FORM_STATUS and o.error == message
            for o in r.outcomes)]
    return explains


def _checks(spec: ProblemSpec, options: Mapping[str, Any]) -> dict:
    checks = dict(spec.checks)
    sentence = text.CAUSAL_DTYPE.get(options.get("mask", ""))
    if spec.id == "causal_mask" and sentence and "boolean" in checks:
        original = checks["boolean"]

        @functools.wraps(original)
        def course_dtype(got, expected, case):
            return None if original(got, expected, case) is None else sentence

        course_dtype.basis = original.basis  # type: ignore[attr-defined]
        checks["boolean"] = course_dtype
    return checks


# -- contract text and starter -------------------------------------------------------------------

def _course_defaults(spec: ProblemSpec, adapter: CourseAdapter) -> tuple[Any, ...]:
    found = []
    for index in adapter.order:
        param = spec.contract.params[index]
        default = text.NO_DEFAULT if param.default is REQUIRED else param.default
        if param.name == "axis" and "default_axis" in adapter.options:
            default = adapter.options["default_axis"]
        if index == adapter.mask_index and adapter.options.get("mask_required"):
            default = text.NO_DEFAULT
        found.append(default)
    return tuple(found)


def _contract_text(spec: ProblemSpec, options: Mapping[str, Any], adapter: CourseAdapter,
                   line: str) -> str:
    body = spec.contract.text
    notes = []
    mask, returns = options.get("mask"), options.get("returns")
    if spec.id == "scaled_dot_product_attention":
        if options.get("mask_required"):
            body = body.replace("mask: None, or ", "mask: always given (allowing every "
                                "position when nothing is masked): ")
        if mask:
            body = body.replace(
                "a boolean array broadcastable to (..., Lq, Lk): True where the query MAY attend "
                "to the\nkey, False where it is blocked.", text.MASK_TEXT[mask])
        if returns and text.RETURNS_TEXT.get(returns):
            body = body.replace(
                "and return the output (..., Lq, d_v) = weights @ V, or the\ntuple (output, "
                "weights) with weights (..., Lq, Lk); returned weights are checked too.",
                "and " + text.RETURNS_TEXT[returns])
        if "mask_shapes" in options:
            shown = [s.replace("[", "(").replace("]", ")") for s in options["mask_shapes"]]
            body = body.replace("Masks of shape (Lq, Lk), (B, Lq, Lk), (B, 1, Lq, Lk) and "
                                "(B, 1, 1, Lk)\noccur.", "This course's masks have shape "
                                + ", ".join(shown[:-1]) + (" or " if len(shown) > 1 else "")
                                + shown[-1] + ".")
        if "ranks" in options:
            notes.append("This course's inputs: " + ", or ".join(
                text.RANK_SHAPES[r] for r in options["ranks"]) + "; the tests use only these.")
    elif spec.id == "multi_head_attention":
        layout = options.get("weights")
        if layout in text.HEAD_WEIGHTS_TEXT:
            body = body.replace(text.HEAD_WEIGHTS_CANONICAL, text.HEAD_WEIGHTS_TEXT[layout])
        if layout == "fused":
            body = body.replace("return concat @ W_o,", "return concat @ W_o + b_o,")
        if options.get("causal"):
            start = body.find("mask: None, or a boolean array")
            end = body.find("occur).", start)
            if start >= 0 and end > start:
                body = body[:start] + text.CAUSAL_HEADS + body[end + len("occur)."):]
        elif mask:
            body = body.replace("a boolean array broadcastable to (..., L, L), True where "
                                "position i MAY attend to\nposition j,",
                                text.MASK_TEXT[mask].replace("(..., Lq, Lk)", "(..., L, L)")
                                .rstrip(".") + ",")
        if "ranks" in options:
            notes.append("This course's inputs: X of rank " + " or ".join(
                map(str, options["ranks"])) + " only; the tests use only these.")
    elif spec.id in ("grouped_query_attention", "attention_backward",
                     "transformer_encoder_block", "transformer_encoder_block_post_ln"):
        if mask:
            notes.append("This course's mask: " + text.MASK_TEXT[mask])
    elif spec.id == "causal_mask":
        shape = "(1, n, n)" if options.get("shape") == "[1, n, n]" else "(n, n)"
        sentence = text.CAUSAL_TEXT.get(mask or "allowed")
        start = body.find("Return a boolean NumPy array")
        end = body.find("Use NumPy only.", start)
        if sentence and start >= 0 and end > start:
            body = body[:start] + sentence.format(shape=shape) + body[end + len("Use NumPy only."):]
        elif shape != "(n, n)":
            body = body.replace("of shape (n, n)", f"of shape {shape}")
    elif spec.id == "positional_encoding":
        if options.get("shape") == "[1, L, d]":
            body = body.replace("of shape (seq_len, d_model)", "of shape (1, seq_len, d_model) "
                                "(a leading axis, as a buffer added to (B, L, d) embeddings)")
        if options.get("layout") == "halves":
            body = body.replace(
                "Sine and cosine columns are interleaved (not two halves). For odd d_model the "
                "last column is a\nsine.",
                "This course writes the encoding in two halves, not interleaved: the sines "
                "sin(pos / 10000 ** (2i / d_model)) fill the first ceil(d_model / 2) columns (i "
                "= 0, 1, ...) and the cosines the remaining columns, in the same order of i.")
        if options.get("padding_row"):
            notes.append("Row 0 is reserved for the padding token and is all zeros; rows 1, 2, "
                         "... are positions 1, 2, ... as above (so position p is row p, and "
                         "position 0 is not encoded).")
    elif spec.id == "softmax" and "default_axis" in options:
        body = body.replace("default the last axis", f"default axis {options['default_axis']}")
    body = text.rename(body, _names(spec, adapter))
    body = text.replace_first_line(body, line)
    if notes:
        head, _, rest = body.partition("\n\n")
        body = head + "\n\n" + " ".join(notes) + "\n" + rest
    return body


_DOC = {
    "mask": {"allowed": "mask boolean, True = may attend", "blocked": "mask boolean, True = "
             "blocked", "numeric-allowed": "mask 0/1, 1 = may attend", "numeric-blocked":
             "mask 0/1, 1 = blocked", "additive": "mask additive, 0 = may attend, -1e9 = "
             "blocked"},
}


def _starter(spec: ProblemSpec, options: Mapping[str, Any], adapter: CourseAdapter,
             line: str) -> str:
    starter = text.rename(spec.contract.starter, _names(spec, adapter))
    lines = starter.split("\n")
    for index, found in enumerate(lines):
        if found.startswith("def "):
            lines[index] = line + ":"
            break
    starter = "\n".join(lines)
    notes = []
    mask, returns = options.get("mask"), options.get("returns")
    if spec.id == "scaled_dot_product_attention":
        starter = starter.replace("mask boolean, True = may attend",
                                  text.rename(_DOC["mask"][mask or "allowed"],
                                              _names(spec, adapter)))
        if returns and text.RETURNS_TEXT.get(returns):
            starter = starter.replace(
                "Returns the output (..., Lq, d_v), or (output, weights) with weights (..., Lq, "
                "Lk).", "Returns " + {"output+weights": "(output, weights)",
                                      "weights+output": "(weights, output)",
                                      "weights": "the weights (..., Lq, Lk) only"}[returns] + ".")
            notes.append("This course's function must " + text.rename(text.RETURNS_TEXT[returns],
                                                                      _names(spec, adapter)))
    elif spec.id == "multi_head_attention" and (options.get("weights") in
                                                 text.HEAD_WEIGHTS_TEXT or options.get("causal")):
        layout = options.get("weights")
        if layout in text.HEAD_WEIGHTS_DOC:
            starter = starter.replace(text.rename("W_* (d_model, d_model) used as X @ W",
                                                  _names(spec, adapter)),
                                      text.rename(text.HEAD_WEIGHTS_DOC[layout],
                                                  _names(spec, adapter)))
        notes += [text.rename(text.HEAD_WEIGHTS_TEXT.get(layout, ""), _names(spec, adapter))
                  + ".", text.CAUSAL_HEADS if options.get("causal") else ""]
        notes = [n for n in notes if n.strip(".")]
    elif spec.id == "causal_mask" and (mask or options.get("shape")):
        sentence = text.CAUSAL_TEXT.get(mask or "allowed") or "Return the causal mask."
        shape = "(1, n, n)" if options.get("shape") == "[1, n, n]" else "(n, n)"
        notes.append(sentence.format(shape=shape).replace(" Use NumPy only.", ""))
    elif spec.id == "positional_encoding" and options.keys() & {"layout", "shape",
                                                                  "padding_row"}:
        notes.append(" ".join(filter(None, [
            "Sines in the first half of the columns, cosines in the second."
            if options.get("layout") == "halves" else "",
            "Shape (1, seq_len, d_model)." if options.get("shape") == "[1, L, d]" else "",
            "Row 0 all zeros (padding)." if options.get("padding_row") else ""])))
    if notes:
        marker = '    raise NotImplementedError'
        note = "\n".join("    # " + n for n in _wrap(" ".join(notes)))
        starter = starter.replace(marker, note + "\n" + marker, 1)
    return starter


def _wrap(sentence: str, width: int = 90) -> list[str]:
    lines, current = [], ""
    for word in sentence.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return lines + ([current] if current else [])


def _course_mistakes(spec: ProblemSpec, options: Mapping[str, Any]) -> tuple[Mistake, ...]:
    """The mistakes only a course's convention has: a softmax whose default axis is today's
    (the last) where the course's is another; fused multi-head weights without the output
    bias."""
    if spec.id == "multi_head_attention" and options.get("weights") == "fused":
        reference = spec.reference

        def no_output_bias(*args, **kwargs):
            out = reference(*args, **kwargs)
            pair = isinstance(out, tuple)
            bias = convert.output_bias(np.shape(args[0])[-1])
            return (out[0] - bias, out[1]) if pair else out - bias

        return (mistake("output_bias_missing", text.NO_OUTPUT_BIAS,
                        implementations=(no_output_bias,)),)
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


# -- compiling -----------------------------------------------------------------------------------

def _compile(problem: CodeProblem, options: Mapping[str, Any]) -> CodeProblem:
    spec = problem.spec
    adapter = _adapter(spec, options)
    names = _names(spec, adapter)
    defaults = _course_defaults(spec, adapter)
    course_order = tuple(adapter.names[i] for i in adapter.order)
    line = text.signature(adapter.function, course_order, defaults)
    params = []
    for index, param in enumerate(spec.contract.params):
        default = param.default
        if param.name == "axis" and "default_axis" in options:
            default = options["default_axis"]
        params.append(Param(adapter.names[index], default))
    contract = Contract(adapter.function, tuple(params),
                        _contract_text(spec, options, adapter, line),
                        _starter(spec, options, adapter, line))
    mistakes = tuple(replace(m, message=_message(spec, options, names, m.tag, m.message))
                     for m in _course_mistakes(spec, options) + tuple(spec.mistakes))
    rules = _form_rules(adapter) + tuple(
        replace(r, message=_message(spec, options, names, r.tag, r.message)) for r in spec.rules)
    # the visible examples' names in the course's names (their inputs are fixed: no draw
    # moves); a hidden test's name seeds its draw and stays
    cases = tuple(replace(c, name=text.rename(c.name, names)) if c.visible else c
                  for c in _cases(spec, options))
    if profile(spec.id).mask_input is not None and any(
            _masked(c, profile(spec.id).mask_input) for c in spec.cases) and not any(
            _masked(c, profile(spec.id).mask_input) for c in cases if not c.visible):
        field = "contract.mask_shapes" if "mask_shapes" in options else "contract.ranks"
        raise ContractOptionError(field, "no hidden test of this problem has a mask under "
                                         "these options: the masking could not be checked")
    if not any(not c.visible for c in cases):
        raise ContractOptionError("contract.ranks", "no hidden test of this problem uses only "
                                                    "these input ranks")
    course_spec = replace(spec, contract=contract, cases=cases,
                          mistakes=mistakes, rules=rules, checks=_checks(spec, options))
    compiled = compile_problem(course_spec)
    compiled.course = adapter
    return compiled


__all__ = ["ContractOptionError", "compile_course", "options_of"]
