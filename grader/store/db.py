"""Engine, sessions and the state transitions of a submission.

Every transition is a single conditional ``UPDATE ... WHERE status IN (...)``, so two workers that
receive the same job (a redelivery after a lost worker) cannot both store a result: the second
``finish`` matches no row and changes nothing.
"""
from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, Iterable

import orjson
from sqlalchemy import bindparam, create_engine, event, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import sessionmaker

from grader import levers
from grader.store.models import (GradeRecord, IdempotencyRecord, ScoreOverride, Submission,
                                 utcnow)


@dataclass
class Rewrite:
    """What :meth:`Store.rewrite_graded` stores: the submission's new ``results`` and totals,
    optionally one ``override`` decision (the fields of a :class:`ScoreOverride`: ``item_id``,
    ``score``, ``previous_score``, ``engine_score``, ``comment``, ``author``) for its audit list,
    and the history record's ``versions`` (default: those of its newest record)."""

    results: list
    score: float
    max_score: float
    override: dict[str, Any] | None = None
    versions: dict | None = None


class IdempotencyConflict(Exception):
    """The ``Idempotency-Key`` was used before with a different request body."""

    def __init__(self, submission_id: str):
        super().__init__(submission_id)
        self.submission_id = submission_id


def canonical_digest(document: dict[str, Any]) -> str:
    """SHA-256 (hex) of ``document``'s canonical JSON (keys sorted, no spaces, UTF-8 as is). The one
    digest of submissions: :func:`content_digest` and the Idempotency-Key request digest."""
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def content_digest(assignment_id: str, learner_id: str, responses: dict[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of a submission's content (``content_sha256``)."""
    return canonical_digest({"assignment_id": assignment_id, "learner_id": learner_id,
                             "responses": responses})


def json_dumps(value: Any) -> str:
    """JSON text of a column value: orjson (several times faster than :func:`json.dumps` on
    result records); :func:`json.dumps` for what orjson refuses (e.g. integers beyond 64 bits),
    so every value that was storable before still is."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode("utf-8")
    except TypeError:
        return json.dumps(value)


def make_engine(url: str) -> Engine:
    """Create an engine; SQLite gets WAL and a busy timeout so the API and grading threads share it.
    JSON columns are written with orjson (:func:`json_dumps`)."""
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    # (read with the standard library: orjson would turn integers beyond 64 bits into floats)
    codec = {"json_serializer": json_dumps, "json_deserializer": json.loads}
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False},
                               **codec)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):  # pragma: no cover - trivial
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, **codec)


_SUBMISSIONS = Submission.__table__
_SUBMISSION_KEYS = tuple(c.key for c in _SUBMISSIONS.c)
_INSERT_SUBMISSION = insert(_SUBMISSIONS)
#: What :meth:`Store.get_shown` reads: every column of a submission but its responses.
_SELECT_SHOWN = select(*(c for c in _SUBMISSIONS.c if c.name != "responses")).where(
    _SUBMISSIONS.c.id == bindparam("submission_id"))


#: The grading's own statements, built once (lever ``statements``: no statement object made and
#: no cache key computed per grading): a job's start, and its finish with the first history
#: record.
_START = (update(_SUBMISSIONS)
          .where(_SUBMISSIONS.c.id == bindparam("submission_id"),
                 _SUBMISSIONS.c.status.in_(["queued", "running"]))
          .values(status="running", started_at=bindparam("now"),
                  attempts=_SUBMISSIONS.c.attempts + 1)
          .returning(*_SUBMISSIONS.c))
_FINISH = (update(_SUBMISSIONS)
           .where(_SUBMISSIONS.c.id == bindparam("submission_id"),
                  _SUBMISSIONS.c.status == "running")
           .values(status="graded", finished_at=bindparam("now"), score=bindparam("new_score"),
                   max_score=bindparam("new_max_score"), results=bindparam("new_results"),
                   failure_reason=None)
           .returning(*(c for c in _SUBMISSIONS.c if c.name not in ("responses", "results"))))
_INSERT_RECORD = insert(GradeRecord.__table__).values(
    submission_id=bindparam("submission_id"), kind="initial", created_at=bindparam("now"),
    score=bindparam("new_score"), max_score=bindparam("new_max_score"),
    results=bindparam("new_results"), versions=bindparam("new_versions"))


class Store:
    """The submission store. Thread-safe; one per process."""

    def __init__(self, url: str):
        from grader.store.content import ContentRepository
        from grader.store.courses import CourseRepository
        from grader.store.extensions import ExtensionRepository
        from grader.store.lti import LtiRepository
        from grader.store.overrides import OverrideRepository
        from grader.store.problem_trials import ProblemTrialRepository
        from grader.store.regrades import RegradeRepository
        from grader.store.sign_ins import SignInRepository
        from grader.store.webhooks import WebhookRepository

        self.engine = make_engine(url)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        # For work that is ONE statement (a read, a single conditional UPDATE or INSERT): on
        # PostgreSQL without BEGIN and COMMIT/ROLLBACK round trips around it (every statement is
        # atomic on its own); SQLite keeps its transactions (no round trips to save there).
        self._single = self.sessions if self.engine.dialect.name == "sqlite" else sessionmaker(
            self.engine.execution_options(isolation_level="AUTOCOMMIT"), expire_on_commit=False)
        #: the engine ``_single`` runs on, for Core statements without a session
        self._single_engine = self.engine if self.engine.dialect.name == "sqlite" else \
            self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self.courses = CourseRepository(self.sessions)
        self.webhooks = WebhookRepository(self.sessions)
        self.content = ContentRepository(self.sessions)
        self.regrades = RegradeRepository(self.sessions, single=self._single)
        self.problem_trials = ProblemTrialRepository(self.sessions)
        self.lti = LtiRepository(self.sessions, single=self._single)
        self.overrides = OverrideRepository(self.sessions)
        self.extensions = ExtensionRepository(self.sessions)
        self.sign_ins = SignInRepository(self.sessions)

    def upgrade(self) -> tuple[str | None, str]:
        """Bring the schema to the newest revision (Alembic; see :mod:`grader.store.migrate`),
        under a lock so that processes starting together migrate once. Returns (revision before,
        revision after)."""
        from grader.store.migrate import upgrade

        return upgrade(self.engine)

    def create_all(self) -> None:
        """The name this step had before migrations: same as :meth:`upgrade`."""
        self.upgrade()

    def dispose(self) -> None:
        self.engine.dispose()

    # -- intake -------------------------------------------------------------------------------
    def create_submission(self, assignment_id: str, learner_id: str, responses: dict,
                          course_id: str = "local", assignment_version: int = 0,
                          callback_url: str | None = None, idempotency_key: str | None = None,
                          request_sha256: str | None = None) -> tuple[Submission, bool]:
        """Store a new submission durably (committed before this returns) with status ``queued``.

        With an ``idempotency_key``, the same key and the same request digest return the submission
        stored the first time (second value ``False``: nothing new was created), and a different
        digest raises :class:`IdempotencyConflict`. Concurrent posts with one key create one
        submission: the unique (course, key) constraint decides the race.
        """
        now = utcnow()
        submission = Submission(
            id=str(uuid.uuid4()), course_id=course_id, assignment_id=assignment_id,
            assignment_version=assignment_version, learner_id=learner_id, responses=responses,
            content_sha256=content_digest(assignment_id, learner_id, responses), status="queued",
            received_at=now, queued_at=now, attempts=0, callback_url=callback_url,
            idempotency_key=idempotency_key,
        )
        if idempotency_key is None and levers.enabled("intake"):
            # the same INSERT as Core on a connection: no session, no unit of work, no identity
            # map; the row written is the one the ORM writes (every column the object was
            # given, the others NULL), committed before this returns
            given = vars(submission)
            with self._single_engine.begin() as conn:
                conn.execute(_INSERT_SUBMISSION,
                             {key: given[key] for key in _SUBMISSION_KEYS if key in given})
            return submission, True
        try:
            # one INSERT without a key; with one, the idempotency record joins its transaction
            sessions = self._single if idempotency_key is None else self.sessions
            with sessions.begin() as session:
                session.add(submission)
                if idempotency_key is not None:
                    session.flush()
                    session.add(IdempotencyRecord(course_id=course_id, key=idempotency_key,
                                                  request_sha256=request_sha256 or "",
                                                  submission_id=submission.id, created_at=now))
        except IntegrityError:
            if idempotency_key is None:
                raise
            with self.sessions() as session:
                record = session.execute(select(IdempotencyRecord).where(
                    IdempotencyRecord.course_id == course_id,
                    IdempotencyRecord.key == idempotency_key)).scalar_one()
                if record.request_sha256 != (request_sha256 or ""):
                    raise IdempotencyConflict(record.submission_id) from None
                return session.get(Submission, record.submission_id), False
        return submission, True

    def forget_idempotency_keys(self, older_than: timedelta) -> int:
        """Delete idempotency records older than ``older_than`` (kept at least 24 h)."""
        from sqlalchemy import delete

        with self.sessions.begin() as session:
            return session.execute(delete(IdempotencyRecord).where(
                IdempotencyRecord.created_at < utcnow() - older_than)).rowcount

    def status(self, submission_id: str) -> str | None:
        """Only the status column (cheap enough to poll)."""
        with self._single() as session:
            return session.execute(select(Submission.status).where(
                Submission.id == submission_id)).scalar_one_or_none()

    def get(self, submission_id: str) -> Submission | None:
        with self._single() as session:
            return session.get(Submission, submission_id)

    def get_shown(self, submission_id: str):
        """The submission as ``GET /submissions/<id>`` shows it, or ``None``. With the
        ``intake`` lever (:mod:`grader.levers`): a read-only row of every column but
        ``responses`` (which the view never shows; the learner's code is not read nor
        decoded), by attribute like a :class:`Submission`, from one prepared Core ``SELECT`` on
        a connection (no session, no ORM load). Without it: :meth:`get`."""
        if not levers.enabled("intake"):
            return self.get(submission_id)
        with self._single_engine.connect() as conn:
            return conn.execute(_SELECT_SHOWN, {"submission_id": submission_id}).one_or_none()

    # -- transitions --------------------------------------------------------------------------
    def _transition(self, submission_id: str, from_states: Iterable[str], **values: Any) -> bool:
        with self._single.begin() as session:  # one conditional UPDATE
            result = session.execute(
                update(Submission)
                .where(Submission.id == submission_id, Submission.status.in_(list(from_states)))
                .values(**values)
            )
            return result.rowcount == 1

    def start(self, submission_id: str) -> Submission | None:
        """``queued|running -> running`` (counting the attempt) and return the row, in one
        ``UPDATE ... RETURNING``; ``None`` when already final (graded or failed).

        ``running`` is accepted so that a job redelivered after its worker died can take over.
        """
        if levers.enabled("statements"):  # the same UPDATE, built once, on a connection
            with self._single_engine.begin() as conn:
                row = conn.execute(_START, {"submission_id": submission_id,
                                            "now": utcnow()}).one_or_none()
            return None if row is None else Submission(**row._mapping)
        table = Submission.__table__
        with self._single.begin() as session:  # one UPDATE ... RETURNING (Core: no ORM load)
            row = session.execute(
                update(table)
                .where(table.c.id == submission_id, table.c.status.in_(["queued", "running"]))
                .values(status="running", started_at=utcnow(), attempts=table.c.attempts + 1)
                .returning(*table.c)
            ).one_or_none()
        return None if row is None else Submission(**row._mapping)

    def finish(self, submission_id: str, score: float, max_score: float, results: list,
               versions: dict | None = None, returning: bool = False) -> "bool | Submission":
        """``running -> graded`` with the results, and the first :class:`GradeRecord` of its
        history, in one transaction; False (nothing stored) when another run finished first.

        With ``returning``, the row as stored (``UPDATE ... RETURNING`` of every column but the
        two JSON ones, no ORM load) instead of True: ``results`` is the list given, ``responses``
        is not read (``None``), and ``finished_at`` is also the history record's time (when it
        was scored)."""
        if returning:
            return self._finish_returning(submission_id, score, max_score, results, versions)
        with self.sessions.begin() as session:
            changed = session.execute(
                update(Submission)
                .where(Submission.id == submission_id, Submission.status == "running")
                .values(status="graded", finished_at=utcnow(), score=score, max_score=max_score,
                        results=results, failure_reason=None)
            ).rowcount == 1
            if changed:  # (a Core INSERT: no unit-of-work flush for one row)
                session.execute(insert(GradeRecord).values(
                    submission_id=submission_id, trigger="initial", created_at=utcnow(),
                    score=score, max_score=max_score, results=results, versions=versions or {}))
            return changed

    def _finish_returning(self, submission_id: str, score: float, max_score: float,
                          results: list, versions: dict | None) -> "bool | Submission":
        now = utcnow()
        if levers.enabled("statements"):  # the same two statements, built once, on a connection
            values = {"submission_id": submission_id, "now": now, "new_score": score,
                      "new_max_score": max_score, "new_results": results,
                      "new_versions": versions or {}}
            with self.engine.begin() as conn:
                row = conn.execute(_FINISH, values).one_or_none()
                if row is None:
                    return False
                conn.execute(_INSERT_RECORD, values)
            return Submission(**row._mapping, results=results)
        table = Submission.__table__
        columns = [c for c in table.c if c.name not in ("responses", "results")]
        with self.sessions.begin() as session:
            row = session.execute(
                update(table)
                .where(table.c.id == submission_id, table.c.status == "running")
                .values(status="graded", finished_at=now, score=score, max_score=max_score,
                        results=results, failure_reason=None)
                .returning(*columns)
            ).one_or_none()
            if row is None:
                return False
            session.execute(insert(GradeRecord).values(
                submission_id=submission_id, trigger="initial", created_at=now, score=score,
                max_score=max_score, results=results, versions=versions or {}))
        return Submission(**row._mapping, results=results)

    def apply_regrade(self, submission_id: str, score: float, max_score: float, results: list,
                      versions: dict,
                      adjust: Callable[[list, dict[str, ScoreOverride]], tuple[list, float, float]]
                      | None = None) -> bool:
        """Store a regrade beside the earlier results and make it current. Only a graded
        submission is regraded; a failed run never reaches here, so it never replaces a score.
        ``adjust(results, overrides in force)`` -> ``(results, score, max_score)``, when given,
        makes the stored results from the regrade's under the same lock as an override is
        written with (:meth:`rewrite_graded`), so no override made meanwhile is lost."""
        if adjust is not None:
            def rewrite(_row, overrides):
                adjusted, new_score, new_max = adjust(results, overrides)
                return Rewrite(adjusted, new_score, new_max, versions=versions)

            return self.rewrite_graded(submission_id, rewrite, "regrade") is not None
        with self.sessions.begin() as session:
            changed = session.execute(
                update(Submission)
                .where(Submission.id == submission_id, Submission.status == "graded")
                .values(score=score, max_score=max_score, results=results)
            ).rowcount == 1
            if changed:
                session.add(GradeRecord(submission_id=submission_id, trigger="regrade",
                                        score=score, max_score=max_score, results=results,
                                        versions=versions))
            return changed

    def _lock(self, session, submission_id: str) -> Submission | None:
        """The submission's row, locked until the transaction ends: ``SELECT ... FOR UPDATE`` on
        PostgreSQL; on SQLite a write first, which takes the database's write lock before the
        read, so the read sees every committed change."""
        query = select(Submission).where(Submission.id == submission_id)
        if self.engine.dialect.name == "sqlite":
            session.execute(update(Submission).where(Submission.id == submission_id)
                            .values(status=Submission.status))
        else:
            query = query.with_for_update()
        return session.execute(query).scalar_one_or_none()

    def rewrite_graded(self, submission_id: str,
                       rewrite: Callable[[Submission, dict[str, ScoreOverride]], Rewrite | None],
                       trigger: str) -> Submission | None:
        """Change a graded submission's results in one transaction with the row locked:
        ``rewrite(row, overrides in force by item id)`` returns the :class:`Rewrite` (or
        ``None``: nothing to change). Stores the results and totals, one history record
        (``trigger``: ``regrade``, ``override``) and the rewrite's override decision. Returns
        the submission as stored, or ``None`` when it is not graded (or nothing changed)."""
        from grader.store.overrides import in_force

        with self.sessions.begin() as session:
            row = self._lock(session, submission_id)
            if row is None or row.status != "graded":
                return None
            decisions = list(session.execute(select(ScoreOverride).where(
                ScoreOverride.submission_id == submission_id)).scalars())
            change = rewrite(row, in_force(decisions))
            if change is None:
                return None
            versions = change.versions
            if versions is None:
                versions = session.execute(select(GradeRecord.versions).where(
                    GradeRecord.submission_id == submission_id).order_by(
                    GradeRecord.id.desc()).limit(1)).scalar_one_or_none() or {}
            row.score, row.max_score, row.results = change.score, change.max_score, change.results
            session.add(GradeRecord(submission_id=submission_id, trigger=trigger,
                                    created_at=utcnow(), score=change.score,
                                    max_score=change.max_score, results=change.results,
                                    versions=versions))
            if change.override is not None:
                session.add(ScoreOverride(course_id=row.course_id, submission_id=submission_id,
                                          created_at=utcnow(), **change.override))
        return row

    def grade_timeline(self, course_id: str, assignment_id: str
                       ) -> dict[str, list[tuple[datetime, float, dict]]]:
        """Every history record of the assignment's submissions in the course, without results:
        ``{submission id: [(created_at, score, versions), ...]}`` oldest first, in one query."""
        out: dict[str, list[tuple[datetime, float, dict]]] = {}
        with self._single() as session:
            rows = session.execute(
                select(GradeRecord.submission_id, GradeRecord.created_at, GradeRecord.score,
                       GradeRecord.versions)
                .join(Submission, Submission.id == GradeRecord.submission_id)
                .where(Submission.course_id == course_id,
                       Submission.assignment_id == assignment_id)
                .order_by(GradeRecord.id))
            for submission_id, created_at, score, versions in rows:
                out.setdefault(submission_id, []).append((created_at, score, versions or {}))
        return out

    def last_scored_at(self, submission_id: str) -> datetime | None:
        """When the submission's latest grading or regrade was stored (``None``: never): the
        newest history record's time, read without loading any record's results."""
        with self._single() as session:
            return session.execute(select(GradeRecord.created_at).where(
                GradeRecord.submission_id == submission_id).order_by(
                GradeRecord.id.desc()).limit(1)).scalar_one_or_none()

    def history(self, submission_id: str) -> list[GradeRecord]:
        with self.sessions() as session:
            return list(session.execute(select(GradeRecord).where(
                GradeRecord.submission_id == submission_id).order_by(GradeRecord.id)).scalars())

    def submissions_of(self, course_id: str, assignment_id: str,
                       statuses: Iterable[str] | None = None) -> list[Submission]:
        """A course's submissions to one assignment, oldest first."""
        with self.sessions() as session:
            query = select(Submission).where(Submission.course_id == course_id,
                                             Submission.assignment_id == assignment_id)
            if statuses is not None:
                query = query.where(Submission.status.in_(list(statuses)))
            return list(session.execute(query.order_by(Submission.received_at,
                                                       Submission.id)).scalars())

    def course_learners(self, course_id: str) -> set[str]:
        """The learners the course knows: those with a submission to any of its assignments
        and those an LMS launched (LTI grade targets), without anonymous practice learners
        (``practice-...``). Two queries."""
        from grader.store.lti_models import LtiGradeTarget

        with self._single() as session:
            found = set(session.execute(select(Submission.learner_id).where(
                Submission.course_id == course_id).distinct()).scalars())
            found |= set(session.execute(select(LtiGradeTarget.learner_id).where(
                LtiGradeTarget.course_id == course_id).distinct()).scalars())
        return {learner for learner in found if not learner.startswith("practice-")}

    def attempts_of(self, course_id: str, assignment_id: str, learner_id: str,
                    limit: int = 100) -> list[Submission]:
        """One learner's submissions to one assignment of a course, newest first (at most
        ``limit``): the learner page's list of previous attempts."""
        with self.sessions() as session:
            return list(session.execute(select(Submission).where(
                Submission.course_id == course_id, Submission.assignment_id == assignment_id,
                Submission.learner_id == learner_id).order_by(
                Submission.received_at.desc(), Submission.id.desc()).limit(limit)).scalars())

    def fail(self, submission_id: str, reason: str) -> bool:
        """``queued|running -> failed`` for infrastructure faults; never touches a graded row."""
        return self._transition(
            submission_id, ["queued", "running"], status="failed", finished_at=utcnow(),
            failure_reason=reason,
        )

    def requeue(self, submission_id: str, reason: str | None = None) -> bool:
        """``queued|running -> queued`` (a retry or the sweep re-queues it)."""
        return self._transition(
            submission_id, ["queued", "running"], status="queued", queued_at=utcnow(),
            failure_reason=reason,
        )

    def stale(self, older_than: timedelta, now: datetime | None = None) -> list[Submission]:
        """Submissions left ``queued`` or ``running`` since before ``now - older_than``."""
        cutoff = (now or utcnow()) - older_than
        with self.sessions() as session:
            rows = session.execute(
                select(Submission).where(
                    (
                        (Submission.status == "queued") & (Submission.queued_at < cutoff)
                    ) | (
                        (Submission.status == "running") & (Submission.started_at < cutoff)
                    )
                )
            ).scalars()
            return list(rows)
