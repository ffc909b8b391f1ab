"""Misconception diagnosis: name the mistake behind failing cases from the numbers alone.

Method (attention-bugs.md, "Signals that separate the kinds"): every known mistake of a problem is a
:class:`~grader.problems.base.Variant`, a buggy implementation whose values on the failing case's
own inputs the problem's executor computes (:mod:`grader.problems.executor`: in process for the
built-ins, in the sandbox for uploaded problems; this module only reads values). A variant
*explains* a case when, for every call of the case, the
learner's returned values match the variant's within tolerance (NaN matching NaN), or both raised
the same exception type. Variants are ranked by how many failing cases they explain (table order
breaks ties) and each failing case takes the best variant that explains it. Cases no single
variant explains go to :mod:`grader.problems.combinations` (several mistakes made at once, each
named); then a name whose cases other named mistakes explain as well is dropped
(:func:`_fewest_names`). Cases still unexplained go through the problem's cross-case
:class:`~grader.problems.base.Rule` s. What is left keeps
the check's own message (which check failed, where (index) and by how much) plus a plain NaN/inf
count or the problem's ``describe`` signals (row sums, weight on blocked positions). A call
whose return lacks a course's form (status ``"contract"``) but was read in the canonical form
(:mod:`grader.problems.course.convert`) is compared as that reading: its test fails on the form,
named first, and the mistakes of the value are named beside it.

Claims are limited to what the evidence supports: a variant is claimed only on cases that have the
ingredients it needs (``Variant.needs``: no mask, no masking diagnosis), and when the learner's
output is NaN/inf everywhere (no finite entry in any case), a NaN-for-NaN match proves nothing, so
no variant is claimed on a non-finite output; the learner is told where the NaN/inf entries are.
Likewise a case whose checked rows hold no finite entry is claimed by a variant only when that
variant also reproduces the learner's values on every other case that ran (passing ones included):
an all-NaN output matches every variant that also gives NaN there (a softmax over the wrong axis
and a ``(1 - mask) * -inf`` mask both do), so the match needs the rest of the evidence to agree.
Stability cases are the exception: each is built so that a naive ``exp`` overflows
(:mod:`grader.problems.conditions`), so NaN/inf there is the evidence (a softmax that is stable
only on some inputs reproduces the unstable variant on that case alone).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from grader.budget import NO_BUDGET, CpuBudget
from grader.problems import combinations
from grader.problems.base import CaseResult, CodeProblem, Variant
from grader.problems.compare import as_array, matches, nonfinite, split_return
from grader.problems.executor import Computed, has_float32
from grader.problems.inputs import unwrap


#: The status of a call whose return lacks a course's form
#: (:data:`grader.problems.course.adapter.FORM_STATUS`); its ``value`` is the return read in the
#: canonical form when it reads unambiguously so, None when not.
FORM_STATUS = "contract"


def _read(outcome: Any) -> bool:
    """True when ``outcome`` has a value to compare: it returned, or its return lacks the
    course's form but was read in the canonical form (the value's own mistakes are then named
    beside the form's)."""
    status = getattr(outcome, "status", "")
    return status == "ok" or (status == FORM_STATUS and outcome.value is not None)


def _read_all(result: CaseResult) -> bool:
    """Every call of ``result`` has a value to compare (:func:`_read`)."""
    return all(_read(o) for o in result.outcomes)


def _names_form(message: str, result: CaseResult) -> bool:
    """True when ``message`` is the sentence of a call of ``result`` whose return lacks the
    course's form (a course's form rule, :func:`grader.problems.course.mistakes.form_rules`)."""
    return any(getattr(o, "status", "") == FORM_STATUS and o.error == message
               for o in result.outcomes)


def _call_explained(computed: Computed, outcome: Any, rows: np.ndarray | None, wrapped: bool,
                    strict: bool = False, canonical: Any = None) -> bool:
    value, error = computed
    status = getattr(outcome, "status", "")
    if error is not None:
        # Same exception type and message (a broadcasting error names the shapes involved).
        return status == "exception" and error in (outcome.error or "")
    if not _read(outcome):
        return False
    learned = unwrap(outcome.value) if wrapped else outcome.value
    if canonical is not None:
        learned = canonical(learned)
    learner_out, learner_weights = split_return(learned)
    variant_out, variant_weights = split_return(value)
    if _boolean_for_float(learner_out, variant_out) or not matches(learner_out, variant_out, rows):
        return False
    if strict and (learner_weights is None) != (variant_weights is None):
        return False
    if (learner_weights is None or variant_weights is None
            or np.shape(learner_weights) != np.shape(variant_weights)):
        return True  # weights are extra evidence; another accepted layout is not compared
    weight_rows = rows if rows is not None and rows.shape == np.shape(variant_weights)[:-1] else None
    return matches(learner_weights, variant_weights, weight_rows)


def _boolean_for_float(learned: Any, variant: Any) -> bool:
    """True when the learner returned a boolean array and the variant a float one: a float
    mistake (e.g. an additive mask, 0 / -inf) does not hold of a boolean return even where the
    numbers coincide (False == 0.0: an all-False mask is no additive mask that allows
    everything). A float or integer return may still match a boolean variant (a 0/1 mask)."""
    return (isinstance(learned, np.ndarray) and learned.dtype == np.bool_
            and isinstance(variant, np.ndarray) and variant.dtype.kind == "f")


def reference_values(result: CaseResult) -> list[Any] | None:
    """The reference's return value for every call of the case, None when unknown."""
    if len(result.expected) != len(result.case.calls):
        return None
    return list(result.expected)


def _same_value(value: Any, expected: Any) -> bool:
    """True when ``value`` is the reference's ``expected`` return: the same output and, when
    both hold weights of one shape, the same weights (a pair whose output slot happens to hold
    the right numbers, e.g. with V = I, is still another return)."""
    out, weights = split_return(value)
    expected_out, expected_weights = split_return(expected)
    if not matches(out, expected_out):
        return False
    if (weights is None or expected_weights is None
            or np.shape(weights) != np.shape(expected_weights)):
        return True
    return matches(weights, expected_weights)


def explains(problem: CodeProblem, variant: Variant, result: CaseResult,
             expected: list[Any] | None = None) -> bool:
    """True when ``variant`` reproduces what the learner's code did on every call of the case.

    Float32 inputs are tried as given and upcast to float64: NumPy promotes float32 code to
    float64 as soon as a float64 scalar enters (e.g. ``/ np.sqrt(d_k)``), which moves the point
    where an unstable softmax overflows. ``expected`` (the reference's return values per call)
    rules out a variant that coincides with the correct computation on this case (e.g. a masking
    mistake on a case without a mask)."""
    case = result.case
    if len(result.outcomes) != len(case.calls):
        return False
    computed = problem.executor.values(variant.implementation, case)
    # The learner is compared first: most variants fail there on the first call, and the
    # comparison with the reference (which rules the rest out) is then never made.
    for index, outcome in enumerate(result.outcomes):
        rows = case.rows_for(index)
        if _call_explained(computed[index], outcome, rows, case.wrapped, variant.strict_return,
                           problem.spec.canonical):
            continue
        if not has_float32(case, index):
            return False
        upcast = problem.executor.values(variant.implementation, case, upcast_inputs=True)
        if not _call_explained(upcast[index], outcome, rows, case.wrapped,
                               variant.strict_return, problem.spec.canonical):
            return False
    return expected is None or not all(
        error is None and _same_value(value, reference)
        for (value, error), reference in zip(computed, expected))


def _outputs(result: CaseResult) -> list[Any]:
    """The learner's output (not weights) of every call that returned, unwrapped."""
    values = [unwrap(o.value) if result.case.wrapped else o.value
              for o in result.outcomes if _read(o)]
    return [split_return(v)[0] for v in values]


def _has_finite_entry(result: CaseResult) -> bool:
    for out in _outputs(result):
        array = as_array(out)
        if array is not None and np.isfinite(array).any():
            return True
    return False


def _all_nonfinite(result: CaseResult) -> bool:
    arrays = [as_array(out) for out in _outputs(result)]
    return bool(arrays) and all(a is not None and a.size and not np.isfinite(a).any()
                                for a in arrays)


def _only_nonfinite_checked(result: CaseResult) -> bool:
    """True when every call of the case returned and no checked entry (``Case.rows``) of the
    learner's output is finite: a variant that "explains" such a case does so by NaN matching
    NaN only, which by itself proves nothing."""
    if not _read_all(result):
        return False
    outputs = _outputs(result)
    if len(outputs) != len(result.case.calls):
        return False
    for index, out in enumerate(outputs):
        array = as_array(out)
        if array is None:
            return False
        rows = result.case.rows_for(index)
        if rows is not None and np.shape(rows) == array.shape[:-1]:
            array = array[np.asarray(rows, dtype=bool)]
        if np.isfinite(array).any():
            return False
    return True


def _consistent(problem: CodeProblem, variant: Variant, results: list[CaseResult],
                skip: list[CaseResult]) -> bool:
    """True when ``variant`` reproduces the learner's values on every case that ran without a
    crash, passing ones included (``skip`` left out): the evidence a NaN-for-NaN match needs."""
    skipped = {id(r) for r in skip}
    return all(explains(problem, variant, r) for r in results
               if id(r) not in skipped and _read_all(r))


def nonfinite_signal(result: CaseResult) -> str:
    """"your output contains NaN/inf in N of M entries (first at index ...)" for the first call
    of the case whose checked rows hold NaN or inf; empty when there is none."""
    outputs = _outputs(result)
    for index, out in enumerate(outputs):
        found = nonfinite(out, result.case.rows_for(index))
        if found:
            call = f" (call {index + 1} of {len(outputs)})" if len(outputs) > 1 else ""
            return f"your output{call} contains {found}"
    return ""


def _may_claim(variant: Variant, result: CaseResult, nan_everywhere: bool) -> bool:
    if not variant.needs <= result.case.traits:
        return False
    # Wrapped (inputs) cases judge in-place changes, not values: variants explain their crashes;
    # the rules name in-place changes.
    if result.case.wrapped and not result.crashed:
        return False
    return not (nan_everywhere and _read_all(result) and _all_nonfinite(result))


def diagnose(problem: CodeProblem, results: list[CaseResult],
             budget: CpuBudget = NO_BUDGET) -> None:
    """Fill ``diagnosis_tag`` and ``diagnosis`` (or ``signals``) of the failing results in
    place; results the credit rule withheld (``uncredited``) get no mistake's name, only the
    signals of their own numbers. Each variant and rule is tried within ``budget`` (raises
    :class:`~grader.budget.BudgetExceeded` once it runs out)."""
    failing = [r for r in results if not r.passed]
    if not failing:
        return
    # A test the credit rule withheld (grader/problems/credit.py) passed its own check: its
    # failure says why it earns nothing, and another test's mistake is not its failure reason
    # (it may still get the signals of its own numbers).
    claimable = [r for r in failing if not r.uncredited]
    _claim_variants(problem, results, claimable, budget)
    for rule in problem.rules:
        budget.check("diagnosis")
        names = set(rule.explains(results))
        for result in claimable:
            if result.case.name not in names:
                continue
            if not result.diagnosis_tag:
                result.diagnosis_tag, result.diagnosis = rule.tag, rule.message
            elif _names_form(rule.message, result) and rule.tag not in {
                    tag for tag, _ in named(result)}:
                # the value read in canonical form had its own mistakes: the form first
                result.also = tuple(named(result))
                result.diagnosis_tag, result.diagnosis = rule.tag, rule.message
    for result in failing:
        if not result.diagnosis_tag and not result.crashed:
            budget.check("diagnosis")
            result.signals = _signals(problem, result)


def _claim_variants(problem: CodeProblem, results: list[CaseResult],
                    claimable: list[CaseResult], budget: CpuBudget) -> None:
    """Each claimable result takes the variant that explains the most results (table order
    breaks ties) among those that explain it."""
    nan_everywhere = not any(_has_finite_entry(r) for r in results if _read_all(r))
    expected = {id(r): reference_values(r) for r in claimable}
    explained: list[tuple[int, int, Variant, list[CaseResult]]] = []
    for order, variant in enumerate(problem.variants):
        budget.check("diagnosis")
        hits = [r for r in claimable if _may_claim(variant, r, nan_everywhere)
                and explains(problem, variant, r, expected[id(r)])]
        weak = [r for r in hits if r.case.category != "stability" and _only_nonfinite_checked(r)]
        if weak and not _consistent(problem, variant, results, weak):
            hits = [r for r in hits if not any(r is w for w in weak)]
        # An exception is weak evidence too when it is all a variant matches: many mistakes
        # raise the same error on the same input (a maximum over an empty cache raises alike
        # whatever the code meant), so the variant must also reproduce the tests the learner
        # passed (a mistake that changes their values was not made; tests failed for another
        # mistake made beside it say nothing; so do tests that compare no values: shapes,
        # properties, inputs).
        if hits and not any(_read_all(r) for r in hits) and not _consistent(
                problem, variant, [r for r in results if r.passed and r.case.basis == "values"
                                   and r.case.check != "shapes"], []):
            hits = []
        if hits:
            explained.append((-len(hits), order, variant, hits))
    for _, _, variant, hits in sorted(explained, key=lambda t: (t[0], t[1])):
        for result in hits:
            if not result.diagnosis_tag:
                result.diagnosis_tag, result.diagnosis = variant.tag, variant.message
    left = [r for r in claimable if not r.diagnosis_tag]
    used = combinations.name_combinations(
        problem, results, left, lambda variant, r: _may_claim(variant, r, nan_everywhere)
        and not (r.case.category != "stability" and _only_nonfinite_checked(r)),
        explains, expected, budget)
    _fewest_names(problem, claimable, [(v, hits) for _, _, v, hits in explained], used,
                  expected, budget)


def _fewest_names(problem: CodeProblem, claimable: list[CaseResult],
                  explained: list[tuple[Variant, list[CaseResult]]], used: list[Variant],
                  expected: dict[int, Any], budget: CpuBudget) -> None:
    """Drop a mistake's name when every case it alone was named on is explained as well by
    other mistakes named on the result (alone, or together): a case
    where two explanations coincide says nothing about which one was made, and the one the
    other cases need is named. Fewest-supported names are tried first."""
    def support(tag: str) -> int:
        return sum(any(t == tag for t, _ in named(r)) for r in claimable)

    def alternative(result: CaseResult, others: set[str]) -> list[tuple[str, str]] | None:
        singles = [v for v, hits in explained if v.tag in others
                   and any(h is result for h in hits)]
        if singles:
            best = max(singles, key=lambda v: support(v.tag))
            return [(best.tag, best.message)]
        for combination in used + combinations.of_tags(problem, others):
            found = combinations.members(problem, combination)
            budget.check("diagnosis")
            if ({t for t, _ in found} <= others
                    and explains(problem, combination, result, expected[id(result)])):
                return found
        return None

    for tag in sorted({r.diagnosis_tag for r in claimable if r.diagnosis_tag}, key=support):
        cases = [r for r in claimable if r.diagnosis_tag == tag and not r.also]
        if not cases or len(cases) != support(tag):
            continue  # not named, or part of a combination: needed there
        others = {t for r in claimable for t, _ in named(r)} - {tag}
        moves = [(r, alternative(r, others)) for r in cases]
        if all(found for _, found in moves):
            for result, found in moves:
                (result.diagnosis_tag, result.diagnosis), *rest = found
                result.also = tuple(rest)


def _signals(problem: CodeProblem, result: CaseResult) -> str:
    """What a failing, unexplained result's numbers show: its NaN/inf share, else the problem's
    ``describe`` (never a fault: a signal is a courtesy)."""
    found = nonfinite_signal(result)
    if found or problem.describe is None:
        return found
    try:
        values = [unwrap(o.value) if result.case.wrapped else o.value for o in result.outcomes]
        return problem.describe(result.case, values) or ""
    except Exception:  # noqa: BLE001 - signals are a courtesy, never a fault
        return ""


def named(result: CaseResult) -> list[tuple[str, str]]:
    """Every mistake (tag, message) named on ``result``: the diagnosis, then those made with it."""
    if not result.diagnosis_tag:
        return []
    return [(result.diagnosis_tag, result.diagnosis), *result.also]


def summary(results: list[CaseResult]) -> list[str]:
    """One line per diagnosed mistake, most frequent first: "<message> (<n> tests)"."""
    counts: dict[str, tuple[int, str]] = {}
    for result in results:
        for tag, message in named(result):
            n, _ = counts.get(tag, (0, message))
            counts[tag] = (n + 1, message)
    ordered = sorted(counts.items(), key=lambda kv: -kv[1][0])
    return [f"{message} ({n} test{'s' if n != 1 else ''})" for _, (n, message) in ordered]
