"""Functions that return three or more results (a decoding step's output and new caches): the
comparison, the public examples and the checks take them apart by position and name."""
from __future__ import annotations

import numpy as np

from grader.problems import PROBLEMS, examples
from grader.problems.compare import matches
from tests.problems.problem_helpers import grade_source

KV = "kv_cache_decode_step"


def test_three_results_match_only_when_each_does():
    a, b, c = np.zeros((1, 2)), np.ones((3, 2)), np.ones((3, 4))
    assert matches((a, b, c), (a, b, c))
    assert matches([a, b, c], (a, b, c))
    assert not matches((a, b, c + 1e-3), (a, b, c))
    assert not matches((a, c, b), (a, b, c))  # same arrays, other order: shapes differ
    assert not matches((a, b), (a, b, c))
    assert not matches(a, (a, b, c))


def test_the_empty_cache_example_shows_the_output_and_both_caches():
    # T = 0: the new key is the only one, its weight is 1 and the output is v_new
    problem = PROBLEMS[KV]
    shown = [e for e in examples.public_examples(problem) if "empty cache" in e["name"]][0]
    assert shown["expected_output"] == [[[3.0, 4.0, 5.0]], [[0.5, -1.0]], [[3.0, 4.0, 5.0]]]
    assert shown["inputs"]["cache_k"] == []


def test_a_decoding_step_returning_its_caches_swapped_is_told_which_result_is_wrong(
        fake_sandbox):
    source = ("import numpy as np\n\n\ndef kv_cache_decode_step(q, k_new, v_new, cache_k, "
              "cache_v):\n    K = np.concatenate([cache_k, k_new], -2)\n"
              "    V = np.concatenate([cache_v, v_new], -2)\n"
              "    s = q @ np.swapaxes(K, -1, -2) / np.sqrt(q.shape[-1])\n"
              "    w = np.exp(s - s.max(-1, keepdims=True))\n"
              "    return w / w.sum(-1, keepdims=True) @ V, V, K\n")
    result = grade_source(fake_sandbox, KV, source, seed=3)
    caches = [t for t in result.tests if t.name == "caches: T = 4, d_v != d_k"][0]
    assert caches.status == "failed"
    # (a hidden test: the disclosure keeps the expected shape, drops the learner's)
    assert "the new_cache_k does not have the expected shape (3, 5, 3)" in caches.output
    assert "diagnosis:caches_swapped" in caches.tags
