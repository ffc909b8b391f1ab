"""Real-course-style files under their course's ``contract:`` options (issue 21, part 1): the
score of each file of tests/problems/courses/ graded as today's contract grades it (its function
renamed to the built-in's name, nothing else changed: "before") and under the contract options
its header states ("after"), with the diagnoses. Usage: ``python benchmarks/course_contracts.py
[--seed N]`` (in-process fake sandbox: trusted files only)."""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.problems import PROBLEMS, scoring  # noqa: E402
from grader.problems.course import compile_course  # noqa: E402
from grader.sandbox.api import Limits  # noqa: E402
from tests.problems.conftest import FakeSandbox  # noqa: E402

FILES = sorted((ROOT / "tests" / "problems" / "courses").glob("*.py"))


def header(path: Path) -> tuple[str, dict]:
    """``(problem id, contract options)`` from a course file's first two lines."""
    lines = path.read_text().splitlines()
    return (lines[0].removeprefix("# problem:").strip(),
            json.loads(lines[1].removeprefix("# contract:").strip()))


def scores(path: Path, seed: int) -> tuple[float, float, list[str], list[str]]:
    problem_id, options = header(path)
    source = path.read_text()
    builtin = PROBLEMS[problem_id]
    renamed = re.sub(rf"\bdef {options.get('function', builtin.function)}\(",
                     f"def {builtin.function}(", source)
    before = scoring.grade(builtin, "item", 10.0, renamed, FakeSandbox(), Limits(), seed)
    after = scoring.grade(compile_course(builtin, options), "item", 10.0, source, FakeSandbox(),
                          Limits(), seed)
    return (before.score, after.score, before.extra_data["diagnoses"],
            after.extra_data["diagnoses"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    seed = parser.parse_args().seed
    full_before = full_after = 0
    for path in FILES:
        before, after, named_before, named_after = scores(path, seed)
        full_before += before == 10.0
        full_after += after == 10.0
        print(f"{path.stem:42s} before {before:5.2f}  after {after:5.2f}  "
              f"(before named: {', '.join(named_before) or '-'})")
    print(f"full marks under the matching contract: {full_before}/{len(FILES)} before, "
          f"{full_after}/{len(FILES)} after")


if __name__ == "__main__":
    main()
