"""The tool's RSA signing keys: creation, the published JWKS, signing, rotation.

Keys are RSA 2048 (RS256, the algorithm LTI 1.3 requires: 1EdTech Security Framework 1.0, 6.1).
A key's ``kid`` is its RFC 7638 JWK thumbprint. The newest unretired key signs. Rotation adds a new
key and retires the old one, which stays in the JWKS for ``overlap`` seconds, longer than any token
it signed lives (``TOKEN_LIFETIME``) plus the time a platform may cache our JWKS
(``JWKS_MAX_AGE``), so nothing it signed fails verification. Private keys are stored sealed
(Fernet, key derived from ``GRADER_SECRET_KEY``), never in plain text.
"""
from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from datetime import timedelta
from typing import Any

import jwt
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from grader.store.models import utcnow

#: Seconds a JWT signed by the tool stays valid (client assertions, deep-linking responses).
TOKEN_LIFETIME = 300
#: ``Cache-Control: max-age`` of ``GET /lti/jwks``.
JWKS_MAX_AGE = 300
#: Smallest allowed overlap: a retired key must outlive its tokens and cached copies of the JWKS.
MIN_OVERLAP = TOKEN_LIFETIME + JWKS_MAX_AGE


class KeyUnavailable(RuntimeError):
    """A stored private key cannot be unsealed (``GRADER_SECRET_KEY`` changed)."""


class Sealer:
    """Symmetric sealing of secrets at rest (Fernet: AES-128-CBC + HMAC-SHA256) with a key derived
    from the service secret: SHA-256("lti-seal\\0" + secret)."""

    def __init__(self, secret: str):
        digest = hashlib.sha256(b"lti-seal\0" + secret.encode()).digest()
        self._fernet = Fernet(base64.urlsafe_b64encode(digest))

    def seal(self, plaintext: str) -> str:
        return self._fernet.encrypt(plaintext.encode()).decode()

    def unseal(self, sealed: str) -> str:
        try:
            return self._fernet.decrypt(sealed.encode()).decode()
        except InvalidToken as exc:
            raise KeyUnavailable("a stored LTI secret cannot be unsealed: GRADER_SECRET_KEY has "
                                 "changed since it was made (run `grader lti rotate-key`)") from exc


def thumbprint(public_jwk: dict[str, Any]) -> str:
    """RFC 7638 thumbprint of an RSA public JWK: base64url(SHA-256(JSON of e, kty, n in that
    order, no whitespace)), unpadded."""
    canonical = json.dumps({k: public_jwk[k] for k in ("e", "kty", "n")}, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def new_key_pair() -> tuple[str, dict[str, Any], str]:
    """A fresh RSA 2048 key pair: (kid, public JWK with kid/alg/use, private key PEM)."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public_jwk = RSAAlgorithm.to_jwk(private.public_key(), as_dict=True)
    public_jwk.pop("key_ops", None)  # RFC 7517, 4.3: not together with "use"
    kid = thumbprint(public_jwk)
    public_jwk.update(kid=kid, alg="RS256", use="sig")
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    return kid, public_jwk, pem


class ToolKeys:
    """The tool's key ring over the store. ``overlap``: seconds a retired key stays published."""

    def __init__(self, store, secret: str, overlap: float):
        if overlap < MIN_OVERLAP:
            raise ValueError(f"LTI_KEY_OVERLAP_SECONDS must be at least {MIN_OVERLAP} (token "
                             f"lifetime {TOKEN_LIFETIME} s + JWKS cache {JWKS_MAX_AGE} s)")
        self.repo = store.lti
        self.sealer = Sealer(secret)
        self.overlap = timedelta(seconds=overlap)

    def _published(self):
        return self.repo.tool_keys(published_since=utcnow() - self.overlap)

    def rotate(self) -> str:
        """Make a new signing key, retire the current one (still published for the overlap),
        forget keys retired longer ago than the overlap. Returns the new kid."""
        kid, public_jwk, pem = new_key_pair()
        self.repo.add_tool_key(kid, public_jwk, self.sealer.seal(pem), retire_others=True)
        self.repo.forget_tool_keys(retired_before=utcnow() - self.overlap)
        return kid

    def _current(self):
        keys = [k for k in self._published() if k.retired_at is None]
        if not keys:
            kid, public_jwk, pem = new_key_pair()
            # two processes may both get here: both keys are published, the newest signs
            self.repo.add_tool_key(kid, public_jwk, self.sealer.seal(pem), retire_others=False)
            keys = [k for k in self._published() if k.retired_at is None]
        return keys[0]

    def jwks(self) -> dict[str, list[dict[str, Any]]]:
        """The public JWKS: the current key first, then keys retired within the overlap."""
        self._current()
        return {"keys": [dict(k.public_jwk) for k in self._published()]}

    def current_kid(self) -> str:
        return self._current().kid

    def sign(self, claims: dict[str, Any], lifetime: int = TOKEN_LIFETIME) -> str:
        """An RS256 JWT of ``claims`` plus ``iat``, ``exp`` (``iat + lifetime`` s) and ``jti``
        when absent, signed with the current key (``kid`` in the header)."""
        key = self._current()
        now = int(time.time())
        body = {"iat": now, "exp": now + lifetime, "jti": str(uuid.uuid4()), **claims}
        return jwt.encode(body, self.sealer.unseal(key.private_key), algorithm="RS256",
                          headers={"kid": key.kid})
