"""Same code, same score: the hidden inputs are drawn per submission from a seed, and no draw may
change what a submission earns or which mistakes it is told about.

Every correct and every buggy submission file (submissions/<problem>/*.py) and every mistake of
each problem's known mistakes (its variants, run as a learner's code) is graded on 50 seeds; its score,
the pass/fail of every test and the diagnosis of every failing test must be the same on all 50.
The in-process fake sandbox runs the code; the cases of a seed are built once and shared by all the
implementations graded on it, and the trusted variants' and reference's values on a case are
computed once per seed (pure functions of the case's inputs, so sharing them changes no result).
"""
from __future__ import annotations

import functools
import time
from collections import defaultdict

import numpy as np
import pytest

from grader.problems import PROBLEMS, diagnosis, scoring
from grader.sandbox.api import Limits
from tests.problems.problem_helpers import submission, submission_names

SEEDS = range(50)  # the issue asks for at least 50 draws per implementation

_MODULES = {"softmax": "softmax", "scaled_dot_product_attention": "sdpa",
            "causal_mask": "causal_mask", "multi_head_attention": "mha",
            "positional_encoding": "positional_encoding"}


def variant_source(problem: str, index: int) -> str:
    """Learner code that is known-mistake variant ``index`` of ``problem`` (runs in the fake sandbox,
    in process, so it may import the grader)."""
    function = PROBLEMS[problem].function
    return (f"from grader.problems.{_MODULES[problem]} import VARIANTS as _VARIANTS\n\n\n"
            f"def {function}(*args, **kwargs):\n"
            f"    return _VARIANTS[{index}].fn(*args, **kwargs)\n")


def implementations(problem: str) -> list[tuple[str, str]]:
    """(name, source) of every submission file and every known-mistake variant of ``problem``."""
    files = submission_names(problem, "correct_") + submission_names(problem, "bug_")
    found = [(name, submission(problem, name)) for name in files]
    found += [(f"variant {i} ({v.tag})", variant_source(problem, i))
              for i, v in enumerate(PROBLEMS[problem].variants)]
    return found


class _SharedPerSeed:
    """Shares, across the implementations graded on one seed, the work that depends only on the
    seed: the cases, the reference's outputs and the variants' values on each case (keyed by the
    identity of the case's argument objects, which live as long as the seed's cases)."""

    def __init__(self, monkeypatch, problem):
        self.problem = problem
        self.seed = None
        self.cases = None
        self.values: dict = {}
        self.upcast: dict = {}
        self.expected: dict = {}
        monkeypatch.setattr(problem, "cases", self._cases)
        monkeypatch.setattr(diagnosis, "_variant_value",
                            self._cached(diagnosis._variant_value, self.values))
        monkeypatch.setattr(diagnosis, "_upcast", self._cached_upcast(diagnosis._upcast))
        monkeypatch.setattr(diagnosis, "reference_outputs",
                            self._cached_reference(diagnosis.reference_outputs))

    def start(self, seed: int) -> None:
        self.seed = seed
        self.cases = type(self.problem).cases(self.problem, seed)
        self.values.clear()
        self.upcast.clear()
        self.expected.clear()

    def _cases(self, seed: int):
        assert seed == self.seed
        return self.cases

    def _cached(self, compute, store):
        @functools.wraps(compute)
        def cached(variant, args, kwargs):
            key = (id(variant), tuple(map(id, args)), tuple((k, id(v)) for k, v in kwargs.items()))
            if key not in store:
                store[key] = (compute(variant, args, kwargs), args, kwargs)
            return store[key][0]

        return cached

    def _cached_upcast(self, upcast):
        def cached(value):
            if not isinstance(value, np.ndarray):
                return upcast(value)
            if id(value) not in self.upcast:
                self.upcast[id(value)] = (upcast(value), value)
            return self.upcast[id(value)][0]

        return cached

    def _cached_reference(self, reference_outputs):
        def cached(reference, result):
            key = id(result.case)
            if key not in self.expected:
                self.expected[key] = reference_outputs(reference, result)
            return self.expected[key]

        return cached


def _signature(result) -> tuple:
    """What must not depend on the draw: the score, and each test's status and diagnosis."""
    return (round(result.score, 6),
            tuple((t.name, t.status, tuple(tag for tag in t.tags if tag.startswith("diagnosis:")))
                  for t in result.tests))


def _describe(name: str, by_signature: dict) -> str:
    scores = sorted({signature[0] for signature in by_signature})
    lines = [f"{name}: scores {scores} (spread {scores[-1] - scores[0]:.4g})"]
    reference, *others = sorted(by_signature, key=lambda s: -len(by_signature[s]))
    for other in others:
        differs = [a[0] + f" {a[1:]} vs {b[1:]}" for a, b in zip(reference[1], other[1]) if a != b]
        lines.append(f"  seeds {by_signature[other][:5]}...: {differs[:3]}")
    return "\n".join(lines)


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_every_implementation_gets_the_same_grade_on_every_draw(fake_sandbox, monkeypatch,
                                                                 problem):
    shared = _SharedPerSeed(monkeypatch, PROBLEMS[problem])
    everything = implementations(problem)
    grades: dict[str, dict[tuple, list[int]]] = defaultdict(lambda: defaultdict(list))
    started = time.perf_counter()
    for seed in SEEDS:
        shared.start(seed)
        for name, source in everything:
            result = scoring.grade(PROBLEMS[problem], "item", 10.0, source, fake_sandbox,
                                   Limits(), seed)
            grades[name][_signature(result)].append(seed)
    elapsed = time.perf_counter() - started
    assert len(grades) == len(everything) and len(everything) >= 10
    assert all(sum(map(len, g.values())) == len(SEEDS) for g in grades.values())
    unstable = [_describe(name, g) for name, g in grades.items() if len(g) > 1]
    assert not unstable, (f"{len(unstable)} of {len(everything)} implementations x {len(SEEDS)} "
                          f"seeds ({elapsed:.0f} s) depend on the draw:\n" + "\n".join(unstable))


def _graded_on_every_seed(fake_sandbox, problem: str, name: str):
    for seed in SEEDS:
        yield seed, scoring.grade(PROBLEMS[problem], "item", 10.0, submission(problem, name),
                                  fake_sandbox, Limits(), seed)


def test_a_global_maximum_softmax_loses_exactly_the_stability_points_on_every_draw(fake_sandbox):
    # softmax weights: shapes 1, axis 2.5, values 2, stability 2, properties 1, dtypes 1,
    # inputs 0.5; total 10, so on 10 points a category is worth its weight. Subtracting one global
    # maximum fails the stability tests whose rows (or slices along axis 0) spread wider than
    # exp's range (every row but the top one underflows to 0/0), five of the six; on the 1-D
    # input one global maximum is the row's maximum, so it passes, and nothing else fails (in
    # every other case the rows' maxima lie within about 100 of one another, where
    # exp(x - global max) is still exact). Stability is 2 points over 6 tests, in hundredths by
    # largest remainder 0.34, 0.34, 0.33, 0.33, 0.33, 0.33 in case order; the 1-D test is the
    # fifth: 10 - 2 + 0.33 = 8.33. The issue saw 8.0 and 8.67 before the draws were pinned.
    stability = [c.name for c in PROBLEMS["softmax"].cases(0) if c.category == "stability"]
    assert len(stability) == 6 and stability[4] == "stability: a 1-D input in the thousands"
    for seed, result in _graded_on_every_seed(fake_sandbox, "softmax", "bug_global_max"):
        failed = {t.name for t in result.tests if t.status == "failed"}
        assert failed == set(stability) - {stability[4]}, seed
        assert result.score == pytest.approx(8.33, abs=1e-6), seed
        assert all("diagnosis:global_max" in t.tags for t in result.tests
                   if t.status == "failed"), seed


def test_attention_scaled_only_when_a_mask_is_given_loses_exactly_the_scaling_points(
        fake_sandbox):
    # scaled_dot_product_attention weights: shapes 1, scaling 2, softmax 1.5, values 1,
    # masking 2, stability 1, properties 0.5, dtypes 0.5, inputs 0.5; total 10. The scale written
    # in the masked branch only fails the 4 unmasked scaling tests (1 visible + 3 hidden, all with
    # d_k > 1; the fifth scaling test has a mask and passes) and nothing else: every other value
    # test has d_k = 1 or a scale-free answer (identical keys; a dominant key 24 apart even at
    # scale 1/d_k). Scaling is 2 points over 5 tests: 10 - 4 * 0.4 = 8.4.
    scaling = {c.name for c in PROBLEMS["scaled_dot_product_attention"].cases(0)
               if c.category == "scaling" and "masked" not in c.traits}
    assert len(scaling) == 4
    for seed, result in _graded_on_every_seed(fake_sandbox, "scaled_dot_product_attention",
                                              "bug_scales_only_with_a_mask"):
        failed = {t.name for t in result.tests if t.status == "failed"}
        assert failed == scaling, seed
        assert result.score == pytest.approx(8.4, abs=1e-6), seed


def test_attention_that_assumes_lq_equals_lk_scores_the_same_on_every_draw(fake_sandbox):
    # The 2.67: code that builds its default mask as (Lq, Lq) crashes on every unmasked
    # case with Lq != Lk. Passing: the 6 masking tests (2 points, they bring their own mask), the
    # one scaling test with a mask (scaling: 2 points over 5 tests, 0.4), the one stability test
    # with a mask (stability: 1 point over 3 tests, 0.34, 0.33, 0.33 in case order, and it is
    # the third), 'a sequence of length 1' (Lq = Lk = 1; 1 of 3 properties tests: 0.5 in
    # hundredths by largest remainder is 0.17, 0.17, 0.16 in case order, and it is the second)
    # and the inputs test (0.5, credited since value tests pass):
    # 2 + 0.4 + 0.33 + 0.17 + 0.5 = 3.4 on every draw.
    problem = PROBLEMS["scaled_dot_product_attention"]
    passing = {c.name for c in problem.cases(0)
               if c.category in ("masking", "inputs") or "mask-elsewhere" in c.traits
               or c.name == "properties: a sequence of length 1 returns v_1"}
    assert len(passing) == 10
    for seed, result in _graded_on_every_seed(fake_sandbox, "scaled_dot_product_attention",
                                              "bug_assumes_lq_equals_lk"):
        assert {t.name for t in result.tests if t.status == "passed"} == passing, seed
        assert result.score == pytest.approx(2 + 0.4 + 0.33 + 0.17 + 0.5, abs=1e-6), seed
