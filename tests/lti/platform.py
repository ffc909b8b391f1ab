"""A simulated LTI 1.3 platform (an LMS) on 127.0.0.1, written with Flask and PyJWT, for the tool's
tests: JWKS, OIDC authorization endpoint, OAuth 2 token endpoint (client-credentials grant with a
JWT assertion, verified against the tool's JWKS), AGS line-item container and score endpoints, and a
deep-linking return endpoint. It records what it receives, and can be told to fail.

The platform decides a launch the way a real LMS does: the test registers a launch (who, which
roles, which message) under a ``login_hint``; the login initiation carries that hint; the
authorization endpoint looks it up and answers with the auto-posting form of the id_token.
"""
from __future__ import annotations

import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlencode

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask, abort, jsonify, request
from jwt.algorithms import RSAAlgorithm
from werkzeug.serving import make_server

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"


def rsa_key() -> tuple[Any, dict, str]:
    """A private key, its public JWK (with kid) and the kid."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = RSAAlgorithm.to_jwk(private.public_key(), as_dict=True)
    kid = "platform-" + uuid.uuid4().hex[:8]
    jwk.update(kid=kid, alg="RS256", use="sig")
    jwk.pop("key_ops", None)
    return private, jwk, kid


def pem(private) -> bytes:
    return private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())


class ServerThread:
    """A WSGI app served on 127.0.0.1 on a free port, in a thread."""

    def __init__(self, app):
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={
            "poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.thread.join(timeout=10)


@dataclass
class LaunchSpec:
    """What the platform will put in the next id_token for one ``login_hint``."""

    sub: str
    roles: list[str]
    message_type: str = "LtiResourceLinkRequest"
    resource_link_id: str = "link-1"
    custom: dict[str, str] = field(default_factory=dict)
    lineitem_id: str | None = None  # the link's line item, if it has one
    ags_scopes: list[str] | None = None  # None: lineitem + score; [] : no AGS claim
    name: str = "Ada Lovelace"
    claims: dict[str, Any] = field(default_factory=dict)  # extra or overriding claims
    drop: list[str] = field(default_factory=list)  # claims to remove
    header: dict[str, Any] = field(default_factory=dict)  # JWT header overrides
    sign_key: Any = None  # sign with another private key
    tamper: bool = False  # flip a character of the payload after signing


class _Forms(HTMLParser):
    def __init__(self):
        super().__init__()
        self.forms: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action"), "method": attrs.get("method"),
                               "fields": {}})
        elif tag == "input" and self.forms and attrs.get("name"):
            if attrs.get("type") == "radio" and "checked" not in attrs:
                self.forms[-1]["fields"].setdefault("_radio_" + attrs["name"], []).append(
                    attrs.get("value"))
                return
            self.forms[-1]["fields"][attrs["name"]] = attrs.get("value", "")


def parse_forms(html: str) -> list[dict]:
    """The forms of a page: action, method and their input fields (checked radios as values,
    the other radio values under ``_radio_<name>``)."""
    parser = _Forms()
    parser.feed(html)
    return parser.forms


class SimulatedPlatform:
    """An LMS for the tests. ``tool_url`` is the tool's base URL (for its JWKS and launch URL)."""

    def __init__(self, tool_url: str, client_id: str = "grader-client-1",
                 deployment_id: str = "deployment-1"):
        self.tool_url = tool_url
        self.client_id = client_id
        self.deployment_id = deployment_id
        self.key, self.jwk, self.kid = rsa_key()
        self.old_keys: list[dict] = []
        self.launches: dict[str, LaunchSpec] = {}
        self.pages: dict[str, str] = {}
        self.auth_requests: list[dict] = []
        self.issued_tokens: list[str] = []  # id_tokens handed out, in order
        self.token_requests: list[dict] = []
        self.access_tokens: dict[str, dict] = {}
        self.lineitems: dict[str, dict] = {}
        self.scores: list[dict] = []  # every score received, in order of arrival
        self.gradebook: dict[tuple[str, str], dict] = {}  # (line item, userId) -> kept score
        self.score_attempts = 0
        self.deep_link_responses: list[dict] = []
        self.fail_scores = 0  # answer the next N score posts with 503
        self.registration_token = "reg-token-" + secrets.token_hex(6)
        self.registrations: list[dict] = []  # dynamic registration requests received
        self.members: list[dict] = []  # NRPS: the course's members, served 2 per page
        self.member_pages = 0  # member-list pages served
        self.lineitem_delay = 0.0  # seconds a line-item POST takes (widens a creation race)
        self.lineitem_posts = 0  # line-item creations received
        self.refuse = None  # or a predicate on a score body: True -> 503
        self.token_lifetime = 3600
        self.jwks_fetches = 0
        self._tool_keys = None
        self.lock = threading.Lock()
        self.app = self._build_app()
        self.server = ServerThread(self.app)
        self.url = self.server.url

    # -- what a registration needs ----------------------------------------------------------------
    @property
    def issuer(self) -> str:
        return self.url

    def registration(self, course_id: str = "local", **extra) -> dict:
        return {"issuer": self.issuer, "client_id": self.client_id,
                "deployment_ids": [self.deployment_id], "auth_login_url": self.url + "/auth",
                "auth_token_url": self.url + "/token", "key_set_url": self.url + "/jwks",
                "course_id": course_id, **extra}

    def add_lineitem(self, label: str = "Attention basics", score_maximum: float = 16,
                     resource_id: str = "", resource_link_id: str | None = None) -> str:
        item_id = uuid.uuid4().hex[:8]
        self.lineitems[item_id] = {"id": f"{self.url}/lineitems/{item_id}", "label": label,
                                   "scoreMaximum": score_maximum, "resourceId": resource_id,
                                   "resourceLinkId": resource_link_id, "tag": ""}
        return item_id

    def rotate_key(self) -> None:
        """A new signing key; the old one stays published (as platforms do)."""
        self.old_keys.append(self.jwk)
        self.key, self.jwk, self.kid = rsa_key()

    # -- launching ------------------------------------------------------------------------------
    def login_initiation(self, spec: LaunchSpec, target_link_uri: str | None = None,
                         **params) -> str:
        """The tool's login URL the LMS would open for ``spec``."""
        hint = "hint-" + secrets.token_hex(8)
        self.launches[hint] = spec
        query = {"iss": self.issuer, "login_hint": hint,
                 "target_link_uri": target_link_uri or self.tool_url + "/lti/launch",
                 "lti_message_hint": "msg-" + spec.resource_link_id, "client_id": self.client_id,
                 "lti_deployment_id": self.deployment_id, **params}
        return self.tool_url + "/lti/login?" + urlencode(query)

    def course_page(self, spec: LaunchSpec, **params) -> str:
        """A page of the LMS that shows the tool in an iframe, as an LMS shows an activity
        (with ``lti_storage_target`` in ``params``, beside its storage frame)."""
        login = self.login_initiation(spec, **params)
        hint = login.split("login_hint=", 1)[1].split("&", 1)[0]
        self.pages[hint] = login
        return f"{self.url}/course/{hint}"

    def id_token(self, spec: LaunchSpec, nonce: str, **_ignored) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer, "aud": self.client_id, "sub": spec.sub, "iat": now,
            "exp": now + 300, "nonce": nonce, "name": spec.name,
            LTI + "message_type": spec.message_type, LTI + "version": "1.3.0",
            LTI + "deployment_id": self.deployment_id,
            LTI + "target_link_uri": self.tool_url + "/lti/launch",
            LTI + "roles": spec.roles,
            LTI + "context": {"id": "course-7", "label": "ATT101", "title": "Attention"},
            LTI + "launch_presentation": {"document_target": "iframe",
                                          "return_url": self.url + "/return"},
        }
        if spec.message_type == "LtiResourceLinkRequest":
            claims[LTI + "resource_link"] = {"id": spec.resource_link_id, "title": "Attention"}
            if spec.custom:
                claims[LTI + "custom"] = spec.custom
            scopes = [SCOPE + "lineitem", SCOPE + "score"] if spec.ags_scopes is None \
                else spec.ags_scopes
            if scopes:
                endpoint = {"scope": scopes, "lineitems": self.url + "/lineitems"}
                if spec.lineitem_id:
                    endpoint["lineitem"] = f"{self.url}/lineitems/{spec.lineitem_id}"
                claims[AGS] = endpoint
        else:
            claims[DL + "deep_linking_settings"] = {
                "deep_link_return_url": self.url + "/deep_link_return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_multiple": False, "data": "platform-data-42"}
            claims[AGS] = {"scope": [SCOPE + "lineitem", SCOPE + "score"],
                           "lineitems": self.url + "/lineitems"}
        claims.update(spec.claims)
        for name in spec.drop:
            claims.pop(name, None)
        header = {"kid": self.kid, **spec.header}
        token = jwt.encode(claims, pem(spec.sign_key or self.key), algorithm="RS256",
                           headers=header)
        if spec.tamper:  # change the payload, keep the signature: e.g. become someone else
            head, payload, signature = token.split(".")
            forged = jwt.utils.base64url_encode(jwt.utils.base64url_decode(payload).replace(
                spec.sub.encode(), b"intruder")).decode()
            token = ".".join([head, forged, signature])
        self.issued_tokens.append(token)
        return token

    # -- verifying the tool's JWTs ----------------------------------------------------------------
    def tool_keys(self) -> jwt.PyJWKClient:
        if self._tool_keys is None:
            self._tool_keys = jwt.PyJWKClient(self.tool_url + "/lti/jwks", cache_jwk_set=True,
                                              lifespan=300, cooldown_duration=0)
        return self._tool_keys

    def verify_tool_jwt(self, token: str, audience: str) -> dict:
        key = self.tool_keys().get_signing_key_from_jwt(token)
        return jwt.decode(token, key.key, algorithms=["RS256"], audience=audience)

    def _bearer(self, scope: str) -> None:
        header = request.headers.get("Authorization", "")
        info = self.access_tokens.get(header[7:]) if header.startswith("Bearer ") else None
        if info is None or info["expires"] < time.time() or scope not in info["scope"].split():
            abort(401)

    # -- the platform's endpoints ---------------------------------------------------------------
    def _build_app(self) -> Flask:
        app = Flask("simulated_platform")

        @app.get("/course/<hint>")
        def course(hint):
            from html import escape

            return ('<!doctype html><html lang="en"><head><title>Course: Attention</title>'
                    '</head><body style="margin:0"><h1 style="font:16px sans-serif">'
                    'Simulated LMS: Attention 101</h1>'
                    + (  # with storage: the tool's frame opens once the storage frame listens
                        '<iframe name="post_message_forwarding" title="storage" '
                        f'src="{self.url}/storage_frame" style="display:none" '
                        'onload="document.getElementById(\'tool\').src='
                        f'document.getElementById(\'tool\').dataset.src"></iframe>'
                        f'<iframe id="tool" title="Attention grader" '
                        f'data-src="{escape(self.pages[hint])}"'
                        if "lti_storage_target=" in self.pages[hint] else
                        f'<iframe id="tool" title="Attention grader" '
                        f'src="{escape(self.pages[hint])}"')
                    + ' style="width:100%;height:1400px;border:1px solid #888"></iframe>'
                    '</body></html>')

        @app.get("/admin/register")
        def admin_register():
            """The LMS's admin page of dynamic registration: the tool's registration URL in an
            iframe, with the configuration URL and token added; ``window.closeMessage`` is what
            the tool posted when done."""
            from html import escape
            from urllib.parse import urlencode as encode

            url = request.args["url"] + "&" + encode({
                "openid_configuration": self.url + "/.well-known/openid-configuration",
                "registration_token": self.registration_token})
            return ('<!doctype html><html lang="en"><head><title>Register a tool</title></head>'
                    '<body><script>window.closeMessage = null;'
                    'window.addEventListener("message", function (e) {'
                    ' if (e.data && e.data.subject === "org.imsglobal.lti.close") {'
                    '  window.closeMessage = e.data.subject;'
                    '  document.getElementById("registration").remove(); } });</script>'
                    f'<iframe id="registration" title="Tool registration" src="{escape(url)}"'
                    ' style="width:100%;height:600px"></iframe></body></html>')

        @app.get("/storage_frame")
        def storage_frame():
            """The platform's storage frame (1EdTech client-side postMessages: lti.put_data,
            lti.get_data), keeping values per origin and key in the page; ``window.log`` lists
            the subjects received."""
            return ('<!doctype html><html lang="en"><head><title>storage</title></head><body>'
                    '<script>window.stored = {}; window.log = [];'
                    'window.addEventListener("message", function (e) {'
                    ' var d = e.data || {}; window.log.push(d.subject);'
                    ' var k = e.origin + " " + d.key;'
                    ' if (d.subject === "lti.put_data") { window.stored[k] = d.value;'
                    '  e.source.postMessage({subject: "lti.put_data.response",'
                    '   message_id: d.message_id, key: d.key, value: d.value}, e.origin); }'
                    ' if (d.subject === "lti.get_data") {'
                    '  e.source.postMessage({subject: "lti.get_data.response",'
                    '   message_id: d.message_id, key: d.key, value: window.stored[k]},'
                    '   e.origin); }'
                    '});</script></body></html>')

        @app.get("/jwks")
        def jwks():
            self.jwks_fetches += 1
            return jsonify({"keys": [self.jwk, *self.old_keys]})

        @app.route("/auth", methods=["GET", "POST"])
        def auth():
            params = request.values.to_dict()
            self.auth_requests.append(params)
            expected = {"scope": "openid", "response_type": "id_token",
                        "response_mode": "form_post", "prompt": "none",
                        "client_id": self.client_id,
                        "redirect_uri": self.tool_url + "/lti/launch"}
            for name, value in expected.items():
                if params.get(name) != value:
                    return f"bad {name}: {params.get(name)!r}", 400
            spec = self.launches.get(params.get("login_hint", ""))
            if spec is None or not params.get("nonce") or not params.get("state"):
                return "unknown login_hint, or no nonce/state", 400
            token = self.id_token(spec, nonce=params["nonce"])
            return (f'<form method="post" action="{params["redirect_uri"]}">'
                    f'<input type="hidden" name="id_token" value="{token}">'
                    f'<input type="hidden" name="state" value="{params["state"]}">'
                    '</form><script>document.forms[0].submit()</script>')

        @app.post("/token")
        def token():
            form = request.form.to_dict()
            self.token_requests.append(form)
            if form.get("grant_type") != "client_credentials" or form.get(
                    "client_assertion_type") != \
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
                return jsonify(error="unsupported_grant_type"), 400
            try:
                claims = self.verify_tool_jwt(form.get("client_assertion", ""),
                                              audience=self.url + "/token")
            except jwt.PyJWTError as exc:
                return jsonify(error="invalid_client", error_description=str(exc)), 401
            if claims.get("iss") != self.client_id or claims.get("sub") != self.client_id:
                return jsonify(error="invalid_client"), 401
            access = secrets.token_urlsafe(16)
            self.access_tokens[access] = {"scope": form.get("scope", ""),
                                          "expires": time.time() + self.token_lifetime}
            return jsonify(access_token=access, token_type="Bearer",
                           expires_in=self.token_lifetime, scope=form.get("scope", ""))

        @app.route("/lineitems", methods=["GET", "POST"])
        def lineitems():
            if request.method == "GET":
                self._bearer(SCOPE + "lineitem")
                items = list(self.lineitems.values())
                for name, key in (("resource_link_id", "resourceLinkId"),
                                  ("resource_id", "resourceId"), ("tag", "tag")):
                    if request.args.get(name):
                        items = [i for i in items if i.get(key) == request.args[name]]
                return jsonify(items), 200, {
                    "Content-Type": "application/vnd.ims.lis.v2.lineitemcontainer+json"}
            self._bearer(SCOPE + "lineitem")
            body = request.get_json(force=True)
            with self.lock:
                self.lineitem_posts += 1
            time.sleep(self.lineitem_delay)
            item_id = self.add_lineitem(body.get("label", ""), body.get("scoreMaximum", 0),
                                        body.get("resourceId", ""), body.get("resourceLinkId"))
            self.lineitems[item_id]["tag"] = body.get("tag", "")
            return jsonify(self.lineitems[item_id]), 201, {
                "Content-Type": "application/vnd.ims.lis.v2.lineitem+json"}

        @app.get("/.well-known/openid-configuration")
        def openid_configuration():
            return jsonify({
                "issuer": self.issuer, "authorization_endpoint": self.url + "/auth",
                "token_endpoint": self.url + "/token", "jwks_uri": self.url + "/jwks",
                "registration_endpoint": self.url + "/register",
                "scopes_supported": ["openid", SCOPE + "lineitem", SCOPE + "score",
                                     SCOPE + "lineitem.readonly"],
                "response_types_supported": ["id_token"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "https://purl.imsglobal.org/spec/lti-platform-configuration": {
                    "product_family_code": "simulated-lms", "version": "1.0",
                    "messages_supported": [{"type": "LtiResourceLinkRequest"},
                                           {"type": "LtiDeepLinkingRequest"}]}})

        @app.post("/register")
        def register():
            if request.headers.get("Authorization") != f"Bearer {self.registration_token}":
                return jsonify(error="invalid_token"), 401
            body = request.get_json(force=True)
            self.registrations.append(body)
            return jsonify({**body, "client_id": self.client_id,
                            "https://purl.imsglobal.org/spec/lti-tool-configuration": {
                                **body["https://purl.imsglobal.org/spec/lti-tool-configuration"],
                                "deployment_id": self.deployment_id}}), 200

        @app.get("/memberships")
        def memberships():
            self._bearer("https://purl.imsglobal.org/spec/lti-nrps/scope/"
                         "contextmembership.readonly")
            if request.headers.get("Accept") != \
                    "application/vnd.ims.lti-nrps.v2.membershipcontainer+json":
                return "bad Accept", 406
            page = int(request.args.get("page", "0"))
            self.member_pages += 1
            headers = {"Content-Type": "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"}
            if 2 * (page + 1) < len(self.members):
                headers["Link"] = f'<{self.url}/memberships?page={page + 1}>; rel="next"'
            return jsonify({"id": self.url + "/memberships",
                            "context": {"id": "course-7", "label": "ATT101"},
                            "members": self.members[2 * page:2 * page + 2]}), 200, headers

        @app.post("/lineitems/<item_id>/scores")
        def scores(item_id):
            with self.lock:
                self.score_attempts += 1
                if self.fail_scores > 0:
                    self.fail_scores -= 1
                    return "temporarily unavailable", 503
            self._bearer(SCOPE + "score")
            if item_id not in self.lineitems:
                return "no such line item", 404
            if request.mimetype != SCORE_TYPE:
                return f"bad content type {request.mimetype}", 415
            body = request.get_json(force=True)
            if self.refuse is not None and self.refuse(body):
                return "temporarily unavailable", 503
            self.scores.append({"lineitem": item_id, "body": body,
                                "authorization": request.headers.get("Authorization")})
            # AGS 2.0: a score older than the one stored is ignored
            key = (item_id, body.get("userId"))
            kept = self.gradebook.get(key)
            if kept is None or body["timestamp"] > kept["timestamp"]:
                self.gradebook[key] = body
            return "", 204

        @app.post("/deep_link_return")
        def deep_link_return():
            token = request.form.get("JWT", "")
            claims = self.verify_tool_jwt(token, audience=self.issuer)
            self.deep_link_responses.append({"jwt": token, "claims": claims,
                                             "header": jwt.get_unverified_header(token)})
            return "<p>Linked.</p>"

        return app

    def close(self):
        self.server.close()
