"""Fixtures shared with tests/problems: the fake sandboxes the code kind grades through."""
from tests.problems.conftest import broken_sandbox, fake_sandbox  # noqa: F401  (pytest fixtures)
