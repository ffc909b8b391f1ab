"""Problem ``causal_mask(n)``: boolean (n, n), True on and below the diagonal.

Categories: ``shapes``, ``values`` (several n), ``edge cases`` (n = 1 and n = 2), ``dtypes``.
The value tests compare the entries as numbers (True = 1), so a numeric 0/1 mask earns them; the
``dtypes`` test then requires a boolean array, because a mask's dtype is part of its contract
(unlike the float outputs of the other problems, whose dtype is not judged): ``~mask`` and
``scores[mask]`` mean something else for a 0/1 float or int array. An additive float mask
(0 / -inf) is named. Mistakes: attention-bugs.md entries 11 (polarity inverted), 12 (diagonal
masked), 13 (off by one the other way), plus the transposed (upper-triangular) mask.
"""
from __future__ import annotations

import numpy as np

from grader.problems import checks, conditions, reference
from grader.problems.base import CREDIT_NOTE, Case, CodeProblem, Variant

FUNCTION = "causal_mask"

CONTRACT = """\
def causal_mask(n)

n: a positive int, the sequence length.
Return a boolean NumPy array of shape (n, n) where entry [i, j] is True when query position i may
attend to key position j, i.e. j <= i (True on and below the diagonal, False above it). This is the
polarity scaled_dot_product_attention expects (True = may attend). The dtype must be bool: a
numeric 0/1 mask earns the value tests but fails the dtype test. Use NumPy only.
""" + CREDIT_NOTE

STARTER = '''\
import numpy as np


def causal_mask(n):
    """Boolean (n, n): True where query i may attend to key j (j <= i)."""
    raise NotImplementedError
'''

CATEGORIES = {"shapes": 1.5, "values": 5.5, "edge cases": 2.0, "dtypes": 1.0}


def value_case(name: str, category: str, n: int, visible: bool = False) -> Case:
    expected = reference.causal_mask(n)
    case = Case(name=name, category=category, calls=[((n,), {})],
                check=checks.values([(expected, None)]), visible=visible)
    if visible:
        case.public = {"inputs": {"n": n}, "expected_output": expected.tolist()}
    return case


def _boolean(got: list) -> str | None:
    """The mask must be a boolean array (a property of the learner's output: credited only next
    to a passing value test, see grader/problems/credit.py)."""
    dtype = getattr(got[0], "dtype", None)
    if dtype is not None and dtype == np.bool_:
        return None
    name = str(dtype) if dtype is not None else type(got[0]).__name__
    return (f"the mask has dtype {name}, expected bool: the contract asks for a boolean mask "
            "(np.tril(np.ones((n, n), dtype=bool))), since ~mask and scores[mask] do not work as "
            "masks on 0/1 numbers")


def visible_cases() -> list[Case]:
    return [value_case("example: causal_mask(3)", "values", 3, visible=True)]


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    """The hidden cases for one submission: four distinct sizes from 4 to 12 (the "longer"
    sequence and the "larger n" add 20), so every known mistake changes some entry of every
    value case but the edge cases, which use n = 1 and n = 2 on every draw."""
    sizes = rng.choice(np.arange(4, 13), size=4, replace=False).tolist()
    conditions.require(len(set(sizes)) == 4 and min(sizes) >= 4, "values",
                       "four distinct sizes of at least 4")
    return [
        Case(name="shapes: a square (n, n) array", category="shapes", calls=[((sizes[0],), {})],
             check=checks.shapes([((sizes[0], sizes[0]), None)])),
        Case(name="shapes: a larger n", category="shapes", calls=[((sizes[1] + 20,), {})],
             check=checks.shapes([((sizes[1] + 20, sizes[1] + 20), None)])),
        value_case("values: a short sequence", "values", sizes[1]),
        value_case("values: a medium sequence", "values", sizes[2]),
        value_case("values: a longer sequence", "values", sizes[3] + 20),
        value_case("edge cases: n = 1 (the token sees itself)", "edge cases", 1),
        value_case("edge cases: n = 2", "edge cases", 2),
        Case(name="dtypes: the mask is boolean", category="dtypes", calls=[((sizes[2],), {})],
             check=_boolean, basis="property"),
    ]


def _variant(tag, bug, message, fn) -> Variant:
    return Variant(tag=tag, bug=bug, message=message, fn=fn)


VARIANTS = [
    _variant("mask_inverted", "11", "The polarity is inverted: True must mark the positions a "
             "query MAY attend to (j <= i), not the blocked future ones.",
             lambda n: np.triu(np.ones((n, n), dtype=bool), k=1)),
    _variant("diagonal_masked", "12", "The diagonal is blocked too, so a token cannot attend to "
             "itself (and the first row has nothing to attend to): use np.tril(..., k=0).",
             lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1)),
    _variant("off_by_one_future", "13", "Each token also sees the next one (the mask is off by one "
             "into the future): use np.tril(np.ones((n, n), dtype=bool)) with k=0.",
             lambda n: np.tril(np.ones((n, n), dtype=bool), k=1)),
    _variant("transposed", "11", "The mask is transposed (True on and above the diagonal): rows "
             "are queries and columns keys, so query i may attend to keys j <= i.",
             lambda n: np.triu(np.ones((n, n), dtype=bool))),
    _variant("additive_mask", "", "This returns an additive float mask (0 / -inf or a large "
             "negative number) instead of a boolean one: return True where attending is allowed.",
             lambda n: np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -np.inf)),
    _variant("additive_mask", "", "This returns an additive float mask (0 / -inf or a large "
             "negative number) instead of a boolean one: return True where attending is allowed.",
             lambda n: np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -1e9)),
    _variant("all_true", "15", "Every position is allowed, so nothing is masked: block keys "
             "j > i (above the diagonal).", lambda n: np.ones((n, n), dtype=bool)),
]

PROBLEM = CodeProblem(
    id="causal_mask", function=FUNCTION, title="Causal (look-ahead) mask", contract=CONTRACT,
    starter=STARTER, categories=CATEGORIES, visible_cases=visible_cases,
    hidden_cases=hidden_cases, variants=VARIANTS,
    reference=reference.causal_mask,
)
