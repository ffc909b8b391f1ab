"""Conversions between a problem's canonical form and a course's (issue 21, part 1).

Two directions, both run on the trusted side: the canonical inputs into the course's convention
before a call is sent to the sandbox (a boolean True = may-attend mask into the course's mask),
and the learner's return into the canonical form the checks and the diagnosis read
(:func:`returns`, :func:`causal_mask`, :func:`encoding`). Those read learner-controlled values:
each looks at the shape and dtype first and does linear work on arrays whose shapes it has
checked. A return that does not have the course's form raises :class:`FormError` with a fixed
sentence (its tag names it in the results) and, when the value still reads unambiguously in the
canonical form (one array where a pair is promised: the output; a mask or an encoding without
the leading axis of length one), that reading: the test fails on the form, and the diagnosis
names the value's own mistakes beside it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from grader.problems.course.options import ADDITIVE_BLOCKED, ADDITIVE_THRESHOLD


#: :attr:`FormError.read` of a value that cannot be read in the canonical form.
UNREAD: Any = None


class FormError(Exception):
    """A learner's return that does not have the course's form: ``tag`` (stable) and the
    ``message`` the learner reads (fixed text: no learner value in it); ``read`` is the value in
    the canonical form when it reads unambiguously so (the diagnosis looks at it, the test
    fails on the form all the same), :data:`UNREAD` (None) when not."""

    def __init__(self, tag: str, message: str, read: Any = UNREAD):
        self.tag, self.message, self.read = tag, message, read
        super().__init__(message)


# -- masks going in ------------------------------------------------------------------------------

def mask_to_course(mask: Any, convention: str, dtype: Any = np.float64) -> Any:
    """The canonical boolean ``mask`` (True = may attend) in the course's ``convention``
    (:data:`grader.problems.course.options.MASKS`); numeric masks take ``dtype`` (the inputs'
    floating dtype). None stays None."""
    if mask is None or convention == "allowed":
        return mask
    allowed = np.asarray(mask, dtype=bool)
    if convention == "blocked":
        return ~allowed
    if convention == "numeric-allowed":
        return allowed.astype(dtype)
    if convention == "numeric-blocked":
        return (~allowed).astype(dtype)
    return np.where(allowed, 0.0, ADDITIVE_BLOCKED).astype(dtype)  # additive


def floating_dtype(args: tuple) -> Any:
    """The floating dtype of the first floating array among ``args`` (float64 if none)."""
    for arg in args:
        if isinstance(arg, np.ndarray) and arg.dtype.kind == "f":
            return arg.dtype
    return np.dtype(np.float64)


# -- attention returns -----------------------------------------------------------------------

def _is_pair(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and len(value) == 2


def weights_shape(args: tuple) -> tuple[int, ...] | None:
    """The shape of attention's weights (..., Lq, Lk) for canonical ``(Q, K, V[, mask])``
    (None when the inputs are not arrays with two axes)."""
    Q, K = (np.asarray(a) if isinstance(a, np.ndarray) else None for a in args[:2])
    if Q is None or K is None or Q.ndim < 2 or K.ndim < 2:
        return None
    mask = args[3] if len(args) > 3 else None
    shapes = [Q.shape[:-1] + (K.shape[-2],), K.shape[:-2] + (1, K.shape[-2])]
    if isinstance(mask, np.ndarray):
        shapes.append(mask.shape)
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def returns_message(returns: str) -> dict[str, str]:
    """The fixed sentences of a return without the course's form, by tag."""
    pair = {"output+weights": "(output, weights)", "weights+output": "(weights, output)"}
    found = {}
    if returns in pair:
        found["contract_returns_one_array"] = (
            f"Your function returns one array, but this course's function returns the tuple "
            f"{pair[returns]}: return both, in that order.")
        found["contract_returns_tuple_length"] = (
            f"Your function returns a tuple that is not a pair: this course's function returns "
            f"the tuple {pair[returns]}.")
    if returns == "weights":
        found["contract_returns_not_weights"] = (
            "Your function does not return the attention weights alone: this course's function "
            "returns only the weights, shape (..., Lq, Lk), each query's row summing to one "
            "(a tuple, or the output (..., Lq, d_v), is not that).")
    return found


def returns(value: Any, convention: str, args: tuple) -> Any:
    """The canonical return (the output, or (output, weights)) of a learner's ``value`` under
    the course's ``returns`` ``convention``; ``args`` are the canonical (Q, K, V[, mask]). For
    ``weights`` the output is computed here, weights @ V, once the weights' shape is checked.
    Raises :class:`FormError`."""
    messages = returns_message(convention)
    if convention in ("output+weights", "weights+output"):
        if isinstance(value, np.ndarray) or not isinstance(value, (tuple, list)):
            # one array: read as the output alone (what today's contract accepts)
            raise FormError("contract_returns_one_array", messages["contract_returns_one_array"],
                            value if isinstance(value, np.ndarray) else UNREAD)
        if not _is_pair(value):
            raise FormError("contract_returns_tuple_length",
                            messages["contract_returns_tuple_length"])
        first, second = value
        return (first, second) if convention == "output+weights" else (second, first)
    if convention == "weights":
        expected = weights_shape(args)
        if not isinstance(value, np.ndarray) or expected is None or value.shape != expected \
                or value.dtype.kind not in "biuf":
            raise FormError("contract_returns_not_weights",
                            messages["contract_returns_not_weights"])
        weights = value.astype(np.float64)
        with np.errstate(all="ignore"):
            output = np.matmul(weights, np.asarray(args[2], dtype=np.float64))
        return output, weights
    return value


# -- multi-head attention's weights ---------------------------------------------------------------

def output_bias(d_model: int) -> np.ndarray:
    """The output bias b_o sent to a fused-weights course, (d_model,): fixed, nonzero, so a
    learner who leaves it out is wrong, and subtracted from the return on the trusted side."""
    return 0.5 * np.cos(np.arange(d_model, dtype=np.float64) + 1.0)


def input_shift(d_model: int) -> np.ndarray:
    """The shift u (d_model,) a fused-weights course's X is sent with: fixed, nonzero, one decimal
    (0.3, -0.2, 0.4, -0.1, 0.2, -0.3, repeating), so a visible example's X - u still reads
    as one-decimal numbers."""
    pattern = np.array([0.3, -0.2, 0.4, -0.1, 0.2, -0.3])
    return np.resize(pattern, d_model)


def qkv_bias(u: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> np.ndarray:
    """b_qkv = u @ [W_q | W_k | W_v] (3 d_model,) for the shift ``u`` of :func:`input_shift`:
    then (X - u) @ W_qkv + b_qkv == X @ W_qkv exactly (up to rounding), so the canonical
    reference on X is the right answer for the fused call on X - u."""
    return np.concatenate([u @ np.asarray(W, dtype=np.float64) for W in (W_q, W_k, W_v)])


def head_weights(values: list, layout: str) -> list:
    """Multi-head attention's canonical (X, W_q, W_k, W_v, W_o, num_heads, mask) with the weights
    in the course's ``layout``: ``per-head`` (W_q, W_k, W_v as (H, d_model, d_head), head h's
    block of columns), ``fused`` (X - u, W_qkv = [W_q | W_k | W_v] (d_model, 3 d_model),
    b_qkv = u @ W_qkv (3 d_model,), W_o, b_o (:func:`output_bias`), num_heads, mask), u being
    :func:`input_shift`: the projections of the fused call are those of the canonical one
    ((X - u) @ W + u @ W = X @ W, up to rounding: both are rounded to 12 decimals), so the
    canonical reference, mistakes and checks hold as they are, and a learner who leaves b_qkv
    out computes the attention of X - u. Values that
    are not the canonical arrays are left as they are."""
    found = list(values)
    X, W_q, W_k, W_v, W_o, heads = found[:6]
    if not all(isinstance(W, np.ndarray) and W.ndim == 2 for W in (W_q, W_k, W_v, W_o)) \
            or not isinstance(heads, (int, np.integer)) or heads < 1 \
            or W_q.shape[1] % int(heads):
        return found
    H = int(heads)
    if layout == "per-head":
        d_model, d_out = W_q.shape
        for index in (1, 2, 3):
            W = found[index]
            found[index] = np.ascontiguousarray(
                W.reshape(d_model, H, d_out // H).transpose(1, 0, 2))
        return found
    d_model = W_q.shape[1]
    dtype = W_q.dtype
    if isinstance(X, np.ndarray) and X.ndim >= 1 and X.shape[-1] == W_q.shape[0]:
        u = input_shift(X.shape[-1])
        # rounded to 12 decimals (a change of at most 5e-13, far below the tolerance), so a
        # visible example's one-decimal X - u and its b_qkv read as the decimals they are
        found[0] = np.round(np.asarray(X, dtype=np.float64) - u, 12).astype(
            X.dtype if X.dtype.kind == "f" else np.float64)
        found[2] = np.round(qkv_bias(u, W_q, W_k, W_v), 12).astype(dtype)
    else:
        found[2] = np.zeros(3 * d_model, dtype=dtype)
    found[1] = np.concatenate([W_q, W_k, W_v], axis=1)
    found[3] = W_o
    found[4] = output_bias(W_o.shape[1]).astype(dtype)
    return found


def without_output_bias(value: Any, X: Any) -> Any:
    """A fused-weights course's return with b_o (:func:`output_bias`) subtracted from its output
    (the weights, if returned, unchanged); a value of another shape is left as it is."""
    d_model = np.shape(X)[-1] if isinstance(X, np.ndarray) and X.ndim else None
    out, weights = (value if isinstance(value, tuple) and len(value) == 2 else (value, None))
    if d_model is None or not isinstance(out, np.ndarray) or out.dtype.kind not in "biuf" \
            or out.ndim < 1 or out.shape[-1] != d_model:
        return value
    out = out.astype(np.float64) - output_bias(d_model)
    return out if weights is None else (out, weights)


# -- a causal mask coming back ---------------------------------------------------------------

CAUSAL_SHAPE = ("contract_mask_shape",
                "Your mask does not have this course's shape, (n, n) with a leading axis of "
                "length one before it: add the axis that broadcasts over the batch "
                "('mask[None]').")


def _additive_form(array: np.ndarray) -> bool:
    """Every entry 0 or a large negative number (<= the threshold, -inf included)."""
    return array.dtype.kind == "f" and array.size > 0 and bool(
        np.all((array == 0) | (array <= ADDITIVE_THRESHOLD)))


def _zero_one(array: np.ndarray) -> bool:
    return array.dtype.kind in "biuf" and bool(np.all((array == 0) | (array == 1)))


def causal_mask(value: Any, convention: str, shape: str, n: int) -> Any:
    """The canonical causal mask (boolean (n, n), True = may attend) of a learner's ``value``
    under the course's mask ``convention`` and ``shape`` (``[n, n]`` or ``[1, n, n]``).

    Whatever the convention, a value in another one is mapped to the canonical mistake that
    convention is: an additive float mask stays additive (the ``additive_mask`` mistake) unless
    the course's mask is additive; a boolean (or 0/1) mask under ``additive`` becomes the
    canonical additive one (the same mistake, named for the course); a mask whose polarity is
    the other one comes out inverted (``mask_inverted``). A dtype the course does not use keeps
    the right values as uint8, so the value tests pass and the dtype test fails, as today's
    contract treats a 0/1 mask. Raises :class:`FormError` for a ``[1, n, n]`` course when the
    value lacks the leading axis (an (n, n) value is read as the mask it is)."""
    if not isinstance(value, np.ndarray):
        return value
    array = value
    if shape == "[1, n, n]":
        if array.ndim < 3 or array.shape[0] != 1:
            read = _causal_convention(array, convention) if array.shape == (n, n) else UNREAD
            raise FormError(*CAUSAL_SHAPE, read)
        array = array[0]
    return _causal_convention(array, convention)


def _causal_convention(array: np.ndarray, convention: str) -> Any:
    """The canonical mask of a learner's ``array`` in the course's mask ``convention`` (see
    :func:`causal_mask`)."""
    if convention == "allowed":
        return array
    if convention == "additive":
        if _additive_form(array):
            return array == 0
        if _zero_one(array):  # a boolean or 0/1 mask: not additive
            return np.where(array != 0, 0.0, -np.inf)
        return array
    if _additive_form(array) and np.any(array != 0):
        return array  # an additive mask where the course's is not: named as it is today
    if not _zero_one(array):
        return array
    allowed = (array != 0) if convention.endswith("allowed") else (array == 0)
    numeric = convention.startswith("numeric")
    right_dtype = (array.dtype.kind != "b") if numeric else (array.dtype.kind == "b")
    return allowed if right_dtype else allowed.astype(np.uint8)


def causal_shown(mask: Any, convention: str, shape: str) -> Any:
    """The canonical causal mask ``mask`` as the course writes it (for the visible examples:
    the expected output in the course's convention)."""
    allowed = np.asarray(mask, dtype=bool)
    found = {"allowed": allowed, "blocked": ~allowed,
             "numeric-allowed": allowed.astype(np.float64),
             "numeric-blocked": (~allowed).astype(np.float64),
             "additive": np.where(allowed, 0.0, -np.inf)}[convention]
    return found[None] if shape == "[1, n, n]" else found


# -- a positional encoding coming back -------------------------------------------------------

ENCODING_SHAPE = ("contract_encoding_shape",
                  "Your encoding does not have this course's shape, (seq_len, d_model) with a "
                  "leading axis of length one before it: keep the batch axis ('pe[None]'), as a "
                  "buffer added to (B, L, d) embeddings.")
PADDING_ROW = ("contract_padding_row",
               "The first row of your encoding holds the first position's encoding (the sine "
               "and cosine of zero): this course keeps that row all zeros for the padding "
               "token, and every other row p is position p, as before.")
INTERLEAVED = ("contract_encoding_interleaved",
               "Your encoding interleaves sine and cosine columns (sine on even, cosine on odd "
               "columns): this course writes it in two halves, the sines in the first half of "
               "the columns (the larger half for an odd d_model) and the cosines in the rest "
               "('np.concatenate([sin, cos], axis=-1)').")


def _interleave(halves: np.ndarray) -> np.ndarray:
    """Sines in the first ceil(d/2) columns, cosines in the rest -> sine on even, cosine on odd
    columns."""
    d = halves.shape[-1]
    split = (d + 1) // 2
    out = np.empty_like(halves)
    out[..., 0::2] = halves[..., :split]
    out[..., 1::2] = halves[..., split:]
    return out


def _halve(interleaved: np.ndarray) -> np.ndarray:
    """The inverse of :func:`_interleave`."""
    return np.concatenate([interleaved[..., 0::2], interleaved[..., 1::2]], axis=-1)


def _is_interleaved(array: np.ndarray, padding_row: bool) -> bool:
    """``array`` (L, d) is today's interleaved encoding (row 0 aside under ``padding_row``):
    the learner followed the other layout. Linear in the array's size."""
    from grader.problems.reference import positional_encoding

    expected = positional_encoding(*array.shape)
    rows = slice(1, None) if padding_row else slice(None)
    with np.errstate(all="ignore"):
        return bool(np.allclose(array[rows], expected[rows], rtol=1e-4, atol=1e-4))


def _position_zero(d: int) -> np.ndarray:
    return np.tile([0.0, 1.0], d // 2 + 1)[:d]


def encoding(value: Any, layout: str, shape: str, padding_row: bool, seq_len: int,
             d_model: int) -> Any:
    """The canonical encoding (seq_len, d_model), interleaved, row 0 = position 0, of a
    learner's ``value`` under the course's ``layout``, ``shape`` and ``padding_row``.

    With ``padding_row`` the course's rows are positions 0 .. seq_len - 1 as today, except row
    0, which is all zeros (reserved for the padding token): a zero row 0 reads as position 0.
    Raises :class:`FormError` for a missing leading axis under ``[1, L, d]`` and, under
    ``padding_row``, for a row 0 that holds position 0's encoding."""
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "biuf":
        return value
    array = value
    if shape == "[1, L, d]":
        if array.ndim < 3 or array.shape[0] != 1:
            read = UNREAD
            if array.shape == (seq_len, d_model):  # read as the encoding it is, if it is one
                try:
                    read = encoding(array, layout, "[L, d]", padding_row, seq_len, d_model)
                except FormError:
                    read = UNREAD  # two form errors at once: not read
            raise FormError(*ENCODING_SHAPE, read)
        array = array[0]
    if array.ndim != 2 or array.shape != (seq_len, d_model):
        return array
    array = np.asarray(array, dtype=np.float64)
    if layout == "halves":
        if seq_len > 1 and d_model > 2 and _is_interleaved(array, padding_row):
            raise FormError(*INTERLEAVED)
        array = _interleave(array)
    if padding_row and seq_len > 0:
        row = array[0]
        if np.allclose(row, _position_zero(d_model), rtol=1e-4, atol=1e-4) and d_model > 1:
            raise FormError(*PADDING_ROW)
        if np.all(row == 0):
            array = array.copy()
            array[0] = _position_zero(d_model)
    return array


def encoding_shown(pe: Any, layout: str, shape: str, padding_row: bool) -> Any:
    """The canonical encoding ``pe`` as the course writes it (for the visible examples)."""
    array = np.array(pe, dtype=np.float64)
    if array.ndim != 2:
        return pe
    if padding_row and len(array):
        array[0] = 0.0
    if layout == "halves":
        array = _halve(array)
    return array[None] if shape == "[1, L, d]" else array
