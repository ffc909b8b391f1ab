"""Issue 20 item 3 for LTI scores: every request of one AGS attempt (token, line item, score)
shares the attempt's one deadline; a platform that drips its answer fails it as "deadline"."""
from __future__ import annotations

import time

import pytest

from grader.lti.ags import PlatformError, _send
from tests.notify.receivers import Dripper, Receiver


def test_a_dripping_platform_is_a_retryable_deadline_fault():
    dripper = Dripper(interval=0.05)
    try:
        with pytest.raises(PlatformError) as fault:
            _send("POST", dripper.url, time.monotonic() + 0.5, data=b"{}")
    finally:
        dripper.close()
    assert fault.value.retryable and fault.value.status_code is None
    assert "failed: deadline: no complete answer within 0.5 s" in str(fault.value)


def test_a_request_after_the_attempts_deadline_is_not_sent():
    receiver = Receiver("127.0.0.1")
    try:
        with pytest.raises(PlatformError) as fault:
            _send("POST", f"http://127.0.0.1:{receiver.port}/scores", time.monotonic() - 1,
                  data=b"{}")
        answer = _send("POST", f"http://127.0.0.1:{receiver.port}/scores",
                       time.monotonic() + 10, data=b"{}", params={"type_id": "3"})
    finally:
        receiver.close()
    assert "the attempt's deadline passed before this request" in str(fault.value)
    assert answer.status_code == 200
    [(path, _headers, body)] = receiver.requests  # only the second one reached it
    assert (path, body) == ("/scores?type_id=3", b"{}")
