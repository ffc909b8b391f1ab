"""The drill's client: posts logical submissions until each is accepted, however the service
misbehaves meanwhile, and reads the outcome from the store.

Each logical submission ``i`` has its own learner id and ``Idempotency-Key``, so a retry after a
connection error or a 5xx can never create a second submission: the server answers the replay
with the submission it stored the first time.
"""
from __future__ import annotations

import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import requests
from sqlalchemy import create_engine, text

from tests.conftest import EXAMPLES

#: name -> request body (responses only); the learner id is set per submission.
TEMPLATES = {
    "correct": json.loads((EXAMPLES / "submission_correct.json").read_text())["responses"],
    "divides_by_dk": json.loads((EXAMPLES / "submission_divides_by_dk.json").read_text())
    ["responses"],
    "text": json.loads((EXAMPLES / "submission_text.json").read_text())["responses"],
    "choice_wrong": {"no-positions": {"choice": "A"}},
}


@dataclass
class Posting:
    """What the client saw: accepted ids by logical index, and every non-2xx answer."""

    accepted: dict[int, str] = field(default_factory=dict)
    answers: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


def template_of(index: int) -> str:
    names = list(TEMPLATES)
    return names[index % len(names)]


def post_until_accepted(stack, run: str, index: int, posting: Posting, deadline: float) -> None:
    session = stack.session()
    body = {"learner_id": f"{run}-{index}", "responses": TEMPLATES[template_of(index)]}
    headers = {"Idempotency-Key": f"{run}-{index}"}
    while time.monotonic() < deadline:
        try:
            resp = session.post(stack.submissions_url(), json=body, headers=headers, timeout=10)
        except requests.RequestException as exc:
            with posting.lock:
                posting.answers[type(exc).__name__] += 1
            time.sleep(0.2)
            continue
        with posting.lock:
            posting.answers[resp.status_code] += 1
        if resp.status_code in (200, 202):
            with posting.lock:
                posting.accepted[index] = resp.json()["id"]
            return
        time.sleep(min(float(resp.headers.get("Retry-After", "0.2")), 1.0))
    raise TimeoutError(f"submission {index} not accepted before the deadline")


def post_all(stack, run: str, indices, threads: int = 8, timeout: float = 300.0,
             posting: Posting | None = None, rate: float | None = None) -> Posting:
    """Post every index until accepted (``threads`` at a time, at most ``rate`` new submissions
    per second when given); returns what the client saw."""
    posting = posting if posting is not None else Posting()
    deadline = time.monotonic() + timeout
    start = time.monotonic()

    def paced(order: int, index: int):
        if rate:
            time.sleep(max(0.0, start + order / rate - time.monotonic()))
        post_until_accepted(stack, run, index, posting, deadline)

    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(paced, order, i) for order, i in enumerate(indices)]
        for future in futures:
            future.result()
    return posting


def engine_for(stack):
    return create_engine(stack.database_url, pool_size=1)


def statuses(engine, run: str) -> Counter:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT status, count(*) FROM submissions WHERE learner_id LIKE "
                                 ":p GROUP BY status"), {"p": f"{run}-%"}).all()
    return Counter(dict(rows))


def wait_all_final(engine, run: str, expected: int, timeout: float) -> Counter:
    """Until every submission of ``run`` is graded or failed; the final count by status."""
    deadline = time.monotonic() + timeout
    report = time.monotonic() + 10
    while True:
        counts = statuses(engine, run)
        if time.monotonic() > report:
            print(f"waiting for {run}: {dict(counts)}", flush=True)
            report += 10
        if counts["graded"] + counts["failed"] >= expected or time.monotonic() > deadline:
            return counts
        time.sleep(0.5)


def outcome(engine, run: str) -> dict:
    """Per learner: number of submission rows, number of initial grade records, status, score."""
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT s.learner_id, count(DISTINCT s.id), count(g.id), min(s.status), "
            "min(s.score), max(s.score) FROM submissions s LEFT JOIN grade_records g "
            "ON g.submission_id = s.id AND g.kind = 'initial' "
            "WHERE s.learner_id LIKE :p GROUP BY s.learner_id"), {"p": f"{run}-%"}).all()
    return {r[0]: {"rows": r[1], "grades": r[2], "status": r[3], "score": r[4],
                   "max_score_seen": r[5]} for r in rows}
