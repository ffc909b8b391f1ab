"""``make bench``: first the CPU levers of issue 29 (``levers.py``: this tree with no lever, each
lever alone and all, CPU-ms per graded submission by process role, in one session), then the
before/after table of issue 15 (``compare.py``: this tree against the commit the work began from,
in one session), then every benchmark in turn (each prints its own
table): the sandbox against a bare NumPy process, rubric scoring speed, POST-to-graded on the
embedded default, end to end in production mode at 1, 10 and 50 clients, intake alone, and the
profile of one graded submission (CPU by process role and by part of the grading). Arguments are
not forwarded; run a script directly for its options."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import (compare, e2e_bench, embedded_latency, intake_bench,  # noqa: E402
                        levers, profile_one, rubric_bench, sandbox_bench)


def main() -> int:
    failed = False
    for title, module in (("CPU LEVERS, EACH ALONE AND ALL (issue 29)", levers),
                          ("BEFORE / AFTER (issue 15)", compare), ("SANDBOX", sandbox_bench),
                          ("RUBRIC SCORING", rubric_bench), ("EMBEDDED DEFAULT", embedded_latency),
                          ("END TO END", e2e_bench), ("INTAKE", intake_bench),
                          ("PROFILE OF ONE SUBMISSION", profile_one)):
        print(f"\n######## {title} ########", flush=True)
        try:
            module.main([])
        except Exception as error:  # noqa: BLE001 - e.g. no git history for the "before" commit
            print(f"{title} could not run: {type(error).__name__}: {error}", flush=True)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
