"""Storage of the LTI tool: platforms, tool keys, login states (nonces), grade targets, tokens.

Every single-use check is one conditional ``UPDATE ... WHERE used_at IS NULL``, so two processes
(gunicorn workers) handed the same launch cannot both accept it.
"""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from functools import lru_cache

from sqlalchemy import and_, bindparam, delete, literal, select, update
from sqlalchemy.exc import IntegrityError

from grader import levers
from grader.store.lti_models import (LtiAccessToken, LtiDeepLinkPick, LtiGradeTarget,
                                     LtiLineItem, LtiLoginState, LtiPlatform,
                                     LtiRegistrationLink, LtiToolKey)
from grader.store.models import utcnow


class PlatformConflict(ValueError):
    """A registration clashes with another (same issuer and client_id, or a learner prefix equal to
    or starting, or started by, that of another platform of the same course). The message names
    the field and the other platform."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def prefix_clash(new: str, old: str) -> str:
    """Why learner prefixes ``new`` and ``old`` of two platforms of one course could make one
    learner id (learner id = prefix + the platform's ``sub``), or ``""`` when they cannot: they
    cannot exactly when neither is a prefix of the other (then ``new + s`` and ``old + t`` differ
    at the first place the prefixes differ, whatever ``s`` and ``t`` are)."""
    if new == old:
        return "the prefixes are equal"
    if not new.startswith(old) and not old.startswith(new):
        return ""
    short, long = (new, old) if old.startswith(new) else (old, new)
    rest = long[len(short):]
    return (f"{short!r} is the start of {long!r}: the user {rest + '42'!r} of the platform with "
            f"{short!r} and the user '42' of the platform with {long!r} would both be the learner "
            f"{long + '42'!r}")


class LtiRepository:
    """``single``: sessions for one-statement reads (autocommit on PostgreSQL, as
    :class:`grader.store.regrades.RegradeRepository`'s), used by
    :meth:`grade_targets_in_course`; default ``sessions``."""

    def __init__(self, sessions, single=None):
        self.sessions = sessions
        self.single = single or sessions

    # -- platforms ------------------------------------------------------------------------------
    def create_platform(self, **fields) -> LtiPlatform:
        """Register a platform. Raises :class:`PlatformConflict` on a duplicate (issuer,
        client_id), or when its learner prefix and that of another platform of the same course
        are equal or one starts the other (:func:`prefix_clash`): learner ids of the course's
        platforms stay distinct."""
        row = LtiPlatform(id=str(uuid.uuid4()), created_at=utcnow(), **fields)
        try:
            with self.sessions.begin() as session:
                if session.execute(select(LtiPlatform.id).where(
                        LtiPlatform.issuer == row.issuer,
                        LtiPlatform.client_id == row.client_id)).first() is not None:
                    raise IntegrityError("duplicate issuer and client_id", None, ValueError())
                prefix = row.learner_prefix or ""
                for other in session.execute(select(LtiPlatform).where(
                        LtiPlatform.course_id == row.course_id)
                        .order_by(LtiPlatform.created_at)).scalars():
                    clash = prefix_clash(prefix, other.learner_prefix or "")
                    if clash:
                        raise PlatformConflict(
                            "learner_prefix",
                            f"platform {other.id} ({other.issuer}) already maps to course "
                            f"{row.course_id!r} with learner_prefix "
                            f"{other.learner_prefix or ''!r}; {clash}: give this platform a "
                            "learner_prefix that neither starts with that one nor is its start "
                            "(e.g. 'moodle:' beside 'canvas:'), so that user ids (sub) of two "
                            "platforms never become the same learner")
                session.add(row)
        except IntegrityError:
            raise PlatformConflict("client_id", f"a platform with issuer {row.issuer!r} and "
                                   f"client_id {row.client_id!r} is registered already") from None
        return row

    def update_platform(self, platform_id: str, **fields) -> tuple[LtiPlatform, LtiPlatform] | None:
        """Change a registration in place (its id, grade targets, line items and login states
        stay): returns ``(before, after)``, or ``None`` when there is no such platform. Raises
        :class:`PlatformConflict` when the new (issuer, client_id) is another platform's. Cached
        access tokens are dropped when what they were issued for changes (client_id, token URL,
        audience)."""
        with self.sessions.begin() as session:
            row = session.get(LtiPlatform, platform_id)
            if row is None:
                return None
            before = LtiPlatform(**{c.name: getattr(row, c.name)
                                    for c in LtiPlatform.__table__.columns})
            issuer = fields.get("issuer", row.issuer)
            client_id = fields.get("client_id", row.client_id)
            if session.execute(select(LtiPlatform.id).where(
                    LtiPlatform.issuer == issuer, LtiPlatform.client_id == client_id,
                    LtiPlatform.id != platform_id)).first() is not None:
                raise PlatformConflict("client_id", f"a platform with issuer {issuer!r} and "
                                       f"client_id {client_id!r} is registered already")
            for name, value in fields.items():
                setattr(row, name, value)
            if any(getattr(before, n) != getattr(row, n)
                   for n in ("client_id", "auth_token_url", "auth_audience", "issuer")):
                session.execute(delete(LtiAccessToken).where(
                    LtiAccessToken.platform_id == platform_id))
        return before, self.platform(platform_id)

    def platforms(self, course_id: str | None = None) -> list[LtiPlatform]:
        with self.sessions() as session:
            query = select(LtiPlatform).order_by(LtiPlatform.created_at)
            if course_id is not None:
                query = query.where(LtiPlatform.course_id == course_id)
            return list(session.execute(query).scalars())

    def platform(self, platform_id: str) -> LtiPlatform | None:
        with self.sessions() as session:
            return session.get(LtiPlatform, platform_id)

    def platforms_of_issuer(self, issuer: str) -> list[LtiPlatform]:
        with self.sessions() as session:
            return list(session.execute(select(LtiPlatform).where(
                LtiPlatform.issuer == issuer)).scalars())

    def delete_platform(self, platform_id: str) -> bool:
        """Remove a registration with its login states, picks, grade targets and cached
        tokens."""
        with self.sessions.begin() as session:
            for model in (LtiLoginState, LtiDeepLinkPick, LtiGradeTarget, LtiAccessToken,
                          LtiLineItem):
                session.execute(delete(model).where(model.platform_id == platform_id))
            return session.execute(delete(LtiPlatform).where(
                LtiPlatform.id == platform_id)).rowcount == 1

    # -- tool keys ------------------------------------------------------------------------------
    def add_tool_key(self, kid: str, public_jwk: dict, sealed_private_key: str,
                     retire_others: bool) -> LtiToolKey:
        """Store a new key pair; with ``retire_others`` every older unretired key is retired now
        (it stays published for the overlap window)."""
        now = utcnow()
        row = LtiToolKey(kid=kid, public_jwk=public_jwk, private_key=sealed_private_key,
                         created_at=now)
        with self.sessions.begin() as session:
            if retire_others:
                session.execute(update(LtiToolKey).where(LtiToolKey.retired_at.is_(None))
                                .values(retired_at=now))
            session.add(row)
        return row

    def tool_keys(self, published_since: datetime) -> list[LtiToolKey]:
        """Unretired keys and keys retired after ``published_since``, newest first."""
        with self.sessions() as session:
            return list(session.execute(
                select(LtiToolKey).where(LtiToolKey.retired_at.is_(None)
                                         | (LtiToolKey.retired_at > published_since))
                .order_by(LtiToolKey.created_at.desc(), LtiToolKey.kid)).scalars())

    def forget_tool_keys(self, retired_before: datetime) -> int:
        """Delete keys retired before ``retired_before`` (no longer published)."""
        with self.sessions.begin() as session:
            return session.execute(delete(LtiToolKey).where(
                LtiToolKey.retired_at < retired_before)).rowcount

    # -- login states (the nonce store) -----------------------------------------------------------
    def create_login_state(self, state: str, nonce: str, platform_id: str, params: dict,
                           lifetime: timedelta) -> LtiLoginState:
        now = utcnow()
        row = LtiLoginState(state=state, nonce=nonce, platform_id=platform_id, params=params,
                            created_at=now, expires_at=now + lifetime)
        with self.sessions.begin() as session:
            session.add(row)
        return row

    def login_state(self, state: str) -> LtiLoginState | None:
        with self.sessions() as session:
            return session.get(LtiLoginState, state)

    def consume_login_state(self, state: str, nonce: str) -> bool:
        """Mark the login ``state`` used, if it is unused, unexpired and was issued with
        ``nonce``; True for exactly one caller."""
        now = utcnow()
        with self.sessions.begin() as session:
            return session.execute(
                update(LtiLoginState)
                .where(LtiLoginState.state == state, LtiLoginState.nonce == nonce,
                       LtiLoginState.used_at.is_(None), LtiLoginState.expires_at > now)
                .values(used_at=now)).rowcount == 1

    def forget_login_states(self, expired_before: datetime) -> int:
        """Delete login states that expired before ``expired_before`` (the login deletes those
        past their 10 minutes; a replay of one of them is still refused: its state is then
        unknown). Returns how many were deleted."""
        with self.sessions.begin() as session:
            return session.execute(delete(LtiLoginState).where(
                LtiLoginState.expires_at < expired_before)).rowcount

    # -- deep-linking picks (single use, like login states) --------------------------------------
    def create_pick(self, lifetime: timedelta, **fields) -> LtiDeepLinkPick:
        """Store a pick (see :class:`~grader.store.lti_models.LtiDeepLinkPick` for ``fields``),
        deleting picks that have expired."""
        now = utcnow()
        row = LtiDeepLinkPick(created_at=now, expires_at=now + lifetime, **fields)
        with self.sessions.begin() as session:
            session.execute(delete(LtiDeepLinkPick).where(LtiDeepLinkPick.expires_at < now))
            session.add(row)
        return row

    def pick(self, pick_id: str) -> LtiDeepLinkPick | None:
        with self.sessions() as session:
            return session.get(LtiDeepLinkPick, pick_id)

    def consume_pick(self, pick_id: str, browser_sha256: str) -> bool:
        """Mark the pick used if it is unused, unexpired and bound to ``browser_sha256``; True
        for exactly one caller (one conditional update, as for login states)."""
        now = utcnow()
        with self.sessions.begin() as session:
            return session.execute(
                update(LtiDeepLinkPick)
                .where(LtiDeepLinkPick.id == pick_id, LtiDeepLinkPick.used_at.is_(None),
                       LtiDeepLinkPick.expires_at > now,
                       LtiDeepLinkPick.browser_sha256 == browser_sha256)
                .values(used_at=now)).rowcount == 1

    # -- grade targets --------------------------------------------------------------------------
    def record_grade_target(self, *, platform_id: str, deployment_id: str, resource_link_id: str,
                            user_sub: str, course_id: str, assignment_id: str, learner_id: str,
                            lineitem_url: str | None, lineitems_url: str | None,
                            scopes: list[str]) -> LtiGradeTarget:
        """Insert or refresh the target of (platform, deployment, resource link, user)."""
        return self.upsert_grade_target(
            platform_id=platform_id, deployment_id=deployment_id,
            resource_link_id=resource_link_id, user_sub=user_sub, course_id=course_id,
            assignment_id=assignment_id, learner_id=learner_id, lineitem_url=lineitem_url,
            lineitems_url=lineitems_url, scopes=scopes)[0]

    def upsert_grade_target(self, *, platform_id: str, deployment_id: str,
                            resource_link_id: str, user_sub: str, course_id: str,
                            assignment_id: str, learner_id: str, lineitem_url: str | None,
                            lineitems_url: str | None,
                            scopes: list[str]) -> tuple[LtiGradeTarget, bool]:
        """:meth:`record_grade_target`, and whether the row is new (True for exactly one of
        two processes recording the same first launch: the unique constraint decides). A line
        item the link got meanwhile (:meth:`record_line_item`) is kept when the launch names
        none."""
        key = dict(platform_id=platform_id, deployment_id=deployment_id,
                   resource_link_id=resource_link_id, user_sub=user_sub)
        values = dict(course_id=course_id, assignment_id=assignment_id, learner_id=learner_id,
                      lineitem_url=lineitem_url, lineitems_url=lineitems_url, scopes=scopes,
                      updated_at=utcnow())
        for _ in range(2):  # a concurrent first launch may insert between our select and insert
            try:
                with self.sessions.begin() as session:
                    row = session.execute(select(LtiGradeTarget).filter_by(**key)).scalar_one_or_none()
                    created = row is None
                    if created:
                        row = LtiGradeTarget(**key, **values, created_at=utcnow())
                        session.add(row)
                    else:
                        for name, value in values.items():
                            if name == "lineitem_url" and value is None:
                                continue  # the link's line item, made since, stays
                            setattr(row, name, value)
                return row, created
            except IntegrityError:
                continue
        raise RuntimeError("could not record the grade target")  # pragma: no cover

    def grade_targets_of_platform(self, platform_id: str) -> list[LtiGradeTarget]:
        with self.sessions() as session:
            return list(session.execute(select(LtiGradeTarget).where(
                LtiGradeTarget.platform_id == platform_id).order_by(LtiGradeTarget.id)).scalars())

    def grade_targets(self, course_id: str, assignment_id: str,
                      learner_id: str) -> list[LtiGradeTarget]:
        with self.sessions() as session:
            return list(session.execute(select(LtiGradeTarget).where(
                LtiGradeTarget.course_id == course_id,
                LtiGradeTarget.assignment_id == assignment_id,
                LtiGradeTarget.learner_id == learner_id).order_by(LtiGradeTarget.id)).scalars())

    def grade_targets_in_course(self, course_id: str, assignment_id: str, learner_id: str
                                ) -> tuple[list[LtiGradeTarget], bool]:
        """:meth:`grade_targets` and whether the course has an LTI platform at all, in one
        statement (the targets outer-joined to one row that carries the platform test)."""
        if levers.enabled("statements"):  # the same statement, built once
            with self.single() as session:
                found = session.execute(_targets_in_course(), {
                    "course_id": course_id, "assignment_id": assignment_id,
                    "learner_id": learner_id}).all()
            return [row for row, _ in found if row is not None], bool(found and found[0][1])
        has_platform = select(LtiPlatform.id).where(
            LtiPlatform.course_id == course_id).exists().label("has_platform")
        one = select(literal(1).label("one")).subquery()
        query = (select(LtiGradeTarget, has_platform).select_from(one)
                 .outerjoin(LtiGradeTarget, and_(LtiGradeTarget.course_id == course_id,
                                                 LtiGradeTarget.assignment_id == assignment_id,
                                                 LtiGradeTarget.learner_id == learner_id))
                 .order_by(LtiGradeTarget.id))
        with self.single() as session:  # one statement: no transaction around it
            found = session.execute(query).all()
        return [row for row, _ in found if row is not None], bool(found and found[0][1])

    def grade_target(self, target_id: int) -> LtiGradeTarget | None:
        with self.sessions() as session:
            return session.get(LtiGradeTarget, target_id)

    def set_lineitem(self, target_id: int, lineitem_url: str) -> None:
        with self.sessions.begin() as session:
            session.execute(update(LtiGradeTarget).where(LtiGradeTarget.id == target_id)
                            .values(lineitem_url=lineitem_url))

    # -- line items of links that came without one -------------------------------------------
    def line_item(self, platform_id: str, deployment_id: str, resource_link_id: str,
                  tag: str) -> LtiLineItem | None:
        with self.sessions() as session:
            return session.execute(select(LtiLineItem).filter_by(
                platform_id=platform_id, deployment_id=deployment_id,
                resource_link_id=resource_link_id, tag=tag)).scalar_one_or_none()

    def claim_line_item(self, platform_id: str, deployment_id: str, resource_link_id: str,
                        tag: str, stale_before: datetime) -> bool:
        """Claim the making of the line item of (platform, deployment, resource link, tag):
        True for exactly one caller among processes racing (the unique constraint decides the
        insert), and for a caller finding a claim older than ``stale_before`` that never recorded
        its line item (one conditional update). False while another process holds the claim or
        when the line item is known."""
        key = dict(platform_id=platform_id, deployment_id=deployment_id,
                   resource_link_id=resource_link_id, tag=tag)
        now = utcnow()
        try:
            with self.sessions.begin() as session:
                session.add(LtiLineItem(**key, lineitem_url=None, claimed_at=now,
                                        created_at=now))
            return True
        except IntegrityError:
            pass
        with self.sessions.begin() as session:
            return session.execute(
                update(LtiLineItem).filter_by(**key)
                .where(LtiLineItem.lineitem_url.is_(None), LtiLineItem.claimed_at < stale_before)
                .values(claimed_at=now)).rowcount == 1

    def release_line_item(self, platform_id: str, deployment_id: str, resource_link_id: str,
                          tag: str) -> None:
        """Give up a claim whose platform call failed (the next sender claims again)."""
        with self.sessions.begin() as session:
            session.execute(delete(LtiLineItem).filter_by(
                platform_id=platform_id, deployment_id=deployment_id,
                resource_link_id=resource_link_id, tag=tag)
                .where(LtiLineItem.lineitem_url.is_(None)))

    def record_line_item(self, platform_id: str, deployment_id: str, resource_link_id: str,
                         tag: str, lineitem_url: str) -> None:
        """Record the line item of a claimed link, and give it to every grade target of that
        link still without one."""
        with self.sessions.begin() as session:
            session.execute(update(LtiLineItem).filter_by(
                platform_id=platform_id, deployment_id=deployment_id,
                resource_link_id=resource_link_id, tag=tag).values(lineitem_url=lineitem_url))
            session.execute(update(LtiGradeTarget).where(
                LtiGradeTarget.platform_id == platform_id,
                LtiGradeTarget.deployment_id == deployment_id,
                LtiGradeTarget.resource_link_id == resource_link_id,
                LtiGradeTarget.lineitem_url.is_(None)).values(lineitem_url=lineitem_url))

    # -- one-URL registration links (LTI Dynamic Registration) ---------------------------------
    def create_registration_link(self, link_id: str, course_id: str, learner_prefix: str,
                                 label: str, lifetime: timedelta) -> LtiRegistrationLink:
        now = utcnow()
        row = LtiRegistrationLink(id=link_id, course_id=course_id, learner_prefix=learner_prefix,
                                  label=label, created_at=now, expires_at=now + lifetime)
        with self.sessions.begin() as session:
            session.add(row)
        return row

    def registration_link(self, link_id: str) -> LtiRegistrationLink | None:
        with self.sessions() as session:
            return session.get(LtiRegistrationLink, link_id)

    def consume_registration_link(self, link_id: str) -> bool:
        """Mark the link used if it is unused and unexpired: True for exactly one caller."""
        now = utcnow()
        with self.sessions.begin() as session:
            return session.execute(
                update(LtiRegistrationLink)
                .where(LtiRegistrationLink.id == link_id, LtiRegistrationLink.used_at.is_(None),
                       LtiRegistrationLink.expires_at > now)
                .values(used_at=now)).rowcount == 1

    def release_registration_link(self, link_id: str, platform_id: str | None) -> None:
        """Record the platform a used link registered, or (``None``: the registration failed)
        make the link usable again so the admin can retry from the LMS."""
        with self.sessions.begin() as session:
            values = {"platform_id": platform_id} if platform_id else {"used_at": None}
            session.execute(update(LtiRegistrationLink).where(
                LtiRegistrationLink.id == link_id).values(**values))

    # -- access tokens --------------------------------------------------------------------------
    def access_token(self, platform_id: str, scope: str, valid_after: datetime
                     ) -> LtiAccessToken | None:
        """The cached token for (platform, scope) if it is still valid at ``valid_after``."""
        with self.sessions() as session:
            row = session.get(LtiAccessToken, (platform_id, scope))
            return row if row is not None and row.expires_at > valid_after else None

    def store_access_token(self, platform_id: str, scope: str, sealed_token: str,
                           expires_at: datetime) -> None:
        try:
            with self.sessions.begin() as session:
                row = session.get(LtiAccessToken, (platform_id, scope))
                if row is None:
                    session.add(LtiAccessToken(platform_id=platform_id, scope=scope,
                                               token=sealed_token, expires_at=expires_at))
                else:
                    row.token, row.expires_at = sealed_token, expires_at
        except IntegrityError:  # another process cached one at the same moment: keep theirs
            pass

    def drop_access_token(self, platform_id: str, scope: str) -> None:
        """Forget a token the platform refused (401), so the next call fetches a new one."""
        with self.sessions.begin() as session:
            session.execute(delete(LtiAccessToken).where(LtiAccessToken.platform_id == platform_id,
                                                         LtiAccessToken.scope == scope))


@lru_cache(maxsize=1)
def _targets_in_course():
    """:meth:`LtiRepository.grade_targets_in_course`'s statement with its values as bound
    parameters (``course_id``, ``assignment_id``, ``learner_id``), built once."""
    course_id = bindparam("course_id")
    has_platform = select(LtiPlatform.id).where(
        LtiPlatform.course_id == course_id).exists().label("has_platform")
    one = select(literal(1).label("one")).subquery()
    return (select(LtiGradeTarget, has_platform).select_from(one)
            .outerjoin(LtiGradeTarget, and_(LtiGradeTarget.course_id == course_id,
                                            LtiGradeTarget.assignment_id == bindparam(
                                                "assignment_id"),
                                            LtiGradeTarget.learner_id == bindparam("learner_id")))
            .order_by(LtiGradeTarget.id))
