"""What a course's learners read under ``contract:`` options: the contract text, the starter
file and every message, in the course's names and conventions (issue 21, part 1).

The canonical texts are rewritten, never replaced wholesale: the parameter and function names
are substituted word by word, the sentences that state a convention (the mask's polarity, what
is returned, the encoding's layout) are swapped for the course's, and the messages of the
mistakes a course convention turns into (a learner who follows today's convention under the
course's) are the course's own sentences (:data:`CONVENTION_MESSAGES`).
"""
from __future__ import annotations

from typing import Any, Mapping

#: How a masking sentence says to apply the mask, by convention.
APPLY = {
    "allowed": "np.where(mask, scores, -np.inf)",
    "blocked": "np.where(mask, -np.inf, scores)",
    "numeric-allowed": "np.where(mask == 1, scores, -np.inf)",
    "numeric-blocked": "scores + mask * -1e9",
    "additive": "scores + mask",
}

#: What the mask is, in a few words, by convention.
MASK_SHORT = {
    "allowed": "boolean", "blocked": "boolean with True = blocked",
    "numeric-allowed": "0/1 numbers with 1 = may attend",
    "numeric-blocked": "0/1 numbers with 1 = blocked",
    "additive": "an additive float mask (0 = may attend, a large negative number = blocked)",
}

#: The contract's description of the mask, by convention.
MASK_TEXT = {
    "allowed": "a boolean array broadcastable to (..., Lq, Lk): True where the query MAY attend "
               "to the key, False where it is blocked.",
    "blocked": "a boolean array broadcastable to (..., Lq, Lk): True where the key is BLOCKED "
               "for the query (e.g. a future position), False where the query may attend.",
    "numeric-allowed": "a 0/1 float array broadcastable to (..., Lq, Lk): 1 where the query MAY "
                       "attend to the key, 0 where it is blocked.",
    "numeric-blocked": "a 0/1 float array broadcastable to (..., Lq, Lk): 1 where the key is "
                       "BLOCKED for the query, 0 where it may attend (add mask * -1e9 to the "
                       "scores).",
    "additive": "a float array broadcastable to (..., Lq, Lk), added to the scores: 0 where the "
                "query may attend, -1e9 where it is blocked (any value at or below -1e4, -inf "
                "included, means blocked).",
}

#: The mask polarity sentence a learner who follows another convention gets, by the course's.
INVERTED = {
    "blocked": "Your mask handling uses True for positions that may attend; this course's mask "
               "uses True for BLOCKED positions: fill the scores where the mask is True "
               "(np.where(mask, -np.inf, scores)).",
    "numeric-allowed": "Your mask handling treats 1 as blocked; this course's mask uses 1 for "
                       "positions that may attend and 0 for blocked ones: "
                       "np.where(mask == 1, scores, -np.inf).",
    "numeric-blocked": "Your mask handling treats 1 as may attend; this course's mask uses 1 for "
                       "BLOCKED positions: add mask * -1e9 to the scores (or "
                       "np.where(mask == 1, -np.inf, scores)).",
    "additive": "Your code uses the mask as a boolean (True = may attend); this course's mask is "
                "additive, 0 where the query may attend and a large negative number where it is "
                "blocked: add it to the scores (scores + mask) before the softmax.",
}

#: The same for a causal mask returned in another convention, by the course's.
CAUSAL_INVERTED = {
    "blocked": "Your mask uses True for positions that may attend; this course's mask uses True "
               "for BLOCKED positions: True above the diagonal (j > i), e.g. "
               "np.triu(np.ones((n, n), dtype=bool), k=1).",
    "numeric-allowed": "Your mask's polarity is inverted: this course's mask uses 1 for "
                       "positions a query may attend to (j <= i) and 0 for blocked ones.",
    "numeric-blocked": "Your mask uses 1 (or True) for positions that may attend; this course's "
                       "mask uses 1 for BLOCKED positions (j > i), as "
                       "1 - np.tril(np.ones((n, n))) does.",
    "additive": "Your mask's polarity is inverted: this course's additive mask holds 0 where a "
                "query may attend (j <= i) and a large negative number where it is blocked.",
}

CAUSAL_TEXT = {
    "allowed": None,
    "blocked": "Return a boolean NumPy array of shape {shape} where entry [i, j] is True when "
               "query position i may NOT attend to key position j, i.e. j > i (True above the "
               "diagonal, False on and below it): this course's masks use True for blocked "
               "positions. The dtype must be bool. Use NumPy only.",
    "numeric-allowed": "Return a 0/1 float (or int) NumPy array of shape {shape} where entry "
                       "[i, j] is 1 when query position i may attend to key position j, i.e. "
                       "j <= i, and 0 above the diagonal. The dtype must be a number dtype, not "
                       "bool. Use NumPy only.",
    "numeric-blocked": "Return a 0/1 float (or int) NumPy array of shape {shape} where entry "
                       "[i, j] is 1 when key position j is BLOCKED for query position i, i.e. "
                       "j > i (as 1 - np.tril(np.ones((n, n)))), and 0 on and below the "
                       "diagonal. The dtype must be a number dtype, not bool. Use NumPy only.",
    "additive": "Return an additive float NumPy array of shape {shape}: entry [i, j] is 0 when "
                "query position i may attend to key position j (j <= i) and -inf (or any value "
                "at or below -1e4, such as -1e9) when it is blocked (j > i); it is added to the "
                "scores. The dtype must be float. Use NumPy only.",
}

CAUSAL_ADDITIVE = {  # the "additive_mask" mistake, by the course's convention
    "additive": "This returns a boolean (or 0/1) mask instead of this course's additive float "
                "mask: 0 where a query may attend (j <= i), -inf or a large negative number "
                "where it is blocked (np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, "
                "-np.inf)).",
    "blocked": "This returns an additive float mask (0 / -inf or a large negative number) "
               "instead of this course's boolean one: return True where attending is BLOCKED "
               "(j > i), e.g. np.triu(np.ones((n, n), dtype=bool), k=1).",
    "numeric-allowed": "This returns an additive float mask (0 / -inf or a large negative "
                       "number) instead of this course's mask of zeros and ones: 1 where a query "
                       "may attend (j <= i), 0 where it is blocked, e.g. np.tril(np.ones((n, n))).",
    "numeric-blocked": "This returns an additive float mask (0 / -inf or a large negative "
                       "number) instead of this course's mask of zeros and ones: 1 where "
                       "attending is BLOCKED (j > i), 0 where a query may attend, e.g. "
                       "1 - np.tril(np.ones((n, n))).",
}

#: A numeric course's dtype test on a mask that is neither boolean nor zeros and ones (an
#: additive one, say): the course's sentence without "the mask is boolean".
CAUSAL_NOT_ZERO_ONE = {
    "numeric-allowed": "the mask is not an array of zeros and ones: this course's mask is a float "
                       "(or int) array of zeros and ones, e.g. 'np.tril(np.ones((n, n)))'",
    "numeric-blocked": "the mask is not an array of zeros and ones: this course's mask is a float "
                       "(or int) array of zeros and ones, e.g. '1 - np.tril(np.ones((n, n)))'",
    "additive": "the mask holds entries that are neither zero nor a large negative number "
                "(NaN, say): this course's mask is additive, a float array of zeros (may "
                "attend) and large negative numbers (blocked)",
}

CAUSAL_DTYPE = {
    "numeric-allowed": "the mask is boolean, expected numbers: this course's mask is a float (or "
                       "int) array of zeros and ones, e.g. 'np.tril(np.ones((n, n)))'",
    "numeric-blocked": "the mask is boolean, expected numbers: this course's mask is a float (or "
                       "int) array of zeros and ones, e.g. '1 - np.tril(np.ones((n, n)))'",
    "additive": "the mask is not a float array: this course's mask is additive, a float array "
                "of zeros (may attend) and large negative numbers (blocked)",
    "blocked": None,  # the canonical dtype message holds
}

RETURNS_TEXT = {
    "output": None,
    "output+weights": "return the tuple (output, weights): the output (..., Lq, d_v) = weights "
                      "@ V and the weights (..., Lq, Lk), in that order; both are checked.",
    "weights+output": "return the tuple (weights, output): the weights (..., Lq, Lk) first, then "
                      "the output (..., Lq, d_v) = weights @ V; both are checked.",
    "weights": "return the attention weights (..., Lq, Lk) only (the grader computes the output "
               "weights @ V from them).",
}

RETURNS_FIRST = {  # the "returns_weights_first" mistake, by the course's convention
    "weights+output": "You return (output, weights): this course's function returns (weights, "
                      "output), the weights (..., Lq, Lk) first and the output (..., Lq, d_v) "
                      "second.",
}

RANK_SHAPES = {2: "(L, d) (no batch axis)", 3: "(B, L, d) (a batch axis)",
               4: "(B, H, L, d) (batch and heads axes)"}


def rename(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each whole word that is a key of ``names`` (a Python name, not preceded by
    a ``.``: ``K.T`` renames K, ``np.where`` is left alone) replaced by its value, in one
    linear pass over the text."""
    names = {k: v for k, v in names.items() if k != v}
    if not names or not text:
        return text
    out, index, size = [], 0, len(text)
    while index < size:
        char = text[index]
        if not (char.isalnum() or char == "_"):
            out.append(char)
            index += 1
            continue
        end = index
        while end < size and (text[end].isalnum() or text[end] == "_"):
            end += 1
        word = text[index:end]
        after_dot = index > 0 and text[index - 1] == "."
        out.append(names.get(word, word) if not after_dot else word)
        index = end
    return "".join(out)


def signature(function: str, names: tuple[str, ...], defaults: tuple[Any, ...]) -> str:
    """``def attention(q, k, v, mask=None)``."""
    parts = [n if d is _NO_DEFAULT else f"{n}={d!r}" for n, d in zip(names, defaults)]
    return f"def {function}({', '.join(parts)})"


_NO_DEFAULT: Any = object()
NO_DEFAULT = _NO_DEFAULT


def replace_first_line(text: str, line: str) -> str:
    """``text`` with its first line (the canonical signature) replaced by ``line``."""
    head, _, rest = text.partition("\n")
    return line + "\n" + rest if head.startswith("def ") else line + "\n\n" + text


#: Multi-head attention's sentence on the weights, and the course's, by layout.
HEAD_WEIGHTS_CANONICAL = ("W_q, W_k, W_v, W_o: (d_model, d_model), each\nused as X @ W (W "
                          "shaped (d_in, d_out))")
HEAD_WEIGHTS_TEXT = {
    "per-head": "W_q, W_k, W_v: (H, d_model, d_head), one projection per head (head h's "
                "queries are X @ W_q[h]); W_o: (d_model, d_model), used as concat @ W_o",
    "fused": "W_qkv: (d_model, 3 d_model), the fused projection [W_q | W_k | W_v] with its "
             "bias b_qkv (3 d_model,): Q, K, V = np.split(X @ W_qkv + b_qkv, 3, axis=-1); "
             "W_o: (d_model, d_model) with its bias b_o (d_model,), the output being concat @ "
             "W_o + b_o",
}

#: The contract's mask sentence for always-causal (decoder) heads.
CAUSAL_HEADS = ("There is no mask argument: the heads are always causal (a decoder), so "
                "position i attends to positions j <= i only.")

#: The "mask_ignored" mistake of always-causal heads.
NOT_CAUSAL = ("Your heads attend to later positions: this course's attention is always causal "
              "(decoder heads), so block every key j > i in every head, e.g. "
              "np.where(np.tril(np.ones((L, L), dtype=bool)), scores, -np.inf).")

HEAD_WEIGHTS_DOC = {
    "per-head": "W_q, W_k, W_v (H, d_model, d_head); W_o (d_model, d_model)",
    "fused": "W_qkv (d_model, 3 d_model), b_qkv (3 d_model,), W_o (d_model, d_model), b_o "
             "(d_model,)",
}

#: Fused weights without the output bias.
NO_OUTPUT_BIAS = ("The output bias is missing: this course's attention returns concat @ W_o + "
                  "b_o, so add b_o after the output projection.")

#: Fused weights without the projection bias.
NO_QKV_BIAS = ("The projection bias b_qkv is not added: this course's queries, keys and values "
               "are np.split(X @ W_qkv + b_qkv, 3, axis=-1), so add b_qkv to X @ W_qkv before "
               "splitting it.")

#: Fused weights without either bias.
NO_BIASES = ("Neither bias is added: this course's queries, keys and values are "
             "np.split(X @ W_qkv + b_qkv, 3, axis=-1) and its output is concat @ W_o + b_o, "
             "so add b_qkv to X @ W_qkv before splitting it and b_o after the output "
             "projection.")

#: The causal mask's other mistakes, told in a blocked-polarity course's terms (True or 1 above
#: the diagonal), by tag.
CAUSAL_BLOCKED = {
    "diagonal_masked": "The diagonal is blocked too, so a token cannot attend to itself (and the "
                       "first row has nothing to attend to): block only keys j > i, "
                       "np.triu(..., k=1).",
    "off_by_one_future": "Each token also sees the next one (the mask is off by one into the "
                         "future): block every key j > i, np.triu(np.ones((n, n)), k=1).",
    "transposed": "The mask is transposed (the blocked positions are below the diagonal): rows "
                  "are queries and columns keys, so query i is blocked from keys j > i (above "
                  "the diagonal).",
}

#: The 0/1 mask added as a number, told in a numeric may-attend course's terms.
NUMERIC_ADDED = ("The 0/1 mask was added to the scores as a number, so blocked positions still "
                 "get large weight: this course's mask has 1 where a query may attend and 0 "
                 "where it is blocked, so block the zeros (np.where(mask == 1, scores, -np.inf) "
                 "or scores + (1 - mask) * -1e9).")

#: The causal mask starter's docstring, by convention.
CAUSAL_DOC = {
    "allowed": "Boolean {shape}: True where query i may attend to key j (j <= i).",
    "blocked": "Boolean {shape}: True where key j is blocked for query i (j > i).",
    "numeric-allowed": "0/1 floats {shape}: 1 where query i may attend to key j (j <= i).",
    "numeric-blocked": "0/1 floats {shape}: 1 where key j is blocked for query i (j > i).",
    "additive": "Floats {shape}: 0 where query i may attend to key j (j <= i), -inf above.",
}
