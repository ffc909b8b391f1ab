"""``make bench``: every benchmark in turn (each prints its own table): end to end at 1, 10 and 50
clients, intake alone, and the profile of one graded submission. Arguments are not forwarded; run
a script directly for its options."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import e2e_bench, intake_bench, profile_one  # noqa: E402


def main() -> int:
    for title, module in (("END TO END", e2e_bench), ("INTAKE", intake_bench),
                          ("PROFILE OF ONE SUBMISSION", profile_one)):
        print(f"\n######## {title} ########", flush=True)
        module.main([])
    return 0


if __name__ == "__main__":
    sys.exit(main())
