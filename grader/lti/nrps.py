"""Names and Role Provisioning Services 2.0 (NRPS): the course's members, read from the platform
for the instructor view, so that it lists those who have not submitted too.

An instructor's launch carries the claim ``https://purl.imsglobal.org/spec/lti-nrps/claim/
namesroleservice`` with ``context_memberships_url``; the tool GETs it with an access token for
the scope ``.../contextmembership.readonly`` (:class:`grader.lti.ags.TokenClient`), ``Accept:
application/vnd.ims.lti-nrps.v2.membershipcontainer+json``, and follows the ``Link: <...>;
rel="next"`` pages (NRPS 2.0, 2.4), at most :data:`MAX_PAGES` pages and :data:`MAX_MEMBERS`
members, on the same origin as the first page only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests

from grader.lti import claims as C
from grader.lti.ags import PlatformError, TokenClient

NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
SCOPE_MEMBERSHIPS = ("https://purl.imsglobal.org/spec/lti-nrps/scope/"
                     "contextmembership.readonly")
MEMBERSHIPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 50
MAX_MEMBERS = 5000


@dataclass(frozen=True)
class Member:
    """One member of the platform's course: ``user_id`` (the ``sub`` its launches carry),
    ``learner_id`` (ours: the registration's prefix + ``user_id``), display ``name``, the short
    context roles (``Learner``, ``Instructor``, ...) and ``status`` (``Active``, ``Inactive``,
    ``Deleted``)."""

    user_id: str
    learner_id: str
    name: str = ""
    roles: list[str] = field(default_factory=list)
    status: str = "Active"

    @property
    def is_learner(self) -> bool:
        return "Learner" in self.roles


def _member(raw, prefix: str) -> Member | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("user_id"), str) or not raw["user_id"]:
        return None
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        name = " ".join(p for p in (raw.get("given_name"), raw.get("family_name"))
                        if isinstance(p, str) and p.strip())
    roles = sorted({C.context_role(r) for r in raw.get("roles") or []
                    if isinstance(r, str)} - {None})
    status = raw.get("status") if isinstance(raw.get("status"), str) else "Active"
    return Member(raw["user_id"], prefix + raw["user_id"], (name or "")[:200], roles, status)


def fetch_members(tokens: TokenClient, platform, url: str, timeout: float = 10.0
                  ) -> list[Member]:
    """The members listed at ``url`` (and its next pages). Raises :class:`PlatformError` when
    the platform refuses or answers what is not a membership container."""
    origin = urlsplit(url)[:2]
    members: list[Member] = []
    scopes = [SCOPE_MEMBERSHIPS]
    for _page in range(MAX_PAGES):
        response = None
        for fresh in (False, True):
            token = tokens.token(platform, scopes)
            try:
                response = requests.get(url, timeout=timeout, allow_redirects=False, headers={
                    "Authorization": f"Bearer {token}", "Accept": MEMBERSHIPS_TYPE})
            except requests.RequestException as exc:
                raise PlatformError(f"the member list could not be read: {type(exc).__name__}",
                                    None, True) from exc
            if response.status_code != 401 or fresh:
                break
            tokens.forget(platform, scopes)
        if response.status_code != 200:
            raise PlatformError(f"the member list was refused: HTTP {response.status_code}",
                                response.status_code, response.status_code >= 500)
        try:
            listed = response.json().get("members")
        except (ValueError, AttributeError) as exc:
            raise PlatformError("the member list is not a membership container",
                                response.status_code, False) from exc
        for raw in listed if isinstance(listed, list) else []:
            member = _member(raw, platform.learner_prefix or "")
            if member is not None and len(members) < MAX_MEMBERS:
                members.append(member)
        following = response.links.get("next", {}).get("url")
        if not following or urlsplit(following)[:2] != origin or len(members) >= MAX_MEMBERS:
            break
        url = following
    return members
