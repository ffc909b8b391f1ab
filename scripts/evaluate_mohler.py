#!/usr/bin/env python
"""Evaluate the Mohler rubrics (before and after refinement) against human marks.

Usage: python scripts/evaluate_mohler.py [--data DIR] [--rubrics DIR] [--json] [--scores FILE]
                                         [--against FILE]
Prints Pearson r, RMSE, mean, bias and answers at 0 (0-5 scale) per question and overall for the
keyword-overlap baseline and each rubric variant (rubrics/mohler/before, rubrics/mohler/after). See
grader/rubric/evaluate.py. ``--scores FILE`` writes every answer's score per variant (JSON);
``--against FILE`` (such a file, written by another version of the engine) counts the answers whose
score changed, per variant: how an engine change moves the scores of frozen rubrics.
For the "before" rubrics also the calibrated r and RMSE (a map fitted on 10 marked answers per question,
tested on that question's other answers: grader/rubric/calibration_eval.py).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.rubric.evaluate import (DEFAULT_DATA, DEFAULT_RUBRICS, changed_scores, evaluate,  # noqa: E402
                                   format_report)
from grader.rubric.calibration_eval import evaluate_calibration, format_calibration  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="folder with questions.tsv and answers.tsv")
    parser.add_argument("--rubrics", default=str(DEFAULT_RUBRICS), help="folder with before/ and after/")
    parser.add_argument("--variants", nargs="+", default=["before", "after"])
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    parser.add_argument("--scores", help="write every answer's score per variant to this JSON file")
    parser.add_argument("--against", help="count the answers whose score differs from this --scores file")
    args = parser.parse_args(argv)
    report = evaluate(args.data, args.rubrics, tuple(args.variants))
    scores = report.pop("answer_scores")
    text = None if args.json else format_report(report)
    if args.scores:
        Path(args.scores).write_text(json.dumps(scores, indent=1, sort_keys=True), encoding="utf-8")
    if args.against:
        report["changed_against"] = changed_scores(json.loads(Path(args.against).read_text(encoding="utf-8")),
                                                   scores)
        text = None if args.json else text + "\n\n" + "\n".join(
            f"answers whose score changed against {args.against} ({variant}): {count['changed']} "
            f"(up {count['up']}, down {count['down']})" for variant, count in report["changed_against"].items())
    if "before" in args.variants:  # calibration from 10 marked answers per question (calibration_eval.py)
        report["calibrated_before"] = evaluate_calibration(args.data, Path(args.rubrics) / "before")
        text = None if args.json else text + "\n\n" + format_calibration(report["calibrated_before"])
    print(json.dumps(report, indent=2) if args.json else text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
