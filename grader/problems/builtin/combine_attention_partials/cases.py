"""The cases of ``combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b)``, each with the
constructor that draws it.

Every hidden input is the pair of partials of real attention rows: scores and values drawn, the
keys split in two, each half reduced to (m, l, o) by :func:`.reference.partial`. What every draw
guarantees (asserted when it is drawn): in every row the two maxima differ by at least 0.5 (so
every factor exp(m_x - m) of the lower partial is at most 0.61 and any merge that skips, inverts
or misbases it changes l and o by far more than the tolerance), each partial has the larger
maximum in some row (so keeping m_a as the maximum is wrong somewhere), and every non-empty
partial has l >= 1.3 (its other keys are within 1 of its maximum, so weighting o by l shows).
The "empty" cases add rows that one partial, or both, cover with no key (m = -inf, l = 0,
o = 0); the stability cases put the scores in the thousands (or at -2000), where exp(m) alone
overflows (or underflows). In those two categories the maxima of the rows both partials cover
are equal, so a rescaling mistake costs the rescaling (and dtypes) points only, and the empty and
stability tests judge what they are named after.
"""
from __future__ import annotations

import numpy as np

from grader.problems import conditions
from grader.problems.builtin.combine_attention_partials.reference import partial
from grader.problems.conditions import require
from grader.problems.spec import Inputs, draw, example, hidden, inputs

#: The results' names, for the checks' messages.
RESULTS = ("m", "l", "o")


def call(a, b) -> tuple[tuple, dict]:
    """The call ``f(m_a, l_a, o_a, m_b, l_b, o_b)`` of partials ``a`` and ``b``."""
    return (*a, *b), {}


def row_scores(rng, batch, Lq, n, top) -> np.ndarray:
    """Scores (*batch, Lq, n) whose row maxima are ``top`` (*batch, Lq), at a random key, and
    whose other entries lie in [top - 1, top - 0.1]."""
    scores = top[..., None] - rng.uniform(0.1, 1.0, (*batch, Lq, n))
    where = rng.integers(0, n, (*batch, Lq))
    np.put_along_axis(scores, where[..., None], top[..., None], axis=-1)
    return scores


def maxima(rng, batch, Lq, offset, covered, equal=False) -> tuple[np.ndarray, np.ndarray]:
    """Row maxima of partials a and b: a's around ``offset``, b's 0.5 to 3 above or below. Among
    the rows both partials cover (``covered``, (*batch, Lq)) half of each example's are above,
    in random order: both signs in every draw. ``equal``: b's maxima are a's."""
    top_a = offset + conditions.float32_exact(rng.uniform(-2.0, 2.0, (*batch, Lq)))
    if equal:
        return top_a, top_a.copy()
    signs = np.ones((*batch, Lq))
    for index in np.ndindex(*batch):
        rows = np.flatnonzero(covered[index])
        signs[index][rows] = rng.permutation(np.where(np.arange(rows.size) % 2 == 0, 1.0, -1.0))
    top_b = top_a + conditions.float32_exact(signs * rng.uniform(0.5, 3.0, (*batch, Lq)))
    return top_a, top_b


def require_partials(a, b, empty_a, empty_b, equal=False) -> None:
    """The conditions of the module docstring, on the rows not made empty (``equal``: the two
    maxima are equal in those rows instead)."""
    (m_a, l_a, _), (m_b, l_b, _) = a, b
    both = ~empty_a & ~empty_b
    if equal:
        require(bool((m_a[both] == m_b[both]).all()), "equal maxima in the rows both cover")
    else:
        require(bool((np.abs(m_a[both] - m_b[both]) >= 0.5).all()),
                "maxima at least 0.5 apart in every row both partials cover")
        require(bool((m_a > m_b)[both].any() and (m_b > m_a)[both].any()),
                "rows where each partial holds the larger maximum")
    require(bool((l_a[~empty_a] >= 1.3).all() and (l_b[~empty_b] >= 1.3).all()),
            "l of at least 1.3 in every non-empty partial")
    require(bool(np.isneginf(m_a[empty_a]).all() and (l_a[empty_a] == 0).all()
                 and np.isneginf(m_b[empty_b]).all() and (l_b[empty_b] == 0).all()),
            "empty rows with m = -inf and l = 0")


def partials(rng, batch=(), Lq=6, n_a=3, n_b=4, d_v=3, offset=0.0, empty=(), equal=False,
             dtype=np.float64) -> Inputs:
    """Partials a (``n_a`` keys) and b (``n_b`` keys) of ``Lq`` query rows per example, values of
    size ``d_v``, maxima around ``offset``. ``empty`` lists what is emptied in two rows of
    each example (random ones): ``"one"`` a row of a and another row of b; ``"both"`` one more
    row of both. ``equal``: the maxima of a and b are equal in the rows both cover, so a merge
    that rescales wrongly (or not at all) is right there, and only what the case is named after
    (the empty rows, the scores' size) can fail it."""
    batch = tuple(batch)
    empty_a = np.zeros((*batch, Lq), dtype=bool)
    empty_b = empty_a.copy()
    picks = np.stack([rng.permutation(Lq)[:3] for _ in range(int(np.prod(batch, dtype=int)))]
                     ).reshape(*batch, 3)
    if "one" in empty:
        np.put_along_axis(empty_a, picks[..., :1], True, axis=-1)
        np.put_along_axis(empty_b, picks[..., 1:2], True, axis=-1)
    if "both" in empty:
        np.put_along_axis(empty_a, picks[..., 2:], True, axis=-1)
        np.put_along_axis(empty_b, picks[..., 2:], True, axis=-1)
    top_a, top_b = maxima(rng, batch, Lq, offset, ~empty_a & ~empty_b, equal)
    a = partial(row_scores(rng, batch, Lq, n_a, top_a), conditions.bounded(rng, *batch, n_a, d_v))
    b = partial(row_scores(rng, batch, Lq, n_b, top_b), conditions.bounded(rng, *batch, n_b, d_v))
    a, b = ([np.array(v) for v in x] for x in (a, b))
    for (m, l, o), rows in ((a, empty_a), (b, empty_b)):
        m[rows], l[rows], o[rows] = -np.inf, 0.0, 0.0
    require_partials(a, b, empty_a, empty_b, equal)
    if "both" in empty:
        require(bool((empty_a & empty_b).any()), "rows that neither partial covers")
    found = {"empty-one"} if "one" in empty else set()
    found |= {"empty-both"} if "both" in empty else set()
    return inputs(call(*([v.astype(dtype) for v in x] for x in (a, b))), traits=found)


def _example() -> tuple[tuple, dict]:
    """Two queries, four keys split 2 + 2, d_v = 2: row 0's maximum is in b, row 1's in a."""
    scores = np.array([[1.0, 0.0, 2.0, 0.5], [0.5, 3.0, -1.0, 1.0]])
    V = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 2.0]])
    a = partial(scores[:, :2], V[:2])
    b = partial(scores[:, 2:], V[2:])
    return call(tuple(np.round(v, 6) for v in a), tuple(np.round(v, 6) for v in b))


CASES = (
    example("example: two halves of the keys, each row's maximum in a different half",
            "rescaling", _example(), results=RESULTS),
    hidden("shapes: batch and head axes (2, 3, Lq)", "shapes",
           draw(partials, batch=(2, 3), Lq=5, n_a=3, n_b=2, d_v=4), check="shapes",
           results=RESULTS),
    hidden("rescaling: each partial holds the larger maximum in some rows", "rescaling",
           draw(partials), results=RESULTS),
    hidden("rescaling: a batch axis, d_v 5", "rescaling",
           draw(partials, batch=(3,), Lq=4, n_a=5, n_b=3, d_v=5), results=RESULTS),
    hidden("rescaling: batch and head axes", "rescaling",
           draw(partials, batch=(2, 2), Lq=6, n_a=2, n_b=6, d_v=3), results=RESULTS),
    hidden("empty: one partial covers no keys in some rows", "empty",
           draw(partials, Lq=7, empty=("one",), equal=True), results=RESULTS),
    hidden("empty: rows that neither partial covers stay m = -inf, l = 0, o = 0", "empty",
           draw(partials, batch=(2,), Lq=6, empty=("one", "both"), equal=True), results=RESULTS),
    hidden("stability: scores in the thousands", "stability",
           draw(partials, batch=(2,), Lq=6, offset=1500.0, equal=True), results=RESULTS),
    hidden("stability: scores far below zero (-2000)", "stability",
           draw(partials, Lq=6, offset=-2000.0, equal=True), results=RESULTS),
    hidden("dtypes: float32 partials", "dtypes",
           draw(partials, batch=(2,), Lq=5, dtype=np.float32), results=RESULTS),
    hidden("inputs: the partials are not modified in place", "inputs",
           draw(partials, Lq=5, empty=("one",)), check="inputs"),
)
