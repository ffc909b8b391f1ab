"""Helpers shared by the hostile-submission tests: the payload files, the limits they run under,
a correct submission, the trusted-side score, and host-side leftover checks."""
from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from grader.sandbox import Call, Limits
from grader.sandbox.launcher import processes_of

PAYLOADS = Path(__file__).parent / "payloads"
LIMITS = Limits(wall_seconds=2.0, cpu_seconds=1.5, memory_bytes=256 << 20, output_bytes=16 << 10,
                run_wall_seconds=4.0)
WALL_MARGIN = 1.0
CORRECT = """
import numpy as np

def softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)
"""


def reference_softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, max-shifted (the trusted reference)."""
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def make_calls(seed: int) -> list[Call]:
    """Three softmax calls on random (3, 5..7) inputs drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    return [Call(test=f"softmax-{i}", function="softmax", args=(rng.standard_normal((3, 5 + i)),))
            for i in range(3)]


def points(result, calls) -> int:
    """Trusted-side score: calls that returned an array equal to the reference softmax."""
    earned = 0
    for call, outcome in zip(calls, result.calls):
        expected = reference_softmax(call.args[0])
        if (outcome.status == "ok" and isinstance(outcome.value, np.ndarray)
                and outcome.value.shape == expected.shape
                and np.allclose(outcome.value, expected, rtol=1e-6, atol=1e-9)):
            earned += 1
    return earned


def processes_of_uid(uid: int) -> list[int]:
    """Host pids whose real uid is ``uid`` (zombies included)."""
    return list(processes_of({uid}))


def files_of_uid(uid: int) -> list[str]:
    """Paths owned by ``uid`` in the host's temporary and runtime directories."""
    found = []
    for directory in ("/tmp", "/var/tmp", "/dev/shm", "/run"):
        for root, dirs, files in os.walk(directory):
            for name in dirs + files:
                path = os.path.join(root, name)
                try:
                    if os.lstat(path).st_uid == uid:
                        found.append(path)
                except OSError:
                    pass
            if root.count(os.sep) > 3:
                dirs.clear()
    return found


def wait_for_quiet(sandbox, expected: int, timeout: float = 2.0) -> list[int]:
    """The slot cgroup's pids once at most ``expected`` remain (or after ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while True:
        pids = sandbox.cgroup.pids()
        if len(pids) <= expected or time.monotonic() > deadline:
            return pids
        time.sleep(0.02)


def load_payload(name: str, canaries: dict) -> str:
    """A payload's source with the canary placeholders substituted."""
    source = (PAYLOADS / name).read_text()
    for placeholder, value in canaries.items():
        source = source.replace(placeholder, value)
    return source
