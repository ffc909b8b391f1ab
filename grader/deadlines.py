"""Due dates, time zones and late work: pure functions, no store and no Flask.

- A course may name an IANA time zone (``Europe/Berlin``); a ``due_at`` written without a UTC
  offset is read in it, and in UTC when the course has none (so every due date stored before
  courses had time zones keeps its meaning). :func:`due_datetime` does the reading, and every
  answer writes the result with its offset.
- A late policy (:class:`LatePolicy`, an assignment's ``late_policy``) says what a submission
  received after its due date gets: ``accept`` (no penalty: the default, as before),
  ``penalty_per_day`` (``percent`` of the assignment's points possible for each day or part of a
  day late), ``fixed_penalty`` (``percent`` once, however late) or ``refuse`` (no late
  submission is taken). The deduction is Canvas's late policy (Canvas Guides, "How do I apply a
  Late Submission policy in the Gradebook?": a percentage of the points possible per day, a
  started day counting as a whole one), and a score never goes below 0.
- :func:`lateness` decides on time or late for one submission against its learner's due date
  (the assignment's, or the learner's extension).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

#: Seconds in one day of lateness (Canvas counts started days: 1.3 days late is 2 days).
DAY_SECONDS = 86_400
LATE_MODES = ("accept", "penalty_per_day", "fixed_penalty", "refuse")


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def time_zone_problem(name: Any) -> str | None:
    """Why ``name`` is not a time zone a course may use (``None`` when it is): an IANA name such
    as ``Europe/Berlin``, ``America/New_York`` or ``UTC``, from the system's or the ``tzdata``
    package's database."""
    if not isinstance(name, str) or name not in _zones():
        return (f"{name!r} is not an IANA time zone name (for example Europe/Berlin, "
                "America/New_York, Asia/Tokyo or UTC)")
    return None


def zone(name: str | None) -> ZoneInfo:
    """The time zone called ``name`` (UTC for ``None`` or an unknown name)."""
    return ZoneInfo(name if name and time_zone_problem(name) is None else "UTC")


def due_datetime(text: str | datetime | None, zone_name: str | None = None) -> datetime | None:
    """``text`` (ISO 8601, as stored in an assignment or an extension) as an aware datetime: with
    its own offset when it has one, else read in ``zone_name`` (UTC when ``None``). ``None`` for
    no due date. Raises ``ValueError`` for text that is not ISO 8601. A wall time the zone
    skips (a summer-time gap: 02:30 on the night clocks go from 02:00 to 03:00) is the same
    instant as before (the offset before the change, PEP 495's ``fold=0``), written as the
    clocks then read (03:30, with the new offset), never as a time no clock shows."""
    if text is None or text == "":
        return None
    value = text if isinstance(text, datetime) else datetime.fromisoformat(str(text))
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone(zone_name))
        try:
            value = value.astimezone(timezone.utc).astimezone(value.tzinfo)
        except (OverflowError, ValueError):  # the calendar's edges: kept as written
            pass
    return value


def shown_due(text: str | None, zone_name: str | None) -> str | None:
    """``due_at`` as answers write it: ISO 8601 in the course's zone, always with its offset; a
    stored value that cannot be moved to that zone (a date at the edge of the calendar, stored
    before :func:`check_due` refused them) is shown as stored, never an error."""
    value = due_datetime(text, zone_name)
    if value is None:
        return None
    try:
        return value.astimezone(zone(zone_name)).isoformat()
    except (OverflowError, ValueError):
        return value.isoformat()


def check_due(value: datetime | None) -> None:
    """Refuse a due date that some time zone cannot represent (year 1 or 9999 near the calendar's
    ends: moving it to UTC or to a course's zone overflows). Raises marshmallow's
    ``ValidationError``, so a request naming it answers 422 with its field."""
    from marshmallow import ValidationError

    if value is None:
        return
    moment = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
    try:
        utc = moment.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        utc = None
    if utc is None or not 2 <= utc.year <= 9998:
        raise ValidationError("must be a date between the years 2 and 9998, with its UTC offset")


@dataclass(frozen=True)
class LatePolicy:
    """What a late submission gets (module docstring). ``percent`` (0-100) is of the
    assignment's points possible: per day late for ``penalty_per_day``, once for
    ``fixed_penalty``; unused otherwise."""

    mode: str = "accept"
    percent: float = 0.0

    @classmethod
    def from_mapping(cls, raw: Any) -> "LatePolicy":
        """From an assignment's ``late_policy`` (``None``: accept). Raises ``ValueError`` whose
        message starts with the field at fault (``mode: ...``, ``percent: ...``)."""
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise ValueError("must be a mapping with mode (and percent)")
        unknown = sorted(set(raw) - {"mode", "percent"})
        if unknown:
            raise ValueError(f"{unknown[0]}: unknown field (allowed: mode, percent)")
        mode = raw.get("mode", "accept")
        if mode not in LATE_MODES:
            raise ValueError(f"mode: one of {', '.join(LATE_MODES)}")
        percent = raw.get("percent", 0.0)
        if isinstance(percent, bool) or not isinstance(percent, (int, float)) \
                or not math.isfinite(percent) or not 0 <= percent <= 100:
            raise ValueError("percent: a number from 0 to 100 (of the assignment's points)")
        if mode in ("penalty_per_day", "fixed_penalty") and percent <= 0:
            raise ValueError(f"percent: required, greater than 0, for mode {mode}")
        return cls(mode, float(percent) if mode in ("penalty_per_day", "fixed_penalty") else 0.0)

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "percent": self.percent} if self.percent else \
            {"mode": self.mode}

    def penalty_percent(self, days_late: int) -> float:
        """The share of the points possible taken from a submission ``days_late`` days late
        (0 when on time), at most 100."""
        if days_late <= 0 or self.mode == "accept":
            return 0.0
        if self.mode == "refuse":
            return 100.0
        if self.mode == "fixed_penalty":
            return min(100.0, self.percent)
        return min(100.0, self.percent * days_late)

    def describe(self) -> str:
        """The policy in words, for pages."""
        if self.mode == "penalty_per_day":
            return (f"late work loses {self.percent:g}% of the points possible for each day "
                    "(or part of a day) late")
        if self.mode == "fixed_penalty":
            return f"late work loses {self.percent:g}% of the points possible"
        if self.mode == "refuse":
            return "late work is not accepted"
        return "late work is accepted without a penalty"


@dataclass(frozen=True)
class Lateness:
    """One submission against its due date. ``status`` is ``on_time`` or ``late``;
    ``seconds_late`` 0 when on time; ``days_late`` started days; ``penalty_percent`` of the
    points possible; ``extended`` when the due date is the learner's own (an extension)."""

    status: str
    due_at: str
    submitted_at: str
    seconds_late: float
    days_late: int
    policy: str
    penalty_percent: float
    extended: bool = False

    @property
    def late(self) -> bool:
        return self.status == "late"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def lateness(received_at: datetime, due: datetime | None, policy: LatePolicy,
             extended: bool = False) -> Lateness | None:
    """On time or late, and the penalty, of a submission received at ``received_at`` (aware)
    against ``due`` (aware, the learner's due date); ``None`` without a due date. A submission
    received exactly at the due date is on time."""
    if due is None:
        return None
    if received_at.tzinfo is None:
        received_at = received_at.replace(tzinfo=timezone.utc)
    seconds = max(0.0, (received_at - due).total_seconds())
    days = math.ceil(seconds / DAY_SECONDS) if seconds > 0 else 0
    return Lateness(status="late" if seconds > 0 else "on_time", due_at=due.isoformat(),
                    submitted_at=received_at.isoformat(), seconds_late=round(seconds, 3),
                    days_late=days, policy=policy.mode, penalty_percent=policy.penalty_percent(days),
                    extended=extended)


def late_words(late: dict[str, Any]) -> str:
    """A submission's lateness (:meth:`Lateness.to_dict`) in words: "on time" or "2 days late"
    (or "3 hours late" under a day)."""
    if late.get("status") != "late":
        return "on time"
    days, seconds = int(late.get("days_late") or 0), float(late.get("seconds_late") or 0)
    if seconds < DAY_SECONDS:
        hours = math.ceil(seconds / 3600)
        if hours < 2:
            minutes = max(1, math.ceil(seconds / 60))
            return f"{minutes} minute{'' if minutes == 1 else 's'} late" if minutes < 60 else \
                "1 hour late"
        return f"{hours} hours late"
    return f"{days} day{'' if days == 1 else 's'} late"
