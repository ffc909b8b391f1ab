"""Switches for the CPU savings of issue 29, so that one checkout measures each alone.

``CPU_LEVERS`` (a setting, :data:`grader.config.SETTINGS`) names the savings in force: ``all``
(the default), ``none``, or a comma-separated list of :data:`LEVERS`. Every lever changes how
much work a grading costs, never its outcome: with any of them off, a submission is graded,
stored and announced exactly as with all on from the same seed (tests compare both). Only
``draws`` changes which seed a new submission draws from (a shared one, recorded on its result,
instead of its own), so code whose score depends on the very inputs (correct on some, wrong on
others) may score differently with it off; a regrade draws from the recorded seed either way.
Run every process of a deployment with the same ``CPU_LEVERS``. ``benchmarks/levers.py``
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
- ``sandbox``: the trusted side's part of a sandbox run. A call's arguments that are a tuple of
  plain C-ordered arrays (nearly every built-in call) are encoded without the general walk,
  each ``.npy`` header made once per dtype, shape and alignment (``wire.encode_arrays``: the
  same bytes, which a test compares); the ``.npy`` headers of returned values are parsed once
  per exact header text (``wire.decode_value(remember=True)``: the parse is a pure function of
  those bytes, kept for at most 512 texts of at most 256 bytes). A sandbox server started with
  the lever (read when it starts; ``server.py --warm``) first runs the runner's per-call code
  on a constant job (``runner.warm_up``: frames read, arguments decoded, values encoded, nothing
  written), before its namespace snapshots, so each job starts with that bytecode specialised
  and ``wire``'s dtype cache filled. The wire is the same, and the server is the same before
  every job whatever earlier jobs did (no job's data is involved), so what a job sees, what it
  is told and every outcome stay the same.
- ``draws``: a built-in problem's hidden inputs come from one of
  :data:`grader.problems.base.DRAW_SEEDS` (32) seeds shared by all submissions (picked by the
  submission's own secret seed, :func:`grader.grading.service.shared_seed`) instead of the
  submission's own, so their draws and the reference's and mistakes' values are kept in the
  grading process (:meth:`grader.problems.base.CodeProblem.keep`) and a grading computes
  neither, once each seed was drawn there (one grading process: 80 -> 56 CPU-ms per SDPA
  grading, measured in one run). The seed is
  recorded on the item's result (never shown to learners) and a regrade draws the same inputs;
  a grading stored without one is regraded from its own seed. A seed draws the same inputs
  with the lever on or off: on, a submission is graded as it would be, off, with that seed.
- ``calls``: the visible examples' calls are built once per problem and a kept seed's hidden
  calls once per seed (:meth:`grader.problems.base.CodeProblem.kept`), and the sandbox keeps
  the ``ARGS`` frame of each call whose arguments cannot change (read-only arrays, scalars;
  :func:`grader.sandbox.forkserver.encode_job`), so a grading of a kept seed neither builds
  nor encodes its calls. The calls are equal and the frames the same bytes (a test compares
  them), so the learner's code gets the same job.
- ``notify``: Celery's own path per task. Kombu's Redis transport built a new ``redis.Redis``
  object (its table of ~170 response callbacks, ~0.14 ms of CPU) for every synchronous broker
  operation: twice per task on a worker (the message recorded as unacked on arrival, removed on
  the late ack) and once per message published. With the lever a broker channel keeps one
  (:mod:`workers.broker_clients`), built again when kombu replaces the channel's connection pool.
  The object holds no state of its own (each command borrows a pool connection, each pipeline is
  new), so the commands sent to Redis, ``acks_late`` and redelivery are as before.
- ``statements``: the grading's own statements are built once, with their values as bound
  parameters, instead of for every grading (a statement object and its cache key cost more CPU
  than sending it): the job's start and its finish with the first history record run on a
  Core connection (no ORM session around them); the regrade check asks first whether any run
  applies (one ``SELECT ... LIMIT 1``; nearly always none, and nothing more is read); the LTI
  channel's one lookup is the same statement. The same SQL is sent with the same values (the
  statements sent are compared), so every stored row and announcement stays the same.
"""
from __future__ import annotations

import os
from functools import lru_cache

#: Every lever, in the order the benchmark measures them.
LEVERS = ("worker", "checks", "intake", "sandbox", "draws", "calls", "notify", "statements")


def parse(value: str) -> frozenset[str]:
    """The levers ``value`` names (``all``, ``none`` or a comma-separated list of
    :data:`LEVERS`, any case, spaces ignored). Raises ``ValueError`` naming an unknown lever."""
    words = {w.strip().lower() for w in str(value).split(",") if w.strip()}
    if words in ({"all"}, set()):
        return frozenset(LEVERS)
    if words == {"none"}:
        return frozenset()
    if words & {"all", "none"}:
        raise ValueError("'all' and 'none' stand alone; or name the levers, comma-separated: "
                         f"{', '.join(LEVERS)}")
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
