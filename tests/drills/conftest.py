"""Fixtures of the fault drills: a production stack of our own (gunicorn, Celery workers and beat,
our own Redis on a free port, a fresh database on the machine's PostgreSQL) per test.

Size: ``DRILL_SUBMISSIONS`` (default 120, fits CI in about a minute; ``1000`` is the full drill
run by hand: ``DRILL_SUBMISSIONS=1000 .venv/bin/pytest tests/drills -s``).
"""
from __future__ import annotations

import os

import pytest

from benchmarks.stack import Stack

DRILL_SUBMISSIONS = int(os.environ.get("DRILL_SUBMISSIONS", "120"))
#: Small sweep settings so recovery of lost messages is quick in a drill (production: 300 s / 30 s).
DRILL_SETTINGS = {"SWEEP_AFTER_SECONDS": 8, "SWEEP_INTERVAL_SECONDS": 2, "LOG_JSON": "1",
                  "READY_CHECK_SANDBOX": "0"}


@pytest.fixture
def make_stack(tmp_path, redis_url, postgres_url):
    """``make_stack(**kwargs) -> Stack`` (not started); everything is stopped at teardown.
    ``redis_url``/``postgres_url`` only assert the machine's services are there (fail under CI)."""
    stacks = []

    def make(**kwargs):
        kwargs.setdefault("settings", DRILL_SETTINGS)
        stack = Stack(tmp_path / f"stack{len(stacks)}", **kwargs)
        stacks.append(stack)
        return stack

    yield make
    for stack in stacks:
        for name in ("worker", "api"):
            print(f"--- {name} log tail ---\n{stack.log_tail(name, 2000)}")
        stack.close()
