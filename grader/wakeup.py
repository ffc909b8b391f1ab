"""Waking long-polls when a submission becomes final, instead of each waiting request polling the
store.

The grading side *announces* the id of every submission it has just stored as final (``graded`` or
``failed``), after the commit; an API process *waits* for an id with :meth:`Wakeups.wait_final`.

* Production (Celery): :class:`RedisAnnouncer` publishes the id on a Redis pub/sub channel of the
  broker (``grader:final:<CELERY_QUEUE>``); in every API process one :class:`RedisListener`
  thread is subscribed to it and wakes the requests waiting for that id.
* Embedded default (in-process grading): the grading threads call :meth:`Wakeups.wake` of the
  app's own :class:`Wakeups` directly.

Nothing depends on a message arriving: a waiting request registers first and then reads the
status, so a submission finished before it started waiting is seen at once, and it re-reads the
status every :data:`RECHECK_SECONDS` in case a message was lost (Redis restarted, a publish failed).
While the listener is not subscribed (Redis down, or before its first subscription), waiting falls
back to reading the status 20 ms apart, backing off to 200 ms, as before announcements existed.
Pub/sub carries only submission ids, which are already unguessable and reveal nothing.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

log = logging.getLogger(__name__)

FINAL = ("graded", "failed")
#: While announcements arrive, how often a waiting request re-reads the status anyway (seconds).
RECHECK_SECONDS = 1.0
#: Without announcements: first and longest interval between two status reads (seconds).
POLL_FIRST, POLL_LONGEST = 0.02, 0.2


def channel_name(queue: str) -> str:
    """The pub/sub channel announcements of the Celery queue ``queue`` go to."""
    return f"grader:final:{queue}"


class Wakeups:
    """The requests of one process waiting for submissions to become final.

    ``live`` tells whether announcements are arriving (always for the in-process kind; for Redis,
    while the listener is subscribed)."""

    def __init__(self, live: Callable[[], bool] = lambda: True):
        self._live = live
        self._lock = threading.Lock()
        self._waiting: dict[str, set[threading.Event]] = {}

    def wake(self, submission_id: str) -> None:
        """Wake every request waiting for ``submission_id`` (an announcement)."""
        with self._lock:
            events = self._waiting.get(submission_id, ())
            for event in events:
                event.set()

    def waiting(self) -> int:
        """How many submissions are being waited for (for tests and metrics)."""
        with self._lock:
            return len(self._waiting)

    def wait_final(self, read_status: Callable[[], str | None], submission_id: str,
                   seconds: float) -> str | None:
        """Wait up to ``seconds`` for ``submission_id`` to become final; returns the last status
        read with ``read_status()`` (``None``: no such submission). Reads the status once at
        once, then when woken, every :data:`RECHECK_SECONDS`, or, while announcements are not
        arriving, 20 ms apart backing off to 200 ms."""
        with self.watching(submission_id) as watch:
            return watch.until_final(read_status, seconds)

    @contextmanager
    def watching(self, submission_id: str) -> Iterator["Watch"]:
        """Register for ``submission_id``'s announcement for the duration of the block. What is
        read inside the block, after registering, cannot miss an announcement made after it."""
        watch = Watch(self, submission_id)
        with self._lock:
            self._waiting.setdefault(submission_id, set()).add(watch.event)
        try:
            yield watch
        finally:
            with self._lock:
                events = self._waiting.get(submission_id)
                if events is not None:
                    events.discard(watch.event)
                    if not events:
                        del self._waiting[submission_id]


class Watch:
    """One registration of :meth:`Wakeups.watching`."""

    def __init__(self, wakeups: Wakeups, submission_id: str):
        self.wakeups, self.submission_id = wakeups, submission_id
        self.event = threading.Event()

    def until_final(self, read: Callable[[], Any], seconds: float, first: Any = None,
                    status: Callable[[Any], str | None] = lambda value: value) -> Any:
        """Read with ``read()`` until ``status(value)`` is final or ``None``, or ``seconds``
        passed; returns the last value read. ``first``: a value already read inside the
        ``watching`` block (saves the first read). Reads when woken, every
        :data:`RECHECK_SECONDS`, or polled 20 ms apart backing off to 200 ms while
        announcements are not arriving."""
        deadline = time.monotonic() + max(0.0, seconds)
        value = read() if first is None else first
        delay = POLL_FIRST
        while status(value) not in FINAL and status(value) is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if self.wakeups._live():
                self.event.wait(min(left, RECHECK_SECONDS))
                self.event.clear()
            else:
                time.sleep(min(left, delay))
                delay = min(delay * 1.5, POLL_LONGEST)
            value = read()
        return value


class RedisAnnouncer:
    """Publishes final submission ids on ``channel`` of the Redis at ``url`` (one connection pool
    per process). A failed publish is logged, never raised: waiting requests re-read the status
    on their own."""

    def __init__(self, url: str, channel: str):
        import redis

        self.channel = channel
        self._client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)

    def __call__(self, submission_id: str) -> None:
        try:
            self._client.publish(self.channel, submission_id)
        except Exception as error:  # noqa: BLE001 - Redis down: long-polls fall back to reading
            log.warning("could not announce %s as final: %s", submission_id, error)


class RedisListener:
    """One daemon thread per process, subscribed to ``channel``, waking :attr:`wakeups`. Started
    on first use in each process (gunicorn forks its workers after the app is built); it
    re-subscribes after a connection loss, and :attr:`wakeups` falls back to reading the status
    meanwhile."""

    def __init__(self, url: str, channel: str, retry_seconds: float = 1.0):
        self.url, self.channel = url, channel
        self.retry_seconds = retry_seconds
        self.wakeups = Wakeups(live=self._live)
        self._subscribed = threading.Event()
        self._started_in: int | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def _live(self) -> bool:
        self.ensure_started()
        return self._subscribed.is_set()

    def ensure_started(self) -> None:
        if self._started_in == os.getpid():
            return
        with self._lock:
            if self._started_in == os.getpid():
                return
            self._subscribed.clear()
            self._started_in = os.getpid()
            threading.Thread(target=self._run, name="wakeup-listener", daemon=True).start()

    def _run(self) -> None:
        import redis

        while not self._stop.is_set():
            pubsub = None
            try:
                client = redis.Redis.from_url(self.url, socket_connect_timeout=5,
                                              health_check_interval=30)
                pubsub = client.pubsub(ignore_subscribe_messages=False)
                pubsub.subscribe(self.channel)
                while not self._stop.is_set():
                    message = pubsub.get_message(timeout=5.0)
                    if message is None:
                        continue
                    if message["type"] == "subscribe":
                        self._subscribed.set()
                    elif message["type"] == "message":
                        data = message["data"]
                        self.wakeups.wake(data.decode("ascii", "replace")
                                          if isinstance(data, bytes) else str(data))
            except Exception as error:  # noqa: BLE001 - reconnect; waiting requests poll meanwhile
                if self._subscribed.is_set():
                    log.warning("long-poll announcements interrupted (%s); reading the store "
                                "until they resume", error)
                self._subscribed.clear()
                self._stop.wait(self.retry_seconds)
            finally:
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:  # noqa: BLE001
                        pass

    def close(self) -> None:
        self._stop.set()


def make_wakeups(config) -> Wakeups:
    """The :class:`Wakeups` of an API process: fed by a :class:`RedisListener` when grading runs
    on Celery (``CELERY_BROKER_URL``), else in-process (the grading threads wake it)."""
    if config.get("CELERY_BROKER_URL"):
        return RedisListener(config["CELERY_BROKER_URL"],
                             channel_name(config["CELERY_QUEUE"])).wakeups
    return Wakeups()


def make_announcer(config) -> Callable[[str], None] | None:
    """What a Celery worker calls with each final submission id (None on the embedded default,
    whose grading threads wake the app's :class:`Wakeups` themselves)."""
    if config.get("CELERY_BROKER_URL"):
        return RedisAnnouncer(config["CELERY_BROKER_URL"], channel_name(config["CELERY_QUEUE"]))
    return None
