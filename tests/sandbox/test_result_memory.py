"""A learner's return value costs the trusted (grading) process at most about its own size
(issue 10, part 3): a return is refused from its declared size, before it is read, when it is
larger than its call allows; an accepted one is read into one buffer and decoded without copies.

Measured in a fresh interpreter (the trusted side), as the growth of its peak resident memory.
"""
from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = r"""
import json, resource, sys
import numpy as np
from grader.sandbox import Call, Limits, get_sandbox

cap, returned = int(sys.argv[1]), int(sys.argv[2])
source = "import numpy as np\ndef f(n):\n    return np.ones(n, dtype=np.uint8)\n"
limits = Limits(wall_seconds=10.0, cpu_seconds=5.0, memory_bytes=1 << 30)
sandbox = get_sandbox("auto", run_self_test=False)
sandbox.run(source, [Call("warm", "f", (1000,))], limits)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
result = sandbox.run(source, [Call("big", "f", (returned,), max_result_bytes=cap)], limits)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
outcome = result.calls[0]
print(json.dumps({"growth": after - before, "status": outcome.status,
                  "size": None if outcome.value is None else int(outcome.value.nbytes)}))
sandbox.close()
"""
MiB = 1 << 20


def peak_growth(cap: int, returned: int) -> dict:
    output = subprocess.run([sys.executable, "-c", SCRIPT, str(cap), str(returned)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120, check=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def test_a_maximal_accepted_return_costs_about_its_own_size():
    """64 MiB returned under a 64 MiB + 4 KiB cap: read once, decoded in place. (Before this
    change the frame was copied about five times: ~320 MiB.)"""
    measured = peak_growth(64 * MiB + 4096, 64 * MiB - 4096)
    assert measured["status"] == "ok" and measured["size"] == 64 * MiB - 4096
    assert measured["growth"] <= 64 * MiB + 24 * MiB, measured


def test_an_oversized_return_is_refused_without_being_read():
    """The issue's reproduction: ~248 MiB returned where 1 MiB is allowed."""
    measured = peak_growth(1 * MiB, 31 * MiB * 8)
    assert measured["status"] == "bad_return" and measured["size"] is None
    assert measured["growth"] <= 16 * MiB, measured
