"""The embedded default's pool for deliveries (webhooks, LTI scores), apart from grading, with a
bound per receiving host: a receiver that answers slowly holds at most ``per_host`` of the pool's
threads, and only its own deliveries wait behind it.

Each attempt is itself bounded by the channel's overall deadline (:mod:`grader.notify.http`), so
a thread is never held longer than that; the bound per host keeps a course's slow receiver from
filling the pool with its retries meanwhile.
"""
from __future__ import annotations

import logging
import threading
from collections import defaultdict, deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable
from urllib.parse import urlsplit

log = logging.getLogger(__name__)


def host_of(url: str | None) -> str:
    """The key deliveries are bounded by: the URL's host and port (``""`` when unknown)."""
    if not url:
        return ""
    parts = urlsplit(url)
    return (parts.hostname or "") + (f":{parts.port}" if parts.port else "")


class DeliveryPool:
    """``workers`` threads sending deliveries, at most ``per_host`` at once to one host.

    ``send(delivery_id)`` makes one attempt (:meth:`grader.notify.Notifier.attempt`);
    ``url_of(delivery_id)`` says where a delivery goes (its host is the key). :meth:`submit`
    returns a future of ``send``'s value; a delivery whose host is at its bound waits in that
    host's queue, in order, while other hosts' deliveries go ahead."""

    def __init__(self, send: Callable[[str], object], url_of: Callable[[str], str | None],
                 workers: int = 4, per_host: int = 2):
        self.send, self.url_of = send, url_of
        self.per_host = max(1, min(per_host, workers))
        self.executor = ThreadPoolExecutor(max_workers=max(1, workers),
                                           thread_name_prefix="deliver")
        self._lock = threading.Lock()
        self._active: dict[str, int] = defaultdict(int)
        self._waiting: dict[str, deque[tuple[str, Future]]] = defaultdict(deque)

    def submit(self, delivery_id: str) -> Future:
        try:
            host = host_of(self.url_of(delivery_id))
        except Exception:  # the store will say so again in the attempt itself
            log.exception("could not read delivery %s", delivery_id)
            host = ""
        future: Future = Future()
        with self._lock:
            if self._active[host] >= self.per_host:
                self._waiting[host].append((delivery_id, future))
                return future
            self._active[host] += 1
        self._start(host, delivery_id, future)
        return future

    def in_flight(self, host: str) -> int:
        """Attempts running now to ``host`` (``host:port`` as :func:`host_of` gives it)."""
        with self._lock:
            return self._active.get(host, 0)

    def _start(self, host: str, delivery_id: str, future: Future) -> None:
        def run():
            try:
                future.set_result(self.send(delivery_id))
            except BaseException as exc:  # noqa: BLE001 - handed to the future
                log.exception("delivery %s failed", delivery_id)
                future.set_exception(exc)
            finally:
                self._next(host)

        try:
            self.executor.submit(run)
        except RuntimeError as exc:  # shut down
            future.set_exception(exc)
            self._next(host)

    def _next(self, host: str) -> None:
        with self._lock:
            queue = self._waiting.get(host)
            if queue:
                delivery_id, future = queue.popleft()
            else:
                self._active[host] -= 1
                if not self._active[host]:
                    del self._active[host]
                self._waiting.pop(host, None)
                return
        self._start(host, delivery_id, future)

    def close(self) -> None:
        """Finish the attempts running; those waiting behind a host are dropped (their rows stay
        pending and the sweep sends them after a restart)."""
        with self._lock:
            waiting, self._waiting = list(self._waiting.values()), defaultdict(deque)
        for queue in waiting:
            for _delivery_id, future in queue:
                future.cancel()
        self.executor.shutdown(wait=True, cancel_futures=False)
