"""Fault drills on the production stack: a worker SIGKILLed mid-job, Redis restarted and the API
restarted while submissions pour in; a hung worker; the store unreachable for a few seconds.

Afterwards every submission is final, none is lost, none has two results, and scores equal those
of a calm run. Sizes: see ``conftest.py`` (``DRILL_SUBMISSIONS``).
"""
from __future__ import annotations

import os
import signal
import threading
import time
import uuid

import pytest
import requests

from tests.drills.conftest import DRILL_SETTINGS, DRILL_SUBMISSIONS
from tests.drills.drill_client import (Posting, engine_for, outcome, post_all, statuses,
                                       template_of, wait_all_final)
from tests.drills.proxy import PausableProxy

pytestmark = [pytest.mark.slow, pytest.mark.services]


def calm_scores(stack, engine, per_template: int = 2) -> dict[str, float]:
    """Score of each template on the calm stack (every copy must agree)."""
    run = f"calm-{uuid.uuid4().hex[:6]}"
    count = per_template * 4
    post_all(stack, run, range(count), threads=4, timeout=60)
    assert wait_all_final(engine, run, count, timeout=60)["graded"] == count
    scores: dict[str, set] = {}
    for learner, row in outcome(engine, run).items():
        scores.setdefault(template_of(int(learner.rsplit("-", 1)[1])), set()).add(row["score"])
    assert all(len(s) == 1 for s in scores.values()), scores
    return {name: s.pop() for name, s in scores.items()}


def wait_until_running(engine, run: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while statuses(engine, run)["running"] == 0:
        assert time.monotonic() < deadline, "no submission ever started running"
        time.sleep(0.02)


def test_nothing_lost_or_graded_twice_through_worker_kill_redis_and_api_restarts(make_stack):
    stack = make_stack(worker_concurrency=2).start_all(workers=1, beat=True)
    stack.supervise()  # production runs workers with restart: unless-stopped
    engine = engine_for(stack)
    calm = calm_scores(stack, engine)
    run = f"drill-{uuid.uuid4().hex[:6]}"
    n = DRILL_SUBMISSIONS
    faults: list[str] = []

    posting = Posting()

    def at(fraction: float) -> None:  # faults are spread over the posting
        while len(posting.accepted) < fraction * n:
            time.sleep(0.02)
        wait_until_running(engine, run)

    def inject():
        at(0.1)
        victim = stack.worker_children("worker")[0]
        os.kill(victim, signal.SIGKILL)  # one pool process, mid-job
        faults.append((f"SIGKILL pool process {victim}", len(posting.accepted), round(time.monotonic() - started, 1)))
        at(0.3)
        stack.stop("worker", signal.SIGKILL)  # the whole worker node, mid-job
        faults.append(("SIGKILL worker node", len(posting.accepted), round(time.monotonic() - started, 1)))
        stack.start_worker("worker")
        at(0.5)
        stack.restart_redis(down_seconds=1.0)
        faults.append(("Redis restarted (queue lost)", len(posting.accepted), round(time.monotonic() - started, 1)))
        at(0.7)
        stack.restart_api(signal.SIGKILL)
        faults.append(("API SIGKILLed and restarted", len(posting.accepted), round(time.monotonic() - started, 1)))

    injector = threading.Thread(target=inject, daemon=True)
    started = time.monotonic()
    injector.start()
    # paced so the posting lasts long enough for every fault to land in the middle of it
    post_all(stack, run, range(n), threads=8, timeout=600, posting=posting,
             rate=max(5.0, n / 25))
    injector.join(120)
    posted = time.monotonic() - started
    counts = wait_all_final(engine, run, n, timeout=60)
    recovered = time.monotonic() - started
    rows = outcome(engine, run)
    print(f"\nDRILL n={n}: faults={faults}; answers={dict(posting.answers)}; "
          f"posted in {posted:.1f}s; all final after {recovered:.1f}s; statuses={dict(counts)}; "
          f"restarted by the supervisor: {stack.restarts}")

    assert len(faults) == 4, faults
    assert len(posting.accepted) == n
    assert len(rows) == n, "a logical submission is missing from the store"
    assert [l for l, r in rows.items() if r["rows"] != 1] == [], "a submission was stored twice"
    assert counts == {"graded": n}, counts
    assert [l for l, r in rows.items() if r["grades"] != 1] == [], "graded twice into two results"
    wrong = {l: (r["score"], calm[template_of(int(l.rsplit("-", 1)[1]))])
             for l, r in rows.items() if r["score"] != calm[template_of(int(l.rsplit("-", 1)[1]))]}
    assert wrong == {}, f"scores differ from the calm run: {list(wrong.items())[:5]}"


SLOW_CORRECT = ("import time\ntime.sleep(1.5)\n"
                + __import__("tests.drills.drill_client", fromlist=["TEMPLATES"])
                .TEMPLATES["correct"]["sdpa"]["code"])


def test_hung_worker_job_is_redelivered_within_the_sweep_bound(make_stack):
    """A worker stopped (SIGSTOP) mid-job holds its message; the sweep re-queues the submission
    once it has been ``running`` for SWEEP_AFTER_SECONDS, another worker grades it. Bound:
    SWEEP_AFTER_SECONDS + SWEEP_INTERVAL_SECONDS + one grading (production: 300 + 30 s + grading;
    the Celery hard time limit then kills the hung pool process)."""
    stack = make_stack(worker_concurrency=1).start_all(workers=2, beat=True)
    engine = engine_for(stack)
    run = f"hung-{uuid.uuid4().hex[:6]}"
    session = stack.session()
    resp = session.post(stack.submissions_url(), timeout=10, json={
        "learner_id": f"{run}-0", "responses": {"sdpa": {"code": SLOW_CORRECT}}})
    assert resp.status_code == 202, resp.text
    wait_until_running(engine, run)
    victim = worker_that_received(stack, ("worker", "worker1"))
    os.killpg(stack.procs[victim].pid, signal.SIGSTOP)
    stopped_at = time.monotonic()
    bound = DRILL_SETTINGS["SWEEP_AFTER_SECONDS"] + DRILL_SETTINGS["SWEEP_INTERVAL_SECONDS"] + 15
    try:
        counts = wait_all_final(engine, run, 1, timeout=bound)
        took = time.monotonic() - stopped_at
    finally:
        os.killpg(stack.procs[victim].pid, signal.SIGCONT)
    print(f"\nHUNG WORKER: {victim} stopped; graded elsewhere {took:.1f}s later (bound {bound}s)")
    assert counts == {"graded": 1}, counts
    # graded by the sweep's redelivery, not by the stopped worker finishing normally
    assert took >= DRILL_SETTINGS["SWEEP_AFTER_SECONDS"] - 3, took
    time.sleep(3)  # the resumed worker finishes its stale run: it must not store a second result
    [row] = outcome(engine, run).values()
    assert (row["rows"], row["grades"], row["status"]) == (1, 1, "graded")
    items = session.get(f"{stack.base}{resp.headers['Location']}", timeout=10).json()["items"]
    sdpa = {i["item_id"]: i for i in items}["sdpa"]
    assert sdpa["score"] == sdpa["max_score"] > 0, sdpa


def worker_that_received(stack, names, timeout: float = 10.0) -> str:
    """The worker whose log shows it received a ``grade_submission`` task."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name in names:
            log = (stack.workdir / f"{name}.log").read_text(errors="replace")
            if any("grade_submission" in line and "received" in line for line in log.splitlines()):
                return name
        time.sleep(0.05)
    raise AssertionError("no worker logged receiving the grading task")


def test_store_outage_is_503_with_retry_after_and_loses_nothing(make_stack):
    from benchmarks.stack import create_database, drop_database

    database = create_database()
    proxy = PausableProxy("127.0.0.1", 5432)
    try:
        stack = make_stack(database_url=proxy.url_for(database)).start_all(workers=1, beat=True)
        engine = create_engine_direct(database)
        run = f"outage-{uuid.uuid4().hex[:6]}"
        session = stack.session()
        before = post_all(stack, run, range(10), threads=4, timeout=30)
        proxy.pause()
        down = time.monotonic()
        answers = []
        while time.monotonic() - down < 4:
            try:
                r = session.post(stack.submissions_url(), timeout=10,
                                 json={"learner_id": f"{run}-x",
                                       "responses": {"no-positions": {"choice": "B"}}})
                answers.append((r.status_code, r.headers.get("Retry-After"),
                                r.json().get("code")))
            except requests.RequestException as exc:
                answers.append((type(exc).__name__, None, None))
            time.sleep(0.2)
        ready = requests.get(f"{stack.base}/readyz", timeout=10)
        proxy.resume()
        after = post_all(stack, run, range(10, 20), threads=4, timeout=60)
        counts = wait_all_final(engine, run, 20, timeout=90)
        print(f"\nSTORE OUTAGE: answers while down {sorted(set(answers))}; readyz "
              f"{ready.status_code}; refused connections {proxy.refused}; final {dict(counts)}")
        assert answers and all(a[0] == 503 for a in answers), answers
        assert all(a[1] and int(a[1]) > 0 and a[2] == "store_unavailable" for a in answers)
        assert ready.status_code == 503 and ready.json()["checks"]["store"]["ok"] is False
        assert len(before.accepted) == len(after.accepted) == 10
        assert counts == {"graded": 20}, counts
        assert all(r["rows"] == 1 and r["grades"] == 1 for r in outcome(engine, run).values())
    finally:
        proxy.close()
        drop_database(database)


def create_engine_direct(url: str):
    from sqlalchemy import create_engine

    return create_engine(url, pool_size=1)
