"""Issue 29, the API role: CPU of one graded submission's requests in the API process (``POST
/api/v1/assignments/<id>/submissions`` and ``GET /api/v1/submissions/<id>``), through Flask's
test client, with ``CPU_LEVERS=none`` and ``CPU_LEVERS=intake`` taking turns request by request
in this process (a lever is read on every use), so the machine's load moves both alike.

Backends:

- ``sqlite``: the embedded default's store (a temporary SQLite file), no enqueue (the
  dispatcher's ``enqueue`` does nothing), as the earlier profile.
- ``production``: a fresh PostgreSQL database on 127.0.0.1:5432 and a Redis of our own (the
  enqueue is a real kombu publish to it, nothing consumes it; the rate limits count in it, as
  ``docker-compose.yml`` has them).

Each measured GET reads a graded submission (``?wait=5``, answered at once): the long-poll's
last read. The access log is written (JSON, to ``/dev/null``).

For each backend: CPU-ms per POST and per GET (``time.process_time`` of each request; the
median over ``--rounds`` rounds of ``-n`` requests per configuration, and the mean), statements
per request, and with
``--profile`` a cProfile (CPU time) of ``-n`` POSTs and GETs per configuration, top functions
by cumulative time.

    .venv/bin/python benchmarks/api_profile.py [--backend sqlite,production] [-n 200]
                                               [--rounds 5] [--profile] [--top 25]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import logging
import os
import pstats
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import sdpa_submission, table  # noqa: E402

CONFIGURATIONS = ("none", "intake")


@contextmanager
def api_app(backend: str):
    """(app, test client with an instructor key, submissions path) on ``backend``."""
    from sqlalchemy import event

    saved = dict(os.environ)
    workdir = Path(tempfile.mkdtemp(prefix="api-profile-"))
    stack = None
    settings = {"GRADER_SECRET_KEY": "bench", "INSTANCE_PATH": str(workdir / "instance"),
                "LOG_JSON": "1", "ACCESS_LOG": "1", "SWEEP_INTERVAL_SECONDS": "3600"}
    if backend == "sqlite":
        settings.update({"DATABASE_URL": f"sqlite:///{workdir / 'grader.db'}",
                         "CELERY_BROKER_URL": "", "INLINE_GRADING": "threads"})
    else:
        from benchmarks.stack import Stack

        stack = Stack(workdir / "stack")
        stack.start_redis()
        settings.update({k: v for k, v in stack.env.items() if k not in ("PATH", "HOME")})
        # the rate limits' counts on the broker's Redis, as docker-compose.yml has them
        settings["RATE_LIMIT_STORAGE_URL"] = f"redis://127.0.0.1:{stack.redis_port}/1"
    os.environ.update(settings)
    from grader.app import close_app, create_app

    app = create_app()
    devnull = open(os.devnull, "w")
    for handler in logging.getLogger().handlers:  # the access log is written, to nowhere
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(devnull)
    try:
        store = app.extensions["grader"].store
        if backend == "sqlite":
            app.extensions["grader"].dispatcher.enqueue = lambda _submission_id: None
        courses = store.courses.list_courses()
        course_id = courses[0].id if courses else "bench"
        if not courses:
            store.courses.create_course(course_id, "Bench")
        key = store.courses.create_key("instructor", course_id, "bench")[1]
        client = app.test_client()
        client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
        statements = [0]
        event.listen(store.engine, "before_cursor_execute",
                     lambda *a, **k: statements.__setitem__(0, statements[0] + 1))
        app.statements = statements
        app.graded_results = graded_results(app, store, course_id)
        yield app, client, "/api/v1/assignments/attention-basics/submissions"
    finally:
        close_app(app)
        if stack is not None:
            stack.close()
        os.environ.clear()
        os.environ.update(saved)


def graded_results(app, store, course_id: str) -> tuple[float, float, list]:
    """(score, max_score, results) of one SDPA submission graded here (an ``unsafe-dev``
    sandbox: our own example code), which every measured GET's submission is given, so the GET
    reads and answers a graded result as the long-poll's last read does."""
    from grader.runtime import build_service

    config = {**app.config["GRADER"], "SANDBOX_MODE": "unsafe-dev"}
    service = build_service(config, store=store, announce=lambda _submission_id: None)
    sid = store.create_submission("attention-basics", "api-profile",
                                  sdpa_submission()["responses"], course_id=course_id)[0].id
    assert service.grade(sid).action == "graded"
    service.close()
    row = store.get(sid)
    return row.score, row.max_score, row.results


def graded(store, submission_id: str, results: tuple[float, float, list]) -> None:
    """Store ``results`` as the grading of ``submission_id`` (not measured)."""
    store.start(submission_id)
    store.finish(submission_id, *results)


def measure(app, client, path: str, n: int, rounds: int) -> dict:
    """Per configuration: median CPU-ms per POST and per GET over ``rounds`` rounds, and the
    statements each sent; configurations alternate request by request."""
    body = sdpa_submission("api-profile")
    store, statements, results = (app.extensions["grader"].store, app.statements,
                                  app.graded_results)
    spent = {c: {"post": [], "get": []} for c in CONFIGURATIONS}
    sent = {c: {"post": 0, "get": 0} for c in CONFIGURATIONS}
    for round_ in range(rounds + 1):  # round 0 warms caches, not counted
        for index in range(n):
            order = CONFIGURATIONS if index % 2 == 0 else CONFIGURATIONS[::-1]
            for name in order:
                os.environ["CPU_LEVERS"] = name
                s0, t0 = statements[0], time.process_time()
                response = client.post(path, json=body)
                t1, s1 = time.process_time(), statements[0]
                assert response.status_code == 202, response.get_data(as_text=True)
                location = response.headers["Location"]
                graded(store, response.get_json()["id"], results)
                t2, s1b = time.process_time(), statements[0]
                got = client.get(location + "?wait=5")
                t3, s2 = time.process_time(), statements[0]
                assert got.status_code == 200 and got.get_json()["status"] == "graded"
                if round_:
                    spent[name]["post"].append((t1 - t0) * 1e3)
                    spent[name]["get"].append((t3 - t2) * 1e3)
                if round_ == 1:
                    sent[name]["post"] += s1 - s0
                    sent[name]["get"] += s2 - s1b
    # per request: the median (robust to the other work on a shared machine) and the mean
    return {name: {"post": statistics.median(spent[name]["post"]),
                   "get": statistics.median(spent[name]["get"]),
                   "post_mean": statistics.fmean(spent[name]["post"]),
                   "get_mean": statistics.fmean(spent[name]["get"]),
                   "post_statements": sent[name]["post"] / n,
                   "get_statements": sent[name]["get"] / n} for name in CONFIGURATIONS}


def profile(app, client, path: str, n: int, top: int) -> str:
    body = sdpa_submission("api-profile")
    store = app.extensions["grader"].store
    reports = []
    for name in CONFIGURATIONS:
        os.environ["CPU_LEVERS"] = name
        locations = []
        for kind in ("post", "get"):
            profiler = cProfile.Profile(time.process_time)
            for index in range(n):
                profiler.enable()
                if kind == "post":
                    response = client.post(path, json=body)
                    profiler.disable()
                    locations.append(response.headers["Location"])
                    graded(store, response.get_json()["id"], app.graded_results)
                else:
                    client.get(locations[index] + "?wait=5")
                    profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("cumulative") \
                .print_stats(top)
            lines = out.getvalue().splitlines()
            start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
            reports.append(f"== CPU_LEVERS={name}: {kind.upper()} x {n} ==\n"
                           + "\n".join(lines[start:]))
    return "\n\n".join(reports)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="sqlite,production")
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    rows = []
    for backend in args.backend.split(","):
        with api_app(backend) as (app, client, path):
            figures = measure(app, client, path, args.n, args.rounds)
            if args.profile:
                print(profile(app, client, path, args.n, args.top), flush=True)
        base = figures["none"]
        for name in CONFIGURATIONS:
            f = figures[name]
            rows.append([backend, name, f"{f['post']:.2f}", f"{f['get']:.2f}",
                         f"{f['post'] + f['get']:.2f}",
                         f"{(f['post'] + f['get']) / (base['post'] + base['get']):.2f}",
                         f"{f['post_mean'] + f['get_mean']:.2f}",
                         f"{(f['post_mean'] + f['get_mean']) / (base['post_mean'] + base['get_mean']):.2f}",
                         f"{f['post_statements']:.1f}", f"{f['get_statements']:.1f}"])
    print(table(["backend", "CPU_LEVERS", "POST CPU-ms (median)", "GET (median)", "POST+GET",
                 "ratio", "POST+GET (means)", "ratio (means)", "POST statements",
                 "GET statements"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
