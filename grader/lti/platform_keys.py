"""The platforms' public keys: each platform's JWKS, fetched from its ``key_set_url`` and cached for
``lifespan`` seconds.

- **An unknown kid.** An id_token naming a ``kid`` the cached set lacks (the platform rotated its
  keys, perhaps a second after our last fetch) makes the launch fetch the set again, once,
  whatever the time since the last fetch. Refetches of one URL are rate-bounded across launches
  by a token bucket (``burst`` at once, then one per ``cooldown`` seconds), so forged kids cannot
  make the tool hammer a platform.
- **Transport.** Fetched with ``requests``, so the CA bundle settings it honours apply
  (``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``: a platform behind a private CA). A fetch that
  fails is refused with 502 and a message for the learner that names neither the URL nor the
  TLS details; those go to the log, for the administrator.
"""
from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import requests
from jwt import PyJWK, PyJWKSet
from jwt.exceptions import PyJWKSetError

from grader.lti.refusals import LtiRefused

log = logging.getLogger(__name__)

#: Unknown-kid refetches of one key-set URL allowed at once (the bucket's size).
REFETCH_BURST = 5
#: Largest JWKS document read (a key set is a few kB).
MAX_JWKS_BYTES = 512 * 1024


@dataclass
class _Cached:
    keys: dict[str, PyJWK] = field(default_factory=dict)
    fetched_at: float | None = None
    tokens: float = REFETCH_BURST  # unknown-kid refetches left in the bucket
    refilled_at: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


class PlatformKeys:
    """One cached key set per key-set URL, shared by the threads of a process.

    ``lifespan``: seconds a fetched set is used; ``cooldown``: seconds per unknown-kid refetch
    once ``burst`` have been spent (0: unbounded); ``timeout``: seconds per fetch; ``clock``:
    monotonic seconds (tests pass their own)."""

    def __init__(self, lifespan: float = 300.0, cooldown: float = 5.0, timeout: float = 5.0,
                 burst: int = REFETCH_BURST, clock: Callable[[], float] = time.monotonic):
        self.lifespan, self.cooldown, self.timeout = lifespan, cooldown, timeout
        self.burst, self.clock = burst, clock
        self._cache: dict[str, _Cached] = {}
        self._lock = threading.Lock()
        self.fetches = 0  # key sets fetched by this process (observability, tests)

    def _entry(self, url: str) -> _Cached:
        with self._lock:
            entry = self._cache.get(url)
            if entry is None:
                entry = self._cache[url] = _Cached(tokens=float(self.burst),
                                                   refilled_at=self.clock())
            return entry

    def forget(self, key_set_url: str) -> None:
        """Drop what is cached for ``key_set_url`` (a registration moved to another URL)."""
        with self._lock:
            self._cache.pop(key_set_url, None)

    def _take_token(self, entry: _Cached) -> bool:
        """One unknown-kid refetch from the bucket, if there is one left (call under the
        entry's lock)."""
        if self.cooldown <= 0:
            return True
        now = self.clock()
        entry.tokens = min(float(self.burst),
                           entry.tokens + (now - entry.refilled_at) / self.cooldown)
        entry.refilled_at = now
        if entry.tokens >= 1.0:
            entry.tokens -= 1.0
            return True
        return False

    def signing_key(self, key_set_url: str, kid: str) -> PyJWK:
        """The platform key named ``kid``: from the cached set while it is fresh, else from a new
        fetch; a kid the fresh set lacks is fetched for once, rate permitting. Raises
        :class:`LtiRefused` (401 ``unknown_signing_key``) when the set has no such key, (502
        ``platform_keys_unreachable``) when it cannot be fetched or read."""
        entry = self._entry(key_set_url)
        with entry.lock:  # one fetch per URL at a time; the others then find its keys
            fresh = entry.fetched_at is not None and \
                self.clock() - entry.fetched_at < self.lifespan
            if fresh and kid in entry.keys:
                return entry.keys[kid]
            if not fresh or self._take_token(entry):
                entry.keys = self._fetch(key_set_url)
                entry.fetched_at = self.clock()
            key = entry.keys.get(kid)
        if key is None:
            raise LtiRefused(401, "unknown_signing_key",
                             f"The id_token is signed with a key (kid {kid!r}) that is not in the "
                             f"platform's published key set ({key_set_url}).", "id_token")
        return key

    def _fetch(self, url: str) -> dict[str, PyJWK]:
        self.fetches += 1
        try:
            response = requests.get(url, timeout=self.timeout, allow_redirects=False, stream=True,
                                    headers={"User-Agent": "attention-grader-lti/1",
                                             "Accept": "application/json"})
            body = response.raw.read(MAX_JWKS_BYTES + 1, decode_content=True)
            response.close()
        except requests.RequestException as exc:
            raise self._unreachable(url, f"{type(exc).__name__}: {exc}") from exc
        except OSError as exc:  # a connection dropped while reading the body
            raise self._unreachable(url, f"{type(exc).__name__}: {exc}") from exc
        if response.status_code != 200:
            raise self._unreachable(url, f"HTTP {response.status_code}")
        if len(body) > MAX_JWKS_BYTES:
            raise self._unreachable(url, f"the key set is larger than {MAX_JWKS_BYTES} bytes")
        try:
            keys = PyJWKSet.from_dict(json.loads(body)).keys
        except (ValueError, TypeError, AttributeError, PyJWKSetError) as exc:
            raise self._unreachable(url, f"not a usable JWKS: {exc}") from exc
        return {k.key_id: k for k in keys if k.key_id}

    @staticmethod
    def _unreachable(url: str, detail: str) -> LtiRefused:
        log.warning("the platform keys at %s could not be fetched: %s", url, detail)
        return LtiRefused(502, "platform_keys_unreachable",
                          "The LMS's public keys could not be fetched, so this launch cannot be "
                          "verified.", "key_set_url",
                          hint="Try the launch again; if it keeps failing, tell the tool's "
                               "administrator (the tool's log names the cause).")
