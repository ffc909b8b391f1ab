"""Issue 26.2: due dates in the course's time zone (UTC when it has none), answered with their
offset; the late policy's penalty per started day (Canvas's rule) or once; refuse."""
from datetime import datetime, timedelta, timezone

import pytest

from grader.deadlines import LatePolicy, due_datetime, late_words, lateness, shown_due, \
    time_zone_problem

UTC = timezone.utc


def test_a_due_date_without_an_offset_is_read_in_the_course_zone():
    # Berlin is UTC+2 in June (summer time) and UTC+1 in January
    assert due_datetime("2031-06-01T23:59:00", "Europe/Berlin").astimezone(UTC) == \
        datetime(2031, 6, 1, 21, 59, tzinfo=UTC)
    assert due_datetime("2031-01-15T23:59:00", "Europe/Berlin").astimezone(UTC) == \
        datetime(2031, 1, 15, 22, 59, tzinfo=UTC)
    assert due_datetime("2031-06-01T23:59:00", "America/Los_Angeles").astimezone(UTC) == \
        datetime(2031, 6, 2, 6, 59, tzinfo=UTC)


def test_without_a_zone_it_means_utc_as_before_and_an_offset_is_kept():
    assert due_datetime("2031-06-01T23:59:00", None) == datetime(2031, 6, 1, 23, 59, tzinfo=UTC)
    written = due_datetime("2031-06-01T23:59:00-05:00", "Europe/Berlin")
    assert written.astimezone(UTC) == datetime(2031, 6, 2, 4, 59, tzinfo=UTC)


def test_answers_write_the_offset_in_the_course_zone():
    assert shown_due("2031-06-01T23:59:00", "Europe/Berlin") == "2031-06-01T23:59:00+02:00"
    assert shown_due("2031-06-01T23:59:00", None) == "2031-06-01T23:59:00+00:00"
    assert shown_due("2031-06-01T21:59:00+00:00", "Europe/Berlin") == \
        "2031-06-01T23:59:00+02:00"
    assert shown_due(None, "Europe/Berlin") is None


@pytest.mark.parametrize("name", ["Europe/Berlnn", "../etc/passwd", "", 5, "Europe/"])
def test_only_iana_names_are_time_zones(name):
    assert "IANA" in time_zone_problem(name)


def test_canvas_rounds_a_started_day_up():
    due = datetime(2031, 6, 1, 12, 0, tzinfo=UTC)
    policy = LatePolicy("penalty_per_day", 10)
    # 1.3 days late is 2 days: 20 % (Canvas Guides' own example)
    late = lateness(due + timedelta(days=1.3), due, policy)
    assert (late.status, late.days_late, late.penalty_percent) == ("late", 2, 20.0)
    one_second = lateness(due + timedelta(seconds=1), due, policy)
    assert (one_second.days_late, one_second.penalty_percent) == (1, 10.0)
    exactly = lateness(due, due, policy)
    assert (exactly.status, exactly.days_late, exactly.penalty_percent) == ("on_time", 0, 0.0)
    assert lateness(due + timedelta(days=30), due, policy).penalty_percent == 100.0


def test_fixed_penalty_accept_and_refuse():
    due = datetime(2031, 6, 1, 12, 0, tzinfo=UTC)
    three_days = due + timedelta(days=3)
    assert lateness(three_days, due, LatePolicy("fixed_penalty", 25)).penalty_percent == 25.0
    assert lateness(three_days, due, LatePolicy()).penalty_percent == 0.0
    assert lateness(three_days, due, LatePolicy("refuse")).penalty_percent == 100.0
    assert lateness(three_days, None, LatePolicy("refuse")) is None


@pytest.mark.parametrize("raw,message", [
    ({"mode": "sometimes"}, "mode: one of"),
    ({"mode": "penalty_per_day"}, "percent: required"),
    ({"mode": "fixed_penalty", "percent": 120}, "percent: a number from 0 to 100"),
    ({"mode": "accept", "grace": 5}, "grace: unknown field"),
    ("refuse", "must be a mapping")])
def test_a_bad_late_policy_names_its_field(raw, message):
    with pytest.raises(ValueError, match=message):
        LatePolicy.from_mapping(raw)


def test_lateness_in_words():
    assert late_words({"status": "on_time"}) == "on time"
    assert late_words({"status": "late", "seconds_late": 90, "days_late": 1}) == \
        "2 minutes late"
    assert late_words({"status": "late", "seconds_late": 5 * 3600, "days_late": 1}) == \
        "5 hours late"
    assert late_words({"status": "late", "seconds_late": 2.5 * 86400, "days_late": 3}) == \
        "3 days late"


def test_a_wall_time_the_zone_skips_is_written_as_the_clocks_read_it():
    """St John's (UTC-03:30, summer UTC-02:30) moves its clocks from 02:00 to 03:00 on 9 March
    2031: 02:30 never shows. It stays the instant it was (02:30 at the winter offset, 06:00 UTC)
    and is written as the clocks show it then: 03:30 at the summer offset. An ambiguous time
    (01:30 on 2 November, shown twice) keeps its first occurrence, at the summer offset."""
    gap = due_datetime("2031-03-09T02:30:00", "America/St_Johns")
    assert gap.astimezone(UTC) == datetime(2031, 3, 9, 6, 0, tzinfo=UTC)
    assert gap.isoformat() == "2031-03-09T03:30:00-02:30"
    assert shown_due("2031-03-09T02:30:00", "America/St_Johns") == "2031-03-09T03:30:00-02:30"
    assert shown_due("2031-11-02T01:30:00", "America/St_Johns") == "2031-11-02T01:30:00-02:30"
