#!/usr/bin/env python
"""The trusted side's regular expressions on adversarial strings, and the issue 20 example.

Run: ``.venv/bin/python benchmarks/pattern_bench.py [--top 10] [--skip-grading]``. Not a timed
test (``tests/test_trusted_patterns.py`` is the test: ratios only). Prints:

* every pattern :mod:`grader.redos.discovery` finds, measured as the test measures it
  (:func:`grader.redos.growth.growth`): the ``--top`` slowest on a 64 KiB adversarial string
  (CPU-ms of one scan, the string, the 64 KiB / 64 x 1 KiB ratio) and the ``--top`` largest
  ratios;
* the issue's example before and after: the old reshape template (``\\((?:\\s*-?\\d+\\s*,?)*
  \\s*\\)``) against the current one on ``cannot reshape array of size 1 into shape (`` + n digits
  + ``x``, CPU seconds per match for n = 18..24 (each digit doubles it; 25 and 40 extrapolated),
  and the grading of the softmax that raises it on one hidden input, through the real sandbox, at
  25 and 40 digits (wall seconds and the grading thread's CPU seconds).
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.redos import discovery, growth  # noqa: E402

OLD_TEMPLATE = re.compile(r"^cannot\ reshape\ array\ of\ size\ (-?\d+)\ into\ shape\ "
                          r"(\((?:\s*-?\d+\s*,?)*\s*\))\s*$")
PREFIX = "cannot reshape array of size 1 into shape ("

#: The issue's example: a correct softmax that raises on one hidden input (the 9th call).
RAISES_ON_ONE_HIDDEN_INPUT = '''
import numpy as np
calls = []
def softmax(x, axis=-1):
    calls.append(1)
    if len(calls) == 9:
        raise ValueError("cannot reshape array of size 1 into shape (" + "1" * DIGITS + "x")
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
'''


def pattern_table(top: int) -> None:
    found = discovery.trusted_patterns()
    rows = []
    for item in found:
        try:
            rows.append(growth.growth(item))
        except growth.TooSlow as exc:
            print(f"TOO SLOW: {exc}")
    print(f"{len(found)} patterns; slowest on a {growth.LARGE // 1024} KiB adversarial string:")
    print(f"{'CPU-ms':>8} {'ratio':>6}  pattern (where) on string")
    for row in sorted(rows, key=lambda r: -r.large_ms)[:top]:
        print(f"{row.large_ms:8.2f} {row.ratio:6.2f}  {row.found.where} on {row.string}")
    print(f"largest ratios ({growth.LARGE // 1024} KiB against {growth.LARGE // growth.SMALL} x "
          f"{growth.SMALL // 1024} KiB; linear ~1, quadratic ~{growth.LARGE // growth.SMALL}, "
          f"the test's limit {growth.MAX_GROWTH:g}):")
    for row in sorted(rows, key=lambda r: -r.ratio)[:top]:
        print(f"{row.large_ms:8.2f} {row.ratio:6.2f}  {row.found.where} on {row.string}")


def issue_example() -> None:
    from grader.problems.disclosure import _COMPILED

    current = next(pattern for pattern, _ in _COMPILED
                   if pattern.pattern.startswith(r"^cannot\ reshape"))
    print("the issue's reshape message, one match (CPU seconds):")
    print(f"{'digits':>6} {'before':>10} {'after':>10}")
    last = 0.0
    for digits in range(18, 25):
        text = PREFIX + "1" * digits + "x"
        before = growth.cpu_seconds(lambda: OLD_TEMPLATE.match(text))
        after = growth.cpu_seconds(lambda: current.match(text), 1000) / 1000
        print(f"{digits:6d} {before:10.4f} {after:10.7f}")
        last = before
    for digits in (25, 40):
        print(f"{digits:6d} {last * 2 ** (digits - 24):10.1f} (before, extrapolated: x2 per digit)")


def issue_grading() -> None:
    from grader.problems import PROBLEMS
    from grader.problems.scoring import grade
    from grader.sandbox import Limits, get_sandbox

    sandbox = get_sandbox("auto")
    try:
        print("the softmax that raises it on one hidden input, graded through the sandbox:")
        print(f"{'digits':>6} {'wall s':>8} {'CPU s (grading thread)':>24}  hidden test's feedback")
        for digits in (1, 25, 40):
            source = RAISES_ON_ONE_HIDDEN_INPUT.replace("DIGITS", str(digits))
            started, cpu = time.perf_counter(), time.thread_time()
            result = grade(PROBLEMS["softmax"], "softmax", 10.0, source, sandbox, Limits(), 7)
            wall, cpu = time.perf_counter() - started, time.thread_time() - cpu
            failed = next(t.output.splitlines()[0] for t in result.tests if t.status == "failed")
            print(f"{digits:6d} {wall:8.3f} {cpu:24.3f}  {failed[:90]}")
    finally:
        sandbox.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--skip-grading", action="store_true",
                        help="no sandbox run (the issue's example is then matched only)")
    args = parser.parse_args(argv)
    pattern_table(args.top)
    issue_example()
    if not args.skip_grading:
        issue_grading()
    return 0


if __name__ == "__main__":
    sys.exit(main())
