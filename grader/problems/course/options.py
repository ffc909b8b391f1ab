"""The ``contract:`` options of a code item: which keys apply to which built-in problem, their
values, and their validation (issue 21, part 1).

An item's ``contract:`` mapping adapts a built-in problem to a course's own conventions (the
function's name and parameters, the mask's polarity and form, what is returned, the input ranks,
the layout of a positional encoding, softmax's default axis). Every key is optional and its
default is today's contract, so ``contract: {}`` (or every default written out) is exactly the
item without options. :func:`normalise` checks a mapping against the problem's keys and returns
the options that differ from the defaults, or raises :class:`ContractOptionError` naming the
field (``contract.mask``, ``contract.parameters[1]``).
"""
from __future__ import annotations

import keyword
import math
from dataclasses import dataclass
from typing import Any, Mapping

#: The mask conventions: ``allowed`` (boolean, True = may attend; today's), ``blocked`` (boolean,
#: True = blocked), ``numeric-allowed`` / ``numeric-blocked`` (0/1 numbers, 1 = may attend /
#: 1 = blocked), ``additive`` (floats added to the scores: 0 where allowed, a large negative
#: number where blocked).
MASKS = ("allowed", "blocked", "numeric-allowed", "numeric-blocked", "additive")

#: What the function returns.
RETURNS = ("output", "output+weights", "weights+output", "weights")

#: A course's additive mask reads an entry at or below this as blocked (-inf, -1e9, -1e10 and
#: ``np.finfo(float).min`` all are); the masks the grader sends use :data:`ADDITIVE_BLOCKED`.
ADDITIVE_THRESHOLD = -1e4

#: The value the grader's additive masks hold where a position is blocked (finite, as most
#: courses' -1e9: a fully blocked row stays finite).
ADDITIVE_BLOCKED = -1e9

#: The mask shapes an attention course may promise (``mask_shapes``); today's tests send the
#: first, third, fourth and fifth.
MASK_SHAPES = ("[Lq, Lk]", "[1, Lq, Lk]", "[B, Lq, Lk]", "[B, 1, Lq, Lk]", "[B, 1, 1, Lk]")
TODAYS_MASK_SHAPES = ("[Lq, Lk]", "[B, Lq, Lk]", "[B, 1, Lq, Lk]", "[B, 1, 1, Lk]")

#: Function names the grader's "inputs not modified" wrapper (:mod:`grader.problems.inputs`)
#: uses for its own locals, so a course's function cannot have them (nor any name starting with
#: ``_grader``).
RESERVED_FUNCTIONS = ("args", "kwargs")

LAYOUTS = ("interleaved", "halves")
ENCODING_SHAPES = ("[L, d]", "[1, L, d]")
CAUSAL_SHAPES = ("[n, n]", "[1, n, n]")


class ContractOptionError(ValueError):
    """A ``contract:`` option that cannot be used: ``field`` (e.g. ``contract.mask``) and
    ``reason``."""

    def __init__(self, field: str, reason: str):
        self.field, self.reason = field, reason
        super().__init__(f"{field}: {reason}")


@dataclass(frozen=True)
class Profile:
    """Which option keys a problem takes beyond ``function`` and ``parameters``: ``mask_input``
    (the index of its boolean mask parameter; ``mask_required``: a course whose function always
    gets a mask, one allowing every position where today's call has none), ``mask_output``
    (its output is a mask),
    ``returns`` (the values of ``returns`` it takes: it returns the output or (output,
    weights)), ``ranks`` (the input ranks its cases use, read off the first array argument),
    ``encoding`` (a positional encoding's ``layout``, ``shape``, ``padding_row``),
    ``default_axis`` (softmax), ``heads`` (multi-head attention's ``weights`` layout and
    ``causal``)."""

    mask_input: int | None = None
    mask_output: bool = False
    returns: tuple[str, ...] = ()
    ranks: tuple[int, ...] = ()
    encoding: bool = False
    default_axis: bool = False
    heads: bool = False
    mask_shapes: bool = False

    def keys(self) -> tuple[str, ...]:
        found = ["function", "parameters"]
        found += ["mask"] if self.mask_input is not None or self.mask_output else []
        found += ["mask_required"] if self.mask_input is not None else []
        found += ["mask_shapes"] if self.mask_shapes else []
        found += ["returns"] if self.returns else []
        found += ["ranks"] if self.ranks else []
        found += ["layout", "shape", "padding_row"] if self.encoding else []
        found += ["shape"] if self.mask_output else []
        found += ["default_axis"] if self.default_axis else []
        found += ["weights", "causal"] if self.heads else []
        return tuple(found)


#: The profiles of the built-in problems that take more than ``function`` and ``parameters``.
PROFILES: dict[str, Profile] = {
    "scaled_dot_product_attention": Profile(mask_input=3, returns=RETURNS, ranks=(2, 3, 4),
                                            mask_shapes=True),
    "causal_mask": Profile(mask_output=True),
    "positional_encoding": Profile(encoding=True),
    "softmax": Profile(default_axis=True, ranks=(1, 2, 3)),
    "multi_head_attention": Profile(mask_input=6, returns=RETURNS[:3], ranks=(2, 3),
                                    heads=True),
    "grouped_query_attention": Profile(mask_input=3, ranks=(3, 4)),
    "attention_backward": Profile(mask_input=4, ranks=(2, 3, 4)),
    "transformer_encoder_block": Profile(mask_input=2, ranks=(2, 3)),
    "transformer_encoder_block_post_ln": Profile(mask_input=2, ranks=(2, 3)),
    "sliding_window_attention": Profile(ranks=(2, 3, 4)),
    "linear_attention": Profile(ranks=(2, 3, 4)),
    "layer_norm": Profile(ranks=(1, 2, 3)),
}

#: Multi-head attention's weight layouts: ``separate`` (today: W_q, W_k, W_v, W_o, each
#: (d_model, d_model)), ``per-head`` (W_q, W_k, W_v as (H, d_model, d_head): head h's block of
#: columns), ``fused`` (W_qkv (d_model, 3 d_model) = [W_q | W_k | W_v] with its bias b_qkv
#: (3 d_model,), then W_o and its bias b_o (d_model,)).
HEAD_WEIGHTS = ("separate", "per-head", "fused")

#: Multi-head attention's parameters with fused weights, unless the course names them.
FUSED_NAMES = ("X", "W_qkv", "b_qkv", "W_o", "b_o", "num_heads", "mask")


def profile(problem_id: str) -> Profile:
    """The option profile of built-in problem ``problem_id`` (``function`` and ``parameters``
    only when it has none of its own)."""
    return PROFILES.get(problem_id, Profile())


#: The longest function or parameter name a course may give (longer ones are refused: every
#: contract text, starter and message repeats them).
MAX_NAME = 100


def _identifier(name: Any) -> bool:
    return (isinstance(name, str) and len(name) <= MAX_NAME and name.isidentifier()
            and not keyword.iskeyword(name))


def _one_of(field: str, value: Any, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ContractOptionError(field, f"must be one of {', '.join(allowed)}")
    return value


def _shape_text(value: Any) -> str | None:
    """``[1, L, d]`` for the list ``[1, "L", "d"]`` (or the string itself)."""
    if isinstance(value, str):
        return "[" + ", ".join(p.strip() for p in value.strip().strip("[]()").split(",")) + "]"
    if isinstance(value, (list, tuple)) and len(value) <= 4:
        return "[" + ", ".join(str(v) for v in value) + "]"
    return None


def defaults(problem_id: str, canonical: tuple[str, ...], function: str) -> dict[str, Any]:
    """Every key of the problem with today's value."""
    prof = profile(problem_id)
    found: dict[str, Any] = {"function": function, "parameters": list(canonical)}
    if "mask" in prof.keys():
        found["mask"] = "allowed"
    if "mask_required" in prof.keys():
        found["mask_required"] = False
    if prof.mask_shapes:
        found["mask_shapes"] = list(TODAYS_MASK_SHAPES)
    if prof.returns:
        found["returns"] = "output"  # today: the output (a pair (output, weights) is accepted)
    if prof.ranks:
        found["ranks"] = list(prof.ranks)
    if prof.encoding:
        found.update(layout="interleaved", shape="[L, d]", padding_row=False)
    if prof.mask_output:
        found["shape"] = "[n, n]"
    if prof.default_axis:
        found["default_axis"] = -1
    if prof.heads:
        found.update(weights="separate", causal=False)
    return found


def normalise(problem_id: str, raw: Any, canonical: tuple[str, ...], function: str
              ) -> dict[str, Any]:
    """The options of ``raw`` (an item's ``contract:`` value) that differ from today's contract
    of built-in problem ``problem_id`` (whose parameters are ``canonical`` and whose function is
    ``function``), values normalised (``shape`` as ``"[1, L, d]"``, ``ranks`` a sorted tuple,
    ``parameters`` a tuple). Raises :class:`ContractOptionError` naming the field: a key that
    does not apply to the problem (a typo included), a value not among the key's values.

    ``returns: output`` is today's contract: the output, a pair (output, weights) accepted too
    (its weights checked)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ContractOptionError("contract", "must be a mapping of options")
    prof = profile(problem_id)
    keys = prof.keys()
    found: dict[str, Any] = {}
    # always-causal heads take no mask: the course's parameters are one fewer
    named = canonical[:-1] if prof.heads and raw.get("causal") is True else canonical
    for key, value in raw.items():
        field = f"contract.{key}"
        if key not in keys:
            raise ContractOptionError(field, f"not an option of problem {problem_id!r} "
                                             f"(its options: {', '.join(keys)})")
        found[key] = _value(problem_id, prof, field, key, value, named)
    if found.get("causal") and ("mask" in found or found.get("mask_required")):
        raise ContractOptionError("contract.mask", "always-causal heads take no mask")
    base = defaults(problem_id, canonical, function)
    return {k: v for k, v in found.items() if _normal(base.get(k)) != _normal(v)}


def _without_mask(prof: Profile) -> str:
    return "; always-causal heads: the same without the mask" if prof.heads else ""


def _normal(value: Any) -> Any:
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, str) and v.startswith("[") for v in value):
        return tuple(sorted(value))  # mask shapes: a set
    return tuple(value) if isinstance(value, list) else value


def _value(problem_id: str, prof: Profile, field: str, key: str, value: Any,
           canonical: tuple[str, ...]) -> Any:
    if key == "function":
        if not _identifier(value):
            raise ContractOptionError(field, "must be a Python function name (at most "
                                             f"{MAX_NAME} characters)")
        # the grader's own wrapper (grader/problems/inputs.py) and the names it calls the
        # function from: a function called args would be the wrapper's *args tuple
        if value.startswith("_grader") or value.startswith("__grader") \
                or value in RESERVED_FUNCTIONS:
            raise ContractOptionError(field, "names starting with _grader, and "
                                             f"{', '.join(RESERVED_FUNCTIONS)}, are reserved")
        return value
    if key == "parameters":
        if not isinstance(value, (list, tuple)) or len(value) != len(canonical):
            raise ContractOptionError(field, f"must be a list of {len(canonical)} parameter "
                                             f"names (today: {', '.join(canonical)}"
                                             f"{_without_mask(prof)})")
        for index, name in enumerate(value):
            if not _identifier(name):
                raise ContractOptionError(f"{field}[{index}]", "must be a Python name (at most "
                                                               f"{MAX_NAME} characters)")
        if len(set(value)) != len(value):
            raise ContractOptionError(field, "parameter names repeat")
        return tuple(value)
    if key == "mask":
        return _one_of(field, value, MASKS)
    if key == "returns":
        return _one_of(field, value, prof.returns)
    if key == "weights":
        return _one_of(field, value, HEAD_WEIGHTS)
    if key == "ranks":
        if (not isinstance(value, (list, tuple)) or not value
                or any(type(r) is not int or r not in prof.ranks for r in value)):
            raise ContractOptionError(field, "must be a non-empty list of input ranks among "
                                             f"{', '.join(map(str, prof.ranks))}")
        return tuple(sorted(set(value)))
    if key == "mask_shapes":
        if not isinstance(value, (list, tuple)) or not value:
            raise ContractOptionError(field, "must be a non-empty list of mask shapes among "
                                             f"{', '.join(MASK_SHAPES)}")
        shapes = []
        for index, shape in enumerate(value):
            shapes.append(_one_of(f"{field}[{index}]", _shape_text(shape), MASK_SHAPES))
        return tuple(s for s in MASK_SHAPES if s in shapes)  # one order: one cache key
    if key == "layout":
        return _one_of(field, value, LAYOUTS)
    if key == "shape":
        allowed = ENCODING_SHAPES if prof.encoding else CAUSAL_SHAPES
        return _one_of(field, _shape_text(value), allowed)
    if key in ("padding_row", "mask_required", "causal"):
        if not isinstance(value, bool):
            raise ContractOptionError(field, "must be true or false")
        return value
    if key == "default_axis":
        if isinstance(value, bool) or not isinstance(value, int) or not -4 <= value <= 3:
            raise ContractOptionError(field, "must be an integer axis from -4 to 3")
        return value
    raise ContractOptionError(field, "unknown option")  # pragma: no cover - keys() guards


def key_of(options: Mapping[str, Any]) -> tuple:
    """A hashable key of normalised ``options`` (the compiled problems' cache)."""
    return tuple(sorted((k, _normal(v)) for k, v in options.items()))


assert math.isfinite(ADDITIVE_BLOCKED) and ADDITIVE_BLOCKED <= ADDITIVE_THRESHOLD
