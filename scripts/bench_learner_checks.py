"""Benchmark (not a test): on the embedded default (a temporary instance, the real sandbox, the
grading processes beside the API), the wall time of

- a precheck (``POST /api/v1/assignments/attention-basics/prechecks``), answered at once: the
  first (which starts the process's precheck sandbox) and the median of the next N;
- a notebook submission until graded (``POST .../submissions`` with ``{"notebook": ...}``, then
  ``GET /submissions/<id>?wait=30``): the median of N.

Usage: ``.venv/bin/python scripts/bench_learner_checks.py [N]`` (default 10).
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]


def main(n: int = 10) -> None:
    from grader.app import create_app
    from grader.bootstrap import KEY_FILE

    folder = Path(tempfile.mkdtemp(prefix="bench-checks-"))
    app = create_app({"INSTANCE_PATH": str(folder / "instance"),
                      "DATABASE_URL": f"sqlite:///{folder / 'grader.db'}",
                      "CELERY_BROKER_URL": "", "GRADER_SECRET_KEY": "bench",
                      "PRECHECK_RATE_LIMIT": "off"})
    key = (folder / "instance" / KEY_FILE).read_text().strip()
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    source = (ROOT / "examples" / "sdpa_divides_by_dk.py").read_text()
    body = {"learner_id": "bench", "responses": {"sdpa": {"code": source}}}

    def precheck() -> float:
        started = time.perf_counter()
        answer = client.post("/api/v1/assignments/attention-basics/prechecks", json=body)
        assert answer.status_code == 200 and answer.get_json()["items"][0]["passed"] == 2
        return time.perf_counter() - started

    first = precheck()
    times = [precheck() for _ in range(n)]
    print(f"precheck: first {first * 1000:.0f} ms (starts the sandbox); median of {n} "
          f"{statistics.median(times) * 1000:.1f} ms (min {min(times) * 1000:.1f}, "
          f"max {max(times) * 1000:.1f})")
    notebook = nbformat.writes(new_notebook(cells=[
        new_markdown_cell("# Attention"), new_code_cell("%matplotlib inline"),
        new_code_cell(source)]))
    graded = []
    for index in range(n + 1):
        started = time.perf_counter()
        posted = client.post("/api/v1/assignments/attention-basics/submissions", json={
            "learner_id": f"bench-{index}", "responses": {"sdpa": {"notebook": notebook}}})
        assert posted.status_code == 202, posted.get_json()
        done = client.get(f"/api/v1/submissions/{posted.get_json()['id']}?wait=30").get_json()
        assert done["status"] == "graded" and done["items"][0]["score"] == 8, done["status"]
        graded.append(time.perf_counter() - started)
    print(f"notebook to graded: first {graded[0] * 1000:.0f} ms; median of the next {n} "
          f"{statistics.median(graded[1:]) * 1000:.0f} ms")
    found = app.extensions.get("grader_prechecks")
    if found is not None:
        found.close()
    app.extensions["grader"].dispatcher.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
