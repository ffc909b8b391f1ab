"""One real (isolated) sandbox shared by the sandbox unit tests: failing to establish isolation
fails these tests, it never skips them."""
from __future__ import annotations

import pytest

from grader.sandbox import get_sandbox


@pytest.fixture(scope="session")
def sandbox():
    instance = get_sandbox("auto")
    try:
        yield instance
    finally:
        instance.close()
