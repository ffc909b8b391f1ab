"""``kind: text``: free-text explanations scored by an instructor rubric (:mod:`grader.rubric`).

Raw item mapping (from an assignment file)::

    {id, kind: text, points, prompt (default: the rubric's question),
     rubric: <id = file stem under rubrics/text/> | <inline rubric mapping>,
     model_answer: optional (never shown to learners; the content tests check it earns full marks)}

The rubric score is scaled to the item's points. Each criterion becomes a visible test (tag
``criterion``); each matched misconception a test with a negative score (tag ``misconception``).
The item score is never below 0; ``extra_data`` carries the evidence spans and the rubric id/version.
When the engine limits the whole answer's credit (a copy of the question, a bag of keywords, an
extremely long answer: :mod:`grader.rubric.guards`) the item ``output`` says why.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from grader.items.base import GradingContext, Item
from grader.results import ItemResult, TestResult
from grader.rubric import CompiledRubric, RubricError, compile_rubric
from grader.rubric.files import load_rubric_file

MAX_TEXT_CHARS = 20_000


def find_rubric_file(rubric_id: str, content_dir: Path) -> Path:
    """Locate ``<rubric_id>.yaml|.yml|.json`` under ``content_dir/text`` (``content_dir`` being
    ``rubrics/``), or beside the assignments when ``content_dir`` is ``rubrics/assignments``.
    Raises ``ValueError`` naming the places searched."""
    content_dir = Path(content_dir)
    bases = [content_dir / "text", content_dir, content_dir.parent / "text"]
    tried = []
    for base in bases:
        for ext in (".yaml", ".yml", ".json"):
            path = base / f"{rubric_id}{ext}"
            tried.append(str(path))
            if path.is_file():
                return path
    raise ValueError(f"rubric: no rubric file {rubric_id!r} (looked for {', '.join(tried[:3])} ...)")


def _scaled(value: float, scale: float) -> float:
    return round(value * scale, 4)


class TextKind:
    """Rubric-scored explanations. ``resolver`` (optional) maps a rubric id to a compiled rubric,
    e.g. the latest version from the store; by default rubric ids are files under ``rubrics/text``."""

    kind = "text"

    def __init__(self, resolver: Callable[[str], CompiledRubric] | None = None):
        self.resolver = resolver

    def load(self, item_id: str, raw: dict[str, Any], content_dir: Path) -> Item:
        """Build the item and compile its rubric once. Raises ``ValueError`` naming the field."""
        for name in ("points", "rubric"):
            if name not in raw:
                raise ValueError(f"item {item_id}: missing field {name!r}")
        try:
            points = float(raw["points"])
        except (TypeError, ValueError):
            raise ValueError(f"item {item_id}: points must be a number") from None
        if points <= 0:
            raise ValueError(f"item {item_id}: points must be positive")
        rubric_ref = raw["rubric"]
        try:
            if isinstance(rubric_ref, dict):
                compiled = compile_rubric(rubric_ref, rubric_id=f"{item_id}-inline")
            elif isinstance(rubric_ref, str):
                compiled = (self.resolver(rubric_ref) if self.resolver
                            else load_rubric_file(find_rubric_file(rubric_ref, content_dir)))
            else:
                raise ValueError(f"item {item_id}: rubric must be a rubric id or a rubric mapping")
        except RubricError as exc:
            details = "; ".join(f"rubric.{e['path']}: {e['message']}" for e in exc.errors)
            raise ValueError(f"item {item_id}: {details}") from exc
        spec = {"rubric_id": compiled.id, "rubric_version": compiled.version,
                "model_answer": raw.get("model_answer")}
        return Item(item_id, self.kind, str(raw.get("prompt") or compiled.question), points, spec, compiled)

    def public_view(self, item: Item) -> dict[str, Any]:
        """Prompt and points only: neither the rubric nor the model answer is shown."""
        return {"id": item.id, "kind": self.kind, "prompt": item.prompt, "points": item.points}

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
        """Score the text with the item's compiled rubric, scaled to ``item.points``."""
        rubric: CompiledRubric = item.compiled
        result = rubric.score(response.get("text") or "")
        scale = item.points / rubric.max_points
        tests: list[TestResult] = []
        for c in result.criteria:
            tests.append(TestResult(
                name=c.description, score=_scaled(c.points, scale), max_score=_scaled(c.max_points, scale),
                status="passed" if c.met else "failed", output=c.feedback, visibility="visible",
                tags=["criterion", f"criterion:{c.id}"], extra_data={"evidence": c.evidence}))
        for m in result.misconceptions:
            if m.matched:
                tests.append(TestResult(
                    name=f"Misconception: {m.id}", score=-_scaled(m.penalty, scale), max_score=0.0,
                    status="failed", output=f"{m.message} (-{_scaled(m.penalty, scale):g} points)",
                    visibility="visible", tags=["misconception", f"misconception:{m.id}"],
                    extra_data={"evidence": m.evidence}))
        if result.calibration is not None:  # the rubric's map from raw points to the instructor's marks
            shift = round(_scaled(result.points, scale) - _scaled(result.raw_points, scale), 4)
            tests.append(TestResult(
                name="Calibration to the instructor's marking", score=shift, max_score=0.0,
                status="passed" if shift >= 0 else "failed", visibility="visible", tags=["calibration"],
                output=(f"The rubric's points ({_scaled(result.raw_points, scale):g} of {item.points:g}) are "
                        f"mapped onto the instructor's marking scale by the rubric's calibration "
                        f"({result.calibration} map): {_scaled(result.points, scale):g} of {item.points:g}.")))
        score = _scaled(result.points, scale)
        raw_sum = round(sum(t.score for t in tests), 4)
        notes = list(result.notes)  # engine-wide limits: a copy of the question, a bag of keywords ...
        if raw_sum < 0 and not notes:
            notes.append("Penalties exceed the credit earned; the item score is 0, never negative.")
        note = " ".join(notes)
        adjustment = round(score - raw_sum, 4)
        if abs(adjustment) >= 1e-4:  # tests must add up to the item score, as Gradescope sums them
            tests.append(TestResult(
                name="Adjustment to the item score", score=adjustment, max_score=0.0,
                status="passed" if adjustment > 0 else "failed",
                output=note or "Adjusted so the tests add up to the rubric's score.",
                visibility="visible", tags=["adjustment"]))
        return ItemResult(
            item_id=item.id, kind=self.kind, score=score, max_score=item.points, tests=tests, output=note,
            extra_data={"rubric_id": result.rubric_id, "rubric_version": result.rubric_version,
                        "rubric_points": result.points, "rubric_max_points": result.max_points,
                        "rubric_raw_points": result.raw_points, "calibration": result.calibration,
                        "evidence": {c.id: c.evidence for c in result.criteria},
                        "misconceptions": {m.id: m.evidence for m in result.misconceptions if m.matched}})
