"""A course's contract text, starter file and messages (issue 21, part 1): the canonical texts
rewritten in the course's names and conventions (the sentences themselves are in
:mod:`.text`)."""
from __future__ import annotations

from typing import Any, Mapping

from grader.problems.course import convert
from grader.problems.course import options as options_module
from grader.problems.course import text
from grader.problems.course.adapter import CourseAdapter
from grader.problems.spec import REQUIRED, ProblemSpec


def names_of(spec: ProblemSpec, adapter: CourseAdapter) -> dict[str, str]:
    """Today's names -> the course's (with fused weights the parameters are those of
    :data:`options_module.FUSED_NAMES`: W_q, W_k, W_v stay the names of the three blocks)."""
    fused = adapter.options.get("weights") == "fused"
    base = options_module.FUSED_NAMES if fused else adapter.canonical
    found = dict(zip(base, adapter.names))
    found[spec.contract.function] = adapter.function
    return found


def message(spec: ProblemSpec, options: Mapping[str, Any], names: Mapping[str, str], tag: str,
             message: str) -> str:
    mask, returns = options.get("mask"), options.get("returns")
    if spec.id == "causal_mask":
        override = {"mask_inverted": text.CAUSAL_INVERTED.get(mask),
                    "additive_mask": text.CAUSAL_ADDITIVE.get(mask)}.get(tag)
        if mask in ("blocked", "numeric-blocked"):
            override = override or text.CAUSAL_BLOCKED.get(tag)
    elif spec.id == "positional_encoding" and options.get("layout") == "halves":
        # the canonical "two halves" mistake, read through the course's halves, is a learner
        # who interleaved (for d_model = 4 the two column orders are one permutation)
        override = {"halves_concatenated": convert.INTERLEAVED[1]}.get(tag)
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


def test_name(spec: ProblemSpec, options: Mapping[str, Any], names: Mapping[str, str],
              name: str) -> str:
    """A hidden test's ``name`` as the course's learner reads it: the course's parameter names,
    mask convention and leading axis (``inputs: q, k, v and mask are not modified in place``,
    ``shapes: a square (1, size, size) array``, ``dtypes: the mask is 0/1 numbers with 1 =
    blocked``). Only what is shown changes: the case keeps its name, which seeds its draw."""
    mask = options.get("mask")
    if mask:
        name = name.replace("the mask is boolean", "the mask is " + text.MASK_SHORT[mask])
    if spec.id == "causal_mask" and options.get("shape") == "[1, n, n]":
        name = name.replace("(n, n)", "(1, n, n)")
    if spec.id == "positional_encoding" and options.get("shape") == "[1, L, d]":
        name = name.replace("(seq_len, d_model)", "(1, seq_len, d_model)")
    # "mask" in a test's name is the noun ("a causal mask (L, L)"), except where it lists the
    # parameters ("Q, K, V and mask are not modified")
    course_mask = names.get("mask", "mask")
    name = name.replace(" and mask are not modified", f" and {course_mask} are not modified")
    return text.rename(name, {k: v for k, v in names.items() if k != "mask"})


def course_defaults(spec: ProblemSpec, adapter: CourseAdapter) -> tuple[Any, ...]:
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


def contract_text(spec: ProblemSpec, options: Mapping[str, Any], adapter: CourseAdapter,
                   line: str, mask_shapes: tuple[str, ...] = ()) -> str:
    """The course's contract text: today's, with the course's names, signature (``line``) and
    conventions; ``mask_shapes`` are the mask shapes the kept tests send (an attention problem
    whose sentence on them no longer holds says which)."""
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
        if mask_shapes and set(mask_shapes) != set(options_module.TODAYS_MASK_SHAPES):
            shown = [s.replace("[", "(").replace("]", ")") for s in mask_shapes]
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
    body = text.rename(body, names_of(spec, adapter))
    body = text.replace_first_line(body, line)
    if notes:  # before the credit rule, after what they qualify
        at = body.find("Scoring: ")
        at = at if at >= 0 else len(body)
        body = body[:at] + text.rename(" ".join(notes), names_of(spec, adapter)) + "\n" \
            + body[at:]
    return _rewrapped(body)


def _rewrapped(body: str, width: int = 100) -> str:
    """``body`` with every line longer than ``width`` (a sentence a course's option put in)
    wrapped; the other lines (the canonical text, formulas) as they are."""
    lines = []
    for line in body.split("\n"):
        if len(line) <= width or line.startswith("Scoring: ") or line.startswith("NumPy: "):
            lines.append(line)
        else:
            lines.extend(_wrap(line, width))
    return "\n".join(lines)


_DOC = {
    "mask": {"allowed": "mask boolean, True = may attend", "blocked": "mask boolean, True = "
             "blocked", "numeric-allowed": "mask 0/1, 1 = may attend", "numeric-blocked":
             "mask 0/1, 1 = blocked", "additive": "mask additive, 0 = may attend, -1e9 = "
             "blocked"},
}


def starter(spec: ProblemSpec, options: Mapping[str, Any], adapter: CourseAdapter,
             line: str) -> str:
    starter = text.rename(spec.contract.starter, names_of(spec, adapter))
    lines = starter.split("\n")
    for index, found in enumerate(lines):
        if found.startswith("def "):
            lines[index] = line + ":"
            break
    starter = "\n".join(lines)
    notes = []
    mask, returns = options.get("mask"), options.get("returns")
    if spec.id == "scaled_dot_product_attention":
        # the starter is in the course's names already: a mask called attn_mask is
        # "attn_mask boolean, ..." (replacing "mask boolean" in it gave "attn_attn_mask")
        starter = starter.replace(text.rename("mask boolean, True = may attend",
                                              names_of(spec, adapter)),
                                  text.rename(_DOC["mask"][mask or "allowed"],
                                              names_of(spec, adapter)))
        if returns and text.RETURNS_TEXT.get(returns):
            starter = starter.replace(
                "Returns the output (..., Lq, d_v), or (output, weights) with weights (..., Lq, "
                "Lk).", "Returns " + {"output+weights": "(output, weights)",
                                      "weights+output": "(weights, output)",
                                      "weights": "the weights (..., Lq, Lk) only"}[returns] + ".")
            notes.append("This course's function must " + text.rename(text.RETURNS_TEXT[returns],
                                                                      names_of(spec, adapter)))
    elif spec.id == "multi_head_attention" and (options.get("weights") in
                                                 text.HEAD_WEIGHTS_TEXT or options.get("causal")):
        layout = options.get("weights")
        if layout in text.HEAD_WEIGHTS_DOC:
            starter = starter.replace(text.rename("W_* (d_model, d_model) used as X @ W",
                                                  names_of(spec, adapter)),
                                      text.rename(text.HEAD_WEIGHTS_DOC[layout],
                                                  names_of(spec, adapter)))
        notes += [text.rename(text.HEAD_WEIGHTS_TEXT.get(layout, ""), names_of(spec, adapter))
                  + ".", text.CAUSAL_HEADS if options.get("causal") else ""]
        notes = [n for n in notes if n.strip(".")]
    elif spec.id == "causal_mask" and (mask or options.get("shape")):
        sentence = text.CAUSAL_TEXT.get(mask or "allowed") or "Return the causal mask."
        shape = "(1, n, n)" if options.get("shape") == "[1, n, n]" else "(n, n)"
        notes.append(text.rename(sentence.format(shape=shape).replace(" Use NumPy only.", ""),
                                 names_of(spec, adapter)))
        starter = starter.replace(
            text.rename("Boolean (n, n): True where query i may attend to key j (j <= i).",
                        names_of(spec, adapter)),
            text.rename(text.CAUSAL_DOC[mask or "allowed"].format(shape=shape),
                        names_of(spec, adapter)))
    elif spec.id == "positional_encoding" and options.keys() & {"layout", "shape",
                                                                  "padding_row"}:
        if options.get("shape") == "[1, L, d]":
            starter = starter.replace(text.rename("shape (seq_len, d_model)",
                                                  names_of(spec, adapter)),
                                      text.rename("shape (1, seq_len, d_model)",
                                                  names_of(spec, adapter)))
        notes.append(text.rename(" ".join(filter(None, [
            "Sines in the first half of the columns, cosines in the second."
            if options.get("layout") == "halves" else "",
            "Shape (1, seq_len, d_model)." if options.get("shape") == "[1, L, d]" else "",
            "Row 0 all zeros (padding)." if options.get("padding_row") else ""])),
            names_of(spec, adapter)))
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
