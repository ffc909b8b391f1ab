"""The learner page: an assignment's items in a form, submission, progress and the result page.

Without JavaScript: ``POST /learn/<assignment>`` stores the submission through the REST API's
intake (same validation, store-then-queue, idempotency) and answers ``303`` to the result page,
which waits on the server (up to ``WEB_WAIT_SECONDS``, default 25) until the submission is graded
and then renders the feedback; a submission still grading after that shows a "Check again" link.
With JavaScript (``static/js/learn.js``) the same form posts in the background
(``Accept: application/json`` answers ``202`` with the URLs), the page shows progress while it
long-polls ``.../status``, and inserts the feedback when it is final, without a reload.
Forms carry a CSRF token (Flask-WTF's ``CSRFProtect``; a failed check re-renders the form with
the learner's answers kept).
"""
from __future__ import annotations

import hashlib
import secrets

from flask import (current_app, jsonify, redirect, render_template, request, url_for)
from flask_wtf.csrf import CSRFError

from grader.api.assignments import assignment_view
from grader.api.errors import ApiError
from grader.api.prechecks import check_precheck_rate, run_prechecks
from grader.api.ratelimit import client_address, page_limits
from grader.api.state import state
from grader.api.submissions import (FINAL, intake, learner_items, request_digest,
                                    validate_responses)
from grader.auth import Principal
from grader.items import get_kind
from grader.items.code import MAX_SOURCE_CHARS
from grader.items.notebook import MAX_NOTEBOOK_CHARS
from grader.store.pending import replays
from grader.web import feedback
from grader.web.access import assignment_for, signed_in, submission_for, wants_json
from grader.web.blueprint import bp
from grader.web.limits import Throttled, check_rate, practice_admission

#: ``app.extensions`` key of the :class:`grader.web.limits.PendingByAddress` of practice pages.
PRACTICE_PENDING = "grader_practice_pending"

FIELD = "response-"  # form field of an item: response-<item id>
NOTEBOOK_FIELD = "notebook-"  # a code item's notebook upload: notebook-<item id>
MAX_WAIT = 25.0


def wait_seconds(requested: str | None, default: float) -> float:
    """``?wait=`` as seconds, between 0 and ``WEB_WAIT_SECONDS`` (default 25); 0 when
    unparseable."""
    limit = float(state().config.get("WEB_WAIT_SECONDS", MAX_WAIT))
    if requested is None:
        return min(default, limit)
    try:
        value = float(requested)
    except ValueError:
        return 0.0
    return min(max(value, 0.0), limit) if value == value else 0.0


def wait_until_final(submission_id: str, seconds: float):
    """The submission once final, or as it is after ``seconds`` (woken when it is announced
    final, like the API's long-poll: :mod:`grader.wakeup`)."""
    from grader.api.submissions import wakeups

    store = state().store
    wakeups().wait_final(lambda: store.status(submission_id), submission_id, seconds)
    return store.get(submission_id)


def responses_from_form(assignment, form, files=None) -> tuple[dict, dict]:
    """``(responses, answers)`` from the posted form: ``responses`` in the API's shape for the
    items answered (blank code or text and unselected choices are left out, so they score 0
    with a note), ``answers`` every field as typed (to fill the form again). A Jupyter notebook
    uploaded for a code item (``files``, field ``notebook-<item id>``) is its response
    (``{"notebook": <its text>}``, :mod:`grader.items.notebook`) instead of the code box.
    Line breaks come back as the box had them: a browser posts each one as CR LF, which would
    count two characters against the limit its ``maxlength`` counted as one."""
    responses, answers = {}, {}
    for item in assignment.items.values():
        value = form.get(FIELD + item.id)
        if value is not None:
            value = value.replace("\r\n", "\n")
            answers[item.id] = value
        notebook = _uploaded_notebook(files, item) if item.kind == "code" else None
        if notebook is not None:
            responses[item.id] = {"notebook": notebook}
            continue
        if value is None or not value.strip():
            continue
        responses[item.id] = {get_kind(item.kind).response_field: value}
    return responses, answers


def _uploaded_notebook(files, item) -> str | None:
    """The text of the notebook uploaded for ``item`` (UTF-8, as .ipynb files are), or ``None``
    when no file was chosen. At most one character more than a notebook may have is read, so
    a larger file is refused by the validation that follows."""
    upload = files.get(NOTEBOOK_FIELD + item.id) if files is not None else None
    if upload is None or not upload.filename:
        return None
    data = upload.stream.read(MAX_NOTEBOOK_CHARS * 4 + 1)
    return data.decode("utf-8", errors="replace")


def _previous_answers(attempts) -> dict:
    """The learner's answers of their latest attempt, to fill the form with."""
    if not attempts:
        return {}
    answers = {}
    for item_id, response in (attempts[0].responses or {}).items():
        if isinstance(response, dict):
            value = response.get("code", response.get("text", response.get("choice")))
            if isinstance(value, str):
                answers[item_id] = value
    return answers


def _marked_lines(result: dict | None, latest, attempts) -> dict[str, list[dict]]:
    """Per code item, the lines of the latest graded attempt's code that its feedback names
    (:func:`grader.web.feedback.error_lines`), for the editor to mark, when the editor shows
    that attempt's code (its code box, not a notebook; and no newer attempt is pending)."""
    if result is None or not attempts or attempts[0].id != latest.id:
        return {}
    return {item["id"]: [line for line in item["code_lines"] if line["marked"]]
            for item in result["items"] if item["editor_lines"]}


def _result(submission, assignment) -> dict:
    return feedback.submission_view(submission, learner_items(submission), assignment)


def _attempt_rows(attempts, assignment_id: str) -> list[dict]:
    rows = []
    for number, attempt in zip(range(len(attempts), 0, -1), attempts):
        rows.append({"number": number, "id": attempt.id, "status": attempt.status,
                     "received_at": attempt.received_at,
                     "score": feedback.points(attempt.score),
                     "max_score": feedback.points(attempt.max_score),
                     "url": url_for("web.result", assignment_id=assignment_id,
                                    submission_id=attempt.id)})
    return rows


def form_limits() -> dict[str, int]:
    """The limits the server enforces on the form's answers, shown beside each box before
    submitting (and set as the boxes' ``maxlength``): characters of code
    (:data:`grader.items.code.MAX_SOURCE_CHARS`) and of a text answer
    (:data:`grader.items.text.MAX_TEXT_CHARS`), characters of a notebook
    (:data:`grader.items.notebook.MAX_NOTEBOOK_CHARS`) and bytes of the whole post
    (``MAX_BODY_BYTES``). A text item's ``max_words`` is in its public view."""
    from grader.items.text import MAX_TEXT_CHARS

    return {"code_characters": MAX_SOURCE_CHARS, "text_characters": MAX_TEXT_CHARS,
            "notebook_characters": MAX_NOTEBOOK_CHARS,
            "body_bytes": int(current_app.config.get("MAX_CONTENT_LENGTH") or 0)}


def render_learn(learner, assignment, answers: dict | None = None, error: str | None = None,
                 status: int = 200, error_link: dict | None = None,
                 precheck: list[dict] | None = None):
    """The learner page: items, the form (filled with ``answers``, else the latest attempt's,
    else the starter code), the latest result and the previous attempts; ``error`` (with an
    optional ``error_link``, ``{"url", "text"}``) above the form; ``precheck`` the results of
    a check (:func:`check`) above the feedback."""
    attempts = state().store.attempts_of(learner.course_id, assignment.id, learner.learner_id)
    latest = next((a for a in attempts if a.status in FINAL), None)
    public = assignment_view(assignment)
    filled = answers if answers is not None else _previous_answers(attempts)
    result = _result(latest, assignment) if latest is not None else None
    page = render_template(
        "web/learn.html", learner=learner, assignment=public, answers=filled, error=error,
        error_link=error_link, precheck=precheck,
        field=FIELD, notebook_field=NOTEBOOK_FIELD, form_nonce=secrets.token_urlsafe(12),
        limits=form_limits(),
        latest=result, marks=_marked_lines(result, latest, attempts) if answers is None else {},
        pending=[a for a in attempts if a.status not in FINAL],
        attempts=_attempt_rows(attempts, assignment.id))
    return page, status


@bp.get("/learn/<assignment_id>")
def learn(assignment_id: str):
    """The learner page of ``assignment_id``."""
    learner = signed_in(assignment_id)
    return render_learn(learner, assignment_for(learner, assignment_id))


@bp.post("/learn/<assignment_id>")
def submit(assignment_id: str):
    """Submit the form: 303 to the result page (202 JSON for the page's script). Over a rate
    limit 429 with ``Retry-After``; with too many submissions pending 409 (the form again, with
    a link to the one being graded): :mod:`grader.web.limits`."""
    learner = signed_in(assignment_id)
    assignment = assignment_for(learner, assignment_id)
    responses, answers = responses_from_form(assignment, request.form, request.files)
    try:
        current_app.extensions["csrf"].protect()
    except CSRFError:
        message = ("The form had expired (or came from another site), so nothing was submitted. "
                   "Your answers are still below: submit again.")
        return _refuse(learner, assignment, answers, message, 400)
    if not responses:
        return _refuse(learner, assignment, answers, "Answer at least one item before submitting.",
                       422)
    principal = Principal(key_id="web", role="lms", course_id=learner.course_id)
    body = {"learner_id": learner.learner_id, "responses": responses}
    nonce = str(request.form.get("form_nonce", ""))[:64]
    key = f"web:{learner.learner_id}:{nonce}"[:255] if nonce else None
    digest = request_digest(assignment.id, body) if key else None
    # the same form posted again with other answers (Back, edit, submit) is a new attempt under
    # a key of its own (the form's key and these answers), so a double click of it is one too
    edited = ("web-edit:" + hashlib.sha256(f"{key}\0{digest}".encode()).hexdigest()
              if key else None)
    store = state().store
    cap = int(state().config.get("WEB_MAX_PENDING", 0) or 0) or None
    try:
        check_rate("submit", learner)
        with practice_admission(current_app.extensions[PRACTICE_PENDING], learner,
                                lambda: replays(store, learner.course_id, key, digest)
                                or replays(store, learner.course_id, edited, digest)) as admit:
            try:
                submission, created = intake(principal, assignment, body, key, max_pending=cap)
            except ApiError as error:
                if error.code != "idempotency_conflict":
                    raise
                # a new attempt, which has passed every check above as one
                submission, created = intake(principal, assignment, body, edited,
                                             max_pending=cap)
            if created:
                admit(submission.id)
    except Throttled as busy:
        return _refuse(learner, assignment, answers, busy.message, busy.status, busy.headers,
                       busy.code)
    except ApiError as error:
        link = _pending_link(learner, error) if error.code == "submission_pending" else None
        return _refuse(learner, assignment, answers, error.message, error.status, code=error.code,
                       link=link)
    result_url = url_for("web.result", assignment_id=assignment.id, submission_id=submission.id)
    if wants_json():
        return jsonify({"id": submission.id, "status": submission.status,
                        "result_url": result_url,
                        "status_url": url_for("web.status", assignment_id=assignment.id,
                                              submission_id=submission.id)}), 202
    return redirect(result_url + "?wait=1", code=303)


def _pending_link(learner, error: ApiError) -> dict | None:
    """The learner's newest pending submission as ``{"url", "text"}`` when this session may open
    it (an LTI launch opens one assignment), else ``None``."""
    pending = (error.errors or {}).get("pending") or []
    submission = state().store.get(pending[0]) if pending else None
    if submission is None or not learner.may_open(submission.assignment_id):
        return None
    return {"url": url_for("web.result", assignment_id=submission.assignment_id,
                           submission_id=submission.id) + "?wait=1",
            "text": "See the submission being graded"}


def _refuse(learner, assignment, answers: dict, message: str, status: int,
            headers: dict | None = None, code: str | None = None, link: dict | None = None):
    """The form again with ``message`` (and ``link``), answers kept; JSON for the page's script
    (``status``, ``code``, ``message``, ``result_url``)."""
    if wants_json():
        body = {"status": status, "message": message}
        if code:
            body["code"] = code
        if link:
            body["result_url"] = link["url"]
        return jsonify(body), status, headers or {}
    page, status = render_learn(learner, assignment, answers, message, status, link)
    return page, status, headers or {}


@bp.get("/learn/<assignment_id>/submissions/<submission_id>")
def result(assignment_id: str, submission_id: str):
    """One submission's result page. ``?wait=1`` (set by the form's redirect) waits on the
    server until it is graded, so the page renders the feedback without JavaScript."""
    learner = signed_in(assignment_id)
    assignment = assignment_for(learner, assignment_id)
    submission = submission_for(learner, assignment_id, submission_id)
    if submission.status not in FINAL and request.args.get("wait"):
        submission = wait_until_final(submission.id, wait_seconds(None, MAX_WAIT))
    return render_template("web/result.html", learner=learner, result=_result(submission,
                                                                              assignment),
                           back_url=url_for("web.learn", assignment_id=assignment_id))


@bp.get("/learn/<assignment_id>/submissions/<submission_id>/status")
def status(assignment_id: str, submission_id: str):
    """JSON for the page's script: ``status``, ``final`` and, once final, ``result_html`` and
    ``attempts_html`` (the page's fragments). ``?wait=N`` long-polls up to N seconds."""
    learner = signed_in(assignment_id)
    assignment = assignment_for(learner, assignment_id)
    submission = submission_for(learner, assignment_id, submission_id)
    seconds = wait_seconds(request.args.get("wait"), 0.0)
    if submission.status not in FINAL and seconds > 0:
        submission = wait_until_final(submission.id, seconds)
    body = {"id": submission.id, "status": submission.status,
            "final": submission.status in FINAL}
    if body["final"]:
        attempts = state().store.attempts_of(learner.course_id, assignment.id,
                                             learner.learner_id)
        body["result_html"] = render_template("web/_result.html",
                                              result=_result(submission, assignment))
        body["attempts_html"] = render_template(
            "web/_attempts.html", attempts=_attempt_rows(attempts, assignment.id))
    return jsonify(body)


def render_linked_result(submission):
    """The result page of a signed result link (``GET /api/v1/results/<token>`` asked for
    ``text/html``): the same page as the learner page's result, without a session, without
    internal fields (content digest, attempts, extra_data)."""
    from flask import make_response

    from grader.web import security_headers

    assignment = state().catalog.get(submission.course_id, submission.assignment_id,
                                     submission.assignment_version or None)
    page = render_template("web/result.html", learner=None,
                           result=_result(submission, assignment), back_url=None)
    return security_headers(make_response(page, 200))


def _check_address_rate() -> None:
    """Count one check from this client address against ``WEB_SUBMIT_ADDRESS_RATE_LIMIT`` (an
    anonymous practice learner is a new learner with each cookie); 429 ``rate_limited``."""
    breach = page_limits().check("web-check-address", str(state().config.get(
        "WEB_SUBMIT_ADDRESS_RATE_LIMIT", "")), client_address())
    if breach is not None:
        raise ApiError(429, "rate_limited", "Your network address has checked code too often (the "
                       f"limit is {breach.limit}). Nothing was run: try again in "
                       f"{breach.retry_after} s.", None,
                       headers={"Retry-After": str(breach.retry_after)})


@bp.post("/learn/<assignment_id>/check")
def check(assignment_id: str):
    """The form's "Check" button: the code items' visible examples only, at once
    (:mod:`grader.grading.prechecks`): nothing stored, not an attempt, no hidden test run. The
    learner page again with the answers kept and the check's results above the feedback (JSON
    ``{"html"}`` of the results for the page's script); refusals as for :func:`submit`."""
    learner = signed_in(assignment_id)
    assignment = assignment_for(learner, assignment_id)
    responses, answers = responses_from_form(assignment, request.form, request.files)
    try:
        current_app.extensions["csrf"].protect()
    except CSRFError:
        return _refuse(learner, assignment, answers, "The form had expired (or came from another "
                       "site), so nothing was checked. Your answers are still below: check "
                       "again.", 400)
    code = {k: v for k, v in responses.items() if assignment.items[k].kind == "code"}
    if not code:
        return _refuse(learner, assignment, answers, "Write code for a code item before checking "
                       "it: the check runs the visible examples of code items only.", 422)
    try:
        validate_responses(assignment, code)
        check_precheck_rate(learner.course_id, learner.learner_id)
        _check_address_rate()
        found = run_prechecks(assignment, code)
    except ApiError as error:
        return _refuse(learner, assignment, answers, error.message, error.status, error.headers,
                       error.code)
    found = [{**item, "drawn": feedback.pictures_view(item.get("pictures"))} for item in found]
    if wants_json():
        return jsonify({"html": render_template("web/_precheck.html", precheck=found)})
    page, status = render_learn(learner, assignment, answers, precheck=found)
    return page, status
