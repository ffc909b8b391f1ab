"""API key format and hashing.

A key reads ``agk_<id>_<secret>``: ``id`` (12 hex characters) is public and indexes the stored row,
``secret`` (43 URL-safe characters, 256 bits) is stored only as its SHA-256. A salted slow hash is
not needed for 256-bit random secrets (the same reasoning as GitHub's and Stripe's tokens); the
comparison is constant-time.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

ROLES = ("admin", "instructor", "lms")
KEY_PATTERN = re.compile(r"^agk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
_DUMMY_DIGEST = hashlib.sha256(b"no such key").hexdigest()


@dataclass(frozen=True)
class Principal:
    """Who is calling: the key's id, role and course (``None`` for admin)."""

    key_id: str
    role: str
    course_id: str | None


def hash_secret(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


def generate_key() -> tuple[str, str, str]:
    """A new key: ``(key_id, plaintext, digest)``. Show ``plaintext`` once; store ``digest``."""
    key_id = secrets.token_hex(6)
    plaintext = f"agk_{key_id}_{secrets.token_urlsafe(32)}"
    return key_id, plaintext, hash_secret(plaintext)


def parse_key(plaintext: str) -> str | None:
    """The key id of a well-formed key, else ``None``."""
    match = KEY_PATTERN.match(plaintext or "")
    return match.group(1) if match else None


def digest_matches(plaintext: str, stored_digest: str | None) -> bool:
    """Constant-time comparison; hashes even when there is no stored digest, so an unknown key id
    costs the same time as a wrong secret."""
    candidate = hash_secret(plaintext)
    return hmac.compare_digest(candidate, stored_digest or _DUMMY_DIGEST) and stored_digest is not None
