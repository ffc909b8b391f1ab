"""Evaluate rubrics against real human marks: the Mohler/UNT short-answer data (dev split).

Data (``questions.tsv``: question_id, question, reference_answer, score_max; ``answers.tsv``:
question_id, answer_id, student_answer, grader_1, grader_2, score_avg). For every rubric variant
(``rubrics/mohler/<variant>/<question_id>.yaml``) the rubric score is scaled to 0-5 and compared with
the human average: Pearson r, RMSE, mean, bias (mean score minus human mean) and answers at 0, per
question and pooled over all answers, beside the plain
keyword-overlap baseline (:mod:`grader.rubric.baseline`, also scaled to 0-5) and the agreement of
the two human graders.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from grader.rubric.agreement import pearson
from grader.rubric.baseline import keyword_overlap
from grader.rubric.engine import CompiledRubric
from grader.rubric.files import load_rubric_file

def _default_data() -> Path:
    """``$MOHLER_DATA``, else the nearest ``shared/data/mohler-dev`` above the repository (a clone
    in /work/main and a worktree in /work/wt/<name> both find /work/shared)."""
    import os

    if os.environ.get("MOHLER_DATA"):
        return Path(os.environ["MOHLER_DATA"])
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "shared" / "data" / "mohler-dev"
        if candidate.is_dir():
            return candidate
    return here.parents[3] / "shared" / "data" / "mohler-dev"


DEFAULT_DATA = _default_data()
DEFAULT_RUBRICS = Path(__file__).resolve().parents[2] / "rubrics" / "mohler"
SCALE = 5.0


@dataclass
class Question:
    id: str
    question: str
    reference: str
    score_max: float


@dataclass
class Answer:
    question_id: str
    answer_id: str
    text: str
    grader_1: float
    grader_2: float
    score_avg: float


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def load_data(data_dir: str | Path = DEFAULT_DATA) -> tuple[dict[str, Question], list[Answer]]:
    """Read ``questions.tsv`` and ``answers.tsv``. Raises ``FileNotFoundError`` when missing."""
    data_dir = Path(data_dir)
    questions = {r["question_id"]: Question(r["question_id"], r["question"], r["reference_answer"],
                                            float(r["score_max"]))
                 for r in _rows(data_dir / "questions.tsv")}
    answers = [Answer(r["question_id"], r["answer_id"], r["student_answer"], float(r["grader_1"]),
                      float(r["grader_2"]), float(r["score_avg"]))
               for r in _rows(data_dir / "answers.tsv")]
    return questions, answers


def _rmse(a: np.ndarray, b: np.ndarray) -> float:
    return float(math.sqrt(np.mean((a - b) ** 2)))


def _stats(pred: np.ndarray, human: np.ndarray) -> dict[str, Any]:
    r = pearson(pred, human)
    return {"r": None if r is None else round(r, 4), "rmse": round(_rmse(pred, human), 4),
            "mean": round(float(np.mean(pred)), 3), "bias": round(float(np.mean(pred - human)), 3),
            "zeros": int(np.sum(pred == 0))}


def load_rubrics(variant_dir: Path, question_ids: list[str]) -> dict[str, CompiledRubric]:
    """Compile ``<variant_dir>/<question_id>.yaml`` for every question. Raises ``FileNotFoundError``
    naming a missing rubric and :class:`grader.rubric.RubricError` for an invalid one."""
    rubrics = {}
    for qid in question_ids:
        path = variant_dir / f"{qid}.yaml"
        if not path.is_file():
            raise FileNotFoundError(f"no rubric for question {qid}: {path}")
        rubrics[qid] = load_rubric_file(path)
    return rubrics


def rubric_scores(rubrics: dict[str, CompiledRubric], answers: list[Answer]) -> np.ndarray:
    """Each answer's rubric score scaled to 0-5."""
    return np.array([SCALE * rubrics[a.question_id].score(a.text).fraction for a in answers])


def baseline_scores(questions: dict[str, Question], answers: list[Answer]) -> np.ndarray:
    """Each answer's keyword overlap with its reference answer, scaled to 0-5."""
    return np.array([SCALE * keyword_overlap(a.text, questions[a.question_id].reference) for a in answers])


def evaluate(data_dir: str | Path = DEFAULT_DATA, rubrics_dir: str | Path = DEFAULT_RUBRICS,
             variants: tuple[str, ...] = ("before", "after")) -> dict[str, Any]:
    """Pearson r, RMSE, mean, bias and zeros (0-5 scale) against the human average, per question
    and pooled, for the baseline and every rubric variant present under ``rubrics_dir``;
    ``answer_scores`` holds each answer's score per rubric variant."""
    questions, answers = load_data(data_dir)
    qids = list(questions)
    human = np.array([a.score_avg for a in answers])
    systems: dict[str, np.ndarray] = {"baseline": baseline_scores(questions, answers)}
    for variant in variants:
        vdir = Path(rubrics_dir) / variant
        if vdir.is_dir():
            systems[variant] = rubric_scores(load_rubrics(vdir, qids), answers)
    qidx = np.array([a.question_id for a in answers])
    per_question = []
    for qid in qids:
        mask = qidx == qid
        row: dict[str, Any] = {"question_id": qid, "n": int(mask.sum()),
                               "human_mean": round(float(human[mask].mean()), 3)}
        for name, pred in systems.items():
            row[name] = _stats(pred[mask], human[mask])
        per_question.append(row)
    g1 = np.array([a.grader_1 for a in answers])
    g2 = np.array([a.grader_2 for a in answers])
    overall = {name: _stats(pred, human) for name, pred in systems.items()}
    mean_r = {name: round(float(np.mean([q[name]["r"] for q in per_question if q[name]["r"] is not None])), 4)
              for name in systems}
    answer_scores = {name: {f"{a.question_id}/{a.answer_id}": round(float(v), 4) for a, v in zip(answers, pred)}
                     for name, pred in systems.items() if name != "baseline"}
    return {"n": len(answers), "questions": len(qids), "human_human_r": round(pearson(g1, g2), 4),
            "human_mean": round(float(human.mean()), 3), "human_low": int(np.sum(human <= 1)),
            "overall": overall, "mean_per_question_r": mean_r, "per_question": per_question,
            "answer_scores": answer_scores}


def changed_scores(old: dict[str, dict[str, float]], new: dict[str, dict[str, float]]) -> dict[str, dict[str, int]]:
    """Per variant present in both, how many answers (``"<question>/<answer>"`` keys) score
    differently in ``new`` than in ``old`` (by more than 0.0001 on the 0-5 scale), and in which
    direction."""
    out = {}
    for variant in sorted(old.keys() & new.keys()):
        deltas = [new[variant][k] - old[variant][k] for k in old[variant].keys() & new[variant].keys()]
        out[variant] = {"changed": sum(abs(d) > 1e-4 for d in deltas), "up": sum(d > 1e-4 for d in deltas),
                        "down": sum(d < -1e-4 for d in deltas)}
    return out


def format_report(report: dict[str, Any]) -> str:
    """A plain-text table of :func:`evaluate`'s result."""
    systems = list(report["overall"])
    lines = [f"Mohler dev split: {report['n']} answers, {report['questions']} questions; "
             f"human-human r = {report['human_human_r']:.3f}",
             "scores scaled to 0-5, compared with the average of the two human graders", ""]
    head = f"{'question':>8} {'n':>3} {'human':>5} " + " ".join(f"{s + ' r':>11} {'rmse':>5}" for s in systems)
    lines.append(head)

    def fmt(st):
        r = "   -   " if st["r"] is None else f"{st['r']:7.3f}"
        return f"{r:>11} {st['rmse']:5.2f}"

    for q in report["per_question"]:
        lines.append(f"{q['question_id']:>8} {q['n']:3d} {q['human_mean']:5.2f} " + " ".join(fmt(q[s]) for s in systems))
    lines.append(f"{'overall':>8} {report['n']:3d} {'':5} " + " ".join(fmt(report['overall'][s]) for s in systems))
    lines.append(f"{'mean r':>8} {'':3} {'':5} " + " ".join(f"{report['mean_per_question_r'][s]:11.3f} {'':5}" for s in systems))
    lines.append("")
    lines.append(f"mean score (human {report['human_mean']:.2f}): "
                 + ", ".join(f"{s} {report['overall'][s]['mean']:.2f}" for s in systems))
    lines.append("bias (mean score - human mean): "
                 + ", ".join(f"{s} {report['overall'][s]['bias']:+.2f}" for s in systems))
    lines.append(f"answers scored 0 (humans gave 1 or less to {report['human_low']}): "
                 + ", ".join(f"{s} {report['overall'][s]['zeros']}" for s in systems))
    return "\n".join(lines)
