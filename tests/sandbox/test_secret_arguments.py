"""A hidden test's arguments reach the learner's process only once its code is imported and
every call before the first secret one has finished (Call.secret): nothing shown in full before
that can hold them (red team: a picture drawn after the hidden calls carried their inputs out)."""
from __future__ import annotations

import numpy as np

from grader.sandbox import Call, Limits

SECRET = np.full(64, 123456.789)  # 8 distinctive bytes, 64 times
LOOK = """
import gc, os, sys
import numpy as np

PATTERN = np.float64(123456.789).tobytes()

def _reachable_holds_pattern():
    # everything reachable from the call stack (the runner's reader, its buffers, its frames)
    seen, todo = {id(PATTERN)}, [sys._getframe(0)]
    while todo and len(seen) < 200000:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (bytes, bytearray)) and PATTERN in obj:
            return True
        if isinstance(obj, memoryview) and PATTERN in obj.tobytes():
            return True
        if isinstance(obj, np.ndarray) and obj.size and obj.dtype.kind == "f" and \\
                np.any(obj == 123456.789):
            return True
        if isinstance(obj, type(sys._getframe(0))):
            todo += [obj.f_back, obj.f_locals] if obj.f_back else [obj.f_locals]
            continue
        todo += gc.get_referents(obj)
    return False

def _seen():
    os.set_blocking(0, False)
    try:
        pending = os.read(0, 1 << 22)  # whatever the job pipe holds right now
    except BlockingIOError:
        pending = b""
    finally:
        os.set_blocking(0, True)
    return float(PATTERN in pending or _reachable_holds_pattern())

AT_IMPORT = _seen()

def f(x):
    return np.array([AT_IMPORT, _seen()])
"""


def test_a_secret_calls_arguments_are_not_in_the_process_before_its_turn(sandbox):
    calls = [Call("visible", "f", (np.zeros(3),)),
             Call("hidden", "f", (SECRET,), secret=True)]
    result = sandbox.run(LOOK, calls, Limits(wall_seconds=5.0))
    assert result.status == "ok", result.message
    at_import, during_visible = result.calls[0].value
    assert (at_import, during_visible) == (0.0, 0.0)
    # ... and the hidden call does get them (the check above can see them when they are there)
    assert result.calls[1].value[1] == 1.0


def test_without_secret_calls_every_argument_is_sent_at_once(sandbox):
    calls = [Call("first", "f", (np.zeros(3),)), Call("second", "f", (SECRET,))]
    result = sandbox.run(LOOK, calls, Limits(wall_seconds=5.0))
    assert result.status == "ok", result.message
    assert result.calls[0].value[1] == 1.0  # the second call's arguments were already there
