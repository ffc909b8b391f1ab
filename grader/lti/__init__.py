"""The LTI 1.3 Advantage tool: an LMS (the platform) launches learners and instructors into the
grader, instructors link assignments by deep linking, and scores go back to the LMS's gradebook
(Assignment and Grade Services).

One module per job: :mod:`~grader.lti.keys` (our signing keys and JWKS),
:mod:`~grader.lti.platform_keys` (the platforms' JWKS), :mod:`~grader.lti.login` (OIDC login
initiation), :mod:`~grader.lti.launch` (id_token verification), :mod:`~grader.lti.deep_linking`,
:mod:`~grader.lti.ags` (grade targets and score publishing), :mod:`~grader.lti.nrps` (the
course's members), :mod:`~grader.lti.dynamic_registration` (one-URL registration),
:mod:`~grader.lti.views` (the ``/lti`` endpoints). Tables: :mod:`grader.store.lti_models`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from grader.lti.keys import ToolKeys
from grader.lti.launch import Launch, LaunchVerifier
from grader.lti.platform_keys import PlatformKeys

if TYPE_CHECKING:  # the worker's score channel imports this package; it needs no Flask
    from flask import Flask


@dataclass
class LtiState:
    """The tool's per-app objects."""

    store: object
    keys: ToolKeys
    platform_keys: PlatformKeys
    verifier: LaunchVerifier
    notifier: object = None
    catalog: object = None

    def record_grade_target(self, launch: Launch, course_id: str, assignment_id: str,
                            learner_id: str) -> None:
        """Remember where this learner's scores for ``assignment_id`` go, when the launch
        carries the AGS endpoint claim with the score scope. A target seen for the first time
        gets the learner's counted grade at once, when there is one (a learner graded through
        the REST API before launching: :func:`grader.lti.channel.publish_pending`)."""
        from grader.lti.ags import record_target
        from grader.lti.channel import publish_pending

        recorded = record_target(self.store, launch, course_id, assignment_id, learner_id)
        if recorded is not None and recorded[1] and self.notifier is not None:
            publish_pending(self.notifier, self.store, self.catalog, recorded[0])


    def roster(self, learner) -> dict | None:
        """The course's members from the platform (NRPS) for an instructor session whose launch
        carried the names-and-roles service: ``{"members": [Member], "error": None}``, or
        ``{"members": [], "error": why}`` when the platform refused; ``None`` when the session
        has no member list to read (no LTI launch, or the platform offers none)."""
        from grader.lti.ags import PlatformError, TokenClient
        from grader.lti.nrps import fetch_members

        info = getattr(learner, "lti", None) or {}
        url = info.get("memberships_url")
        platform = self.store.lti.platform(info.get("platform_id")) if url else None
        if platform is None:
            return None
        try:
            members = fetch_members(TokenClient(self.store, self.keys, self.keys.sealer),
                                    platform, url)
        except PlatformError as exc:
            return {"members": [], "error": str(exc)}
        return {"members": members, "error": None}


def init_app(app: Flask, api) -> LtiState:
    """Attach the tool to ``app`` (after :func:`grader.api.register_api`, whose flask-smorest
    ``api`` documents the registration endpoints, and :func:`grader.web.init_app`, whose pages a
    launch opens): the ``/lti`` blueprint, ``/api/v1/lti/platforms``, and the tool's state in
    ``app.extensions["lti"]``."""
    from grader.lti.registration import blp as registration
    from grader.lti.views import bp

    grader = app.extensions["grader"]
    config = grader.config
    platform_keys = PlatformKeys(lifespan=config["LTI_JWKS_CACHE_SECONDS"],
                                 cooldown=config["LTI_JWKS_REFETCH_COOLDOWN_SECONDS"])
    state = LtiState(
        store=grader.store,
        keys=ToolKeys(grader.store, config["GRADER_SECRET_KEY"],
                      overlap=config["LTI_KEY_OVERLAP_SECONDS"]),
        platform_keys=platform_keys,
        verifier=LaunchVerifier(grader.store, platform_keys,
                                leeway=config["LTI_CLOCK_SKEW_SECONDS"]),
        notifier=grader.notifier,
        catalog=grader.catalog,
    )
    app.extensions["lti"] = state
    app.extensions["course_roster"] = state.roster  # the instructor view's member list
    app.register_blueprint(bp)
    api.register_blueprint(registration)
    return state
