"""Assignment and Grade Services 2.0: where scores go and how they get there.

- **Targets.** Each verified resource-link launch of a learner whose AGS claim grants the score
  scope records a grade target: platform, deployment, line item (or the line-item container when
  the link has none yet), the user's ``sub``, and our (course, assignment, learner).
- **Scores.** When a submission of that (course, assignment, learner) is graded, regraded or fails,
  one score per target is published (:func:`score_body`): ``scoreGiven``/``scoreMaximum`` in our
  points (the platform scales them to its line item), ``activityProgress: Completed``,
  ``gradingProgress: FullyGraded`` (``Failed`` when grading could not complete), the event's
  timestamp (ISO 8601 with milliseconds, UTC: platforms ignore a score older than the last one they
  stored, so a late retry cannot overwrite a newer grade) and a short comment. The LMS shows the
  learner's latest submission: a submission that is not the learner's latest final one publishes
  nothing.
- **Access tokens.** OAuth 2 client-credentials grant with a JWT assertion signed by the tool
  (1EdTech Security Framework 1.0, 4.1): ``iss`` = ``sub`` = client_id, ``aud`` = the token URL
  (or the registration's ``auth_audience``), a fresh ``jti``. Tokens are cached in the database,
  sealed, for every process, until 60 s before they expire.
- **Sending.** :class:`ScorePublisher` makes one attempt and classifies the outcome: delivered (2xx),
  retry later (network error, 408, 429, 5xx), or give up (another 4xx: the platform will not take
  it). A 401 drops the cached token and tries once more at once with a new one.
"""
from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests

from grader.lti import claims as C
from grader.lti.keys import Sealer, ToolKeys
from grader.lti.launch_urls import optional_url
from grader.notify.channel import Attempt
from grader.store.models import utcnow

log = logging.getLogger(__name__)

SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
#: A cached token is not used in its last minute (it could expire on the way).
TOKEN_MARGIN = timedelta(seconds=60)
#: Scopes the tool asks for; a token is requested for those a launch granted.
TOOL_SCOPES = (C.SCOPE_LINEITEM, C.SCOPE_SCORE)
MAX_COMMENT = 250
#: Canvas's score extension: ``submitted_at`` dates the submission (Canvas's late flag compares
#: it with the due date; without it Canvas dates the submission by the score's ``timestamp``), and
#: ``new_submission: false`` says a regrade is not a new attempt. Other platforms ignore it.
CANVAS_SUBMISSION = "https://canvas.instructure.com/lti/submission"
#: A line-item claim older than this is taken over: the process that made it died before
#: recording the line item (a sender's whole attempt is bounded by its timeouts, well below).
LINEITEM_CLAIM_STALE = timedelta(seconds=120)


def record_target(store, launch, course_id: str, assignment_id: str, learner_id: str):
    """Record (or refresh) the grade target of a verified resource-link launch. Only a launch
    whose AGS endpoint claim grants the score scope and names a line item (or a line-item
    container we may add to) has one; returns ``(row, created)`` or ``None``. Raises
    :class:`~grader.lti.refusals.LtiRefused` (400 ``unsafe_url``) when an endpoint URL is not
    one the tool may call (:mod:`grader.lti.launch_urls`)."""
    endpoint = launch.claim(C.AGS_ENDPOINT)
    if not isinstance(endpoint, dict):
        return None
    scopes = [s for s in endpoint.get("scope") or [] if isinstance(s, str)]
    # the tool calls these with its access token: https (or local) URLs only
    lineitem = optional_url(endpoint.get("lineitem"), "endpoint.lineitem", launch.platform) \
        if isinstance(endpoint.get("lineitem"), str) else None
    lineitems = optional_url(endpoint.get("lineitems"), "endpoint.lineitems", launch.platform) \
        if isinstance(endpoint.get("lineitems"), str) else None
    if C.SCOPE_SCORE not in scopes or not (lineitem or (lineitems and C.SCOPE_LINEITEM in scopes)):
        return None
    return store.lti.upsert_grade_target(
        platform_id=launch.platform.id, deployment_id=launch.deployment_id,
        resource_link_id=launch.claims[C.RESOURCE_LINK]["id"], user_sub=launch.sub,
        course_id=course_id, assignment_id=assignment_id, learner_id=learner_id,
        lineitem_url=lineitem, lineitems_url=lineitems, scopes=scopes)


def iso_timestamp(moment: datetime) -> str:
    """ISO 8601 in UTC with milliseconds, e.g. ``2026-11-30T13:21:23.056+00:00``."""
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")


def _points(value: float) -> str:
    return f"{value:g}"


def score_body(submission, user_sub: str, event: str, moment: datetime,
               counted=None) -> dict[str, Any]:
    """The AGS score (``application/vnd.ims.lis.v1.score+json``) for a final ``submission``.

    ``event``: ``graded``, ``regraded`` or ``failed``. A graded submission gives
    ``scoreGiven``/``scoreMaximum`` in the assignment's points, ``Completed``/``FullyGraded``; a
    failed one ``Completed``/``Failed`` and no score (the platform keeps no grade from it).
    ``timestamp`` is ``moment``, when this result was scored (AGS 2.0, 3.4.5: when the score was
    modified in the tool; the platform keeps the newest); the submission's own time goes in
    Canvas's extension (:data:`CANVAS_SUBMISSION` ``submitted_at``), so a regrade after the due
    date does not make an on-time submission late.
    ``counted`` (:class:`grader.grading.attempts.Counted`): the learner's counted grade, which
    is what is sent (the best attempt, or the best per item, under those policies).
    """
    body: dict[str, Any] = {"userId": user_sub, "activityProgress": "Completed",
                            "timestamp": iso_timestamp(moment)}
    # the counted attempt's own submission time, whatever regrade (``moment``) scored it since
    dated = counted.primary if counted is not None and counted.primary is not None else submission
    submitted_at = getattr(dated, "received_at", None)
    if submitted_at is not None:
        body[CANVAS_SUBMISSION] = {"submitted_at": iso_timestamp(submitted_at),
                                   "new_submission": event != "regraded"}
    score, maximum = ((counted.score, counted.max_score) if counted is not None
                      else (submission.score, submission.max_score))
    if event == "failed" or score is None:
        body["gradingProgress"] = "Failed"
        body["comment"] = ("Grading could not complete (a fault on our side, not a zero): please "
                           "submit again.")
        return body
    body.update(scoreGiven=float(score), scoreMaximum=float(maximum),
                gradingProgress="FullyGraded")
    verb = "Regraded" if event == "regraded" else "Graded"
    which = f"submission {submission.id[:8]}"
    if counted is not None and counted.policy == "best" and counted.attempts > 1:
        which = f"the best of {counted.attempts} attempts: submission {counted.primary.id[:8]}"
    elif counted is not None and counted.policy == "best_per_item" and counted.attempts > 1:
        which = f"each item's best over {counted.attempts} attempts"
    comment = f"{verb}: {_points(score)} / {_points(maximum)} points ({which})."
    if body["scoreMaximum"] <= 0:  # nothing to scale: report completion only
        del body["scoreGiven"]
    body["comment"] = comment[:MAX_COMMENT]
    return body


def scores_for(store, catalog, submission, event: str, moment: datetime | None = None
               ) -> list[tuple[int, dict[str, Any]]]:
    """(grade target id, score body) for every target of ``submission``'s learner and assignment,
    or nothing when the submission is not (part of) the learner's counted grade (an older attempt
    finishing late, or regraded, must not replace the newer grade in the LMS)."""
    from grader.grading.attempts import counts_for, learner_grade

    targets = store.lti.grade_targets(submission.course_id, submission.assignment_id,
                                      submission.learner_id)
    counted = learner_grade(store, catalog, submission.course_id, submission.assignment_id,
                            submission.learner_id) if targets else None
    if not targets or not counts_for(counted, submission):
        return []
    moment = moment or utcnow()
    return [(t.id, score_body(submission, t.user_sub, event, moment, counted)) for t in targets]


def build_publisher(config, store, catalog) -> "ScorePublisher":
    """The score publisher of a process (API or worker) over its store and catalogue."""
    keys = ToolKeys(store, config["GRADER_SECRET_KEY"], config["LTI_KEY_OVERLAP_SECONDS"])
    return ScorePublisher(store, catalog, TokenClient(store, keys, keys.sealer))


def scores_url(lineitem_url: str) -> str:
    """The score endpoint of a line item: ``/scores`` appended to the path, the query kept
    (AGS 2.0, 3.4; Moodle's line item URLs carry ``?type_id=``)."""
    parts = urlsplit(lineitem_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


class PlatformError(Exception):
    """A platform endpoint answered with an error. ``retryable``: worth trying again later."""

    def __init__(self, message: str, status_code: int | None, retryable: bool):
        super().__init__(message)
        self.status_code, self.retryable = status_code, retryable


def _retryable(status: int) -> bool:
    return status in (408, 425, 429) or status >= 500


def _check(response: requests.Response, what: str) -> None:
    if not 200 <= response.status_code < 300:
        raise PlatformError(f"{what}: HTTP {response.status_code} {response.text[:200]!r}",
                            response.status_code, _retryable(response.status_code))


class TokenClient:
    """Access tokens from the platforms' token endpoints, cached in the store for all processes."""

    def __init__(self, store, keys: ToolKeys, sealer: Sealer, timeout: float = 10.0):
        self.repo = store.lti
        self.keys = keys
        self.sealer = sealer
        self.timeout = timeout
        self.requests_made = 0  # token requests sent by this client (observability, tests)

    def token(self, platform, scopes: list[str]) -> str:
        """A bearer token of ``platform`` for ``scopes``: the cached one while it has more than a
        minute to live, else a new one. Raises :class:`PlatformError`."""
        scope = " ".join(sorted(set(scopes)))
        cached = self.repo.access_token(platform.id, scope, valid_after=utcnow() + TOKEN_MARGIN)
        if cached is not None:
            return self.sealer.unseal(cached.token)
        assertion = self.keys.sign({"iss": platform.client_id, "sub": platform.client_id,
                                    "aud": platform.auth_audience or platform.auth_token_url})
        self.requests_made += 1
        try:
            response = requests.post(platform.auth_token_url, timeout=self.timeout, data={
                "grant_type": "client_credentials", "client_assertion_type": JWT_BEARER,
                "client_assertion": assertion, "scope": scope},
                headers={"Accept": "application/json"})
        except requests.RequestException as exc:
            raise PlatformError(f"token request failed: {type(exc).__name__}: {exc}", None,
                                True) from exc
        _check(response, "token request refused")
        try:
            data = response.json()
            access_token = str(data["access_token"])
            expires_in = float(data.get("expires_in", 3600))
        except (ValueError, KeyError, TypeError) as exc:
            raise PlatformError(f"token response unreadable: {response.text[:200]!r}",
                                response.status_code, True) from exc
        self.repo.store_access_token(platform.id, scope, self.sealer.seal(access_token),
                                     utcnow() + timedelta(seconds=expires_in))
        return access_token

    def forget(self, platform, scopes: list[str]) -> None:
        self.repo.drop_access_token(platform.id, " ".join(sorted(set(scopes))))


class ScorePublisher:
    """Publishes one score to one grade target (one attempt; the delivery log retries)."""

    def __init__(self, store, catalog, tokens: TokenClient, timeout: float = 10.0):
        self.store = store
        self.repo = store.lti
        self.catalog = catalog
        self.tokens = tokens
        self.timeout = timeout

    def attempt(self, target_id: int | None, body: dict[str, Any],
                timeout: float | None = None) -> Attempt:
        """POST ``body`` to the line item of grade target ``target_id`` (finding or creating the
        line item first when the link had none). ``Attempt.retry`` is false when trying again
        cannot help (a 4xx other than 401/408/425/429, or the target is gone)."""
        target = self.repo.grade_target(target_id) if target_id is not None else None
        platform = self.repo.platform(target.platform_id) if target is not None else None
        if target is None or platform is None:
            return Attempt(False, None, "the grade target or its platform registration was "
                                        "removed", retry=False)
        if target.deployment_id not in (platform.deployment_ids or []):
            # retired from the registration: kept, and sent once the deployment is back
            # (grader.lti.registration sends the pending score then)
            return Attempt(False, None, f"deployment {target.deployment_id!r} is not (or no "
                                        f"longer) registered for platform {platform.id} "
                                        f"({platform.issuer}): the score is sent when an admin "
                                        "adds it back to the registration", retry=True)
        scopes = [s for s in TOOL_SCOPES if s in (target.scopes or [])]
        timeout = timeout or self.timeout
        try:
            lineitem = target.lineitem_url or self._lineitem(target, platform, scopes, timeout)
            return self._post_score(platform, scopes, scores_url(lineitem), body, timeout)
        except PlatformError as exc:
            return Attempt(False, exc.status_code, str(exc)[:500], retry=exc.retryable)

    def _request(self, platform, scopes, method: str, url: str, timeout: float,
                 **kwargs) -> requests.Response:
        """An authorised request; on 401 the cached token is dropped and the request is made
        once more with a new token."""
        for fresh in (False, True):
            token = self.tokens.token(platform, scopes)
            headers = {**kwargs.pop("headers", {}), "Authorization": f"Bearer {token}"}
            try:
                response = requests.request(method, url, headers=headers, timeout=timeout,
                                            allow_redirects=False, **kwargs)
            except requests.RequestException as exc:
                raise PlatformError(f"{method} {url} failed: {type(exc).__name__}: {exc}", None,
                                    True) from exc
            if response.status_code != 401 or fresh:
                return response
            self.tokens.forget(platform, scopes)
            kwargs["headers"] = {k: v for k, v in headers.items() if k != "Authorization"}
        return response  # pragma: no cover - the loop always returns

    def _post_score(self, platform, scopes, url: str, body: dict[str, Any],
                    timeout: float) -> Attempt:
        response = self._request(platform, scopes, "POST", url, timeout,
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": SCORE_TYPE})
        if 200 <= response.status_code < 300:
            return Attempt(True, response.status_code)
        return Attempt(False, response.status_code,
                       f"HTTP {response.status_code} {response.text[:200]!r}",
                       retry=_retryable(response.status_code))

    def _lineitem(self, target, platform, scopes, timeout: float) -> str:
        """The line item of a link that came without one, made once per (platform, deployment,
        resource link, tag) across every process (:class:`~grader.store.lti_models.LtiLineItem`):
        the one recorded already; else, by the one sender that claims the link, found by
        resource link and tag in the container or created there (label, our maximum, resource id
        = assignment id). Another sender meanwhile gets a retryable :class:`PlatformError`
        (the delivery log tries again after its backoff and finds the recorded line item)."""
        from grader.lti.deep_linking import LINEITEM_TAG

        if not target.lineitems_url or C.SCOPE_LINEITEM not in scopes:
            raise PlatformError("the link has no line item and the tool may not create one",
                                None, False)
        key = (target.platform_id, target.deployment_id, target.resource_link_id, LINEITEM_TAG)
        known = self.repo.line_item(*key)
        if known is not None and known.lineitem_url:
            self.repo.set_lineitem(target.id, known.lineitem_url)
            return known.lineitem_url
        if not self.repo.claim_line_item(*key, stale_before=utcnow() - LINEITEM_CLAIM_STALE):
            known = self.repo.line_item(*key)
            if known is not None and known.lineitem_url:  # recorded since we looked
                self.repo.set_lineitem(target.id, known.lineitem_url)
                return known.lineitem_url
            raise PlatformError("the line item of this link is being created by another "
                                "sender; trying again after it is recorded", None, True)
        try:
            url = self._find_or_create_lineitem(target, platform, scopes, timeout, LINEITEM_TAG)
        except BaseException:
            self.repo.release_line_item(*key)
            raise
        self.repo.record_line_item(*key, url)
        return url

    def _find_or_create_lineitem(self, target, platform, scopes, timeout: float,
                                 tag: str) -> str:
        found = self._request(platform, scopes, "GET", target.lineitems_url, timeout,
                              params={"resource_link_id": target.resource_link_id, "tag": tag},
                              headers={"Accept": LINEITEMS_TYPE})
        _check(found, "line items could not be listed")
        try:
            listed = found.json() or []
        except ValueError as exc:
            raise PlatformError(f"line items unreadable: {found.text[:200]!r}", found.status_code,
                                True) from exc
        items = [i for i in listed if isinstance(i, dict) and i.get("id")
                 and i.get("resourceLinkId") in (None, target.resource_link_id)
                 and i.get("tag") in (None, "", tag)]
        if items:
            return str(items[0]["id"])
        assignment = self.catalog.get(target.course_id, target.assignment_id)
        created = self._request(platform, scopes, "POST", target.lineitems_url, timeout,
                                data=json.dumps({
                                    "scoreMaximum": assignment.max_score if assignment
                                    else 1.0,
                                    "label": assignment.title if assignment
                                    else target.assignment_id,
                                    "resourceId": target.assignment_id,
                                    "resourceLinkId": target.resource_link_id,
                                    "tag": tag}).encode(),
                                headers={"Content-Type": LINEITEM_TYPE,
                                         "Accept": LINEITEM_TYPE})
        _check(created, "the line item could not be created")
        try:
            return str(created.json()["id"])
        except (ValueError, KeyError, TypeError) as exc:
            raise PlatformError(f"the created line item is unreadable: {created.text[:200]!r}",
                                created.status_code, True) from exc
