"""Tables of the LTI 1.3 tool: the tool's signing keys, registered platforms, OIDC login states
(the single-use nonce store), deep-linking picks (single use, bound to their launch), grade
targets (where a learner's score goes) and cached access tokens. Words follow the LTI specs: platform (the LMS), tool (us), deployment, line item, score."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from grader.store.models import Base, UTCDateTime, utcnow


class LtiToolKey(Base):
    """One RSA key pair of the tool. The newest unretired key signs; every key retired less than
    ``LTI_KEY_OVERLAP_SECONDS`` ago stays in the published JWKS so tokens it signed still verify.
    ``private_key`` is the PEM sealed with a key derived from ``GRADER_SECRET_KEY`` (Fernet)."""

    __tablename__ = "lti_tool_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)  # RFC 7638 thumbprint
    public_jwk: Mapped[dict] = mapped_column(JSON)
    private_key: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class LtiPlatform(Base):
    """A platform registration made by an admin: what the LMS issued to us (issuer, client_id,
    deployment ids) and its endpoints, and the course its launches land in. Learners are
    ``learner_prefix + sub``; prefixes are distinct among the platforms of one course."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255), index=True)
    client_id: Mapped[str] = mapped_column(String(255))
    deployment_ids: Mapped[list] = mapped_column(JSON)
    auth_login_url: Mapped[str] = mapped_column(Text)
    auth_token_url: Mapped[str] = mapped_column(Text)
    key_set_url: Mapped[str] = mapped_column(Text)
    auth_audience: Mapped[str | None] = mapped_column(Text, nullable=True)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id"), index=True)
    learner_prefix: Mapped[str] = mapped_column(String(40), default="")
    label: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiLoginState(Base):
    """One OIDC login initiation: the ``state`` and ``nonce`` sent to the platform. A launch
    consumes it once (``used_at``), so a replayed id_token or nonce is refused by every process.
    ``params`` keeps the platform's login parameters for the new-window fallback."""

    __tablename__ = "lti_login_states"

    state: Mapped[str] = mapped_column(String(64), primary_key=True)
    nonce: Mapped[str] = mapped_column(String(64), unique=True)
    platform_id: Mapped[str] = mapped_column(String(36), index=True)
    params: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class LtiDeepLinkPick(Base):
    """The assignment picker a deep-linking launch opened: what the response to the platform
    needs (deployment, return URL, the request's ``data``), the launch it belongs to (its login
    ``state`` and the instructor's ``sub``) and the SHA-256 of the secret cookie set in the
    browser that launched. Used once (``used_at``, one conditional update), within
    ``expires_at``."""

    __tablename__ = "lti_deep_link_picks"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    launch_state: Mapped[str] = mapped_column(String(64))
    platform_id: Mapped[str] = mapped_column(String(36), index=True)
    deployment_id: Mapped[str] = mapped_column(String(255))
    course_id: Mapped[str] = mapped_column(String(64))
    user_sub: Mapped[str] = mapped_column(String(255))
    return_url: Mapped[str] = mapped_column(Text)
    data: Mapped[Any] = mapped_column(JSON, nullable=True)
    browser_sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class LtiGradeTarget(Base):
    """Where one learner's score for one assignment is published (AGS), recorded at each verified
    resource-link launch that carries the score scope. ``lineitem_url`` is ``None`` when the
    link has no line item yet; the sender then finds or creates one under ``lineitems_url``."""

    __tablename__ = "lti_grade_targets"
    __table_args__ = (UniqueConstraint("platform_id", "deployment_id", "resource_link_id",
                                       "user_sub"),
                      Index("ix_lti_grade_targets_learner", "course_id", "assignment_id",
                            "learner_id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    platform_id: Mapped[str] = mapped_column(String(36), index=True)
    deployment_id: Mapped[str] = mapped_column(String(255))
    resource_link_id: Mapped[str] = mapped_column(String(255))
    user_sub: Mapped[str] = mapped_column(String(255))
    course_id: Mapped[str] = mapped_column(String(64))
    assignment_id: Mapped[str] = mapped_column(String(200))
    learner_id: Mapped[str] = mapped_column(String(200))
    lineitem_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    lineitems_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    scopes: Mapped[list] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiLineItem(Base):
    """The line item the tool made (or found) for a resource link that came without one: one per
    (platform, deployment, resource link, tag), enforced by the unique constraint, so every
    process and worker that sends a score to that link uses the same gradebook column. A process
    first *claims* the row (inserts it with ``lineitem_url`` empty and ``claimed_at``); only the
    claimant asks the platform (find, else create), then records ``lineitem_url``. A claim older
    than the sender's stale limit is taken over (its process died)."""

    __tablename__ = "lti_line_items"
    __table_args__ = (UniqueConstraint("platform_id", "deployment_id", "resource_link_id",
                                       "tag"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    platform_id: Mapped[str] = mapped_column(String(36), index=True)
    deployment_id: Mapped[str] = mapped_column(String(255))
    resource_link_id: Mapped[str] = mapped_column(String(255))
    tag: Mapped[str] = mapped_column(String(255))
    lineitem_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    claimed_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiRegistrationLink(Base):
    """A one-URL registration (LTI Dynamic Registration 1.0) an admin made for one course: the
    URL pasted in the LMS carries a secret whose SHA-256 is ``id`` (the secret is never
    stored). Used once (``used_at``, one conditional update), within ``expires_at``; the
    platform it registered is ``platform_id``."""

    __tablename__ = "lti_registration_links"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    course_id: Mapped[str] = mapped_column(String(64))
    learner_prefix: Mapped[str] = mapped_column(String(40), default="")
    label: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    platform_id: Mapped[str | None] = mapped_column(String(36), nullable=True)


class LtiAccessToken(Base):
    """An OAuth 2 access token from a platform's token endpoint (client-credentials grant with a
    JWT assertion), sealed like the tool keys and reused by every process until shortly before it
    expires."""

    __tablename__ = "lti_access_tokens"

    platform_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    scope: Mapped[str] = mapped_column(String(500), primary_key=True)
    token: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
