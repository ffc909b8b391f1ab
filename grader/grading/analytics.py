"""The picture of a class on one assignment, from its stored results: rows in, numbers out.

What :func:`class_analytics` reports (``GET /api/v1/assignments/<id>/analytics``, its CSV and
the instructor page), over each learner's counted grade (:mod:`grader.grading.attempts`, the
assignment's attempt policy; for ``best_per_item`` each item from the attempt it counts from):

- ``learners``: how many submitted, how many have a counted (graded) grade, the learners of the
  course's roster who have not submitted, and those whose latest attempt failed to grade;
- ``score``: mean, median, standard deviation, lowest, highest, and a histogram of 10 equal
  bins over [0, max_score];
- per item (``items``): mean and median, difficulty and discrimination
  (:mod:`grader.grading.item_statistics`, flagged below 0.2), and by kind:

  - code: each named mistake (``mistakes``: the result tag ``diagnosis:<tag>``, its message,
    how many learners made it and their share) and the pass rate of each hidden-test category
    (``categories``: a test's category is its first tag);
  - text: each criterion's hit rate (met), each misconception's rate, and the most common
    phrases of the answers that scored below half the item's points
    (:mod:`grader.grading.phrases`);
  - choice: how many learners chose each option.

Shares are of the learners with a counted grade on the item. Numbers are rounded to 4 decimals.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from grader.grading.attempts import counted_attempts
from grader.grading.item_statistics import (DISCRIMINATION_FLAG, histogram, item_statistics,
                                            mean, median, standard_deviation)
from grader.grading.phrases import low_score_phrases

#: An answer scoring below this share of its item's points counts as low (text phrases).
LOW_SHARE = 0.5


@dataclass(frozen=True)
class ItemInfo:
    """What the analytics need to know of an item besides its results: its ``kind`` and
    ``points``; for code items the message of each mistake tag; for text items the rubric's
    criteria and misconceptions (``(id, description)``); for choice items the options and key."""

    item_id: str
    kind: str
    points: float
    mistakes: dict[str, str] = field(default_factory=dict)
    criteria: tuple[tuple[str, str], ...] = ()
    misconceptions: tuple[tuple[str, str], ...] = ()
    options: dict[str, str] = field(default_factory=dict)
    answer: str | None = None


def item_infos(assignment) -> list[ItemInfo]:
    """:class:`ItemInfo` of every item of a compiled :class:`grader.content.Assignment`."""
    from grader.problems import PROBLEMS
    from grader.problems.base import CodeProblem

    out = []
    for item in assignment.items.values():
        if item.kind == "code":
            problem = item.compiled if isinstance(item.compiled, CodeProblem) else \
                PROBLEMS.get(item.spec.get("problem"))
            mistakes = {}
            for entry in [*(problem.variants if problem else ()), *(problem.rules if problem
                                                                       else ())]:
                mistakes.setdefault(entry.tag, entry.message)
            out.append(ItemInfo(item.id, "code", item.points, mistakes=mistakes))
        elif item.kind == "text":
            doc = getattr(item.compiled, "doc", None) or {}
            out.append(ItemInfo(
                item.id, "text", item.points,
                criteria=tuple((c["id"], c.get("description", c["id"]))
                               for c in doc.get("criteria", [])),
                misconceptions=tuple((m["id"], m.get("message") or m.get("description") or
                                      m["id"]) for m in doc.get("misconceptions", []))))
        elif item.kind == "choice":
            out.append(ItemInfo(item.id, "choice", item.points,
                                options=dict(item.spec.get("options") or {}),
                                answer=item.spec.get("answer")))
        else:
            out.append(ItemInfo(item.id, item.kind, item.points))
    return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _share(count: int, total: int) -> float | None:
    return round(count / total, 4) if total else None


def _tags(test: dict) -> list[str]:
    return list(test.get("tags") or ())


def _code(info: ItemInfo, results: list[dict]) -> dict[str, Any]:
    made: dict[str, int] = {}
    categories: dict[str, dict[str, int]] = {}
    for result in results:
        tags_seen = set()
        for test in result.get("tests", []):
            tags = _tags(test)
            tags_seen.update(t for t in tags if t.startswith("diagnosis:"))
            if "hidden" in tags and tags:
                entry = categories.setdefault(tags[0], {"tests": 0, "passed": 0, "learners": 0,
                                                        "all_passed": 0})
                entry["tests"] += 1
                entry["passed"] += test.get("status") == "passed"
        for tag in tags_seen:
            made[tag] = made.get(tag, 0) + 1
        for category, entry in categories.items():  # learners per category, all passed
            mine = [t for t in result.get("tests", []) if _tags(t)[:1] == [category]
                    and "hidden" in _tags(t)]
            if mine:
                entry["learners"] += 1
                entry["all_passed"] += all(t.get("status") == "passed" for t in mine)
    n = len(results)
    mistakes = [{"tag": tag, "mistake": tag.removeprefix("diagnosis:"),
                 "message": info.mistakes.get(tag.removeprefix("diagnosis:"), ""),
                 "learners": count, "share": _share(count, n)}
                for tag, count in sorted(made.items(), key=lambda kv: (-kv[1], kv[0]))]
    return {"mistakes": mistakes, "categories": [
        {"category": name, "tests": e["tests"], "passed": e["passed"],
         "pass_rate": _share(e["passed"], e["tests"]), "learners": e["learners"],
         "learners_all_passed": e["all_passed"]} for name, e in categories.items()]}


def _text(info: ItemInfo, results: list[dict], answers: list[str]) -> dict[str, Any]:
    n = len(results)
    met = {cid: 0 for cid, _ in info.criteria}
    wrong = {mid: 0 for mid, _ in info.misconceptions}
    low, others = [], []
    for result, answer in zip(results, answers):
        for test in result.get("tests", []):
            for tag in _tags(test):
                if tag.startswith("criterion:") and test.get("status") == "passed":
                    met[tag[len("criterion:"):]] = met.get(tag[len("criterion:"):], 0) + 1
                elif tag.startswith("misconception:"):
                    wrong[tag[len("misconception:"):]] = wrong.get(tag[len("misconception:"):],
                                                                   0) + 1
        points = float(result.get("max_score") or info.points or 0.0)
        if answer.strip():
            (low if float(result.get("score") or 0.0) < LOW_SHARE * points else
             others).append(answer)
    names = dict(info.criteria)
    messages = dict(info.misconceptions)
    return {"criteria": [{"id": cid, "description": names.get(cid, cid), "learners_met": count,
                          "hit_rate": _share(count, n)} for cid, count in met.items()],
            "misconceptions": [{"id": mid, "message": messages.get(mid, mid), "learners": count,
                                "rate": _share(count, n)} for mid, count in wrong.items()],
            "low_scoring_answers": len(low),
            "low_score_phrases": low_score_phrases(low, others)}


def _choice(info: ItemInfo, results: list[dict]) -> dict[str, Any]:
    chosen: dict[str, int] = {letter: 0 for letter in info.options}
    blank = 0
    for result in results:
        letter = (result.get("extra_data") or {}).get("chosen")
        if letter in chosen:
            chosen[letter] += 1
        else:
            blank += 1
    return {"options": [{"letter": letter, "text": info.options.get(letter, ""),
                         "key": letter == info.answer, "learners": count,
                         "share": _share(count, len(results))}
                        for letter, count in chosen.items()], "unanswered": blank}


def class_analytics(items: list[ItemInfo], rows: Iterable, policy: str, max_score: float,
                    roster: Iterable[str] = ()) -> dict[str, Any]:
    """The analytics of one assignment (module docstring) from ``rows`` (its submissions, any
    learners and statuses, with ``results`` and ``responses``), under attempt ``policy``;
    ``roster``: the course's known learners (for who has not submitted)."""
    rows = list(rows)
    by_id = {row.id: row for row in rows}
    counted = counted_attempts(rows, policy)
    graded = [c for c in counted.values() if c.graded]
    totals = [float(c.score) for c in graded]
    roster_left = sorted(set(roster) - set(counted))
    out: dict[str, Any] = {
        "attempt_policy": policy, "max_score": max_score,
        "learners": {"submitted": len(counted), "graded": len(graded),
                     "not_submitted": roster_left,
                     "latest_failed": sorted(c.learner_id for c in counted.values()
                                             if c.latest.status == "failed")},
        "score": {"mean": _round(mean(totals)), "median": _round(median(totals)),
                  "standard_deviation": _round(standard_deviation(totals)),
                  "min": _round(min(totals)) if totals else None,
                  "max": _round(max(totals)) if totals else None,
                  "histogram": histogram(totals, max_score)},
        "discrimination_flag": DISCRIMINATION_FLAG,
        "items": []}
    for info in items:
        results, answers, scores, item_totals = [], [], [], []
        for c in graded:
            counted_item = c.items.get(info.item_id)
            if counted_item is None:
                continue
            source = by_id[counted_item.submission_id]
            result = next((r for r in source.results or [] if r.get("item_id") == info.item_id),
                          None)
            if result is None:
                continue
            results.append(result)
            response = (source.responses or {}).get(info.item_id) or {}
            answers.append(response.get("text") or "" if isinstance(response, dict) else "")
            scores.append(counted_item.score)
            item_totals.append(float(c.score))
        entry: dict[str, Any] = {
            "item_id": info.item_id, "kind": info.kind, "points": info.points,
            "learners": len(results), "mean": _round(mean(scores)),
            "median": _round(median(scores)),
            **item_statistics(scores, item_totals, info.points)}
        if info.kind == "code":
            entry.update(_code(info, results))
        elif info.kind == "text":
            entry.update(_text(info, results, answers))
        elif info.kind == "choice":
            entry.update(_choice(info, results))
        out["items"].append(entry)
    return out


#: The columns of the analytics CSV: one row per number, grouped by ``section``.
CSV_COLUMNS = ["section", "item_id", "key", "label", "value", "learners", "share"]


def csv_rows(report: dict[str, Any]) -> list[list[Any]]:
    """:func:`class_analytics`' report as the rows of one CSV (:data:`CSV_COLUMNS`, header
    first): ``summary`` (learner counts, score statistics), ``histogram`` (one row per bin,
    key ``from-to``), ``item`` (per item: mean, median, difficulty, discrimination, flagged),
    ``mistake``, ``category``, ``criterion``, ``misconception``, ``phrase``, ``option``,
    ``not_submitted`` and ``latest_failed`` (one row per learner)."""
    rows: list[list[Any]] = [list(CSV_COLUMNS)]
    learners, score = report["learners"], report["score"]
    for key in ("submitted", "graded"):
        rows.append(["summary", "", f"learners_{key}", "", learners[key], "", ""])
    for key in ("mean", "median", "standard_deviation", "min", "max"):
        rows.append(["summary", "", f"score_{key}", "", score[key], "", ""])
    for bin_ in score["histogram"]:
        rows.append(["histogram", "", f"{bin_['from']:g}-{bin_['to']:g}", "", "",
                     bin_["learners"], ""])
    for item in report["items"]:
        iid = item["item_id"]
        for key in ("mean", "median", "difficulty", "discrimination", "flagged"):
            rows.append(["item", iid, key, item["kind"], item[key], item["learners"], ""])
        for m in item.get("mistakes", []):
            rows.append(["mistake", iid, m["tag"], m["message"], "", m["learners"], m["share"]])
        for c in item.get("categories", []):
            rows.append(["category", iid, c["category"], f"{c['passed']} of {c['tests']} "
                         "hidden tests passed", c["pass_rate"], c["learners"], ""])
        for c in item.get("criteria", []):
            rows.append(["criterion", iid, c["id"], c["description"], c["hit_rate"],
                         c["learners_met"], c["hit_rate"]])
        for m in item.get("misconceptions", []):
            rows.append(["misconception", iid, m["id"], m["message"], m["rate"], m["learners"],
                         m["rate"]])
        for ph in item.get("low_score_phrases", []):
            rows.append(["phrase", iid, ph["phrase"], "in answers below half the points", "",
                         ph["learners"], ""])
        for o in item.get("options", []):
            rows.append(["option", iid, o["letter"], o["text"] + (" (key)" if o["key"] else ""),
                         "", o["learners"], o["share"]])
    for key in ("not_submitted", "latest_failed"):
        for learner in learners[key]:
            rows.append([key, "", learner, "", "", "", ""])
    return rows
