"""The costs of an authored problem (issue 25): upload-to-trial time, mutants caught per example,
and CPU-ms per grading against the built-in equivalent.

Run: ``.venv/bin/python benchmarks/authored_bench.py [--mode auto] [--repeat 20]``.

* **upload to trial**: ``POST /api/v1/problems`` of each example document on an embedded app
  (validation, compile, a fresh sandbox, the whole trial, the store), wall seconds;
* **mutants caught** per example, from that trial;
* **CPU-ms per grading**: a correct softmax graded ``--repeat`` times by the built-in ``softmax``
  and by ``examples/problems/softmax.yaml``, each on new seeds (the document's reference then
  runs in the sandbox once per seed) and again on the same seeds (a regrade: the reference's
  values are cached), and on new seeds once more with one sandbox call per value (the executor
  before batching, ``SandboxExecutor(batch=False)``: the before of the same run); then a buggy
  softmax (the sum over the whole array: every test fails, so the mistakes' values are computed
  too) the same ways. CPU is the user + system time of this process and every process under it
  (the sandbox server and its jobs), from ``/proc``, so a busy machine does not inflate it;
* **amortised CPU-ms per grading with the pool of seeds** (``grader/problems/authored/pool.py``):
  the pool filled with :data:`POOL_SIZE` new seeds in one sandbox job (as the trial and the
  top-up do; the job's CPU divided by the seeds it made) plus the grading of a seed taken from
  it (a cache hit), for the correct and the buggy softmax, beside the built-in and the document
  without a pool (a new seed each grading: the before of the same run).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.problems import PROBLEMS, scoring  # noqa: E402
from grader.problems.authored import compile_document, parse, pool  # noqa: E402
from grader.problems.authored.executor import POOL_SIZE  # noqa: E402
from grader.sandbox import get_sandbox  # noqa: E402
from grader.sandbox.api import Limits  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
EXAMPLES = ROOT / "examples" / "problems"
CORRECT = (ROOT / "grader/problems/builtin/softmax/samples/correct_keepdims.py").read_text()
BUGGY = (ROOT / "grader/problems/builtin/softmax/samples/bug_whole_array.py").read_text()


def _children() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            found.setdefault(parent, []).append(int(entry.name))
    return found


def tree_cpu_seconds(root: int | None = None) -> float:
    """User + system CPU of ``root`` (default this process) and every living descendant,
    with the time of the children each has reaped."""
    children, total, stack = _children(), 0.0, [root or os.getpid()]
    while stack:
        pid = stack.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(v) for v in fields[11:15]) / TICKS
        except (OSError, IndexError, ValueError):
            pass
        stack += children.get(pid, [])
    return total


def grading_costs(problem, sandbox, seeds, source: str = CORRECT) -> dict[str, float]:
    """Mean CPU-ms (every process; the clock ticks in 10 ms, so a mean over many gradings),
    mean CPU-ms of this (trusted) process alone, and median wall ms per grading of ``source``
    (the correct softmax: full marks; else a buggy one: less)."""
    walls, own = [], []
    before = tree_cpu_seconds()
    for seed in seeds:
        started, mine = time.perf_counter(), time.process_time()
        result = scoring.grade(problem, "bench", 10.0, source, sandbox, Limits(), seed)
        walls.append((time.perf_counter() - started) * 1000)
        own.append((time.process_time() - mine) * 1000)
        assert (result.score == 10.0) == (source == CORRECT), result.output
    total = (tree_cpu_seconds() - before) * 1000 / len(walls)
    return {"cpu_ms_mean": round(total, 1), "trusted_cpu_ms_mean": round(statistics.mean(own), 1),
            "wall_ms_median": round(statistics.median(walls), 1)}


def pool_costs(problem, sandbox, gradings: int, source: str = CORRECT) -> dict[str, float]:
    """CPU-ms of filling ``problem``'s pool (:func:`pool.fill`, :data:`POOL_SIZE` seeds a job,
    as many jobs as ``gradings`` needs), of grading ``source`` on the seeds taken from it
    (:func:`grading_costs`: cache hits), and the sum per grading: the job's CPU over its seeds
    plus a cache-hit grading (the seeds are taken directly, so no top-up thread runs here)."""
    jobs, seeds = [], []
    while len(seeds) < gradings:
        before = tree_cpu_seconds()
        added = pool.fill(problem, sandbox)
        jobs.append((tree_cpu_seconds() - before) * 1000)
        assert len(added) == POOL_SIZE, added
        seeds += [problem.executor.take() for _ in added]
    grading = grading_costs(problem, sandbox, seeds, source)
    per_seed = sum(jobs) / (len(jobs) * POOL_SIZE)
    return {"pool_jobs": len(jobs), "pool_job_cpu_ms_mean": round(statistics.mean(jobs), 1),
            "pool_job_cpu_ms_per_seed": round(per_seed, 1),
            "cache_hit_grading_cpu_ms_mean": grading["cpu_ms_mean"],
            "amortised_cpu_ms_per_grading": round(per_seed + grading["cpu_ms_mean"], 1),
            "wall_ms_median": grading["wall_ms_median"]}


def upload_figures() -> dict[str, dict]:
    from grader.app import create_app
    from grader.bootstrap import KEY_FILE

    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"INSTANCE_PATH": f"{tmp}/instance", "DATABASE_URL":
                          f"sqlite:///{tmp}/grader.db", "CELERY_BROKER_URL": "",
                          "GRADER_SECRET_KEY": "bench", "SWEEP_INTERVAL_SECONDS": 3600})
        key = (Path(tmp) / "instance" / KEY_FILE).read_text().strip()
        client = app.test_client()
        try:
            for path in sorted(EXAMPLES.glob("*.yaml")):
                started = time.perf_counter()
                resp = client.post("/api/v1/problems", data=path.read_text(), headers={
                    "Authorization": f"Bearer {key}", "Content-Type": "application/yaml"})
                seconds = time.perf_counter() - started
                body = resp.get_json()
                trial = body.get("trial", {})
                found[path.stem] = {
                    "status": resp.status_code, "upload_to_trial_seconds": round(seconds, 2),
                    "trial_seconds": trial.get("seconds"),
                    "sandbox_runs": trial.get("sandbox_runs"),
                    "mutants_caught": trial.get("mutants_caught"),
                    "not_caught": [m["id"] for m in trial.get("mutants", []) if not m["caught"]],
                    "mistakes_named": [m["named"] for m in trial.get("mistakes", [])]}
        finally:
            app.extensions["grader"].dispatcher.close()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args(argv)
    os.environ.setdefault("SANDBOX_MODE", args.mode)
    figures: dict = {"uploads": upload_figures()}
    text = (EXAMPLES / "softmax.yaml").read_text()
    document = compile_document(parse(text))
    per_call = compile_document(parse(text))
    per_call.executor.batch = False
    sandbox = get_sandbox(args.mode)
    try:
        seeds = range(1000, 1000 + args.repeat)
        other = range(5000, 5000 + args.repeat)
        for problem in (PROBLEMS["softmax"], document, per_call):  # warm every one
            grading_costs(problem, sandbox, range(3))
        figures["builtin_softmax"] = grading_costs(PROBLEMS["softmax"], sandbox, seeds)
        figures["document_softmax_new_seeds"] = grading_costs(document, sandbox, seeds)
        figures["document_softmax_new_seeds_one_call_per_value"] = grading_costs(
            per_call, sandbox, other)
        figures["document_softmax_cached_seeds"] = grading_costs(document, sandbox, seeds)
        pooled = compile_document(parse(text))
        pool_costs(pooled, sandbox, 3)  # warm
        figures["document_softmax_pool"] = pool_costs(pooled, sandbox, args.repeat)
        buggy = range(9000, 9000 + args.repeat)
        figures["builtin_softmax_buggy"] = grading_costs(PROBLEMS["softmax"], sandbox, buggy,
                                                         BUGGY)
        figures["document_softmax_buggy_new_seeds"] = grading_costs(document, sandbox, buggy,
                                                                    BUGGY)
        figures["document_softmax_buggy_new_seeds_one_call_per_value"] = grading_costs(
            per_call, sandbox, buggy, BUGGY)
        figures["document_softmax_buggy_pool"] = pool_costs(pooled, sandbox, args.repeat, BUGGY)
    finally:
        sandbox.close()
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
