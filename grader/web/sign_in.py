"""Instructor sign-in without an LMS: with an instructor API key of the course, or with a link that
``grader instructor-link`` prints (single use, expiring: :mod:`grader.store.sign_ins`).

Both end in :func:`grader.web.session.begin`, as an LTI launch does: the session is cleared and
gets a new id (no session fixation), the cookie follows the same rules (``grader/web/cookies.py``),
and every form is a POST checked by the same CSRF protection. A link opens a page with a button;
only the button's POST signs in, so a mail scanner or a link preview fetching the link does not
use it up. ``next`` must be a path of these pages (``/learn/...``): nothing redirects elsewhere.
The paths are outside ``/learn/<assignment>`` so that no assignment id can shadow them.

- ``GET /instructor/sign-in``: the form (an instructor key).
- ``POST /instructor/sign-in``: sign in with ``key``; 401 with the form again when the key
  is not a valid instructor key.
- ``GET|POST /instructor/sign-in/<secret>``: a printed link.
- ``GET /instructor``: the course's assignments with their instructor pages (drafts too).
- ``POST /sign-out``: end the session.
"""
from __future__ import annotations

from flask import current_app, redirect, render_template, request, url_for
from flask_wtf.csrf import CSRFError

from grader.api.state import state
from grader.web import problem_versions
from grader.web.access import PageError, SignInRequired
from grader.web.blueprint import bp
from grader.web.session import LearnerSession, begin, current, end

#: The longest key or link secret read from a form (a key is 61 characters).
MAX_SECRET = 200


def safe_next(value: str | None) -> str:
    """``value`` when it is a path of these pages (``/learn/...``, ``/instructor``), else the
    course index."""
    if value and (value.startswith("/learn/") or value == "/instructor") \
            and "//" not in value and "\\" not in value:
        return value
    return url_for("web.instructor_index")


def render_sign_in(title: str, message: str, next_url: str | None, error: str | None = None,
                   status: int = 200):
    return render_template("web/sign_in.html", title=title, message=message,
                           next_url=safe_next(next_url), error=error), status


def _protect() -> bool:
    try:
        current_app.extensions["csrf"].protect()
        return True
    except CSRFError:
        return False


def _instructor(course_id: str, learner_id: str, name: str,
                assignment_id: str | None = None) -> LearnerSession:
    return LearnerSession(course_id=course_id, learner_id=learner_id, role="instructor",
                          assignment_id=assignment_id, name=name)


@bp.get("/instructor/sign-in")
def sign_in_form():
    """The instructor sign-in form."""
    return render_sign_in("Sign in as an instructor", "Sign in with an instructor key of your "
                          "course (the key you use for the API).", request.args.get("next"))


@bp.post("/instructor/sign-in")
def sign_in_with_key():
    """Sign in with an instructor key (CSRF-checked form post)."""
    next_url = request.form.get("next")
    if not _protect():
        return render_sign_in("Sign in as an instructor", "The form had expired.", next_url,
                              "The form had expired; nothing was sent. Sign in again.", 400)
    key = (request.form.get("key") or "").strip()[:MAX_SECRET]
    principal = state().store.courses.authenticate(key) if key else None
    if principal is None or principal.role != "instructor":
        current_app.logger.info("instructor sign-in refused")
        return render_sign_in("Sign in as an instructor", "Sign in with an instructor key of "
                              "your course.", next_url, "That is not a valid instructor key (it "
                              "may be mistyped, revoked, or a key of another role).", 401)
    begin(_instructor(principal.course_id, f"instructor-key-{principal.key_id}",
                      f"Instructor (key {principal.key_id})"))
    return redirect(safe_next(next_url), code=303)


@bp.route("/instructor/sign-in/<secret>", methods=["GET", "POST"])
def sign_in_with_link(secret: str):
    """A link from ``grader instructor-link``: a page with a button; the button signs in."""
    store = state().store
    secret = secret[:MAX_SECRET]
    link = store.sign_ins.peek(secret)
    if link is None:
        raise PageError(404, "This sign-in link cannot be used",
                        "The link was used already or has expired. Print a new one with "
                        "`grader instructor-link`, or sign in with an instructor key.")
    target = (url_for("web.instructor", assignment_id=link.assignment_id)
              if link.assignment_id else url_for("web.instructor_index"))
    if request.method == "GET" or not _protect():
        return render_template("web/sign_in_link.html", course_id=link.course_id,
                               target=target, expired=request.method == "POST")
    used = store.sign_ins.consume(secret)
    if used is None:
        raise PageError(404, "This sign-in link cannot be used",
                        "The link was used already or has expired.")
    begin(_instructor(used.course_id, "instructor-link", used.label or "Instructor"))
    return redirect(target, code=303)


@bp.get("/instructor")
def instructor_index():
    """The course's assignments (built-in ones and its own, drafts marked) and its authored
    code problems (each version's trial and the items that use it) for an instructor."""
    learner = current()
    if learner is None or not learner.is_instructor:
        raise SignInRequired(401 if learner is None else 403, "Sign in as an instructor",
                             "Sign in with an instructor key of your course, or open the "
                             "instructor view from your course's learning platform (LMS).",
                             request.path)
    assignments = state().catalog.visible(learner.course_id)
    if learner.assignment_id is not None:
        assignments = [a for a in assignments if learner.may_open(a.id)]
    return render_template("web/instructor_index.html", learner=learner,
                           assignments=assignments, problems=problem_versions.problem_rows(
                               state().store, learner.course_id, assignments))


@bp.post("/sign-out")
def sign_out():
    """End the session (CSRF-checked); back to the sign-in form."""
    if _protect():
        end()
    return redirect(url_for("web.sign_in_form"), code=303)
