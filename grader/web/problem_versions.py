"""The state of a course's authored code problems on the instructor pages: each version's trial
(passed, refused with the reason, failed, queued or running on a worker) and which version each
code item uses (:func:`grader.api.problems.resolve_problems` pins one when an assignment is
saved, so a newer version is used only once the assignment names it again).

Pure over what the store holds: :func:`version_state` words one version from its record and its
latest trial run; :func:`item_rows` and :func:`problem_rows` read the store a fixed number of
times (the course's versions, its trial runs), whatever the number of versions or items.
"""
from __future__ import annotations

from typing import Any, Iterable

from grader.problems import PROBLEMS


def _runs_by_version(runs: Iterable[Any]) -> dict[tuple[str, int], Any]:
    """The latest trial run of each (problem, version)."""
    found: dict[tuple[str, int], Any] = {}
    for run in sorted(runs, key=lambda r: (r.created_at, r.id)):
        found[(run.problem_id, run.version)] = run
    return found


def version_state(record: Any, run: Any | None = None) -> dict[str, str]:
    """``{"status", "words"}`` of one stored version (:class:`grader.store.models.ProblemRecord`)
    and its latest trial run (:class:`grader.store.models.ProblemTrialRun`, None: none):
    ``status`` is ``passed``, ``refused``, ``failed``, ``queued`` or ``running`` (a ``pending``
    version's run), ``pending``; ``words`` says it for the page."""
    status = record.status or "passed"
    trial = record.trial or {}
    if status == "passed":
        words = "trial passed"
        reference, mutants = trial.get("reference") or {}, trial.get("mutants_caught")
        if reference.get("full"):
            words += ": the reference earns full marks"
        if mutants:
            words += f", {mutants['caught']} of {mutants['of']} mutants caught"
        return {"status": status, "words": words}
    if status == "refused":
        return {"status": status, "words": f"refused: {trial.get('refused') or 'its trial failed'}"}
    if status == "failed":
        return {"status": status, "words": "the trial could not run "
                f"({trial.get('error') or 'unknown reason'}); try it again"}
    if run is not None and run.status in ("queued", "running"):
        if run.status == "queued":
            return {"status": "queued", "words": "trial queued for a worker"}
        start = f" (start {run.attempts})" if (run.attempts or 0) > 1 else ""
        return {"status": "running", "words": f"trial running on a worker{start}"}
    return {"status": "pending", "words": "trial not run yet"}


def _states(store, course_id: str) -> tuple[dict[str, list], dict[tuple[str, int], dict]]:
    """The course's versions by problem (oldest first) and each version's state."""
    records = store.content.problem_versions(course_id)
    runs = _runs_by_version(store.problem_trials.of_course(course_id))
    by_problem: dict[str, list] = {}
    states = {}
    for record in sorted(records, key=lambda r: (r.problem_id, r.version)):
        by_problem.setdefault(record.problem_id, []).append(record)
        states[(record.problem_id, record.version)] = version_state(
            record, runs.get((record.problem_id, record.version)))
    return by_problem, states


def pinned(item: Any) -> tuple[str, int] | None:
    """``(problem id, version)`` of a code item that uses an authored problem (its ``spec``
    holds the label ``<id>@<n>``, :func:`grader.problems.authored.registry.label`), else None."""
    ref = item.spec.get("problem") if item.kind == "code" else None
    if not isinstance(ref, str) or ref in PROBLEMS or "@" not in ref:
        return None
    problem_id, _, version = ref.rpartition("@")
    return (problem_id, int(version)) if version.isdigit() else None


def _used(assignments: Iterable[Any]) -> list[tuple[Any, Any, tuple[str, int]]]:
    """(assignment, item, (problem id, version)) of every code item using an authored problem."""
    return [(a, item, found) for a in assignments for item in a.items.values()
            if (found := pinned(item)) is not None]


def item_rows(store, course_id: str, assignment: Any) -> list[dict]:
    """One row per code item of ``assignment`` that uses an authored problem: the problem, the
    version the item uses and its state, and the newer versions with theirs (``newer``)."""
    used = _used([assignment])
    if not used:
        return []
    by_problem, states = _states(store, course_id)
    rows = []
    for _, item, key in used:
        problem_id, version = key
        newer = [{"version": r.version, **states[(r.problem_id, r.version)]}
                 for r in by_problem.get(problem_id, []) if r.version > version]
        rows.append({"item_id": item.id, "problem_id": problem_id, "version": version,
                     **states.get(key, {"status": "missing", "words": "no such version"}),
                     "newer": newer})
    return rows


def problem_rows(store, course_id: str, assignments: Iterable[Any]) -> list[dict]:
    """One row per version of each of the course's problems: its state and the items
    (``"<assignment>/<item>"``) that use it."""
    by_problem, states = _states(store, course_id)
    users: dict[tuple[str, int], list[str]] = {}
    for assignment, item, key in _used(assignments):
        users.setdefault(key, []).append(f"{assignment.id}/{item.id}")
    return [{"problem_id": r.problem_id, "version": r.version,
             "title": r.document.get("title", ""), **states[(r.problem_id, r.version)],
             "used_by": users.get((r.problem_id, r.version), [])}
            for records in by_problem.values() for r in records]


__all__ = ["item_rows", "pinned", "problem_rows", "version_state"]
