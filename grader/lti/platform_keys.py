"""The platforms' public keys: each platform's JWKS, fetched from its ``key_set_url`` by PyJWT's
:class:`jwt.PyJWKClient`, cached for ``lifespan`` seconds and fetched again when an id_token names a
``kid`` the cached set lacks (a platform rotated its keys), at most once per ``cooldown`` seconds
per URL so forged kids cannot make the tool hammer a platform."""
from __future__ import annotations

import threading

from jwt import PyJWK, PyJWKClient
from jwt.exceptions import PyJWKClientConnectionError, PyJWKClientError

from grader.lti.refusals import LtiRefused


class PlatformKeys:
    """One cached JWKS client per key-set URL, shared by the threads of a process."""

    def __init__(self, lifespan: float = 300.0, cooldown: float = 5.0, timeout: float = 5.0):
        self.lifespan, self.cooldown, self.timeout = lifespan, cooldown, timeout
        self._clients: dict[str, PyJWKClient] = {}
        self._lock = threading.Lock()

    def _client(self, url: str) -> PyJWKClient:
        with self._lock:
            client = self._clients.get(url)
            if client is None:
                client = PyJWKClient(url, cache_jwk_set=True, lifespan=self.lifespan,
                                     timeout=self.timeout, cooldown_duration=self.cooldown,
                                     headers={"User-Agent": "attention-grader-lti/1"})
                self._clients[url] = client
            return client

    def forget(self, key_set_url: str) -> None:
        """Drop what is cached for ``key_set_url`` (a registration moved to another URL)."""
        with self._lock:
            self._clients.pop(key_set_url, None)

    def signing_key(self, key_set_url: str, kid: str) -> PyJWK:
        """The platform key named ``kid``. Raises :class:`LtiRefused` (401) when the platform's
        JWKS has no such key even after a refetch, (502) when the JWKS cannot be fetched."""
        try:
            return self._client(key_set_url).get_signing_key(kid)
        except PyJWKClientConnectionError as exc:
            raise LtiRefused(502, "platform_keys_unreachable",
                             f"The platform's public keys could not be fetched from "
                             f"{key_set_url}: {exc}", "key_set_url",
                             hint="Try the launch again; if it keeps failing, the tool's "
                                  "administrator should check the platform registration.") from exc
        except PyJWKClientError as exc:
            raise LtiRefused(401, "unknown_signing_key",
                             f"The id_token is signed with a key (kid {kid!r}) that is not in the "
                             f"platform's published key set ({key_set_url}).", "id_token") from exc
