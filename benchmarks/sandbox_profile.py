"""Issue 29, lever ``sandbox``: where the sandbox's own cost of one SDPA submission goes.

The sandbox run of one graded SDPA submission (seed 7: the correct sample's source, its visible
examples, pictures and 34 hidden cases, as ``scoring.evaluate`` makes it) on a real isolated
sandbox of this process:

* ``--profile``: cProfile (CPU time) of ``ForkServerSandbox.run`` on the trusted side;
* ``--strace``: ``strace -c -f`` of the slot's server during one job (system calls per job);
* default: CPU ms per run of the trusted side (this process) and of the sandbox role (the
  server and its reaped jobs, from ``/proc/<server>/stat``), with ``CPU_LEVERS=none`` and
  ``CPU_LEVERS=sandbox`` taking turns run by run in this process.

    .venv/bin/python benchmarks/sandbox_profile.py [--runs 60] [--profile] [--strace]
"""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grader.problems import PROBLEMS, scoring  # noqa: E402
from grader.sandbox import Limits, get_sandbox  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def sdpa_run(sandbox) -> tuple:
    """(source, calls, limits) of the sandbox run of one graded SDPA submission."""
    seen = []

    class Recording:
        def run(self, source, calls, limits):
            seen.append((source, list(calls), limits))
            return sandbox.run(source, calls, limits)

    code = json.loads((EXAMPLES / "submission_correct.json").read_text())["responses"]["sdpa"]
    scoring.evaluate(PROBLEMS["scaled_dot_product_attention"], code["code"], Recording(),
                     Limits(), 7)
    return seen[0]


def server_cpu(sandbox) -> float:
    """CPU seconds of the sandbox's server and of the jobs it reaped."""
    fields = Path(f"/proc/{sandbox.server_host_pid()}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(n) for n in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def measure(runs: int) -> None:
    """Lever off and on taking turns run by run; one sandbox per setting (the lever is read
    when a server starts too), both warm."""
    from grader.sandbox import jobio

    reported = []  # the job's own CPU seconds, from the kernel's rusage (exact, not ticks)
    original = jobio.cpu_seconds
    jobio.cpu_seconds = lambda rusage: reported.append(original(rusage)) or reported[-1]
    boxes, work = {}, None
    for value in ("none", "sandbox"):
        os.environ["CPU_LEVERS"] = value
        boxes[value] = get_sandbox("auto")
        work = work or sdpa_run(boxes[value])
    spent = {value: ([], [], []) for value in boxes}
    try:
        for index in range(runs + 3):
            for value in boxes if index % 2 == 0 else reversed(list(boxes)):
                os.environ["CPU_LEVERS"] = value
                sandbox = boxes[value]
                before, server_before = time.process_time(), server_cpu(sandbox)
                reported.clear()
                result = sandbox.run(*work)
                if result.status != "ok" or any(c.status != "ok" for c in result.calls):
                    raise SystemExit(f"run failed: {result.status} {result.message}")
                if index >= 3:
                    spent[value][0].append(time.process_time() - before)
                    spent[value][1].append(server_cpu(sandbox) - server_before)
                    spent[value][2].append(sum(reported))
    finally:
        for sandbox in boxes.values():
            sandbox.close()
    base = {role: statistics.mean(spent["none"][i]) for i, role in enumerate(("trusted",
                                                                              "sandbox"))}
    print(f"SDPA run ({len(work[1])} calls), {runs} runs per setting, means (sandbox role: "
          f"{os.sysconf('SC_CLK_TCK')} Hz ticks)")
    base["job"] = statistics.mean(spent["none"][2])
    for value, (trusted, role, job) in spent.items():
        t, s, j = (statistics.mean(v) * 1e3 for v in (trusted, role, job))
        print(f"  CPU_LEVERS={value:8s} trusted {t:6.2f} ms ({t / base['trusted'] / 1e3:.2f})"
              f"  sandbox role {s:6.2f} ms ({s / base['sandbox'] / 1e3:.2f}), of which the"
              f" job {j:6.2f} ms ({j / base['job'] / 1e3:.2f})  total {t + s:6.2f} ms")


def profile(runs: int) -> None:
    sandbox = get_sandbox("auto")
    try:
        work = sdpa_run(sandbox)
        for _ in range(3):
            sandbox.run(*work)
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        for _ in range(runs):
            sandbox.run(*work)
        profiler.disable()
    finally:
        sandbox.close()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(20)
    stats.sort_stats("cumulative").print_stats(20)


def trace() -> None:
    sandbox = get_sandbox("auto")
    out = Path(tempfile.mkdtemp(prefix="sandbox-strace-")) / "strace.txt"
    try:
        work = sdpa_run(sandbox)
        sandbox.run(*work)
        tracer = subprocess.Popen(["strace", "-c", "-f", "-p", str(sandbox.server_host_pid()),
                                   "-o", str(out)], stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # attached
        sandbox.run(*work)
        time.sleep(0.3)
        tracer.terminate()
        tracer.wait()
    finally:
        sandbox.close()
    print(out.read_text())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--strace", action="store_true")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.runs)
    elif args.strace:
        trace()
    else:
        measure(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
