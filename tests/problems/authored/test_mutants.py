"""The automatic mutants of a reference: one site rewritten per mutant, parsed and never run."""
from __future__ import annotations

from grader.problems.authored.mutants import mutants

SOURCE = """\
import numpy as np

def attention(Q, K, V, mask):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    scores = np.where(mask > 0, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ V
"""


def by_id() -> dict[str, str]:
    return {m.id: m.source for m in mutants(SOURCE)}


def test_each_operator_rewrites_one_site():
    found = by_id()
    assert "np.swapaxes(K, -1, -2) / Q.shape[-1]" in found["drop-sqrt@4"]
    assert "Q @ K / np.sqrt" in found["remove-transpose@4"]
    assert "np.where(mask <= 0" in found["flip-comparison@5"]
    assert "np.where(mask >= 0" in found["comparison-boundary@5"]
    assert "np.exp(scores)" in found["remove-max-subtraction@6"]
    assert "e = scores - scores.max" in found["drop-exp@6"]
    # one axis site on line 6 (the max), one on line 7 (the sum)
    assert "scores.max(axis=-2, keepdims=True)" in found["change-axis@6"]
    assert "e.sum(axis=-2, keepdims=True)" in found["change-axis@7"]
    assert "keepdims=False" in found["drop-keepdims@7"]
    assert all(source.count("np.sqrt") <= 1 for source in found.values())


def test_mutants_are_distinct_and_differ_from_the_reference():
    sources = list(by_id().values())
    # by hand: sqrt 1, axis 2, keepdims 2, transpose 1, comparisons 1 + 1, max 1, divisions 2,
    # exp 1
    assert len(sources) == len(set(sources)) == 12
    original = mutants.__globals__["ast"].unparse(mutants.__globals__["ast"].parse(SOURCE))
    assert original + "\n" not in sources


def test_a_source_nested_too_deeply_gives_no_mutants():
    assert mutants("def f(x):\n    return " + " / ".join(["x"] * 3000) + "\n") == []
