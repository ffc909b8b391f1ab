"""Jinja filters of the pages' templates."""
from __future__ import annotations

import numpy as np

from grader.items import kinds
from grader.web.blueprint import bp
from grader.web.feedback import points



@bp.app_template_filter("points")
def points_filter(value) -> str:
    """8, 8.5, 6.67."""
    return points(value)


@bp.app_template_filter("kind_name")
def kind_name(kind: str) -> str:
    """The item kind in words: Code, Explanation, Choice."""
    registered = kinds().get(kind)
    return registered.title if registered is not None else kind.capitalize()


@bp.app_template_filter("array")
def array(value) -> str:
    """A visible example's value (nested lists) laid out like NumPy prints it."""
    try:
        return np.array2string(np.asarray(value), precision=4, suppress_small=True,
                               threshold=400, max_line_width=90)
    except (TypeError, ValueError):
        return repr(value)


@bp.app_template_filter("min_rows")
def min_rows(rows: int, minimum: int) -> int:
    """At least ``minimum`` rows (and at most 40) for a code box."""
    return max(minimum, min(int(rows), 40))


@bp.app_template_filter("thousands")
def thousands(value) -> str:
    """An integer with thousands separated: ``100,000``."""
    return f"{int(value):,}"


@bp.app_template_filter("size")
def size(value) -> str:
    """A number of bytes as people read it: ``2 MiB``, ``512 KiB``, ``900 bytes``."""
    value = int(value)
    for unit, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= factor:
            return f"{value / factor:.3g} {unit}"
    return f"{value} bytes"


@bp.app_template_filter("when")
def when(value) -> str:
    """An ISO 8601 time with its offset (or a datetime) as people read it, always with its
    zone: ``2031-06-01 23:59 (UTC+02:00)``; a time without an offset (the store's times are
    UTC) or with offset 0 is ``(UTC)``."""
    from datetime import datetime

    if value is None or value == "":
        return "-"
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    offset = moment.strftime("%z")
    shown = f"UTC{offset[:3]}:{offset[3:]}" if offset and offset.strip("+-0") else "UTC"
    return f"{moment.strftime('%Y-%m-%d %H:%M')} ({shown})"


@bp.app_template_filter("due_in")
def due_in(value, zone: str | None) -> str:
    """A due date as every page writes it: its time with its offset and the course's zone,
    ``2031-06-01 23:59 (UTC+02:00), Europe/Berlin time``; in a course on UTC just
    ``2031-06-01 23:59 (UTC)``."""
    shown = when(value)
    return shown if not zone or zone == "UTC" or shown == "-" else f"{shown}, {zone} time"


@bp.app_template_filter("late_policy_words")
def late_policy_words(policy: dict) -> str:
    """An assignment's ``late_policy`` (as the public view has it) in words."""
    from grader.deadlines import LatePolicy

    return LatePolicy.from_mapping(policy).describe()
