"""``kind: text``: free-text explanations scored by an instructor rubric (:mod:`grader.rubric`).

Raw item mapping (from an assignment file)::

    {id, kind: text, points, prompt (default: the rubric's question),
     rubric: <id = file stem under rubrics/text/> | <inline rubric mapping>,
     model_answer: optional (never shown to learners; the content tests check it earns full marks)}

The rubric score is scaled to the item's points and shown as a list of tests that add up exactly
to it (Gradescope sums them), each saying what it adds or takes away and why:

- each criterion (tag ``criterion``): the points it earned of its share, with its feedback;
- ``Credit for an on-topic answer`` (tag ``base-credit``), when the rubric's base credit applies;
- ``Deduction for a misconception: <id>`` (tag ``misconception``): the points actually deducted
  (never more than the answer had left, so a deduction shown is a deduction made) and the
  corrective message;
- ``Limit: <guard>`` (tag ``limit``): what an engine-wide guard (a copy of the question, a bag of
  keywords, repeated text: :mod:`grader.rubric.guards`) took away, and why;
- ``Calibration to the instructor's marking`` (tag ``calibration``), when the rubric has a
  calibration map (:mod:`grader.rubric.calibration`).

Numbers in names and outputs are rounded for display (at most two decimals); scores keep four.
The public view shows every length limit (``max_characters``, and ``max_words`` when the rubric
sets one), and the feedback says when one applied. ``extra_data`` carries the evidence spans and
the rubric id/version.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.items.base import BaseKind, GradingContext, Item
from grader.results import InfrastructureError, ItemResult, TestResult
from grader.rubric import CompiledRubric, RubricError, ScoringTimeout, compile_rubric
from grader.rubric.files import find_rubric_file, load_rubric_file
from grader.rubric.refs import parse_ref

MAX_TEXT_CHARS = 20_000


def _scaled(value: float, scale: float) -> float:
    return round(value * scale, 4)


def _number(value: float) -> str:
    """A number as a person reads it: at most two decimals, no trailing zeros ("0.67", "4")."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _shown(value: float) -> str:
    """A number of points as a person reads it, with its unit ("1 point", "0.67 points")."""
    text = _number(abs(value))
    return f"{text} point" + ("" if text == "1" else "s")


GUARD_NAMES = {"copies_question": "the answer repeats the question", "keyword_list": "a list of repeated keywords",
               "word_salad": "no sentence structure", "filler": "the same few words over and over",
               "repetition": "repeated text"}


class TextKind(BaseKind):
    """Rubric-scored explanations. A rubric id names a file under ``rubrics/text``
    (:func:`grader.rubric.files.find_rubric_file`); a course's uploaded rubrics reach a text item
    inlined, their version pinned (``grader.api.assignments.resolve_rubrics``)."""

    kind = "text"
    title = "Explanation"
    response_field = "text"
    fields = frozenset({"rubric", "model_answer", "accepted_explanation"})
    required = ("points", "rubric")

    def build(self, item_id: str, raw: dict[str, Any], points: float, content_dir: Path) -> Item:
        """Build the item and compile its rubric once. Raises ``ValueError`` naming the field."""
        rubric_ref = raw["rubric"]
        try:
            if isinstance(rubric_ref, dict):
                compiled = compile_rubric(rubric_ref, rubric_id=f"{item_id}-inline")
                follows = "pinned"
            elif isinstance(rubric_ref, str):
                ref = parse_ref(rubric_ref)  # a file: <id> and <id>@latest read it as it is now
                compiled = load_rubric_file(find_rubric_file(ref.rubric_id, content_dir))
                if ref.version is not None and ref.version != compiled.version:
                    raise ValueError(f"rubric: the built-in rubric {ref.rubric_id!r} has one "
                                     f"version, {compiled.version} (its file); write "
                                     f"{ref.rubric_id!r} or '{ref.rubric_id}@latest'")
                follows = "latest"
            else:
                raise ValueError("rubric must be a rubric id or a rubric mapping")
        except RubricError as exc:
            raise ValueError("; ".join(f"rubric.{e['path']}: {e['message']}" for e in exc.errors)) from exc
        # rubric_follows: "latest" (a file, or a course rubric named <id>@latest: the catalogue
        # marks those) or "pinned" (a mapping: an uploaded version inlined at save, or written in)
        spec = {"rubric_id": compiled.id, "rubric_version": compiled.version,
                "rubric_follows": follows, "model_answer": raw.get("model_answer")}
        return Item(item_id, self.kind, str(raw.get("prompt") or compiled.question), points, spec, compiled)

    def public_fields(self, item: Item) -> dict[str, Any]:
        """The length limits (``max_characters``, and ``max_words`` when the rubric reads only that
        many words) and which rubric version scores it (``rubric_version``: id, version, whether it
        follows the newest version or is pinned): neither the rubric nor the model answer."""
        view: dict[str, Any] = {"max_characters": MAX_TEXT_CHARS,
                                "rubric_version": {
                                    "rubric_id": item.spec.get("rubric_id"),
                                    "version": item.spec.get("rubric_version"),
                                    "follows": item.spec.get("rubric_follows", "pinned")}}
        max_words = getattr(item.compiled, "max_words", None)
        if max_words:
            view["max_words"] = max_words
        return view

    def validate_response(self, item: Item, response: dict[str, Any]) -> str | None:
        if not isinstance(response, dict) or "text" not in response:
            return "a text response is {\"text\": \"...\"}"
        text = response["text"]
        if not isinstance(text, str):
            return "text must be a string"
        if len(text) > MAX_TEXT_CHARS:
            return f"text is {len(text)} characters long; the limit is {MAX_TEXT_CHARS}"
        return None

    def grade(self, item: Item, response: dict[str, Any], ctx: GradingContext) -> ItemResult:
        """Score the text with the item's compiled rubric, scaled to ``item.points``. Raises
        :class:`InfrastructureError` when the rubric cannot score the text within its time budget
        (the submission is retried, then marked failed: never a silent zero), and
        :class:`~grader.budget.BudgetExceeded` when the submission's budget (``ctx.budget``)
        runs out first."""
        rubric: CompiledRubric = item.compiled
        try:
            result = rubric.score(response.get("text") or "", within=ctx.budget)
        except ScoringTimeout as exc:  # the rubric's fault, never the learner's zero
            raise InfrastructureError(f"item {item.id}: rubric {rubric.id!r} v{rubric.version}: {exc}") from exc
        scale = item.points / rubric.max_points
        tests: list[TestResult] = []
        for c in result.criteria:
            tests.append(TestResult(
                name=c.description, score=_scaled(c.points, scale), max_score=_scaled(c.max_points, scale),
                status="passed" if c.met else "failed", output=c.feedback, visibility="visible",
                tags=["criterion", f"criterion:{c.id}"] + ([f"credit:{c.credit}"] if c.credit else []),
                extra_data={"evidence": c.evidence}))
        if result.base_credit:
            base = _scaled(result.base_credit, scale)
            tests.append(TestResult(
                name="Credit for an on-topic answer", score=base, max_score=0.0, status="passed",
                output=(f"+{_shown(base)}: an answer on the question's topic earns {rubric.base_share:.0%} of the "
                        "points its criteria did not award."),
                visibility="visible", tags=["base-credit"]))
        for m in result.misconceptions:
            if not m.matched:
                continue
            deducted = _scaled(m.deducted, scale)
            # one clear line: what it took away and why ("-0.75: says softmax is linear"); the
            # penalty is never shown beside it (a score stops at 0, so less may be taken)
            label = m.description or m.message
            why = f"-{_number(deducted)}: {label}" if deducted else f"Nothing deducted (no points left): {label}"
            if m.description and m.message != m.description:
                why += ("" if m.description[-1] in ".!?" else ".") + f" {m.message}"
            tests.append(TestResult(
                name=f"Deduction for a misconception: {m.id}", score=-deducted if deducted else 0.0, max_score=0.0,
                status="failed", output=why, visibility="visible",
                tags=["misconception", f"misconception:{m.id}"], extra_data={"evidence": m.evidence}))
        for g in result.guards:
            deducted = _scaled(g["deducted"], scale)
            tests.append(TestResult(
                name=f"Limit: {GUARD_NAMES.get(g['id'], g['id'])}", score=-deducted if deducted else 0.0,
                max_score=0.0,
                status="failed", output=(f"-{_shown(deducted)}: " if deducted else "") + g["reason"],
                visibility="visible", tags=["limit", f"guard:{g['id']}"]))
        if result.calibration is not None:  # the rubric's map from raw points to the instructor's marks
            raw, calibrated = _scaled(result.raw_points, scale), _scaled(result.points, scale)
            shift = round(calibrated - raw, 4)
            tests.append(TestResult(
                name="Calibration to the instructor's marking", score=shift, max_score=0.0,
                status="passed" if shift >= 0 else "failed", visibility="visible", tags=["calibration"],
                output=(f"The rubric's points ({_number(raw)} of {item.points:g}) are mapped onto the "
                        f"instructor's marking scale by the rubric's calibration ({result.calibration} map): "
                        f"{_number(calibrated)} of {item.points:g}.")))
        score = _scaled(result.points, scale)
        # each line is rounded on its own: carry the rounding dust on the last line that moved
        dust = round(score - sum(t.score for t in tests), 4)
        if dust:
            carrier = next((t for t in reversed(tests) if t.score), tests[-1] if tests else None)
            if carrier is not None:
                carrier.score = round(carrier.score + dust, 4)
        note = " ".join(result.notes)  # engine-wide limits: a guard, words past max_words
        return ItemResult(
            item_id=item.id, kind=self.kind, score=score, max_score=item.points, tests=tests, output=note,
            extra_data={"rubric_id": result.rubric_id, "rubric_version": result.rubric_version,
                        "rubric_points": result.points, "rubric_max_points": result.max_points,
                        "rubric_raw_points": result.raw_points, "calibration": result.calibration,
                        "base_credit": result.base_credit, "guards": [g["id"] for g in result.guards],
                        "evidence": {c.id: c.evidence for c in result.criteria},
                        "misconceptions": {m.id: m.evidence for m in result.misconceptions if m.matched}})
