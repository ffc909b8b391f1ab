"""The class analytics of 1,000 graded submissions (issue 26.3): how long the pure computation, the
JSON API and the instructor page (with its SVG histogram) take, and how many statements each page
sends to the store.

The class is real: four submissions are graded by the embedded default (the real sandbox): a
correct SDPA with the model answer, one dividing by d_k, one with the softmax over the queries,
each with a different text answer and choice; their stored results (pictures included) are then
stored again for 1,000 learners (250 each, every text answer made different by one sentence),
directly in the store, so the figures measure reading and computing, not grading. The store is SQLite (the embedded default) in a temporary folder.

Wall times are medians of ``--runs`` runs and also given as multiples of a bare
``python -c "import numpy"`` measured in the same run (the machine is shared and noisy); CPU
times (this process: the pages are served in it through Flask's test client, the store is
SQLite in it) are medians too, and move far less with the load.

    python -m benchmarks.analytics_bench [--learners 1000] [--runs 5]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import event

from benchmarks.common import EXAMPLES, numpy_import_seconds

ROOT = Path(__file__).resolve().parent.parent
QUERY_AXIS = ROOT / "grader/problems/builtin/scaled_dot_product_attention/samples/" \
    "bug_softmax_query_axis.py"
CHEAP = "Attention is linear in the sequence length, so long inputs are cheap."


def build_class(learners: int):
    from grader.app import create_app
    from grader.bootstrap import KEY_FILE

    base = Path(tempfile.mkdtemp(prefix="analytics-bench-"))
    app = create_app({"INSTANCE_PATH": str(base / "instance"),
                      "DATABASE_URL": f"sqlite:///{base / 'grader.db'}",
                      "CELERY_BROKER_URL": "", "GRADER_SECRET_KEY": "bench",
                      "SWEEP_INTERVAL_SECONDS": 3600, "LOG_FORMAT": "text",
                      "ACCESS_LOG": "0"})
    key = (base / "instance" / KEY_FILE).read_text().strip()
    api = app.test_client()
    api.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    api.post("/api/v1/assignments/attention-basics/copy", json={"id": "class",
                                                                 "published": True})
    model = (EXAMPLES / "quadratic_cost_model_answer.txt").read_text()
    kinds = [((EXAMPLES / "sdpa_correct.py").read_text(), model, "B"),
             ((EXAMPLES / "sdpa_divides_by_dk.py").read_text(), CHEAP, "A"),
             (QUERY_AXIS.read_text(), "It takes linear time.", "B"),
             ((EXAMPLES / "sdpa_correct.py").read_text(), CHEAP, "C")]
    store = app.extensions["grader"].store
    graded = []
    for number, (code, text, choice) in enumerate(kinds):
        responses = {"sdpa": {"code": code}, "quadratic-cost": {"text": text},
                     "no-positions": {"choice": choice}}
        sid = api.post("/api/v1/assignments/class/submissions", json={
            "learner_id": f"seed-{number}", "responses": responses}).get_json()["id"]
        result = api.get(f"/api/v1/submissions/{sid}?wait=60").get_json()
        assert result["status"] == "graded", result
        graded.append((responses, store.get(sid)))
    for number in range(learners):
        responses, row = graded[number % len(graded)]
        # every text its own (a class writes 1,000 different answers): one more sentence
        text = responses["quadratic-cost"]["text"] + f" I am learner {number} of the class."
        responses = {**responses, "quadratic-cost": {"text": text}}
        copy, _ = store.create_submission("class", f"learner-{number:04d}", responses,
                                          course_id="local")
        store.start(copy.id)
        store.finish(copy.id, row.score, row.max_score, row.results)
    return app, api, key


def timed(call, runs: int) -> tuple[float, float]:
    """Median wall seconds and median CPU seconds of this process (the pages are served in
    it: Flask's test client) over ``runs`` calls. CPU time hardly moves when other work shares
    the machine; wall time does."""
    walls, cpus = [], []
    for _ in range(runs):
        started, cpu = time.perf_counter(), time.process_time()
        call()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def statements(engine, call) -> int:
    seen = []

    def count(_conn, _cursor, statement, *_args):
        if not statement.lstrip().upper().startswith("PRAGMA"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        call()
    finally:
        event.remove(engine, "before_cursor_execute", count)
    return len(seen)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learners", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from grader.grading.analytics import class_analytics, item_infos

    numpy_seconds = numpy_import_seconds()
    app, api, key = build_class(args.learners)
    store = app.extensions["grader"].store
    assignment = app.extensions["grader"].catalog.get("local", "class")
    rows = store.submissions_of("local", "class")
    page = app.test_client()
    form = page.get("/instructor/sign-in").get_data(as_text=True)
    token = form.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    page.post("/instructor/sign-in", data={"csrf_token": token, "key": key,
                                                  "next": "/learn/class/instructor"})

    def pure():
        class_analytics(item_infos(assignment), rows, assignment.attempt_policy,
                        assignment.max_score, ())

    def read_rows():
        store.submissions_of("local", "class")

    def get(client, url):
        def call():
            response = client.get(url)
            assert response.status_code == 200, response.status_code
        return call

    figures = [
        ("read the submissions (results JSON)", read_rows, None),
        ("class_analytics (pure, rows in memory)", pure, None),
        ("GET /api/v1/assignments/<id>/analytics", get(api, "/api/v1/assignments/class/analytics"),
         store.engine),
        ("GET .../analytics.csv", get(api, "/api/v1/assignments/class/analytics.csv"),
         store.engine),
        ("instructor page (analytics + SVG + tables)", get(page, "/learn/class/instructor"),
         store.engine),
        ("grades.csv", get(api, "/api/v1/assignments/class/grades.csv"), store.engine),
    ]
    print(f"{len(rows)} submissions of {args.learners + 4} learners; numpy import "
          f"{numpy_seconds * 1000:.0f} ms (median of 7); medians of {args.runs} runs\n")
    print("| what | wall ms | / numpy import | CPU ms | statements |")
    print("|---|---:|---:|---:|---:|")
    for name, call, engine in figures:
        call()  # warm (compiled assignment, caches)
        seconds, cpu = timed(call, args.runs)
        queries = statements(engine, call) if engine is not None else "-"
        print(f"| {name} | {seconds * 1000:.0f} | {seconds / numpy_seconds:.2f} | "
              f"{cpu * 1000:.0f} | {queries} |")
    app.extensions["grader"].dispatcher.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
