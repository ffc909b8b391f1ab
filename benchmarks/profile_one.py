"""Where the time of one graded submission goes, across API, queue, worker, sandbox and store.

Three views, on the production stack (see :mod:`benchmarks.stack`):

1. Phases, from timestamps (``--samples`` submissions, one at a time, client polling every 5 ms):
   API intake (POST round trip), queue (stored -> a worker starts it), grading (start -> stored
   result) split into the item's own execution (sandbox run + checks, the item's
   ``execution_time``) and the rest (store transitions, orchestration), and reading the result
   (stored -> the client has it).
2. CPU ms per graded submission by process role under 10 closed-loop clients (from /proc, by
   process tree: :mod:`benchmarks.cpu`).
3. cProfile (CPU time) of the same work in this process: the API's POST and GET handlers (Flask
   test client on the stack's store and broker), and ``GradingService.grade`` (the worker's job,
   with its own warm sandbox), top functions by cumulative time.

    .venv/bin/python benchmarks/profile_one.py [--samples 30] [--top 18]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import numpy_import_seconds, sdpa_submission, table  # noqa: E402
from benchmarks import cpu  # noqa: E402
from benchmarks.stack import Stack  # noqa: E402


def _ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def phases(stack: Stack, samples: int) -> list[dict]:
    session = stack.session()
    body = sdpa_submission("profile")
    rows = []
    for _ in range(samples + 3):
        t0 = time.time()
        resp = session.post(stack.submissions_url(), json=body, timeout=30)
        t1 = time.time()
        url = stack.base + resp.headers["Location"]
        while (data := session.get(url, timeout=30).json())["status"] not in ("graded", "failed"):
            time.sleep(0.005)
        t2 = time.time()
        received, started, finished = (_ts(data[k]) for k in ("received_at", "started_at",
                                                             "finished_at"))
        item = data["items"][0]
        execution = item.get("extra_data", {}).get("execution_time", float("nan"))
        rows.append({"api intake (POST round trip)": t1 - t0,
                     "queue (stored -> worker starts)": started - received,
                     "grading: item execution (sandbox + checks)": execution,
                     "grading: rest (store, orchestration)": finished - started - execution,
                     "result read (stored -> client has it)": t2 - finished,
                     "total (POST sent -> result received)": t2 - t0})
    return rows[3:]  # the first ones warm the sandbox


def cpu_per_submission(stack: Stack, clients: int, duration: float,
                       workload: str = "sdpa") -> list[list]:
    """Rows: role, CPU ms per graded submission, share, while ``clients`` closed-loop clients
    post and long-poll for ``duration`` s (CPU from /proc by process tree: benchmarks/cpu.py)."""
    from benchmarks.e2e_bench import run_level

    run_level(stack, 2, 2.0, "long", 0.0, workload)  # warm
    cpu.wait_idle(stack)
    result, spent = cpu.measure(stack, lambda: run_level(stack, clients, duration, "long", 0.0,
                                                         workload))
    graded = result["n"]
    total = cpu.service_total(spent)
    rows = [[role, seconds / graded * 1e3,
             f"{seconds / total:.0%}" if role != cpu.LOAD else "(not counted)"]
            for role, seconds in sorted(spent.items(), key=lambda kv: -kv[1])]
    rows.append(["all service processes", total / graded * 1e3, "100%"])
    rows.append([f"({graded} graded in {duration:g} s = {graded / duration:.1f}/s; "
                 f"2 cores = {2000 * duration / graded:.0f} CPU ms available per submission)", "", ""])
    return rows


def profile_call(fn, repeat: int, top: int, title: str) -> str:
    profiler = cProfile.Profile(time.process_time)  # CPU time, not wall (waits are not work)
    for _ in range(repeat):
        profiler.enable()
        fn()
        profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("cumulative")
    stats.print_stats(top)
    return f"== {title} ({repeat} calls) ==\n" + _trim(out.getvalue())


def _trim(report: str) -> str:
    lines = report.splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(lines[start:])


def in_process_profiles(stack: Stack, repeat: int, top: int) -> str:
    os.environ.update({k: v for k, v in stack.env.items() if k != "PATH"})
    from grader.app import create_app
    from grader.runtime import build_service

    app = create_app()
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {stack.api_key()}"
    body = sdpa_submission("profile-inproc")
    url = stack.submissions_url().replace(stack.base, "")
    posted = []

    def post():
        posted.append(client.post(url, json=body).headers["Location"])

    def get():
        client.get(posted[-1])

    reports = [profile_call(post, repeat, top, "API: POST /submissions (store + enqueue)"),
               profile_call(get, repeat, top, "API: GET /submissions/<id>")]
    service = build_service(app.config["GRADER"])
    store = service.store
    ids = [store.create_submission("attention-basics", "profile-svc", body["responses"],
                                   course_id=_course(store))[0].id for _ in range(repeat + 2)]
    for sid in ids[:2]:
        service.grade(sid)  # warm the sandbox
    queue = iter(ids[2:])
    reports.append(profile_call(lambda: service.grade(next(queue)), repeat, top,
                                "worker: GradingService.grade (sandbox + checks + store)"))
    for workload in ("sdpa", "mha"):
        reports.append(table(["part of the worker's grading", "CPU ms per submission"],
                             grading_parts(service, workload, 30)))
    service.close()
    return "\n\n".join(reports)


def grading_parts(service, workload: str, n: int) -> list[list]:
    """CPU ms of ``GradingService.grade`` per graded ``workload`` submission, split into its
    parts (each part's functions wrapped with a CPU clock; no profiler overhead)."""
    import grader.problems.base as base
    import grader.problems.scoring as scoring
    import grader.problems.pictures as pictures
    from benchmarks.common import WORKLOADS

    assignment, make_body = WORKLOADS[workload]
    store = service.store
    ids = [store.create_submission(assignment, "parts", make_body("parts")["responses"],
                                   course_id=_course(store))[0].id for _ in range(n + 3)]
    for sid in ids[:3]:
        service.grade(sid)  # warm: sandbox, caches
    spent: dict[str, float] = {}
    originals = []

    def wrap(owner, name, label):
        original = getattr(owner, name)
        originals.append((owner, name, original))

        def timed(*args, **kwargs):
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - started
        setattr(owner, name, timed)

    wrap(base.CodeProblem, "cases", "test cases drawn for the seed (visible + hidden)")
    wrap(scoring, "_judge", "checks (judging each case)")
    wrap(scoring.diagnosis, "diagnose", "diagnosis")
    wrap(pictures, "draw_outcomes", "pictures")
    wrap(service.sandbox, "run", "sandbox run, trusted side (encode, read, decode)")
    wrap(store, "start", "store: start (queued -> running)")
    wrap(store, "finish", "store: finish (results + history)")
    if service.notify is not None:
        wrap(service, "notify", "notifier (webhook and LTI channels)")
    if service.announce is not None:
        wrap(service, "announce", "long-poll announcement (Redis publish)")
    try:
        started = time.process_time()
        for sid in ids[3:]:
            service.grade(sid)
        total = (time.process_time() - started) / n * 1e3
    finally:
        for owner, name, original in reversed(originals):
            setattr(owner, name, original)
    rows = [[label, seconds / n * 1e3] for label, seconds in
            sorted(spent.items(), key=lambda kv: -kv[1])]
    rows.append(["the rest (orchestration, summaries, records)",
                 total - sum(spent.values()) / n * 1e3])
    rows.append([f"GradingService.grade ({workload}, {n} submissions, this process)", total])
    return rows


def _course(store) -> str:
    return store.courses.list_courses()[0].id


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--top", type=int, default=18)
    parser.add_argument("--wsgi", default="grader.wsgi:app")
    args = parser.parse_args(argv)
    baseline = numpy_import_seconds()
    with Stack(Path(tempfile.mkdtemp(prefix="profile-")), wsgi=args.wsgi) as stack:
        stack.start_all(workers=1)
        rows = phases(stack, args.samples)
        names = list(rows[0])
        print(table(["phase", "median ms", "p90 ms", "share of total", "/ numpy import"],
                    [[n, statistics.median(r[n] for r in rows) * 1e3,
                      sorted(r[n] for r in rows)[int(0.9 * (len(rows) - 1))] * 1e3,
                      f"{statistics.median(r[n] for r in rows) / statistics.median(r[names[-1]] for r in rows):.0%}",
                      statistics.median(r[n] for r in rows) / baseline] for n in names]))
        print(f"\n({args.samples} submissions one at a time; numpy import {baseline * 1e3:.1f} ms)\n")
        for workload in ("sdpa", "mha"):
            print(f"{workload}:")
            print(table(["process role", "CPU ms per graded submission", "share"],
                        cpu_per_submission(stack, 10, 10.0, workload)))
        print()
        print(in_process_profiles(stack, 20, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
