"""The embedded default's long-poll is woken by its grading threads (grader/wakeup.py): the GET
reads the row on arrival and when woken, and never polls the status."""
from __future__ import annotations

import threading
import time

import pytest

from grader import wakeup


@pytest.mark.parametrize("levers", ["none", "intake"])
def test_the_embedded_default_announces_to_its_long_polls(app, client, monkeypatch, levers):
    """In-process grading wakes the API's long-poll: the GET reads the row on arrival and when
    woken (plus at most one safety re-read per second of grading), never polls the status."""
    from tests.conftest import example

    monkeypatch.setenv("CPU_LEVERS", levers)

    store = app.extensions["grader"].store
    service = app.extensions["grader"].dispatcher.service
    reads, statuses, woken = [], [], []
    # (the GET reads through Store.get_shown: Store.get itself without the intake lever)
    real_get, real_status, real_announce = store.get_shown, store.status, service.announce
    assert real_announce == app.extensions["grader_wakeups"].wake
    here = threading.current_thread()  # the request's thread (grading threads read too)
    monkeypatch.setattr(store, "get_shown", lambda sid: (threading.current_thread() is here and
                                                   reads.append(sid)) or real_get(sid))
    monkeypatch.setattr(store, "status", lambda sid: (threading.current_thread() is here and
                                                      statuses.append(sid)) or real_status(sid))
    monkeypatch.setattr(service, "announce", lambda sid: woken.append(sid) or real_announce(sid))
    resp = client.post("/api/v1/assignments/attention-basics/submissions",
                       json=example("submission_correct.json"))
    submission_id = resp.get_json()["id"]
    reads.clear()
    started = time.monotonic()
    data = client.get(f"/api/v1/submissions/{submission_id}?wait=30").get_json()
    elapsed = time.monotonic() - started
    assert data["status"] == "graded" and data["score"] == 16.0
    assert woken == [submission_id]
    assert statuses == []
    own = [sid for sid in reads if sid == submission_id]
    assert 1 <= len(own) <= 2 + int(elapsed / wakeup.RECHECK_SECONDS), own
