"""Verifying a launch: the id_token a platform form-posts to ``/lti/launch`` after the OIDC login.

Checks, in order (1EdTech Security Framework 1.0, 5.1.3; LTI Core 1.3, 5.3):

1. the ``state`` was issued by our login endpoint, has not expired and was not used yet, and this
   browser carries its cookie, or the secret the login kept in the platform's client-side storage
   (else the new-window fallback is offered);
2. the id_token is a JWT signed with RS256 by a key (``kid``) of the platform's JWKS;
3. ``iss`` and ``aud`` name a registered platform (issuer + client_id); when ``aud`` lists several
   audiences ``azp`` must be our client_id; ``exp`` has not passed and ``iat`` is not in the future
   (each with ``leeway`` seconds of clock skew);
4. the platform is the one the login was made for, and ``nonce`` is the one issued with this
   ``state``; the state is then consumed, once, in the database (a replay is refused by any
   process);
5. ``deployment_id`` is one of the platform's registered deployments; ``version`` is 1.3.0 and the
   message type is one we handle; ``sub``, when present, is a non-empty string (a resource-link
   launch may omit it: anonymous, LTI Core 1.3, 5.3.6.1; a deep-linking request may not).

The domain here knows the store and the keys, not Flask; views turn :class:`LtiRefused` into pages.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jwt

from grader.lti import claims as C
from grader.lti.platform_keys import PlatformKeys
from grader.lti.refusals import LtiRefused
from grader.store.models import utcnow

MESSAGE_TYPES = (C.RESOURCE_LINK_REQUEST, C.DEEP_LINKING_REQUEST)


@dataclass
class Launch:
    """A verified launch: the platform registration, the id_token's claims and shortcuts."""

    platform: Any
    claims: dict[str, Any]
    message_type: str = ""
    deployment_id: str = ""
    sub: str | None = None  # None: an anonymous launch (LTI Core 1.3, 5.3.6.1)
    roles: list[str] = field(default_factory=list)

    def claim(self, name: str, default: Any = None) -> Any:
        value = self.claims.get(name, default)
        return default if value is None else value


def _unverified(id_token: str) -> tuple[dict, dict]:
    try:
        return jwt.get_unverified_header(id_token), jwt.decode(
            id_token, options={"verify_signature": False})
    except jwt.DecodeError as exc:
        raise LtiRefused(400, "malformed_id_token", f"The id_token is not a well-formed JWT: "
                         f"{exc}", "id_token") from exc


def find_platform(repo, issuer: Any, aud: Any, azp: Any):
    """The registration an id_token's ``iss``/``aud``/``azp`` name. Raises :class:`LtiRefused`:
    403 for an unregistered issuer, 401 when no audience is a registered client_id of it, or when
    several audiences come without ``azp`` (or with an ``azp`` not among them)."""
    if not isinstance(issuer, str) or not issuer:
        raise LtiRefused(400, "missing_claim", "The id_token has no iss claim.", "iss")
    audiences = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    if not audiences:
        raise LtiRefused(400, "missing_claim", "The id_token has no aud claim.", "aud")
    registered = repo.platforms_of_issuer(issuer)
    if not registered:
        raise LtiRefused(403, "unknown_platform", f"No platform with issuer {issuer!r} is "
                         "registered with this tool.", "iss",
                         hint="An administrator registers the LMS at POST /api/v1/lti/platforms.")
    if len(audiences) > 1 or azp is not None:
        if azp not in audiences:
            raise LtiRefused(401, "wrong_audience", "The id_token has several audiences (or an "
                             f"azp) but its azp {azp!r} is not one of its audiences "
                             f"{audiences!r}.", "azp")
        audiences = [azp]
    for platform in registered:
        if platform.client_id == audiences[0]:
            return platform
    raise LtiRefused(401, "wrong_audience", f"The id_token is addressed to {audiences[0]!r}, "
                     f"which is not the client_id registered for issuer {issuer!r}.", "aud")


class LaunchVerifier:
    """Verifies launches against the store (platforms, login states) and the platforms' keys."""

    def __init__(self, store, platform_keys: PlatformKeys, leeway: float = 60.0):
        self.repo = store.lti
        self.keys = platform_keys
        self.leeway = leeway

    def check_state(self, state: str | None, cookie_state: str | None, retry_url,
                    storage_value: str | None = None) -> Any:
        """The login state row for ``state`` if it is known, unexpired, unused and bound to this
        browser by its cookie, or by ``storage_value``, the secret the login stored in the
        platform's client-side storage (when cookies are blocked even partitioned, e.g. Safari).
        ``retry_url(params)`` builds the new-window link offered when neither came back
        (third-party cookies blocked in the LMS's iframe)."""
        if not state:
            raise LtiRefused(400, "missing_parameter", "The launch has no state parameter.",
                             "state")
        row = self.repo.login_state(state)
        if row is None:
            raise LtiRefused(401, "unknown_state", "This launch's state was not issued by this "
                             "tool's login endpoint (or it expired long ago).", "state",
                             hint="Start the activity again from the LMS.")
        if row.used_at is not None:
            raise LtiRefused(401, "replayed_launch", "This launch was already used: its state "
                             "and nonce are single use, so a replayed id_token is refused.",
                             "nonce", hint="Start the activity again from the LMS.")
        if row.expires_at <= utcnow():
            raise LtiRefused(401, "login_expired", "The login for this launch expired before the "
                             "LMS answered.", "state", hint="Start the activity again from the LMS.")
        stored = (row.params or {}).get("storage") or {}
        if cookie_state is None and storage_value and stored.get("sha256"):
            from grader.lti.login import storage_digest
            import hmac

            if hmac.compare_digest(storage_digest(storage_value), str(stored["sha256"])):
                return row
        if cookie_state != state:
            if cookie_state is None:
                raise LtiRefused(403, "cookie_blocked", "Your browser did not send back the cookie "
                                 "this tool set when the launch began; browsers block such cookies "
                                 "inside an LMS page (third-party cookies).", "state",
                                 hint="Open the activity in a new window, where it works.",
                                 retry_url=retry_url(self._login_params(row)))
            raise LtiRefused(401, "state_mismatch", "The state of this launch does not match the "
                             "one this browser started.", "state")
        return row

    def _login_params(self, row) -> dict:
        """The login parameters to send again (the new-window fallback): the kept hints, and the
        platform's ``iss`` and ``client_id``."""
        platform = self.repo.platform(row.platform_id)
        from grader.lti.login import KEPT_PARAMS

        named = {"iss": platform.issuer, "client_id": platform.client_id} if platform else {}
        # not the storage target: the new window has no LMS frame around it
        return {**named, **{k: v for k, v in (row.params or {}).items() if k in KEPT_PARAMS}}

    def verify(self, id_token: str | None, login_state) -> Launch:
        """Verify ``id_token`` for the checked ``login_state`` and consume the state. Raises
        :class:`LtiRefused` naming the first check that failed."""
        if not id_token:
            raise LtiRefused(400, "missing_parameter", "The launch has no id_token.", "id_token")
        header, unverified = _unverified(id_token)
        if header.get("alg") != "RS256":
            raise LtiRefused(401, "invalid_signature", f"The id_token must be signed with RS256, "
                             f"not {header.get('alg')!r}.", "id_token")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise LtiRefused(400, "malformed_id_token", "The id_token header has no kid, so the "
                             "platform key that signed it cannot be found.", "id_token")
        platform = find_platform(self.repo, unverified.get("iss"), unverified.get("aud"),
                                 unverified.get("azp"))
        key = self.keys.signing_key(platform.key_set_url, kid)
        try:
            claims = jwt.decode(id_token, key.key, algorithms=["RS256"],
                                audience=platform.client_id, issuer=platform.issuer,
                                leeway=self.leeway,
                                options={"require": ["exp", "iat", "iss", "aud", "nonce"]})
        except jwt.ExpiredSignatureError as exc:
            raise LtiRefused(401, "token_expired", "The id_token has expired (its exp is in the "
                             "past).", "exp", hint="Start the activity again from the LMS.") from exc
        except jwt.ImmatureSignatureError as exc:
            raise LtiRefused(401, "token_not_yet_valid", f"The id_token is not valid yet: {exc} "
                             "(check the platform's clock).", "iat") from exc
        except jwt.InvalidAudienceError as exc:
            raise LtiRefused(401, "wrong_audience", f"The id_token's audience is wrong: {exc}.",
                             "aud") from exc
        except jwt.MissingRequiredClaimError as exc:
            raise LtiRefused(400, "missing_claim", f"The id_token lacks a required claim: {exc}.",
                             exc.claim) from exc
        except jwt.InvalidSignatureError as exc:
            raise LtiRefused(401, "invalid_signature", "The id_token's signature does not verify "
                             f"with the platform's key {kid!r}: it was altered or signed by "
                             "someone else.", "id_token") from exc
        except jwt.InvalidTokenError as exc:
            raise LtiRefused(401, "invalid_token", f"The id_token is not valid: {exc}.",
                             "id_token") from exc

        if platform.id != login_state.platform_id:
            raise LtiRefused(401, "platform_mismatch", "The id_token comes from another platform "
                             "than the one this launch's login was made for.", "iss")
        if claims.get("nonce") != login_state.nonce:
            raise LtiRefused(401, "nonce_mismatch", "The id_token's nonce is not the one issued "
                             "for this launch (an id_token from another launch, replayed?).",
                             "nonce", hint="Start the activity again from the LMS.")
        if not self.repo.consume_login_state(login_state.state, login_state.nonce):
            raise LtiRefused(401, "replayed_launch", "This launch was already used: its state and "
                             "nonce are single use, so a replayed id_token is refused.", "nonce",
                             hint="Start the activity again from the LMS.")
        return self._lti_claims(platform, claims)

    @staticmethod
    def _lti_claims(platform, claims: dict) -> Launch:
        deployment_id = claims.get(C.DEPLOYMENT_ID)
        if not isinstance(deployment_id, str) or not deployment_id:
            raise LtiRefused(400, "missing_claim", "The id_token has no deployment_id claim.",
                             C.DEPLOYMENT_ID)
        if deployment_id not in (platform.deployment_ids or []):
            raise LtiRefused(403, "unknown_deployment", f"Deployment {deployment_id!r} of "
                             f"{platform.issuer} is not registered with this tool.",
                             C.DEPLOYMENT_ID, hint="An administrator adds the deployment id to the "
                                                   "platform's registration.")
        if claims.get(C.VERSION) != C.LTI_VERSION:
            raise LtiRefused(400, "unsupported_version", f"LTI version {claims.get(C.VERSION)!r} "
                             f"is not supported; this tool speaks {C.LTI_VERSION}.", C.VERSION)
        message_type = claims.get(C.MESSAGE_TYPE)
        if message_type not in MESSAGE_TYPES:
            raise LtiRefused(400, "unsupported_message_type", f"Message type {message_type!r} is "
                             f"not handled; this tool accepts {', '.join(MESSAGE_TYPES)}.",
                             C.MESSAGE_TYPE)
        roles = claims.get(C.ROLES)
        if not isinstance(roles, list):
            raise LtiRefused(400, "missing_claim", "The id_token has no roles claim (a list).",
                             C.ROLES)
        sub = claims.get("sub")
        if "sub" in claims and (not isinstance(sub, str) or not sub):
            raise LtiRefused(400, "missing_claim", "The id_token's sub is not a user id (a "
                             "non-empty string).", "sub")
        if sub is None and message_type != C.RESOURCE_LINK_REQUEST:
            # LTI Core 1.3, 5.3.6.1: only a resource link may be launched anonymously
            raise LtiRefused(400, "missing_claim", "The id_token has no sub (an anonymous launch): "
                             "picking assignments needs to know the instructor.", "sub")
        return Launch(platform=platform, claims=claims, message_type=message_type,
                      deployment_id=deployment_id, sub=sub, roles=roles)
