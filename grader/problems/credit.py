"""The credit rule: which passing tests earn their points (stated to learners as
:data:`grader.problems.base.CREDIT_NOTE`).

A test whose check only looks at the learner's output against itself (permutation equivariance,
shift invariance, dtype) or at the arguments after the call ("inputs not modified") is passed by
code that does not implement the function at all (``return np.zeros(shape)``, ``return Q``). Such
tests (``basis`` ``property`` or ``inputs``) therefore earn their points only when at least one
*hidden* ``values`` test, which compares the learner's values with the reference's, passed as
well: a visible example's expected values are public, so code that hard-codes them proves
nothing. A *degenerate*
values test (trait ``degenerate``: equal entries, identical keys, a sequence of length one, whose
expected output the constant answers that ignore the inputs give: a softmax of 1/n everywhere,
uniform attention weights) anchors nothing, and is itself credited only with such an anchor, like
a property test. Shape
tests need no anchor, but their check already requires a finite output
(:func:`grader.problems.checks.shapes`), so a right-shaped, finite, wrong-valued answer earns the
shapes category and nothing else.
"""
from __future__ import annotations

from grader.problems.base import CaseResult

ANCHORED_BASES = ("property", "inputs")

#: The trait of a values case that outputs ignoring the inputs pass (it anchors no credit).
DEGENERATE = "degenerate"

_DEGENERATE_WHAT = ("values that an answer ignoring the inputs also gives (equal entries, "
                   "identical keys or one position)")
_WHAT = {"property": "a property of your own output", "inputs": "that your function leaves its "
         "inputs unchanged"}


def apply(results: list[CaseResult]) -> None:
    """Withhold the points of passing ``property``/``inputs`` tests and degenerate hidden tests
    when no hidden, non-degenerate ``values`` test passed: such a result becomes failed with
    ``uncredited`` set and a failure saying why."""
    if any(r.passed and r.case.basis == "values" and not r.case.visible
           and DEGENERATE not in r.case.traits for r in results):
        return
    for result in results:
        degenerate = DEGENERATE in result.case.traits and not result.case.visible
        if result.passed and (result.case.basis in ANCHORED_BASES or degenerate):
            what = _DEGENERATE_WHAT if degenerate else _WHAT[result.case.basis]
            result.passed, result.uncredited = False, True
            result.failure = (f"not credited: this test checks {what}, which "
                              "counts only once at least one hidden test comparing your values "
                              "with the expected ones on inputs that tell answers apart passes, "
                              "and none did")
