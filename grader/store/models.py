"""Tables. A submission row is written (with a server timestamp and the SHA-256 of its content)
before anything is queued; the task carries only its id."""
from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (JSON, Boolean, DateTime, Float, ForeignKey, Integer, String, Text,
                        TypeDecorator, UniqueConstraint)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from grader.safetext import clean_text, clean_tree


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator):
    """A timestamp that is always read back timezone-aware in UTC (SQLite stores none)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(timezone.utc)
            if dialect.name == "sqlite":
                value = value.replace(tzinfo=None)
        return value

    def process_result_value(self, value, dialect):
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value


class CleanJSON(TypeDecorator):
    """A JSON column whose every string is valid Unicode without control characters, written
    and read (:func:`grader.safetext.clean_tree`): what a learner's process produced cannot be
    stored so that a page showing it fails, and a row stored before this check (an unpaired
    surrogate) is read cleaned. Stored as ``JSON``, as before."""

    impl = JSON
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return clean_tree(value)

    def process_result_value(self, value, dialect):
        return clean_tree(value)


class CleanText(TypeDecorator):
    """A ``Text`` column cleaned like :class:`CleanJSON` (written and read)."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return value if value is None else clean_text(value)

    def process_result_value(self, value, dialect):
        return value if value is None else clean_text(value)


class Base(DeclarativeBase):
    pass


class Submission(Base):
    """One learner's responses to one assignment, and the current grading outcome.

    ``status`` moves ``queued -> running -> graded | failed`` (and back to ``queued`` when the sweep or
    a retry re-queues it). ``results`` holds the item results in Gradescope's layout once graded.
    """

    __tablename__ = "submissions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    course_id: Mapped[str] = mapped_column(String(64), index=True, default="local")
    assignment_id: Mapped[str] = mapped_column(String(200), index=True)
    assignment_version: Mapped[int] = mapped_column(Integer, default=0)
    learner_id: Mapped[str] = mapped_column(String(200), index=True)
    responses: Mapped[dict] = mapped_column(JSON)
    content_sha256: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), index=True, default="queued")
    received_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    queued_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    max_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    results: Mapped[list | None] = mapped_column(CleanJSON, nullable=True)
    failure_reason: Mapped[str | None] = mapped_column(CleanText, nullable=True)
    callback_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    idempotency_key: Mapped[str | None] = mapped_column(String(255), nullable=True)


class GradeRecord(Base):
    """Every stored grading of a submission (the first one and each applied regrade), kept as
    history. ``versions`` records what it was scored with (rubric and test-suite versions)."""

    __tablename__ = "grade_records"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id"), index=True)
    #: What stored it: "initial" (the first grading) | "regrade" (an applied regrade) |
    #: "override" (an instructor set or removed an item's score). The table column and the
    #: history endpoint's field keep their name ``kind``.
    trigger: Mapped[str] = mapped_column("kind", String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    score: Mapped[float] = mapped_column(Float)
    max_score: Mapped[float] = mapped_column(Float)
    results: Mapped[list] = mapped_column(CleanJSON)
    versions: Mapped[dict] = mapped_column(JSON, default=dict)


class Course(Base):
    """A course owns assignments, rubrics and submissions. ``webhook_secret`` signs its webhooks."""

    __tablename__ = "courses"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    webhook_secret: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    #: The IANA time zone (``Europe/Berlin``) in which the course's dates without a UTC offset
    #: are read (an assignment's or an extension's ``due_at``); ``None``: UTC.
    time_zone: Mapped[str | None] = mapped_column(String(64), nullable=True)


class ApiKey(Base):
    """An API key, stored as the SHA-256 of its secret; the plaintext is shown once at creation.
    ``role`` is ``admin`` (courses and keys; no course), ``instructor`` or ``lms`` (one course)."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)  # also the key's public prefix
    digest: Mapped[str] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(16))
    course_id: Mapped[str | None] = mapped_column(ForeignKey("courses.id"), nullable=True)
    label: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)


class IdempotencyRecord(Base):
    """An ``Idempotency-Key`` seen on a submission POST, per course, kept at least 24 h."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("course_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String(64))
    key: Mapped[str] = mapped_column(String(255))
    request_sha256: Mapped[str] = mapped_column(String(64))
    submission_id: Mapped[str] = mapped_column(String(36))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class AssignmentRecord(Base):
    """An instructor-made assignment (built-in ones come from ``rubrics/``). Each edit adds a
    version; ``document`` is the assignment mapping in the same layout as the content files."""

    __tablename__ = "assignments"
    __table_args__ = (UniqueConstraint("course_id", "assignment_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String(64), index=True)
    assignment_id: Mapped[str] = mapped_column(String(200))
    version: Mapped[int] = mapped_column(Integer)
    document: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class RubricRecord(Base):
    """One version of an uploaded rubric (``source`` as uploaded, ``document`` parsed)."""

    __tablename__ = "rubrics"
    __table_args__ = (UniqueConstraint("course_id", "rubric_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String(64), index=True)
    rubric_id: Mapped[str] = mapped_column(String(200))
    version: Mapped[int] = mapped_column(Integer)
    document: Mapped[dict] = mapped_column(JSON)
    source: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ProblemRecord(Base):
    """One version of an instructor-authored code problem (:mod:`grader.problems.authored`):
    ``source`` as uploaded, ``document`` parsed, ``expected`` the visible examples' values the
    sandbox computed at upload (:func:`grader.problems.authored.executor.encode`) and ``trial``
    the upload's trial report. ``status``: ``passed`` (usable by code items), or, while the trial
    of an upload runs on a worker (production mode), ``pending``, then ``passed``, ``refused``
    (the reference failed) or ``failed`` (the trial could not run); ``expected`` and ``trial``
    are empty until it passes."""

    __tablename__ = "problems"
    __table_args__ = (UniqueConstraint("course_id", "problem_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String(64), index=True)
    problem_id: Mapped[str] = mapped_column(String(200))
    version: Mapped[int] = mapped_column(Integer)
    document: Mapped[dict] = mapped_column(JSON)
    source: Mapped[str] = mapped_column(Text)
    expected: Mapped[dict] = mapped_column(JSON)
    trial: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    status: Mapped[str] = mapped_column(String(16), default="passed", server_default="passed")


class ProblemTrialRun(Base):
    """One trial of a stored problem version run on a Celery worker (production mode: the API
    process has no sandbox): ``queued``, ``running``, then ``done`` with ``report`` (the trial's
    JSON report) or ``failed`` with ``error``. ``decides``: the trial of a version not yet passed
    (an upload's), whose outcome becomes the version's ``status``."""

    __tablename__ = "problem_trials"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    course_id: Mapped[str] = mapped_column(String(64), index=True)
    problem_id: Mapped[str] = mapped_column(String(200))
    version: Mapped[int] = mapped_column(Integer)
    mutants: Mapped[bool] = mapped_column(Boolean, default=True)
    decides: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    #: when its message was last sent to the broker (the sweep sends a queued run again)
    sent_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    #: when a worker last started it, and how many times (the sweep queues a run left
    #: ``running`` again, or fails it after ``MAX_GRADING_ATTEMPTS``)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    report: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)


class WebhookDelivery(Base):
    """One event to deliver to one target through one channel, with its attempts: the delivery
    log (see :mod:`grader.notify`). ``channel`` names the sender (``webhook``: a signed POST to a
    callback URL; other kinds, such as an LTI score, join with their own name); ``url`` is the
    target. Retried with exponential backoff and jitter until a 2xx answer or ``give_up_at`` (at
    least 24 h after the event).

    ``status`` is ``pending`` (``next_attempt_at`` set), ``delivered`` (``delivered_at`` set),
    ``gave_up`` or ``superseded`` (a newer result of the same submission went to the same target
    first); ``next_attempt_at`` is empty once the delivery is no longer pending. A replay is a new
    delivery whose ``replay_of`` names the one replayed; rows are never reopened."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)  # also the event id
    course_id: Mapped[str] = mapped_column(String(64), index=True)
    submission_id: Mapped[str] = mapped_column(String(36), index=True)
    event: Mapped[str] = mapped_column(String(64))
    url: Mapped[str] = mapped_column(Text)
    payload: Mapped[dict] = mapped_column(CleanJSON)
    # pending|delivered|gave_up|superseded
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True,
                                                             default=utcnow)
    give_up_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    channel: Mapped[str] = mapped_column(String(32), default="webhook",
                                         server_default="webhook")
    replay_of: Mapped[str | None] = mapped_column(String(36), nullable=True)


class RegradeRun(Base):
    """A regrade of an assignment: a dry run's report, or an applied run's report."""

    __tablename__ = "regrades"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    course_id: Mapped[str] = mapped_column(String(64), index=True)
    assignment_id: Mapped[str] = mapped_column(String(200))
    dry_run: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16), default="queued")  # queued|running|done|failed
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    report: Mapped[list | None] = mapped_column(JSON, nullable=True)
    #: What the run applies, per item, and what the submissions were scored with before (old ->
    #: new rubric, key and problem versions): :func:`grader.grading.regrade.run_regrade`.
    versions: Mapped[dict | None] = mapped_column(JSON, nullable=True)


class ScoreOverride(Base):
    """One instructor decision on one item of one graded submission: the item's score set to
    ``score`` with ``comment`` (``score`` ``None``: an earlier override removed, the engine's score
    counts again). Rows are never changed or deleted: together they are the submission's audit
    list; the newest row of an item is in force. ``engine_score`` is what the tests gave the item
    then (after any late penalty), ``previous_score`` what the item scored before this row."""

    __tablename__ = "score_overrides"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String(64), index=True)
    submission_id: Mapped[str] = mapped_column(String(36), index=True)
    item_id: Mapped[str] = mapped_column(String(200))
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    previous_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    engine_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    comment: Mapped[str] = mapped_column(Text, default="")
    #: who decided: ``key:<api key id>`` or the signed-in instructor's ``learner id (name)``
    author: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LateExtension(Base):
    """A learner's own due date for one assignment (an extension): ``due_at`` as the instructor
    wrote it, ISO 8601, read in the course's time zone when it has no UTC offset. One per
    learner and assignment; setting it again replaces it."""

    __tablename__ = "late_extensions"
    __table_args__ = (UniqueConstraint("course_id", "assignment_id", "learner_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String(64), index=True)
    assignment_id: Mapped[str] = mapped_column(String(200))
    learner_id: Mapped[str] = mapped_column(String(200))
    due_at: Mapped[str] = mapped_column(String(64))
    author: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class InstructorSignIn(Base):
    """A sign-in link for the instructor pages printed by ``grader instructor-link``: single use
    (``used_at``), expiring, for one course (and optionally one assignment). ``id`` is the
    SHA-256 of the link's secret; the secret itself is never stored."""

    __tablename__ = "instructor_sign_ins"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    course_id: Mapped[str] = mapped_column(String(64))
    assignment_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    label: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
