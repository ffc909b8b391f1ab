"""First start: the embedded default's local course and instructor key (printed once and kept in
``INSTANCE_PATH/local-instructor-key``, mode 0600, for the README's curl examples), and a
production course with its keys in one step (``grader init``). Only the keys' hashes are in the
database."""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

KEY_FILE = "local-instructor-key"


def bootstrap_local_course(store, config) -> str | None:
    """Create the local course and its instructor key when the store has no course yet.
    Returns the new key (``None`` when a course existed)."""
    if store.courses.list_courses():
        return None
    course_id = config["LOCAL_COURSE"]
    try:
        store.courses.create_course(course_id, "Local course")
    except ValueError:  # another process created it first
        return None
    _row, plaintext = store.courses.create_key("instructor", course_id, "created on first start")
    path = Path(config["INSTANCE_PATH"]) / KEY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(plaintext + "\n")
    message = (f"Created course {course_id!r} with an instructor API key (kept in {path}):\n"
               f"    {plaintext}\nSend it as 'Authorization: Bearer <key>'.")
    print(message, flush=True)
    log.warning("created the local course %r and its instructor key (%s)", course_id, path)
    return plaintext


def create_admin_key(store, label: str = "created by grader create-admin-key") -> str:
    """A new admin key (courses and keys); printed once by the CLI."""
    _row, plaintext = store.courses.create_key("admin", None, label)
    return plaintext


@dataclass
class CourseInit:
    """What :func:`init_course` made: the keys (plaintext, shown once) by role, and the course's
    webhook secret when the course was created now (``None`` when it existed)."""

    course_id: str
    created: bool
    keys: dict[str, str]
    webhook_secret: str | None


def init_course(store, course_id: str, name: str | None = None,
                roles: tuple[str, ...] = ("admin", "lms")) -> CourseInit:
    """Create course ``course_id`` (unless it exists) and one new key per role in ``roles``
    (``admin`` belongs to no course; ``instructor`` and ``lms`` to this one). Raises
    ``ValueError`` for a malformed course id or role."""
    created = store.courses.get_course(course_id) is None
    secret = None
    if created:
        try:
            secret = store.courses.create_course(course_id, name or course_id).webhook_secret
        except ValueError:
            if store.courses.get_course(course_id) is None:
                raise
            created = False  # another process created it first
    keys = {}
    for role in roles:
        _row, keys[role] = store.courses.create_key(
            role, None if role == "admin" else course_id, f"created by grader init {course_id}")
    return CourseInit(course_id, created, keys, secret)
