"""The tool's HTTP endpoints under ``/lti``: login, launch, keys, the deep-linking pick, and the
configuration a Canvas developer key imports. Thin views: parse, call the domain, answer.

Login, launch and the pick are open to anyone, so each counts against ``LTI_RATE_LIMIT`` per
client address (default ``120 per minute;2000 per hour``; 429 with ``Retry-After``). Every page
answers with a Content-Security-Policy (:data:`CONTENT_SECURITY_POLICY`: only our own scripts
and styles, forms post only to us; the deep-linking autopost page may post to the platform's
checked return URL as well)."""
from __future__ import annotations

import secrets
from urllib.parse import parse_qs, urlsplit

from flask import (Blueprint, Response, current_app, jsonify, redirect, render_template, request,
                   url_for)

from grader.api.ratelimit import client_address, page_limits
from grader.api.state import state as grader_state
from grader.lti import claims as C
from grader.lti.deep_linking import (PICK_LIFETIME, consume_pick, content_item, issue_pick,
                                     pick_cookie_name, read_pick, response_claims)
from grader.lti.keys import JWKS_MAX_AGE
from grader.lti.launch import Launch
from grader.lti.launch_urls import checked_url, csp_origin, optional_url
from grader.lti.login import LOGIN_LIFETIME, begin_login, state_cookie_name
from grader.lti.refusals import LtiRefused, render_refusal
from grader.lti.urls import tool_urls

bp = Blueprint("lti", __name__, url_prefix="/lti", template_folder="templates",
               static_folder="static")

#: The longest learner id the store keeps (``submissions.learner_id``).
MAX_LEARNER_ID = 200
#: The LTI pages load only what we serve and post forms only to us; like grader/web's pages no
#: inline script (none is needed), and they may be framed by any site (the LMS's iframe).
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; "
                           "img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                           "form-action {form_action}")


def lti():
    """This app's :class:`grader.lti.LtiState`."""
    return current_app.extensions["lti"]


@bp.errorhandler(LtiRefused)
def _refused(error: LtiRefused):
    return render_refusal(error)


@bp.after_request
def _security_headers(response: Response) -> Response:
    """The CSP (forms post to us only, unless a view set its own), ``nosniff``, and on pages no
    referrer outside the tool."""
    response.headers.setdefault("Content-Security-Policy",
                                CONTENT_SECURITY_POLICY.format(form_action="'self'"))
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if response.mimetype == "text/html" and not 300 <= response.status_code < 400:
        # not on redirects: the platform's authorization endpoint sees the login's referrer
        response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def _limit(endpoint: str) -> None:
    """Count this request against ``LTI_RATE_LIMIT`` for its client address; 429 with
    ``Retry-After`` over it."""
    breach = page_limits().check(f"lti-{endpoint}",
                                 str(grader_state().config.get("LTI_RATE_LIMIT", "")),
                                 client_address())
    if breach is not None:
        raise LtiRefused(429, "rate_limited", "Too many requests to this tool from your network "
                         f"address (the limit is {breach.limit}). Try again in "
                         f"{breach.retry_after} s.", None,
                         hint="If a whole class shares one address, the administrator raises "
                              "LTI_RATE_LIMIT.",
                         headers={"Retry-After": str(breach.retry_after)})


def _cookie_flags() -> dict:
    """The state cookie gets the session cookie's attributes, which the web pages choose per
    request (:mod:`grader.web.cookies`: ``SameSite=None; Secure; Partitioned`` over HTTPS, so the
    cookie survives the LMS's cross-site iframe; ``Lax`` on plain HTTP, where browsers refuse
    ``SameSite=None``)."""
    interface, app = current_app.session_interface, current_app
    partitioned = getattr(interface, "get_cookie_partitioned", lambda _app: False)(app)
    return {"secure": interface.get_cookie_secure(app),
            "samesite": interface.get_cookie_samesite(app), "partitioned": partitioned}


@bp.route("/login", methods=["GET", "POST"])
def login():
    """OIDC third-party initiated login: redirect to the platform's authorization endpoint."""
    _limit("login")
    params = request.form if request.method == "POST" else request.args
    outcome = begin_login(grader_state().store.lti, params,
                          redirect_uri=url_for("lti.launch", _external=True),
                          tool_host=request.host)
    if outcome.storage is not None:
        # the platform's storage first (the cookie may be blocked), then on to the platform
        response = Response(render_template("lti/storage.html", mode="put",
                                            storage=outcome.storage, next_url=outcome.location),
                            200, content_type="text/html; charset=utf-8")
    else:
        response = redirect(outcome.location, 302)
    response.set_cookie(state_cookie_name(outcome.state), outcome.state,
                        max_age=int(LOGIN_LIFETIME.total_seconds()), path="/lti/",
                        httponly=True, **_cookie_flags())
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/launch")
def launch():
    """The platform's form post of the id_token: verify it, then open the page the message and
    the user's role call for."""
    _limit("launch")
    state = request.form.get("state")
    cookie = request.cookies.get(state_cookie_name(state)) if state else None
    if cookie is None and state and "lti_storage_value" not in request.form:
        row = lti().store.lti.login_state(state)
        stored = ((row.params or {}).get("storage") if row is not None else None) or {}
        if stored.get("sha256") and row.used_at is None:
            # no cookie: read this login's secret from the platform's storage, then post again
            from grader.lti.login import storage_key

            html = render_template("lti/storage.html", mode="get", storage={
                "target": stored["target"], "origin": stored["origin"],
                "key": storage_key(state)}, id_token=request.form.get("id_token", ""),
                state=state)
            return html, 200, {"Content-Type": "text/html; charset=utf-8",
                               "Cache-Control": "no-store"}
    login_state = lti().verifier.check_state(
        state, cookie, retry_url=lambda params: url_for("lti.login", _external=True, **params),
        storage_value=request.form.get("lti_storage_value"))
    verified = lti().verifier.verify(request.form.get("id_token"), login_state)
    if verified.message_type == C.DEEP_LINKING_REQUEST:
        response = _deep_linking_picker(verified, state)
    else:
        response = _resource_link(verified)
    response.delete_cookie(state_cookie_name(state), path="/lti/", **_cookie_flags())
    response.headers["Cache-Control"] = "no-store"
    return response


def assignment_of(launch: Launch) -> str | None:
    """The assignment a resource link opens: the custom parameter ``assignment_id`` (set by deep
    linking, or by hand in the LMS), else ``assignment_id`` in the query of the signed
    ``target_link_uri``."""
    custom = launch.claim(C.CUSTOM, {})
    if isinstance(custom, dict) and isinstance(custom.get("assignment_id"), str) \
            and custom["assignment_id"].strip():
        return custom["assignment_id"].strip()
    target = launch.claim(C.TARGET_LINK_URI, "")
    if isinstance(target, str):
        values = parse_qs(urlsplit(target).query).get("assignment_id")
        if values and values[0].strip():
            return values[0].strip()
    return None


def learner_id_of(launch: Launch) -> str:
    """Our learner id for the launch's user: the platform's ``learner_prefix`` + ``sub`` (the
    platform's stable, never reassigned user id; OIDC Core 1.0, 2). Raises :class:`LtiRefused` when
    it would not fit the store."""
    learner_id = (launch.platform.learner_prefix or "") + launch.sub
    if len(learner_id) > MAX_LEARNER_ID:
        raise LtiRefused(400, "sub_too_long", f"The user id (sub) is {len(launch.sub)} characters "
                         f"long; this tool keeps at most {MAX_LEARNER_ID} with the prefix.", "sub")
    return learner_id


def _display_name(claims: dict) -> str:
    name = claims.get("name")
    if not isinstance(name, str) or not name.strip():
        parts = [claims.get("given_name"), claims.get("family_name")]
        name = " ".join(p for p in parts if isinstance(p, str) and p.strip())
    return (name or "").strip()[:200]


def _short(value, limit: int = 1000) -> str | None:
    """A claim kept in the session cookie: a string of at most ``limit`` characters, else
    ``None`` (the session must fit one cookie)."""
    return value if isinstance(value, str) and len(value) <= limit else None


def _resource_link(launch: Launch) -> Response:
    from grader.web.session import LearnerSession, begin

    role = C.tool_role(launch.roles)
    if role is None:
        raise LtiRefused(403, "role_not_supported", "This tool has pages for learners and "
                         "instructors only; the launch's roles are: "
                         f"{', '.join(map(str, launch.roles)) or 'none'}.", C.ROLES)
    resource_link = launch.claim(C.RESOURCE_LINK, {})
    if not isinstance(resource_link, dict) or not isinstance(resource_link.get("id"), str):
        raise LtiRefused(400, "missing_claim", "The resource-link launch has no resource_link.id.",
                         C.RESOURCE_LINK)
    course_id = launch.platform.course_id
    assignment_id = assignment_of(launch)
    if assignment_id is None:
        raise LtiRefused(400, "no_assignment", "This link does not say which assignment it opens.",
                         C.CUSTOM, hint="The instructor re-creates the link by picking the "
                         "assignment (deep linking), or sets the custom parameter "
                         "assignment_id=<id> on it.")
    assignment = grader_state().catalog.get(course_id, assignment_id)
    if assignment is None:
        raise LtiRefused(404, "assignment_not_found", f"Course {course_id!r} has no assignment "
                         f"{assignment_id!r}.", "assignment_id")
    if launch.sub is None and role != "learner":
        raise LtiRefused(400, "missing_claim", "The id_token has no sub (an anonymous launch); "
                         "only learners may practise anonymously.", "sub")
    # anonymous: practice under a random id, like the embedded default's practice pages (the
    # gradebook leaves such learners out), and no grade target: nothing is sent to the LMS
    learner_id = learner_id_of(launch) if launch.sub is not None else \
        f"practice-lti-{secrets.token_hex(8)}"
    presentation = launch.claim(C.LAUNCH_PRESENTATION, {})
    return_url = optional_url(presentation.get("return_url"), "launch_presentation.return_url",
                              launch.platform) if isinstance(presentation, dict) else None
    context = launch.claim(C.CONTEXT, {})
    memberships = None  # NRPS: the course's member list, for the instructor view
    if role == "instructor":
        from grader.lti.nrps import NRPS_CLAIM

        service = launch.claim(NRPS_CLAIM, {})
        url = service.get("context_memberships_url") if isinstance(service, dict) else None
        memberships = optional_url(url, "namesroleservice.context_memberships_url",
                                   launch.platform) if isinstance(url, str) else None
    if role == "learner" and launch.sub is not None:
        lti().record_grade_target(launch, course_id, assignment_id, learner_id)
    begin(LearnerSession(
        course_id=course_id, learner_id=learner_id, role=role, assignment_id=assignment_id,
        name=_display_name(launch.claims),
        lti={"platform_id": launch.platform.id, "issuer": launch.platform.issuer,
             "deployment_id": launch.deployment_id, "sub": launch.sub,
             "resource_link_id": resource_link["id"],
             "context_id": _short(context.get("id"), 255) if isinstance(context, dict) else None,
             "return_url": _short(return_url),
             **({"memberships_url": _short(memberships)} if memberships else {})}))
    endpoint = "web.learn" if role == "learner" else "web.instructor"
    return redirect(url_for(endpoint, assignment_id=assignment_id), 303)


def _deep_linking_picker(launch: Launch, launch_state: str) -> Response:
    if C.tool_role(launch.roles) != "instructor":
        raise LtiRefused(403, "role_not_supported", "Only an instructor can pick an assignment "
                         "to link.", C.ROLES)
    course_id = launch.platform.course_id
    pick = issue_pick(grader_state().store.lti, grader_state().config["GRADER_SECRET_KEY"],
                      launch, course_id, launch_state)
    assignments = sorted(grader_state().catalog.visible(course_id), key=lambda a: a.title.lower())
    html = render_template("lti/picker.html", token=pick.token, assignments=assignments,
                           action=url_for("lti.deep_link"), course_id=course_id)
    response = Response(html, 200, content_type="text/html; charset=utf-8")
    response.set_cookie(pick.cookie_name, pick.cookie_value, max_age=PICK_LIFETIME,
                        path="/lti/", httponly=True, **_cookie_flags())
    return response


@bp.post("/deep-link")
def deep_link():
    """The instructor's pick: answer the platform with a signed ``LtiDeepLinkingResponse``.
    The pick is used once, in the browser that launched (:mod:`grader.lti.deep_linking`)."""
    _limit("deep-link")
    repo = grader_state().store.lti
    pick = read_pick(repo, grader_state().config["GRADER_SECRET_KEY"], request.form.get("token"),
                     request.cookies)
    platform = repo.platform(pick.platform_id)
    if platform is None:
        raise LtiRefused(403, "unknown_platform", "The platform of this pick is no longer "
                         "registered.", "token")
    assignment_id = (request.form.get("assignment_id") or "").strip()
    assignment = grader_state().catalog.get(pick.course_id, assignment_id) \
        if assignment_id else None
    if assignment is None:
        raise LtiRefused(400, "assignment_not_found", f"Pick one of the listed assignments "
                         f"({assignment_id or 'none was picked'!r} is not one).", "assignment_id")
    return_url = checked_url(pick.return_url, "deep_linking_settings.deep_link_return_url",
                             platform)  # checked at the launch; the registration may change
    consume_pick(repo, pick, request.cookies)
    item = content_item(assignment, url_for("lti.launch", _external=True))
    signed = lti().keys.sign(response_claims(platform, pick, [item]))
    html = render_template("lti/autopost.html", action=return_url, jwt=signed,
                           title=assignment.title)
    policy = CONTENT_SECURITY_POLICY.format(form_action=f"'self' {csp_origin(return_url)}")
    response = Response(html, 200, content_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-store",
                                 "Content-Security-Policy": policy})
    response.delete_cookie(pick_cookie_name(pick.id), path="/lti/", **_cookie_flags())
    return response


@bp.get("/register")
def dynamic_registration():
    """LTI Dynamic Registration (:mod:`grader.lti.dynamic_registration`): the LMS opens the
    registration link an admin made, with ``openid_configuration`` and ``registration_token``;
    the tool registers itself with the platform and records the registration for the link's
    course. The page says what was registered and asks the LMS to close it."""
    from grader.lti import dynamic_registration as D
    from grader.store.lti import PlatformConflict

    _limit("login")
    repo = grader_state().store.lti
    secret = request.args.get("link", "")
    row = repo.registration_link(D.link_id(secret)) if secret else None
    if row is None:
        raise LtiRefused(404, "unknown_registration_link", "This registration link is not one "
                         "this tool made.", "link", hint="An administrator of the grader makes "
                         "one at POST /api/v1/lti/registration-links.")
    config_url = request.args.get("openid_configuration")
    if not config_url:
        raise LtiRefused(400, "missing_parameter", "The LMS did not send its configuration URL "
                         "(openid_configuration): paste the link in the LMS's dynamic "
                         "registration (Moodle: Tool URL; Canvas: LTI Registration).",
                         "openid_configuration")
    if not repo.consume_registration_link(row.id):
        raise LtiRefused(409, "registration_link_used", "This registration link was used "
                         "already (or it expired).", "link",
                         hint="An administrator of the grader makes a new one.")
    try:
        config = D.fetch_configuration(config_url)
        body = D.registration_request(tool_urls(), "Attention grader", config)
        fields = D.register(config, body, request.args.get("registration_token"))
        platform = repo.create_platform(course_id=row.course_id,
                                        learner_prefix=row.learner_prefix,
                                        label=row.label or "dynamic registration", **fields)
    except PlatformConflict as exc:
        repo.release_registration_link(row.id, None)
        raise LtiRefused(409, "conflict", str(exc), exc.field) from None
    except BaseException:
        repo.release_registration_link(row.id, None)  # the admin may try again from the LMS
        raise
    repo.release_registration_link(row.id, platform.id)
    html = render_template("lti/registered.html", platform=platform,
                           product=(config.get(D.PLATFORM_CONFIGURATION) or {}).get(
                               "product_family_code", "") if isinstance(
                               config.get(D.PLATFORM_CONFIGURATION), dict) else "")
    return html, 200, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}


@bp.get("/jwks")
def jwks():
    """The tool's public keys (current and recently retired), for platforms to verify our JWTs."""
    response = jsonify(lti().keys.jwks())
    response.headers["Cache-Control"] = f"public, max-age={JWKS_MAX_AGE}"
    return response


@bp.get("/config")
def configuration():
    """The URLs a platform asks for when the tool is registered (see the README)."""
    return jsonify(tool_urls())


@bp.get("/config/canvas.json")
def canvas_configuration():
    """A Canvas developer key's JSON configuration (Admin > Developer Keys > + LTI Key > Paste
    JSON, or "Enter URL" with this address)."""
    urls = tool_urls()
    return jsonify({
        "title": "Attention grader",
        "description": "Self-attention coursework with instant feedback; scores go to the "
                       "gradebook.",
        "oidc_initiation_url": urls["login_url"],
        "target_link_uri": urls["launch_url"],
        "public_jwk_url": urls["jwks_url"],
        "scopes": [C.SCOPE_LINEITEM, C.SCOPE_LINEITEM_READONLY, C.SCOPE_SCORE,
                   "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"],
        "extensions": [{
            "platform": "canvas.instructure.com",
            "privacy_level": "public",
            "settings": {"placements": [
                {"placement": "link_selection", "message_type": C.DEEP_LINKING_REQUEST,
                 "target_link_uri": urls["launch_url"]},
                {"placement": "assignment_selection", "message_type": C.DEEP_LINKING_REQUEST,
                 "target_link_uri": urls["launch_url"]},
            ]},
        }],
        "custom_fields": {},
    })
