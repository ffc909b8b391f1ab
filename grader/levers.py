"""Switches for the CPU savings of issue 29, so that one checkout measures each alone.

``CPU_LEVERS`` (a setting, :data:`grader.config.SETTINGS`) names the savings in force: ``all``
(the default), ``none``, or a comma-separated list of :data:`LEVERS`. Every lever changes how
much work a grading costs, never its outcome: with any of them off, a submission is graded,
stored and announced exactly as with all on (tests compare both). ``benchmarks/levers.py``
measures the service with none, each one alone and all of them.

- ``worker``: the grading's store work. ``finish`` returns the row it stored (``UPDATE ...
  RETURNING``; its history record carries the same time), and the notifier announces that row
  instead of reading it and its scoring time again; a regrade check that finds no regrade run
  reads nothing more; the LTI channel reads the learner's grade targets and whether the course
  has a platform in one statement; both reads run without a transaction around them (no BEGIN
  and ROLLBACK round trips on PostgreSQL). 9 statements per grading become 5.
- ``checks``: a value check that agrees everywhere is decided by ``np.isclose``'s own test on
  the arrays (:func:`grader.problems.compare.close_everywhere`); any NaN, inf or difference is
  compared in full, as before, so every verdict and message stays the same.
- ``intake``: the API's store work per submission. A ``POST`` without ``Idempotency-Key``
  stores the row with one prepared Core ``INSERT`` on a connection (no session, no unit of
  work); ``GET /submissions/<id>`` (and its long-poll's re-reads) reads every column but the
  learner's ``responses``, which the view never shows, with one prepared Core ``SELECT`` into a
  read-only row (:meth:`grader.store.Store.get_shown`). The same columns go through the same
  column types (cleaning, UTC timestamps), the same one statement is sent each way, and the
  row is committed before the submission is queued: every answer (status, body, headers) and
  every stored row stays the same. A post with a key keeps the ORM path (its idempotency
  record joins the insert's transaction).
"""
from __future__ import annotations

import os
from functools import lru_cache

#: Every lever, in the order the benchmark measures them.
LEVERS = ("worker", "checks", "intake")


def parse(value: str) -> frozenset[str]:
    """The levers ``value`` names (``all``, ``none`` or a comma-separated list of
    :data:`LEVERS`, any case, spaces ignored). Raises ``ValueError`` naming an unknown lever."""
    words = {w.strip().lower() for w in str(value).split(",") if w.strip()}
    if words in ({"all"}, set()):
        return frozenset(LEVERS)
    if words == {"none"}:
        return frozenset()
    unknown = sorted(words - set(LEVERS))
    if unknown:
        raise ValueError(f"unknown lever(s) {', '.join(unknown)} (known: all, none, "
                         f"{', '.join(LEVERS)})")
    return frozenset(words)


@lru_cache(maxsize=None)
def _from_environment(value: str) -> frozenset[str]:
    return parse(value)


def enabled(name: str) -> bool:
    """Whether lever ``name`` is in force in this process (``CPU_LEVERS`` of the environment,
    read on every call: a test may change it)."""
    return name in _from_environment(os.environ.get("CPU_LEVERS", "all"))
