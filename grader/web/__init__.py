"""The learner's door: server-rendered pages (Jinja2, ``templates/web/``) for learners and
instructors, opened by an LTI launch (``grader/lti/`` calls :func:`grader.web.session.begin`) or, on
the embedded default, as practice pages anyone at the address can use.

- ``GET /learn/<assignment>``: the learner page (prompt, contract, starter code in a code editor,
  the latest result, previous attempts); ``POST`` submits (a plain form: works without JavaScript).
- ``GET /learn/<assignment>/submissions/<id>``: a result page; ``.../status`` its JSON long-poll.
- ``GET /learn/<assignment>/instructor``: the instructor view (the class's analytics, each
  learner's counted grade, publishing, regrade, grades.csv and analytics.csv);
  ``.../instructor/submissions/<id>``: one submission with its override forms and audit list.
- ``/instructor``, ``/instructor/sign-in[/<link>]``, ``/sign-out``: the course's assignments for
  an instructor, and signing in without an LMS (:mod:`grader.web.sign_in`).
- ``GET /learn``: the practice pages of the local course (embedded default), published ones only.
- ``/assets/...``: our CSS and JavaScript and the vendored libraries (no CDN); ``/favicon.ico``
  our icon (``static/favicon.svg``).

A refusal to the page script (``Accept: application/json``) is JSON, the error pages' included
(``{"status", "code", "title", "message"}``), so the script says why and keeps the answers.

Settings (environment or :func:`grader.app.create_app` overrides): ``WEB_PRACTICE`` (auto|1|0,
:mod:`grader.web.access`), ``WEB_COOKIE_SAMESITE`` and ``WEB_COOKIE_SECURE``
(:mod:`grader.web.cookies`), ``TRUSTED_PROXY_HOPS`` (how many reverse proxies' ``X-Forwarded-*``
headers to trust, werkzeug's ProxyFix; 0 by default), ``WEB_WAIT_SECONDS`` (how long a result page
waits on the server for the grade, default 25), and the limits of the form posts
(``WEB_SUBMIT_RATE_LIMIT``, ``WEB_SUBMIT_ADDRESS_RATE_LIMIT``, ``WEB_MAX_PENDING``,
``WEB_MAX_PENDING_PER_ADDRESS``: :mod:`grader.web.limits`).
"""
from __future__ import annotations

import hashlib
import hmac

from flask import Flask, current_app, redirect, render_template, request, url_for
from flask_wtf.csrf import CSRFProtect
from markupsafe import Markup
from werkzeug.middleware.proxy_fix import ProxyFix

from grader.safetext import encodable
from grader.web.access import PageError, SignInRequired, log_refusal, wants_json
from grader.web.blueprint import bp
from grader.web.cookies import FramedSessionInterface
from grader.web import filters  # registers the templates' filters
from grader.web import instructor as _instructor  # noqa: F401 - registers its routes on bp
from grader.web import learner as _learner  # noqa: F401 - registers its routes on bp
from grader.web import sign_in as _sign_in  # noqa: F401 - registers its routes on bp
from grader.web import instructor_submission as _submission  # noqa: F401 - its routes

#: Our pages load only what we serve. Styles may be inline: the code editor (CodeMirror) writes
#: its own style element. The pages may be framed by any site (an LMS shows them in an iframe).
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' "
                           "'unsafe-inline'; img-src 'self' data:; object-src 'none'; "
                           "base-uri 'none'; form-action 'self'")


#: The ``code`` of a page refusal answered as JSON, by status.
_PAGE_CODES = {401: "sign_in_required", 403: "forbidden", 404: "not_found"}


def derived_key(secret: str, purpose: str) -> str:
    """A key for one purpose derived from ``GRADER_SECRET_KEY`` (HMAC-SHA256), so the session
    cookie, the CSRF tokens and the result links never share a key."""
    return hmac.new(secret.encode(), f"grader.web:{purpose}".encode(), hashlib.sha256).hexdigest()


def _page_error(error: PageError):
    """The error page; for the page's script (``Accept: application/json``) JSON
    ``{"status", "code", "title", "message"}``, so it can say why and keep the answers."""
    log_refusal(error)
    if wants_json():
        from flask import jsonify

        return jsonify({"status": error.status, "code": _PAGE_CODES.get(error.status, "error"),
                        "title": error.title, "message": error.message}), error.status
    if isinstance(error, SignInRequired):
        from grader.web.sign_in import render_sign_in

        return render_sign_in(error.title, error.message, error.next_url, status=error.status)
    return render_template("web/error.html", title=error.title, message=error.message), \
        error.status


def shown(value):
    """Jinja's ``finalize``: every value a template writes can be encoded as UTF-8 (each unpaired
    surrogate shown as U+FFFD, :func:`grader.safetext.encodable`; nothing else changes, so a
    learner's code in the editor keeps its form feeds; HTML built by the pages stays HTML): no
    value, wherever it was stored from, can make a page fail to encode."""
    if isinstance(value, Markup):
        return Markup(encodable(str(value)))
    if isinstance(value, str):
        return encodable(value)
    return value


def security_headers(response):
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if response.mimetype == "text/html" or request.endpoint in ("web.status",):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def _too_large(error):
    """A form post over ``MAX_BODY_BYTES`` (a notebook too large, chosen without JavaScript,
    whose size check would have said so): a page saying it, not the API's JSON; its body was
    never read, so the answers are the browser's to keep (Back)."""
    limit = int(current_app.config.get("MAX_CONTENT_LENGTH") or 0)
    message = (f"The form was larger than {filters.size(limit)}, the most one post may carry "
               "(a notebook too large?), so nothing was submitted. Go back: your browser keeps "
               "what you typed; choose a smaller notebook, then submit again.")
    if wants_json():
        from flask import jsonify

        return jsonify({"status": 413, "code": "payload_too_large",
                        "title": "The form is too large", "message": message}), 413
    return render_template("web/error.html", title="The form is too large",
                           message=message), 413


bp.register_error_handler(PageError, _page_error)
bp.register_error_handler(413, _too_large)
bp.after_request(security_headers)


@bp.get("/learn")
def index():
    """The practice pages of the local course (embedded default): its published assignments
    (drafts are for instructors); elsewhere a pointer to the LMS."""
    from grader.api.state import state
    from grader.web.access import practice_enabled

    if not practice_enabled():
        raise PageError(404, "Open your assignments from your course",
                        "Assignments open from your course's learning platform (LMS).")
    from grader.api.assignments import assignment_view

    catalog = state().catalog
    assignments = [assignment_view(a) for a in catalog.visible(state().config["LOCAL_COURSE"])
                   if a.published]
    return render_template("web/index.html", assignments=assignments)


@bp.get("/favicon.ico")
def favicon():
    """The site's icon (``static/favicon.svg``; the pages also link it), served by us for
    browsers that ask for ``/favicon.ico`` by themselves."""
    from flask import send_from_directory

    return send_from_directory(bp.static_folder, "favicon.svg", mimetype="image/svg+xml",
                               max_age=86400)


def init_app(app: Flask) -> None:
    """Register the pages on ``app``: the blueprint, CSRF protection (checked by the pages' own
    POST views only: the JSON API and the LTI launch do not use it), the framed session cookie,
    the error page and security headers."""
    config = app.config["GRADER"]
    secret = config["GRADER_SECRET_KEY"]
    app.secret_key = derived_key(secret, "session")
    app.config["WTF_CSRF_SECRET_KEY"] = derived_key(secret, "csrf")
    app.config["WTF_CSRF_CHECK_DEFAULT"] = False  # the pages' POST views call protect()
    app.config["WTF_CSRF_TIME_LIMIT"] = None  # valid as long as the session: writing takes time
    app.config["SESSION_COOKIE_NAME"] = "grader_session"
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    app.session_interface = FramedSessionInterface(config.get("WEB_COOKIE_SAMESITE", "auto"),
                                                   config.get("WEB_COOKIE_SECURE", "auto"))
    hops = int(config.get("TRUSTED_PROXY_HOPS", 0) or 0)
    if hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops,
                                x_port=hops, x_prefix=hops)
    CSRFProtect(app)
    app.jinja_env.finalize = shown  # before any template is compiled
    app.register_blueprint(bp)
    from grader.api.submissions import RESULT_PAGE
    from grader.web.learner import PRACTICE_PENDING, render_linked_result
    from grader.web.limits import PendingByAddress

    app.extensions[RESULT_PAGE] = render_linked_result
    app.extensions[PRACTICE_PENDING] = PendingByAddress()
    app.add_url_rule("/", "web_home", lambda: redirect(url_for("web.index")))
