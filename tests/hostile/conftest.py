"""Fixtures for the hostile-submission suite: canaries planted outside the sandbox *before* the
real (isolated) sandbox starts, and that sandbox, shared by every payload (the suite checks that
the same warm instance keeps grading correctly after each attack)."""
from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

import pytest

from grader.sandbox import get_sandbox

PROJECT_DIR = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def canaries():
    """A world-readable file in the host's /tmp and an environment variable holding a secret
    ("GRADERCANARY" + 32 hex digits) in this process. Yields their names."""
    directory = tempfile.mkdtemp(prefix="grader-hostile-canary-")
    os.chmod(directory, 0o755)
    path = Path(directory) / "secret.txt"
    path.write_text("GRADERCANARY" + secrets.token_hex(16))
    os.chmod(path, 0o644)
    name = "GRADER_HOSTILE_CANARY_" + secrets.token_hex(4).upper()
    os.environ[name] = "GRADERCANARY" + secrets.token_hex(16)
    try:
        yield {"__CANARY_FILE__": str(path), "__CANARY_ENV_NAME__": name,
               "__PROJECT_DIR__": str(PROJECT_DIR)}
    finally:
        os.environ.pop(name, None)
        path.unlink()
        os.rmdir(directory)


@pytest.fixture(scope="session")
def hostile_sandbox(canaries):
    """The real isolation (mode "auto"): a failure to establish it fails the suite, never skips."""
    sandbox = get_sandbox("auto")
    try:
        yield sandbox
    finally:
        sandbox.close()
