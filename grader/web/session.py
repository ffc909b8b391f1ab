"""Who is using the web pages: a :class:`LearnerSession` kept in Flask's signed session cookie.

An LTI launch (``grader/lti/``) verifies the platform's id_token, then calls :func:`begin` with the
learner (or instructor) it names and redirects to ``url_for("web.learn", assignment_id=...)`` or
``url_for("web.instructor", assignment_id=...)``. On the embedded default, a visitor of a practice
page gets an anonymous learner of the local course (:func:`practice_session`).

The cookie is signed (itsdangerous, with a key derived from ``GRADER_SECRET_KEY``), not encrypted:
it holds ids and names, never a secret. :func:`begin` clears everything the session held (the
CSRF token included) and draws a new random session id, so a session planted before a launch
(session fixation) never carries over into it. One thing carries over, and only to the same
person: when the same learner (same course, learner id and role) launches a second assignment
in the same browser, the assignments launched before stay open to them (``launched``, the
newest :data:`MAX_LAUNCHED`), so two activities opened from the LMS in two tabs both submit.
The form token (CSRF) carries over with them, so the earlier tab's form still posts. Each of
those assignments was opened by a verified launch of that learner; a session never opens an
assignment that no launch or sign-in of its learner opened.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from flask import session

ROLES = ("learner", "instructor")
SESSION_KEY = "grader.learner"
#: The serialised session must fit one cookie (browsers keep 4096 bytes per cookie, name included).
MAX_SESSION_BYTES = 3000
#: How many earlier launched assignments a session keeps open (the newest; older ones are
#: forgotten, and a launch opens them again).
MAX_LAUNCHED = 20
#: Where Flask-WTF keeps the session's CSRF token (``WTF_CSRF_FIELD_NAME``, its default).
CSRF_SESSION_KEY = "csrf_token"


@dataclass(frozen=True)
class LearnerSession:
    """A signed-in learner or instructor of one course.

    ``learner_id`` is the id submissions are stored under (for LTI, the platform's ``sub`` claim,
    made unique per platform by the LTI tool); ``role`` is ``"learner"`` or ``"instructor"``;
    ``assignment_id`` is the one assignment a resource-link launch opened (the session may then
    only use that assignment) or ``None`` (any assignment of the course); ``name`` is a display
    name (may be empty); ``lti`` is an opaque JSON-serialisable mapping the LTI tool keeps with
    the session (platform, deployment, resource link, line item), or ``None``; ``launched``
    the assignments this learner's earlier launches in this browser opened (oldest first, at
    most :data:`MAX_LAUNCHED`; filled by :func:`begin`), which the session may also use.
    Raises ``ValueError`` for an unknown role or an empty course or learner id.
    """

    course_id: str
    learner_id: str
    role: Literal["learner", "instructor"] = "learner"
    assignment_id: str | None = None
    name: str = ""
    lti: dict[str, Any] | None = field(default=None)
    launched: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.launched, (list, tuple)) or not all(
                isinstance(a, str) for a in self.launched):
            raise ValueError("launched must be a list of assignment ids")
        object.__setattr__(self, "launched", tuple(self.launched))
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {self.role!r}")
        if not self.course_id or not isinstance(self.course_id, str):
            raise ValueError("course_id must be a non-empty string")
        if not self.learner_id or not isinstance(self.learner_id, str):
            raise ValueError("learner_id must be a non-empty string")

    @property
    def is_instructor(self) -> bool:
        return self.role == "instructor"

    def may_open(self, assignment_id: str) -> bool:
        """Whether this session may use ``assignment_id``: any when it is not bound to a launch,
        else the one its launch opened or one an earlier launch of the same learner opened."""
        return (self.assignment_id is None or self.assignment_id == assignment_id
                or assignment_id in self.launched)

    @property
    def opened(self) -> tuple[str, ...]:
        """The assignments a launch-bound session may use, newest first (empty: any)."""
        if self.assignment_id is None:
            return ()
        return (self.assignment_id, *reversed(self.launched))

    def same_person(self, other: "LearnerSession") -> bool:
        """Whether ``other`` is the same learner in the same role of the same course."""
        return (self.course_id, self.learner_id, self.role) == \
            (other.course_id, other.learner_id, other.role)


def _size(learner: LearnerSession) -> int:
    return len(json.dumps(asdict(learner), separators=(",", ":")).encode())


def with_earlier_launches(learner: LearnerSession, previous: LearnerSession | None) \
        -> LearnerSession:
    """``learner`` (a new launch) keeping the assignments ``previous`` (the session it
    replaces) had open, when both are launches of the same person (:meth:`LearnerSession.
    same_person`): the newest :data:`MAX_LAUNCHED`, fewer when the cookie would not hold them.
    Anyone else's session, or an unbound one, adds nothing."""
    if previous is None or learner.assignment_id is None or previous.assignment_id is None \
            or not learner.same_person(previous):
        return learner
    order = [*learner.launched, *previous.launched, previous.assignment_id]
    kept: list[str] = []
    for assignment_id in reversed(order):  # newest first, each once
        if assignment_id != learner.assignment_id and assignment_id not in kept:
            kept.append(assignment_id)
    kept = kept[:MAX_LAUNCHED]
    merged = replace(learner, launched=tuple(reversed(kept)))
    while merged.launched and _size(merged) > MAX_SESSION_BYTES:
        merged = replace(merged, launched=merged.launched[1:])  # forget the oldest
    return merged


def begin(learner: LearnerSession, permanent: bool = False) -> None:
    """Sign ``learner`` in (inside a request): forget everything the session held, draw a new
    session id, and store ``learner`` (with the assignments the same person's earlier launches
    opened: :func:`with_earlier_launches`). ``permanent`` keeps the cookie past the browser
    session (``PERMANENT_SESSION_LIFETIME``). Raises ``ValueError`` when the session would not
    fit in a cookie (keep ``lti`` small: ids and URLs, not whole claims)."""
    previous = current()
    learner = with_earlier_launches(learner, previous)
    # the same person launching again keeps the form token, so the page of an earlier launch
    # (another tab) still posts; anyone else's session keeps nothing
    carried = learner.launched and previous is not None and learner.same_person(previous)
    csrf = session.get(CSRF_SESSION_KEY) if carried else None
    data = asdict(learner)
    encoded = json.dumps(data, separators=(",", ":"))
    if len(encoded.encode()) > MAX_SESSION_BYTES:
        raise ValueError(f"the session is {len(encoded.encode())} bytes once serialised; at most "
                         f"{MAX_SESSION_BYTES} fit in a cookie (keep LearnerSession.lti small)")
    session.clear()
    session["sid"] = secrets.token_urlsafe(16)
    if isinstance(csrf, str):
        session[CSRF_SESSION_KEY] = csrf
    session[SESSION_KEY] = data
    if permanent:
        session.permanent = True


def current() -> LearnerSession | None:
    """The signed-in learner or instructor of this request, or ``None``."""
    data = session.get(SESSION_KEY)
    if not isinstance(data, dict):
        return None
    try:
        return LearnerSession(**data)
    except (TypeError, ValueError):  # a session written by an older version: sign in again
        return None


def end() -> None:
    """Forget the signed-in learner (and the CSRF token)."""
    session.clear()


def practice_session(course_id: str) -> LearnerSession:
    """A new anonymous learner of ``course_id`` for the embedded default's practice pages: a
    random id (``practice-`` and 16 hex digits) that the session cookie keeps."""
    return LearnerSession(course_id=course_id, learner_id=f"practice-{secrets.token_hex(8)}",
                          role="learner", assignment_id=None, name="")
