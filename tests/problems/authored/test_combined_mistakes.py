"""Two authored mistakes made at once are named together when their edits of the reference
combine (grader/problems/authored/edits.py): the combined source is the reference with both
changes, computed in the sandbox like any mistake, and the built-ins' combination search
(grader/problems/combinations.py) names its members. Mistakes that change the same text do not
combine, and no pair is named for them."""
from __future__ import annotations

import ast

import pytest

from grader.problems import scoring
from grader.problems.authored import compile_document, parse
from grader.problems.authored.edits import (MAX_DIFF_TOKENS, MAX_SOURCE_CHARS, Edit,
                                            combinations, combined, edits)
from grader.sandbox.api import Limits
from tests.problems.authored.test_document import EXAMPLES


def document(name: str) -> dict:
    return parse((EXAMPLES / name).read_text())


def same_code(a: str, b: str) -> bool:
    return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))


def test_edits_are_the_differing_stretches_of_the_reference():
    reference = "def f(a, b):\n    c = a + b\n    return c * 2\n"
    assert edits(reference, "def f(a, b):\n    c = a - b\n    return c * 2\n") == (
        Edit(23, 24, "-"),)
    # a line left out takes its indentation and line end with it
    assert edits(reference, "def f(a, b):\n    return c * 2\n") == (Edit(13, 27, ""),)
    assert edits(reference, reference) is None


def test_mistakes_at_different_places_combine_and_at_the_same_place_do_not():
    reference = "def f(a, b):\n    c = a + b\n    return c * 2\n"
    minus = edits(reference, "def f(a, b):\n    c = a - b\n    return c * 2\n")
    times = edits(reference, "def f(a, b):\n    c = a * b\n    return c * 2\n")
    halved = edits(reference, "def f(a, b):\n    c = a + b\n    return c / 2\n")
    assert combined(reference, [minus, halved]) == \
        "def f(a, b):\n    c = a - b\n    return c / 2\n"
    assert combined(reference, [minus, times]) is None  # both rewrite the '+'
    assert combinations(reference, [minus and "def f(a, b):\n    c = a - b\n    return c * 2\n",
                                    "def f(a, b):\n    c = a * b\n    return c * 2\n",
                                    "def f(a, b):\n    c = a + b\n    return c / 2\n"]) == [
        ((0, 2), "def f(a, b):\n    c = a - b\n    return c / 2\n"),
        ((1, 2), "def f(a, b):\n    c = a * b\n    return c / 2\n")]


def test_mistakes_past_the_bounds_do_not_combine():
    """The matcher is quadratic in the differing tokens: past :data:`MAX_DIFF_TOKENS` of them
    (from the first differing token to the last: 6 tokens a line, ``x = x - 1`` and its line
    end), or past :data:`MAX_SOURCE_CHARS`, a mistake is given no edits and combines with none."""
    lines = MAX_DIFF_TOKENS // 6 + 2  # 35 lines: (35 - 1) * 6 + 1 = 205 tokens differ
    reference = "def f(x):\n" + "    x = x + 1\n" * lines + "    return x\n"
    mistake = "def f(x):\n" + "    x = x - 1\n" * lines + "    return x\n"
    assert edits(reference, mistake) is None
    # 25 lines changed: (25 - 1) * 6 + 1 = 145 tokens, one '-' for '+' a line
    fewer = "def f(x):\n" + "    x = x - 1\n" * 25 + "    x = x + 1\n" * (lines - 25) + \
        "    return x\n"
    assert len(edits(reference, fewer)) == 25
    long = reference + "#" * MAX_SOURCE_CHARS
    assert edits(long, long.replace("x + 1", "x - 1", 1)) is None
    assert combinations(reference, [mistake, mistake]) == []


def test_which_mistakes_of_the_example_documents_combine():
    found = {}
    for name in ("cosine_attention.yaml", "padding_mask.yaml", "softmax.yaml"):
        doc = document(name)
        found[name] = [members for members, _ in combinations(
            doc["reference"], [m["source"] for m in doc["mistakes"]])]
    # cosine: normalisation, the temperature and the softmax's axis are three places;
    # padding: off-by-one and inverted both rewrite the one comparison, and the longest-sequence
    # mistake rewrites the line that builds the positions; softmax: dropping the max subtraction
    # and summing over the whole array are two places, ignoring the axis rewrites both
    assert found == {"cosine_attention.yaml": [(0, 1), (0, 2), (1, 2), (0, 1, 2)],
                     "padding_mask.yaml": [], "softmax.yaml": [(0, 2)]}
    doc = document("softmax.yaml")
    (_, source), = combinations(doc["reference"], [m["source"] for m in doc["mistakes"]])
    assert same_code(source, "import numpy as np\n\ndef softmax(x, axis=-1):\n"
                             "    e = np.exp(x)\n    return e / np.sum(e)\n")


COSINE_PAIR = ("import numpy as np\n"  # not normalised, tau multiplied
               "def cosine_attention(Q, K, V, tau):\n"
               "    s = (Q @ np.swapaxes(K, -1, -2)) * tau\n"
               "    w = np.exp(s - s.max(axis=-1, keepdims=True))\n"
               "    return (w / w.sum(axis=-1, keepdims=True)) @ V\n")
COSINE_OTHER_PAIR = ("import numpy as np\n"  # tau multiplied, softmax over the queries
                     "def cosine_attention(Q, K, V, tau):\n"
                     "    Qn = Q / np.linalg.norm(Q, axis=-1, keepdims=True)\n"
                     "    Kn = K / np.linalg.norm(K, axis=-1, keepdims=True)\n"
                     "    s = (Qn @ np.swapaxes(Kn, -1, -2)) * tau\n"
                     "    w = np.exp(s - s.max(axis=-2, keepdims=True))\n"
                     "    return (w / w.sum(axis=-2, keepdims=True)) @ V\n")
COSINE_TRIPLE = ("import numpy as np\n"  # all three
                 "def cosine_attention(Q, K, V, tau):\n"
                 "    s = (Q @ np.swapaxes(K, -1, -2)) * tau\n"
                 "    w = np.exp(s - s.max(axis=-2, keepdims=True))\n"
                 "    return (w / w.sum(axis=-2, keepdims=True)) @ V\n")
SOFTMAX_APART = ("import numpy as np\n"  # ignores the axis and sums the whole array
                 "def softmax(x, axis=-1):\n"
                 "    e = np.exp(x - x.max(axis=-1, keepdims=True))\n"
                 "    return e / e.sum()\n")


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("source, named, alone", [
    # on the large-logits tests the weights are one-hot whether tau multiplies or divides: the
    # unnormalised scores alone explain them, and only that is named there
    (COSINE_PAIR, ["not-normalised", "tau-multiplied"], 2),
    (COSINE_OTHER_PAIR, ["softmax-over-queries", "tau-multiplied"], 0),
    (COSINE_TRIPLE, ["not-normalised", "softmax-over-queries", "tau-multiplied"], 0),
])
def test_a_learner_making_combining_mistakes_is_told_each(fake_sandbox, source, named, alone,
                                                          seed):
    doc = document("cosine_attention.yaml")
    problem = compile_document(doc)
    result = scoring.grade(problem, "item", 10, source, fake_sandbox, Limits(), seed=seed)
    assert result.score == 0  # every test fails (the inputs one by the credit rule)
    assert result.extra_data["diagnoses"] == named
    messages = {m["id"]: m["message"] for m in doc["mistakes"]}
    assert all(messages[tag].split("\n")[0][:60] in result.output for tag in named)
    # named together on every test but the inputs one (no value of its own: the credit rule)
    # and those one mistake explains alone
    together = [t for t in result.tests if {f"diagnosis:{tag}" for tag in named} <= set(t.tags)]
    single = [t for t in result.tests if len([x for x in t.tags if x.startswith("diagnosis:")])
              == 1]
    assert (len(together), len(single), len(result.tests)) == (12 - alone, alone, 13)
    assert all(t.name.startswith("large-logits") for t in single)
    # the seed's run, then one for the combinations, which the diagnosis asked for
    assert problem.executor.runs == 2


@pytest.mark.parametrize("source", ["reference", 0, 1, 2])
def test_a_grading_that_needs_no_combination_runs_none(fake_sandbox, source):
    doc = document("cosine_attention.yaml")
    problem = compile_document(doc)
    code = doc["reference"] if source == "reference" else doc["mistakes"][source]["source"]
    result = scoring.grade(problem, "item", 10, code, fake_sandbox, Limits(), seed=2)
    assert result.extra_data["diagnoses"] == ([] if source == "reference" else
                                              [doc["mistakes"][source]["id"]])
    assert problem.executor.runs == 1  # the reference's and the mistakes' values only


def test_mistakes_that_do_not_combine_are_never_named_as_a_pair(fake_sandbox):
    problem = compile_document(document("softmax.yaml"))
    result = scoring.grade(problem, "item", 10, SOFTMAX_APART, fake_sandbox, Limits(), seed=3)
    assert result.score < 10
    assert not any({"diagnosis:ignores-axis", "diagnosis:whole-array"} <= set(t.tags)
                   for t in result.tests)
    assert problem.executor.combine((1, 2)) is None and problem.executor.combine((0, 2)) == 4
