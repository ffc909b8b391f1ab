"""Cross-case patterns used by :class:`grader.problems.base.Rule` (mistakes seen only by comparing
which cases fail: "crashes exactly when Lq != Lk", "right with one head, wrong with several")."""
from __future__ import annotations

from typing import Callable

from grader.problems.base import CaseResult


def crashes_only_with(trait: str, every: bool | None = None
                      ) -> Callable[[list[CaseResult]], list[str]]:
    """Explains the crashed cases when every crashed case has ``trait`` and at least one case
    without it ran without crashing. ``every=True`` also requires that every case with ``trait``
    crashed (a message saying "whenever" is then true); ``every=False`` that at least one case
    with ``trait`` ran without crashing (only some of them fail); None: either."""

    def explains(results: list[CaseResult]) -> list[str]:
        crashed = [r for r in results if r.crashed]
        fine_without = [r for r in results if not r.crashed and trait not in r.case.traits]
        fine_with = any(not r.crashed and trait in r.case.traits for r in results)
        if every is not None and fine_with == every:
            return []
        if crashed and fine_without and all(trait in r.case.traits for r in crashed):
            return [r.case.name for r in crashed]
        return []

    return explains


def fails_only_with(trait: str) -> Callable[[list[CaseResult]], list[str]]:
    """Explains the failing cases when every failing case has ``trait`` and some case without it
    passed (e.g. ``multihead``: right with H = 1, wrong with H > 1)."""

    def explains(results: list[CaseResult]) -> list[str]:
        failed = [r for r in results if not r.passed]
        passed_without = [r for r in results if r.passed and trait not in r.case.traits]
        if failed and passed_without and all(trait in r.case.traits for r in failed):
            return [r.case.name for r in failed]
        return []

    return explains


def fails_only_with_any(trait: str) -> Callable[[list[CaseResult]], list[str]]:
    """Like :func:`fails_only_with` but only looks at cases that carry ``trait`` or its opposite
    ``"no-" + trait``: explains the failing ``trait`` cases when every ``no-trait`` case passed."""

    def explains(results: list[CaseResult]) -> list[str]:
        with_trait = [r for r in results if trait in r.case.traits]
        without = [r for r in results if f"no-{trait}" in r.case.traits]
        failing = [r for r in with_trait if not r.passed]
        if failing and without and all(r.passed for r in without):
            return [r.case.name for r in failing]
        return []

    return explains


def failed_in_category(category: str) -> Callable[[list[CaseResult]], list[str]]:
    """Explains every failing case of ``category`` whose check failed (not crashed, and not merely
    uncredited by :mod:`grader.problems.credit`): used where the check itself is the diagnosis
    (e.g. inputs modified in place)."""

    def explains(results: list[CaseResult]) -> list[str]:
        return [r.case.name for r in results
                if not r.passed and not r.crashed and not r.uncredited
                and r.case.category == category]

    return explains
