"""Who may open which page: the signed-in :class:`~grader.web.session.LearnerSession`, or, on a
practice page, an anonymous learner of the local course.

Practice pages (``WEB_PRACTICE``): ``auto`` (default) opens them on the embedded default only (a
laptop or a classroom server run with ``make run``: anyone who can reach the address may submit
and see feedback, under an anonymous learner id the session cookie keeps); ``1`` always; ``0``
never (then only an LTI launch signs a learner in).
"""
from __future__ import annotations

from flask import current_app, request

from grader.api.state import state
from grader.config import auto_flag
from grader.web.session import LearnerSession, begin, current, practice_session


class PageError(Exception):
    """Answer with the error page: ``status``, a short ``title`` and a ``message`` saying what to
    do next."""

    def __init__(self, status: int, title: str, message: str):
        super().__init__(message)
        self.status, self.title, self.message = status, title, message


class SignInRequired(PageError):
    """An instructor page opened without an instructor session: answered with the sign-in page
    (an instructor key, or a link printed by ``grader instructor-link``; :mod:`grader.web.
    sign_in`), which then returns to ``next_url``."""

    def __init__(self, status: int, title: str, message: str, next_url: str):
        super().__init__(status, title, message)
        self.next_url = next_url


def practice_enabled() -> bool:
    """Whether anonymous visitors get a practice learner (see the module docstring)."""
    return auto_flag(state().config, "WEB_PRACTICE")


def signed_in(assignment_id: str, instructor: bool = False) -> LearnerSession:
    """The session allowed to open ``assignment_id``; on a practice page a new anonymous learner
    is signed in. Raises :class:`PageError` 401 (nobody signed in and no practice), 403 (another
    assignment's launch, or not an instructor when ``instructor``)."""
    learner = current()
    if learner is None:
        if instructor:
            raise SignInRequired(401, "Sign in as an instructor",
                                 "Open this page from your course's learning platform (LMS), or "
                                 "sign in here with an instructor key of the course.",
                                 request.path)
        if not practice_enabled():
            raise PageError(401, "Please open this page from your course",
                            "This page opens from your course's learning platform (LMS). Go back "
                            "to your course and follow the assignment's link again.")
        learner = practice_session(state().config["LOCAL_COURSE"])
        begin(learner)
    if not learner.may_open(assignment_id):
        opened = ", ".join(repr(a) for a in learner.opened[:5])
        raise PageError(403, "This page belongs to another assignment",
                        f"This browser opened {opened} from your course, not {assignment_id!r}; "
                        "follow the link of this assignment in your course to open it.")
    if instructor and not learner.is_instructor:
        raise SignInRequired(403, "For instructors only",
                             "The instructor view opens from your course with an instructor "
                             "role, or with an instructor key of the course (signing in here "
                             "ends your learner session).", request.path)
    return learner


def assignment_for(learner: LearnerSession, assignment_id: str):
    """The assignment as the learner's course sees it; :class:`PageError` 404 when there is
    none, and for a learner when it is a draft (instructors open drafts to try them)."""
    assignment = state().catalog.get(learner.course_id, assignment_id)
    if assignment is None:
        raise PageError(404, "No such assignment",
                        f"There is no assignment {assignment_id!r} in this course.")
    if not assignment.published and not learner.is_instructor:
        raise PageError(404, "This assignment is not open yet",
                        "Your instructor has not published this assignment yet; come back "
                        "later, or follow the link your course gives.")
    return assignment


def submission_for(learner: LearnerSession, assignment_id: str, submission_id: str):
    """A submission the learner may see: their own (an instructor: any of the course) to this
    assignment; :class:`PageError` 404 otherwise (as if it did not exist)."""
    submission = state().store.get(submission_id)
    if (submission is None or submission.course_id != learner.course_id
            or submission.assignment_id != assignment_id
            or not (learner.is_instructor or submission.learner_id == learner.learner_id)):
        raise PageError(404, "No such submission",
                        "This submission does not exist or is not yours.")
    return submission


def wants_json() -> bool:
    """Whether the request prefers JSON to HTML (the page's script sends ``Accept:
    application/json``): its refusals are then JSON too, never an HTML page."""
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" and request.accept_mimetypes[best] > \
        request.accept_mimetypes["text/html"]


def log_refusal(error: PageError) -> None:
    current_app.logger.info("web page refused: %s %s", error.status, error.title)
