"""What a result page shows of a graded submission, computed from the stored results.

The page is for the learner: it never shows internal fields (``content_sha256``, ``attempts``,
``extra_data`` as such, hidden tests' inputs). It shows per item the score; each test with
pass/fail and its message; the diagnosis in plain words (the item's summary); for text items each
criterion met or missed with its evidence highlighted in the learner's own answer (the rubric's
character spans); for code items the heatmaps of ``extra_data["pictures"]`` (visible examples only,
:mod:`grader.problems.pictures`); a score the instructor set by hand, with the comment; and whether
the submission was on time or late, with what the late penalty took. Items go through :func:`grader.api.submissions.learner_items`
first, so a test shown only after the due date stays hidden here too.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from grader.items.code import response_source
from grader.items.notebook import NotebookError
from grader.web import heatmap

SHOWS = {"weights": "attention weights", "output": "output", "mask": "mask",
         "encoding": "encoding"}
#: The line numbers the sandbox writes into a learner-facing message (``grader/sandbox/runner.py``,
#: ``grader/problems/run_report.py``): bounded digit runs after fixed words, linear on any text.
_LINE_OF_CODE = re.compile(r"\(line (\d{1,6}) of your code\)|syntax error on line (\d{1,6})")
#: The tags of a code test that are not its category.
_NOT_CATEGORY = {"visible", "hidden"}
#: At most this many characters of a message are searched for line numbers.
_SEARCHED_CHARS = 4000


@dataclass
class Segment:
    """A run of the learner's answer: ``text``, the evidence labels covering it (``C1``, ``M1``)
    and the labels of evidence spans that END here (printed after it)."""

    text: str
    labels: list[str] = field(default_factory=list)
    ending: list[str] = field(default_factory=list)
    misconception: bool = False


def points(value: float | None) -> str:
    """``8``, ``8.5``, ``6.67``: at most two decimals, no trailing zeros."""
    if value is None:
        return "-"
    return f"{round(float(value), 2):g}"


def blocks(text: str) -> list[dict[str, Any]]:
    """Plain text as paragraphs and bullet lists (lines starting with ``- ``), for summaries
    such as "You scored 8 of 10 ...\\nDiagnosis:\\n- ...". Each block is ``{"kind": "p",
    "text"}`` or ``{"kind": "ul", "items"}``."""
    out: list[dict[str, Any]] = []
    for line in (text or "").splitlines():
        line = line.rstrip()
        if not line:
            continue
        if line.startswith("- "):
            if out and out[-1]["kind"] == "ul":
                out[-1]["items"].append(line[2:])
            else:
                out.append({"kind": "ul", "items": [line[2:]]})
        else:
            out.append({"kind": "p", "text": line})
    return out


def segments(answer: str, spans: list[tuple[str, int, int, bool]]) -> list[Segment]:
    """Cut ``answer`` at every evidence span boundary. ``spans`` are ``(label, start, end,
    is_misconception)`` with ``[start, end)`` character offsets (spans outside the answer are
    clipped, empty ones dropped)."""
    clean = []
    for label, start, end, wrong in spans:
        start, end = max(0, int(start)), min(len(answer), int(end))
        if start < end:
            clean.append((label, start, end, wrong))
    cuts = sorted({0, len(answer), *(s for _, s, _, _ in clean), *(e for _, _, e, _ in clean)})
    out = []
    for left, right in zip(cuts, cuts[1:]):
        covering = [(label, wrong) for label, s, e, wrong in clean if s <= left and right <= e]
        out.append(Segment(
            text=answer[left:right],
            labels=[label for label, _ in covering],
            ending=[label for label, s, e, _ in clean if e == right],
            misconception=any(wrong for _, wrong in covering)))
    return out


def _criteria(item: dict, answer: str) -> tuple[list[dict], list[Segment]]:
    rows, spans = [], []
    n_criteria = n_misconceptions = 0
    for test in item.get("tests", []):
        tags = test.get("tags", [])
        wrong = "misconception" in tags
        if "criterion" in tags:
            n_criteria += 1
            label = f"C{n_criteria}"
        elif wrong:
            n_misconceptions += 1
            label = f"M{n_misconceptions}"
        else:
            label = ""
        evidence = (test.get("extra_data") or {}).get("evidence") or []
        quotes = []
        for span in evidence:
            if isinstance(span, (list, tuple)) and len(span) == 2:
                start, end = int(span[0]), int(span[1])
                if label:
                    spans.append((label, start, end, wrong))
                quotes.append(answer[max(0, start):max(0, end)])
        rows.append({"label": label, "name": test.get("name", ""),
                     "passed": test.get("status") == "passed", "misconception": wrong,
                     "score": points(test.get("score")), "max_score": points(test.get("max_score")),
                     "message": test.get("output", ""), "quotes": [q for q in quotes if q]})
    return rows, segments(answer, spans) if answer else []


def pictures_view(drawn: list | None) -> list[dict]:
    """The heatmaps of ``drawn`` (:func:`grader.problems.pictures.draw_outcomes`, e.g. a
    precheck's) as the pages show them."""
    return _pictures({"extra_data": {"pictures": drawn or []}})


def _pictures(item: dict) -> list[dict]:
    out = []
    for picture in (item.get("extra_data") or {}).get("pictures") or []:
        try:
            shows = SHOWS.get(picture["shows"], picture["shows"])
            scale = picture.get("scale", "unit")
            magnitude = heatmap.magnitude_of(picture["expected"], picture.get("learner") or [])
            names = {"row_name": picture.get("rows", "row"),
                     "column_name": picture.get("columns", "column")}
            expected = heatmap.svg(picture["expected"], f"Expected {shows}", scale, magnitude,
                                   **names)
            learner = (heatmap.svg(picture["learner"], f"Your {shows}", scale, magnitude, **names)
                       if picture.get("learner") else None)
        except (KeyError, TypeError, ValueError):
            continue  # a picture that cannot be drawn is left out
        out.append({"example": picture.get("example", ""), "shows": shows,
                    "rows": names["row_name"], "columns": names["column_name"],
                    "learner": learner, "expected": expected,
                    "finding": picture.get("finding", "")})
    return out


def _choice(item: dict, response: dict, public: dict | None) -> dict | None:
    chosen = str(response.get("choice", "")) if isinstance(response, dict) else ""
    options = (public or {}).get("options") or {}
    if not chosen:
        return None
    letter = chosen.strip().upper()
    return {"letter": letter, "text": options.get(letter, "")}


def said_once(message: str, summary: str) -> str:
    """A failed test's ``message`` without its ``Diagnosis: ...`` lines that the item's
    ``summary`` (its output) already says: each diagnosis is said once per item, above the
    tests, not again on every failed row. The stored result keeps every line (the REST API and
    ``results.json`` are unchanged); this is how the page shows it."""
    kept = [line for line in message.split("\n")
            if not (line.startswith("Diagnosis: ") and line[len("Diagnosis: "):].strip()
                    and line[len("Diagnosis: "):].strip() in summary)]
    return "\n".join(kept)


def without_repeated_error(message: str) -> str:
    """A failed row's ``message`` without the last line of its traceback when that line repeats
    the row's first one (``Failed: ValueError: ... (line 13 of your code)`` then, after the
    traceback's frames, ``ValueError: ...``): the error is said once, above its frames."""
    lines = message.split("\n")
    if not lines or not lines[0].startswith("Failed: ") or \
            "Traceback (most recent call last):" not in lines:
        return message
    headline = lines[0][len("Failed: "):]
    cut = headline.rfind(" (line ")
    if cut > 0 and headline.endswith(" of your code)"):
        headline = headline[:cut]
    start = lines.index("Traceback (most recent call last):")
    for number in range(start + 1, len(lines)):
        if lines[number] == headline:
            return "\n".join(lines[:number] + lines[number + 1:])
    return message


def without_pictured_weights(message: str) -> str:
    """A failed visible example's ``message`` without its ``Expected weights:`` and ``Received
    weights:`` matrices (the last part of it, :func:`grader.problems.scoring._test_output`), for
    an example whose picture shows both weight matrices with their values written in the cells;
    a line says where they are instead."""
    cut = message.find("\nExpected weights:\n")
    if cut < 0:
        return message
    return message[:cut] + "\n(The expected and received weights are in the picture above.)"


def failed_groups(tests: list[dict]) -> list[dict[str, Any]]:
    """The failed ones of ``tests`` (views of :func:`item_view`) grouped by ``category`` (a code
    test's category tag: ``scaling``, ``masking``...), in the order each category first fails;
    each group is ``{"category", "tests", "total"}`` (``total``: that category's tests, passed
    or not), and the first is ``"open"``."""
    groups: dict[str, dict[str, Any]] = {}
    totals: dict[str, int] = {}
    for test in tests:
        totals[test["category"]] = totals.get(test["category"], 0) + 1
        if not test["passed"]:
            groups.setdefault(test["category"], {"category": test["category"], "tests": []})[
                "tests"].append(test)
    out = list(groups.values())
    for number, group in enumerate(out):
        group["total"] = totals[group["category"]]
        group["open"] = number == 0
    return out


def error_lines(texts: list[str], line_count: int) -> list[int]:
    """The lines of the learner's code (1 to ``line_count``) that ``texts`` (an item's output and
    its failed tests' messages) name: a syntax error's line, or the line of the learner's file
    where an exception was raised. The sandbox names only lines of the learner's own file
    (``submission.py``: :mod:`grader.sandbox.runner`), never a path inside the sandbox. Sorted,
    at most 5; each text is searched in its first 4000 characters."""
    found: set[int] = set()
    for text in texts:
        for match in _LINE_OF_CODE.finditer((text or "")[:_SEARCHED_CHARS]):
            line = int(match.group(1) or match.group(2))
            if 1 <= line <= line_count:
                found.add(line)
    return sorted(found)[:5]


def code_lines(code: str | None, marked: list[int]) -> list[dict[str, Any]]:
    """``code`` as numbered lines ``{"number", "text", "marked"}`` for the page's listing,
    ``marked`` lines flagged."""
    if code is None:
        return []
    marks = set(marked)
    return [{"number": number, "text": text, "marked": number in marks}
            for number, text in enumerate(code.split("\n"), start=1)]


def _category(test: dict) -> str:
    tags = test.get("tags") or []
    first = tags[0] if tags and isinstance(tags[0], str) else ""
    return "" if first in _NOT_CATEGORY else first


def item_view(item: dict, response: dict | None, public: dict | None) -> dict[str, Any]:
    """One item result (as stored, after :func:`learner_items`) with the learner's ``response``
    and the item's ``public`` view (prompt, options), ready for ``_result.html``. A code item's
    failed tests come in ``groups`` (:func:`failed_groups`) with the diagnosis the item's summary
    gives left out of each row (:func:`said_once`), and ``error_lines`` are the lines of the
    learner's code its messages name."""
    blank = not response
    response = response or {}
    kind = item.get("kind", "")
    output = item.get("output", "") or ""
    tests = [t for t in item.get("tests", [])]
    view = {
        "id": item.get("item_id", ""), "kind": kind,
        "prompt": (public or {}).get("prompt", ""),
        "score": points(item.get("score")), "max_score": points(item.get("max_score")),
        "full": item.get("score") is not None and item.get("score") == item.get("max_score"),
        "failed": item.get("status") == "failed",
        "blank": blank,
        "summary": blocks(output),
        "tests": [{"name": t.get("name", ""), "passed": t.get("status") == "passed",
                   "score": points(t.get("score")), "max_score": points(t.get("max_score")),
                   "visibility": t.get("visibility", "visible"),
                   "category": _category(t) if kind == "code" else "",
                   "message": without_repeated_error(said_once(t.get("output", ""), output))
                   if kind == "code" and t.get("status") != "passed"
                   else t.get("output", "")} for t in tests],
        "pictures": _pictures(item) if kind == "code" else [],
        # what the code printed before any hidden input was sent (grader/problems/printed.py)
        "printed": str((item.get("extra_data") or {}).get("visible_output") or "")
        if kind == "code" else "",
        "code": _code_of(response) if kind == "code" else None,
        "criteria": [], "answer": [], "choice": None,
        "override": (item.get("extra_data") or {}).get("override"),
    }
    if kind == "text":
        answer = response.get("text") or ""
        view["criteria"], view["answer"] = _criteria(item, answer)
    if kind == "choice":
        view["choice"] = _choice(item, response, public)
    pictured = {p["example"] for p in view["pictures"]
                if p["learner"] and p["shows"] == "attention weights"}
    for test in view["tests"]:
        if not test["passed"] and test["name"] in pictured:
            test["message"] = without_pictured_weights(test["message"])
    view["passed_count"] = sum(t["passed"] for t in view["tests"])
    view["groups"] = failed_groups(view["tests"])
    view["error_lines"] = error_lines(
        [output] + [t.get("output", "") for t in tests if t.get("status") != "passed"],
        view["code"].count("\n") + 1) if view["code"] else []
    view["code_lines"] = code_lines(view["code"], view["error_lines"])
    # the editor marks these lines only when they are lines of the code box (not a notebook's)
    view["editor_lines"] = view["error_lines"] if "code" in response else []
    return view


def submission_view(submission, items: list[dict], assignment) -> dict[str, Any]:
    """The whole result page's data: status, score, when it was submitted and the item views,
    with no internal field of the stored submission and no timing of its grading (when it
    started or finished: learner code could signal through a duration)."""
    from grader.content import public_assignment

    public = {i["id"]: i for i in public_assignment(assignment)["items"]} if assignment else {}
    responses = submission.responses or {}
    return {
        "id": submission.id,
        "assignment_id": submission.assignment_id,
        "assignment_title": assignment.title if assignment else submission.assignment_id,
        "status": submission.status,
        "final": submission.status in ("graded", "failed"),
        "score": points(submission.score), "max_score": points(submission.max_score),
        "received_at": submission.received_at,
        "failure_reason": submission.failure_reason if submission.status == "failed" else None,
        "late": _late(submission.results),
        "items": [item_view(item, responses.get(item.get("item_id")),
                            public.get(item.get("item_id"))) for item in items],
    }


def _late(results) -> dict[str, Any] | None:
    """On time or late (with the penalty in points and words) as the result page says it."""
    from grader.deadlines import late_words
    from grader.grading.adjustments import late_summary

    late = late_summary(results)
    if late is None:
        return None
    return {**late, "words": late_words(late), "penalty": points(late["penalty_points"])}


def _code_of(response: dict) -> str | None:
    """The code a code response ran: its ``code``, or the Python read from its ``notebook``."""
    try:
        source, _notes = response_source(response)
    except (NotebookError, KeyError):
        return None
    return source if isinstance(source, str) else None
