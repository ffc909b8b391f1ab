"""Long-polls are woken by announcements (in-process and over Redis pub/sub), read the store only
when woken or as a safety net, and still finish when no announcement ever comes."""
from __future__ import annotations

import threading
import time
import uuid

import pytest

from grader import wakeup
from grader.wakeup import RedisAnnouncer, RedisListener, Wakeups


class Status:
    """A submission's status as the store would answer, counting the reads."""

    def __init__(self, value: str | None = "queued"):
        self.value = value
        self.reads = 0

    def __call__(self) -> str | None:
        self.reads += 1
        return self.value


@pytest.fixture
def no_recheck(monkeypatch):
    """The periodic re-read far away (60 s instead of 1 s), for tests that count the reads an
    announcement causes: on a loaded machine a thread may start a second late, and a recheck
    read would then be counted as if the announcement had caused it."""
    monkeypatch.setattr(wakeup, "RECHECK_SECONDS", 60.0)


def finish_later(wakeups: Wakeups, status: Status, submission_id: str, after: float,
                 announce: bool = True) -> threading.Thread:
    def run():
        time.sleep(after)
        status.value = "graded"  # stored (committed) first ...
        if announce:
            wakeups.wake(submission_id)  # ... then announced, as GradingService does

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_an_announcement_wakes_the_waiting_request_which_reads_the_store_twice(no_recheck):
    wakeups, status = Wakeups(), Status()
    thread = finish_later(wakeups, status, "s1", 0.2)
    assert wakeups.wait_final(status, "s1", 20) == "graded"
    thread.join()
    # one read on arrival, one when woken: no polling in between (polling every 20-200 ms would
    # have read at least 3 times in 0.2 s)
    assert status.reads == 2
    assert wakeups.waiting() == 0


def test_announcements_for_other_submissions_do_not_end_the_wait(no_recheck):
    wakeups, status = Wakeups(), Status()
    thread = finish_later(wakeups, status, "s1", 0.3)
    threading.Timer(0.1, wakeups.wake, args=("other",)).start()
    assert wakeups.wait_final(status, "s1", 20) == "graded"
    thread.join()
    assert status.reads == 2  # the other id's announcement woke nobody


def test_a_final_submission_is_answered_with_one_read():
    wakeups = Wakeups()
    for final in ("graded", "failed", None):  # None: no such submission
        status = Status(final)
        assert wakeups.wait_final(status, "s", 20) == final
        assert status.reads == 1


class FakeClock:
    """time.monotonic for the wakeup module; ``waits`` records each wait's timeout, which
    advances the clock by it (nothing wakes the waiter early)."""

    def __init__(self):
        self.now, self.waits = 500.0, []

    def __call__(self):
        return self.now

    def wait(self, timeout):
        self.waits.append(timeout)
        self.now += timeout
        return False


def test_without_an_announcement_the_wait_ends_at_its_deadline(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(wakeup.time, "monotonic", clock)
    monkeypatch.setattr(wakeup.time, "sleep", clock.wait)
    monkeypatch.setattr(wakeup, "RECHECK_SECONDS", 1.0)

    class Event:
        def wait(self, timeout):
            return clock.wait(timeout)

        def clear(self):
            pass

    created = wakeup.Watch.__init__

    def watch_with_fake_event(self, *args):
        created(self, *args)
        self.event = Event()

    monkeypatch.setattr(wakeup.Watch, "__init__", watch_with_fake_event)
    wakeups, status = Wakeups(), Status()
    assert wakeups.wait_final(status, "s", 0.3) == "queued"
    # one wait for the whole 0.3 s (the recheck, 1 s, comes later), ending at the deadline
    assert clock.waits == [pytest.approx(0.3)] and clock.now == pytest.approx(500.3)
    assert status.reads == 2  # on arrival and at the deadline


def test_a_lost_announcement_is_caught_by_the_periodic_recheck(monkeypatch):
    monkeypatch.setattr(wakeup, "RECHECK_SECONDS", 0.1)
    wakeups, status = Wakeups(), Status()
    thread = finish_later(wakeups, status, "s", 0.25, announce=False)
    assert wakeups.wait_final(status, "s", 20) == "graded"
    thread.join()
    assert 3 <= status.reads <= 6  # re-read every 0.1 s until it saw the stored grade


def test_when_announcements_are_not_arriving_the_store_is_polled():
    wakeups, status = Wakeups(live=lambda: False), Status()
    thread = finish_later(wakeups, status, "s", 0.3, announce=False)
    assert wakeups.wait_final(status, "s", 20) == "graded"
    thread.join()
    # 20 ms apart backing off by 1.5x: reads at about 0, 0.02, 0.05, 0.095, 0.16, 0.26, 0.41 s
    assert status.reads >= 4


def test_several_requests_waiting_for_one_submission_all_wake(no_recheck):
    wakeups = Wakeups()
    statuses = [Status() for _ in range(3)]
    answers = []
    waiters = [threading.Thread(target=lambda s=s: answers.append(wakeups.wait_final(s, "s", 20)))
               for s in statuses]
    for thread in waiters:
        thread.start()
    # each waiter registered and read once (queued) before the grade is stored: waited for,
    # not slept for, so a slow start of a thread cannot let it read "graded" first
    deadline = time.monotonic() + 20
    while any(s.reads < 1 for s in statuses):
        assert time.monotonic() < deadline, "the waiters did not start"
        time.sleep(0.005)
    for s in statuses:
        s.value = "graded"
    wakeups.wake("s")
    for thread in waiters:
        thread.join(5)
    assert answers == ["graded"] * 3 and all(s.reads == 2 for s in statuses)
    assert wakeups.waiting() == 0


def test_redis_pub_sub_carries_the_announcement_between_processes(redis_url):
    channel = f"grader:final:test-{uuid.uuid4().hex[:8]}"
    listener = RedisListener(redis_url, channel)
    listener.ensure_started()
    deadline = time.monotonic() + 10
    while not listener._live() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert listener._live(), "the listener did not subscribe"
    status = Status()

    def finish():
        time.sleep(0.2)
        status.value = "graded"
        RedisAnnouncer(redis_url, channel)("sub-1")

    thread = threading.Thread(target=finish)
    thread.start()
    try:
        assert listener.wakeups.wait_final(status, "sub-1", 20) == "graded"
        assert status.reads == 2
    finally:
        thread.join()
        listener.close()


def test_with_redis_unreachable_waiting_falls_back_to_polling_and_announcing_does_not_raise():
    url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    listener = RedisListener(url, "grader:final:nowhere", retry_seconds=0.05)
    status = Status()
    thread = finish_later(listener.wakeups, status, "s", 0.3, announce=False)
    try:
        assert listener.wakeups.wait_final(status, "s", 20) == "graded"
        assert status.reads >= 4  # polled: no subscription was ever confirmed
    finally:
        thread.join()
        listener.close()
    RedisAnnouncer(url, "grader:final:nowhere")("s")  # logged, not raised
