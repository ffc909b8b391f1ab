"""First start of the embedded default: a local course and an instructor key, so one command gives
a working service. The key is printed once and kept in ``INSTANCE_PATH/local-instructor-key``
(mode 0600) for the README's curl examples; only its hash is in the database."""
from __future__ import annotations

import logging
import os
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
