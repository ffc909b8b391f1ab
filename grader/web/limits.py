"""Limits of the pages' form posts, so that nobody can fill the grading queue from a page (the
red team queued six sleeping submissions from the practice page and a later correct one waited
90 s).

- **Rates** (:func:`check_rate`): each POST (a submission, an instructor's regrade) counts
  against ``WEB_SUBMIT_RATE_LIMIT`` for the signed-in learner (default ``10 per minute;100 per
  hour``) and ``WEB_SUBMIT_ADDRESS_RATE_LIMIT`` for the client address (default ``30 per
  minute;300 per hour``; behind a reverse proxy, set ``TRUSTED_PROXY_HOPS`` so the address is
  the client's). Over either: 429 with ``Retry-After`` and the form again, answers kept.
- **Pending submissions**: a learner with ``WEB_MAX_PENDING`` (default 2) submissions queued or
  running gets 409 ``submission_pending``, the form again and a link to the one being graded
  (:mod:`grader.store.pending`, exact across processes). Anonymous practice learners cost
  nothing to make (a new cookie), so their submissions also count per client address,
  ``WEB_MAX_PENDING_PER_ADDRESS`` (default 2; :class:`PendingByAddress`, per process).

Every post that creates a submission runs every check; only a true replay (the form's nonce
with the same answers, which creates nothing and answers with the stored submission) skips the
pending caps. A spent nonce with other answers (Back, edit, submit) is a new submission.

Limits apply after the CSRF check, so a post forged by another site cannot use up a learner's
allowance. Limit storage: ``RATE_LIMIT_STORAGE_URL`` (see :mod:`grader.api.ratelimit`).
"""
from __future__ import annotations

import threading
import zlib
from collections import OrderedDict, deque
from contextlib import contextmanager
from typing import Callable, Iterator

from grader.api.ratelimit import Breach, client_address, page_limits
from grader.api.state import state
from grader.store.pending import PENDING
from grader.web.session import LearnerSession


class Throttled(Exception):
    """A post over a limit: ``status`` (429 or 409), a ``message`` for the learner, HTTP
    ``headers`` (``Retry-After``) and, for a pending submission, ``pending_id``."""

    def __init__(self, status: int, code: str, message: str, headers: dict | None = None,
                 pending_id: str | None = None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers, self.pending_id = headers or {}, pending_id


def is_practice(learner: LearnerSession) -> bool:
    """An anonymous learner of a practice page (no LTI launch behind it)."""
    return learner.lti is None and learner.learner_id.startswith("practice-")


def _wait_words(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} second{'' if seconds == 1 else 's'}"
    return f"{round(seconds / 60)} minutes"


def check_rate(action: str, learner: LearnerSession) -> None:
    """Count one ``action`` (``submit``, ``regrade``) of ``learner`` from this request's client
    address; raise :class:`Throttled` (429, ``Retry-After``) when a limit is reached."""
    config, limits = state().config, page_limits()
    checks = (("learner", "WEB_SUBMIT_RATE_LIMIT", f"{learner.course_id}\0{learner.learner_id}"),
              ("address", "WEB_SUBMIT_ADDRESS_RATE_LIMIT", client_address()))
    for kind, setting, key in checks:
        breach: Breach | None = limits.check(f"web-{action}-{kind}", str(config.get(setting, "")),
                                             key)
        if breach is None:
            continue
        who = "You have" if kind == "learner" else "Your network address has"
        what = "submitted" if action == "submit" else "started regrades"
        raise Throttled(429, "rate_limited",
                        f"{who} {what} too often (the limit is {breach.limit}). Nothing was "
                        f"{'submitted' if action == 'submit' else 'started'}: try again in "
                        f"{_wait_words(breach.retry_after)}.",
                        headers={"Retry-After": str(breach.retry_after)})


class PendingByAddress:
    """The latest practice submissions of each client address (at most ``per_address`` ids for
    each of the ``addresses`` most recent addresses), to count those still pending. In-process:
    the embedded default, where practice pages are on, is one process."""

    def __init__(self, addresses: int = 10_000, per_address: int = 32):
        self._ids: OrderedDict[str, deque] = OrderedDict()
        self._lock = threading.Lock()
        self._admissions = [threading.Lock() for _ in range(64)]
        self.addresses, self.per_address = addresses, per_address

    def lock(self, address: str) -> threading.Lock:
        """The lock that admits the address's posts one at a time (one of 64 stripes)."""
        return self._admissions[zlib.crc32(address.encode("utf-8", "replace")) % 64]

    def pending(self, address: str, status_of) -> list[str]:
        """Ids of the address's submissions whose status (``status_of(id)``) is pending; the
        others are forgotten."""
        with self._lock:
            ids = list(self._ids.get(address, ()))
        still = [i for i in ids if status_of(i) in PENDING]
        with self._lock:
            if address in self._ids:
                self._ids[address] = deque(still, maxlen=self.per_address)
        return still

    def add(self, address: str, submission_id: str) -> None:
        with self._lock:
            ids = self._ids.pop(address, None) or deque(maxlen=self.per_address)
            ids.append(submission_id)
            self._ids[address] = ids
            while len(self._ids) > self.addresses:
                self._ids.popitem(last=False)


@contextmanager
def practice_admission(tracker: PendingByAddress, learner: LearnerSession,
                       replay: Callable[[], bool]) -> Iterator[Callable[[str], None]]:
    """Admit one post of ``learner`` to the per-address cap: for an anonymous practice learner,
    unless the post is a true replay (``replay()``: it creates nothing), raise
    :class:`Throttled` (409) when this client address already has
    ``WEB_MAX_PENDING_PER_ADDRESS`` practice submissions pending, else yield ``admit(id)`` to
    record the submission the post created. The replay test, the count, the post's intake and
    ``admit`` run under the address's lock, so posts arriving together (two tabs, several
    cookies, a double click) are counted one after the other. Not a practice learner, or no
    cap: ``admit`` does nothing."""
    cap = int(state().config.get("WEB_MAX_PENDING_PER_ADDRESS", 0) or 0)
    if not is_practice(learner) or cap <= 0:
        yield lambda _submission_id: None
        return
    address = client_address()
    with tracker.lock(address):
        pending = [] if replay() else tracker.pending(address, state().store.status)
        if len(pending) >= cap:
            raise Throttled(409, "submission_pending",
                            f"{len(pending)} practice submissions from your network address are "
                            f"still being graded (at most {cap} at a time): submit again once "
                            "one is graded.")
        yield lambda submission_id: tracker.add(address, submission_id)
