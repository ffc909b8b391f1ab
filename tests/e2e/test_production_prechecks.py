"""Issue 28 item 1's follow-up in production mode end to end: gunicorn (no sandbox in the API
process), a real Celery worker on the real Redis, the real PostgreSQL. A precheck goes through
the grading queue to the worker's sandbox and is answered at once (200, not 503). By hand: the
SDPA dividing by d_k fails the visible example with d_k = 5 and passes the two with d_k = 1."""
from __future__ import annotations

import time

import requests

from tests.conftest import example
from tests.e2e.test_production import production  # noqa: F401  (the fixture)


def test_a_precheck_runs_on_the_grading_worker(production):  # noqa: F811
    base, headers, _env = production
    body = example("submission_divides_by_dk.json")
    for attempt in ("first (the worker's sandbox may still be starting)", "second"):
        started = time.perf_counter()
        resp = requests.post(f"{base}/api/v1/assignments/attention-basics/prechecks", json=body,
                             headers=headers, timeout=60)
        print(f"precheck through the queue, {attempt}: {time.perf_counter() - started:.2f} s")
        assert resp.status_code == 200, resp.text
    answer = resp.json()
    assert answer["stored"] is False
    [sdpa] = answer["items"]
    assert (sdpa["item_id"], sdpa["passed"], sdpa["total"]) == ("sdpa", 2, 3)
