"""Several known mistakes at once: name each mistake of a combination that reproduces a case.

Real files make two to four mistakes together (real-course-code.md), and then no single variant
reproduces the failing cases: :func:`grader.problems.diagnosis.diagnose` first lets single
variants claim what they explain, then this module searches the product space of the mistakes
for the cases left over. Every member of a combination must satisfy:

* **footprint** - it changes the reference's result on the case (a mistake that changes nothing
  there is no part of the explanation; this also rules out a mistake paired with a no-op);
* **consistency** - alone, it passes every case the learner *passed* (by the case's own check): a
  mistake that would have failed a test the learner passed is not in the learner's code. (Two
  mistakes could cancel on a case; a name that might not hold is worse than no name.)

Only mistakes declared as toggles of the problem's buggy implementation combine
(:func:`grader.problems.compile.combination`: their toggles merged; two ways of one mistake, or
two mistakes setting the same toggle, do not). The search starts from one left-over case (a
*pivot*): among the candidates that change it, the pairs that reproduce it, else the triples (all
the combinable ones when they are few, :data:`MAX_TRIPLES`, on the first pivot; else the
pairs found so far extended by one candidate). Those are then tried on the other left-over cases,
and a case none reproduces is the next pivot (at most :data:`MAX_PIVOTS`); a case still left then
gets pairs whose members may fail a passed case alone when the pair passes it
(:func:`_cancelling`). The cost is bounded by the pivots times C(candidates, 2), plus one
:data:`MAX_TRIPLES` triples and one C(all mistakes, 2) on a single case, whatever the number of cases. Each
combination then claims the left-over cases it reproduces, the one reproducing the most first
(then the one adding the fewest names not already given on other cases, fewer members, table
order), and every member is named on them: ``diagnosis`` for the first, ``also`` for the rest.
"""
from __future__ import annotations

from itertools import combinations as subsets
from typing import Any, Callable

from grader.budget import CpuBudget
from grader.problems.base import REFERENCE, CaseResult, CodeProblem, Variant
from grader.problems.compare import matches, split_return

#: Every triple is tried on the first pivot only when there are at most this many combinable
#: ones (three mistakes the executor makes at once: :func:`_combinable`), each computed once
#: (C(16, 3), the bound when every triple of 16 candidates combines).
MAX_TRIPLES = 560
#: ... and they are enumerated only among this many candidate ways of mistakes (C(32, 3) = 4960
#: look-ups of whether they combine, no value computed).
MAX_TRIPLE_CANDIDATES = 32
#: At most this many left-over cases start a search (each: the combinations reproducing it, then
#: the other cases they reproduce); a case no found combination reproduces starts the next.
MAX_PIVOTS = 4


def _changes(problem: CodeProblem, variant: Variant, result: CaseResult) -> bool:
    """True when ``variant`` alone gives a result other than the reference's on the case."""
    mine = problem.executor.values(variant.implementation, result.case)
    reference = problem.executor.values(REFERENCE, result.case)
    for (value, error), (expected, expected_error) in zip(mine, reference):
        if (error is None) != (expected_error is None):
            return True
        if error is None and not matches(split_return(value)[0], split_return(expected)[0]):
            return True
    return False


def _fails(problem: CodeProblem, variant: Variant, result: CaseResult) -> bool:
    """True when ``variant`` alone would fail the case's own check (or raise) where the learner
    passed it."""
    computed = problem.executor.values(variant.implementation, result.case)
    if any(error is not None for _, error in computed):
        return True
    try:
        return bool(problem.checks[result.case.check]([value for value, _ in computed],
                                                      result.expected, result.case))
    except Exception:  # noqa: BLE001 - a value the check cannot read fails it
        return True


def _candidates(problem: CodeProblem, results: list[CaseResult], left: list[CaseResult],
                allowed: Callable[[Variant, CaseResult], bool], budget: CpuBudget,
                strict: bool = True) -> list[tuple[int, Variant]]:
    """(index, variant) of each combinable way of a mistake that changes at least one left-over
    case and (``strict``) fails no check of a case the learner passed."""
    passed = [r for r in results if r.passed and not r.case.wrapped]
    found = []
    for index, variant in enumerate(problem.variants):
        if variant.toggles is None:
            continue
        budget.check("diagnosis")
        if not any(allowed(variant, r) and _changes(problem, variant, r) for r in left):
            continue
        if not strict or not any(_fails(problem, variant, r) for r in passed):
            found.append((index, variant))
    return found


def _cancelling(problem: CodeProblem, results: list[CaseResult], left: list[CaseResult],
                pivot: CaseResult, allowed: Callable[[Variant, CaseResult], bool],
                explains: Callable[..., bool], expected: dict[int, Any], budget: CpuBudget,
                consistent: list[tuple[int, Variant]]) -> list[tuple[tuple, list[CaseResult]]]:
    """The pairs that reproduce ``pivot`` when a member alone may fail a case the learner passed,
    kept only when the pair itself passes every such case (one mistake undoing the other there:
    a causal mask transposed and its diagonal blocked is right for n = 1). One pivot, pairs only,
    each with a member outside ``consistent`` (pairs of those were tried already): the fallback
    when the consistent candidates explained nothing."""
    passed = [r for r in results if r.passed and not r.case.wrapped]
    relaxed = _candidates(problem, results, [pivot], allowed, budget, strict=False)
    found = []
    tried = {i for i, _ in consistent}
    for members in subsets(relaxed, 2):
        if members[0][1].tag == members[1][1].tag or all(i in tried for i, _ in members):
            continue
        budget.check("diagnosis")
        if (_hits(problem, members, [pivot], allowed, explains, expected)
                and not any(_fails(problem, _combined(members), r) for r in passed)):
            found.append((members, _hits(problem, members, left, allowed, explains, expected)))
    return found


def _combined(members: tuple[tuple[int, Variant], ...]) -> Variant:
    first = members[0][1]
    return Variant(first.tag, first.message, tuple(i for i, _ in members),  # type: ignore[arg-type]
                   strict_return=any(v.strict_return for _, v in members))


def _hits(problem: CodeProblem, members: tuple[tuple[int, Variant], ...], left: list[CaseResult],
          allowed: Callable[[Variant, CaseResult], bool],
          explains: Callable[..., bool], expected: dict[int, Any]) -> list[CaseResult]:
    if problem.executor.combine(
            tuple(i for i, _ in members)) is None:
        return []
    variant = _combined(members)
    return [r for r in left if all(allowed(v, r) for _, v in members)
            and explains(problem, variant, r, expected[id(r)])]


def _combinable(problem: CodeProblem, members: tuple[tuple[int, Variant], ...]) -> bool:
    """True when ``members`` are ways of distinct mistakes the problem's executor can make at
    once (a built-in's toggles disjoint, :func:`grader.problems.compile.combination`; an
    uploaded problem's combination prepared). No value is computed."""
    return (len({v.tag for _, v in members}) == len(members)
            and problem.executor.combine(tuple(i for i, _ in members)) is not None)


def _explaining(problem: CodeProblem, candidates: list[tuple[int, Variant]], pivot: CaseResult,
                allowed: Callable[[Variant, CaseResult], bool], explains: Callable[..., bool],
                expected: dict[int, Any], budget: CpuBudget, pairs: list[tuple],
                every_triple: bool = True) -> list[tuple]:
    """The smallest combinations of the candidates that change ``pivot`` which reproduce the
    learner's values on it: pairs; else triples, every combinable one when they are few
    (:data:`MAX_TRIPLES` among at most :data:`MAX_TRIPLE_CANDIDATES` candidates), otherwise the
    pairs found on earlier pivots (``pairs``) extended by one candidate (also when
    ``every_triple`` is False)."""
    local = [(i, v) for i, v in candidates if allowed(v, pivot) and _changes(problem, v, pivot)]
    every = [m for m in subsets(local, 3) if _combinable(problem, m)] \
        if every_triple and len(local) <= MAX_TRIPLE_CANDIDATES else []
    triples = every if 0 < len(every) <= MAX_TRIPLES else (
        tuple(sorted((*pair, extra), key=lambda m: m[0])) for pair in pairs for extra in local
        if all(extra[0] != i for i, _ in pair))
    for combos in (subsets(local, 2), triples):
        hits, seen = [], set()
        for members in combos:
            key = tuple(i for i, _ in members)
            if key in seen or len({v.tag for _, v in members}) < len(members):
                continue  # tried already, or two ways of one mistake
            seen.add(key)
            budget.check("diagnosis")
            if _hits(problem, members, [pivot], allowed, explains, expected):
                hits.append(members)
        if hits:
            return hits
    return []


def name_combinations(problem: CodeProblem, results: list[CaseResult], left: list[CaseResult],
                      allowed: Callable[[Variant, CaseResult], bool],
                      explains: Callable[..., bool], expected: dict[int, Any],
                      budget: CpuBudget) -> list[Variant]:
    """Name the mistakes of the combinations that reproduce the ``left`` results (failing,
    claimable, explained by no single variant), in place: ``diagnosis_tag``/``diagnosis`` take
    the first member, ``also`` the others as (tag, message) pairs. ``allowed(variant, result)`` is
    the single-variant claim rule (a member must be claimable on the case), ``explains`` the
    diagnosis's comparison and ``expected`` the reference outputs per result id. Returns the
    combinations named (as variants whose ``implementation`` is the tuple of variant indices).
    Raises :class:`~grader.budget.BudgetExceeded` once ``budget`` runs out."""
    if not left or getattr(problem.executor, "combine", None) is None:
        return []
    candidates = _candidates(problem, results, left, allowed, budget)
    found: list[tuple[int, int, tuple, list[CaseResult]]] = []
    unexplained, order = list(left), 0
    for searched in range(MAX_PIVOTS):
        if not unexplained:
            break
        pivot = unexplained.pop(0)
        pairs = [members for *_, members, _ in found if len(members) == 2]
        # every triple is tried on the first pivot only: an unexplainable learner costs one
        # full search, not one per pivot
        for members in _explaining(problem, candidates, pivot, allowed, explains, expected,
                                   budget, pairs, every_triple=not searched):
            order += 1
            hits = _hits(problem, members, left, allowed, explains, expected)
            found.append((-len(hits), len(members) * 10_000 + order, members, hits))
            unexplained = [r for r in unexplained if not any(r is h for h in hits)]
    claimed = [h for *_, hits in found for h in hits]
    rest = [r for r in left if not any(r is h for h in claimed)]
    if rest:
        for members, hits in _cancelling(problem, results, left, rest[0], allowed,
                                         explains, expected, budget, candidates):
            order += 1
            found.append((-len(hits), 2 * 10_000 + order, members, hits))
    # Most cases first; then the combination with fewest mistakes not already named on other
    # cases (two mistakes that coincide on a case: the one the other cases show is named).
    named = {r.diagnosis_tag for r in results if r.diagnosis_tag}
    found.sort(key=lambda t: (t[0], sum(v.tag not in named for _, v in t[2]), t[1]))
    used = []
    for _, _, members, hits in found:
        claimed = [r for r in hits if not r.diagnosis_tag]
        for result in claimed:
            result.diagnosis_tag, result.diagnosis = members[0][1].tag, members[0][1].message
            result.also = tuple((v.tag, v.message) for _, v in members[1:])
        if claimed:
            used.append(_combined(members))
    return used


def of_tags(problem: CodeProblem, tags: set[str], largest: int = 3) -> list[Variant]:
    """Every combination (pairs, then triples up to ``largest``) of combinable ways of the
    mistakes ``tags``, one way per mistake, that the problem's buggy implementation can make."""
    ways = [(i, v) for i, v in enumerate(problem.variants) if v.tag in tags and v.toggles]
    found = []
    for size in range(2, min(largest, len(tags)) + 1):
        for chosen in subsets(ways, size):
            if (len({v.tag for _, v in chosen}) == size
                    and problem.executor.combine(tuple(i for i, _ in chosen)) is not None):
                found.append(_combined(chosen))
    return found


def members(problem: CodeProblem, variant: Variant) -> list[tuple[str, str]]:
    """(tag, message) of every mistake a combination (from :func:`name_combinations`) makes."""
    return [(problem.variants[i].tag, problem.variants[i].message)
            for i in variant.implementation]  # type: ignore[union-attr]
