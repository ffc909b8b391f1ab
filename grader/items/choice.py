"""``kind: choice``: multiple-choice and true/false items with a key and an explanation.

Raw item mapping::

    {id, kind: choice, points, prompt, options: {A: "...", B: "..."}, answer: "B", explanation: "..."}

True/false items use ``options: {T: "True", F: "False"}``. A response is ``{"choice": "B"}``; letters
are case-insensitive and true/false items also accept ``"true"``/``"false"`` (and booleans).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.items.base import BaseKind, GradingContext, Item
from grader.results import ItemResult, TestResult

_TRUE_FALSE = {"true": "T", "false": "F", "t": "T", "f": "F"}


def _normalise_choice(item: Item, choice: Any) -> str | None:
    """The option letter a response names, or ``None`` when it names none."""
    options = item.spec["options"]
    if isinstance(choice, bool) and set(options) == {"T", "F"}:
        return "T" if choice else "F"
    if not isinstance(choice, str):
        return None
    letter = choice.strip().upper()
    if letter in options:
        return letter
    if set(options) == {"T", "F"}:
        return _TRUE_FALSE.get(choice.strip().lower())
    return None


class ChoiceKind(BaseKind):
    """One correct option among several; full points or none."""

    kind = "choice"
    title = "Choice"
    response_field = "choice"
    fields = frozenset({"options", "answer", "explanation", "reveal_answer"})
    required = ("prompt", "points", "options", "answer")

    def build(self, item_id: str, raw: dict[str, Any], points: float, content_dir: Path) -> Item:
        """Validate options and key. Raises ``ValueError`` naming the field."""
        options = raw["options"]
        if not isinstance(options, dict) or len(options) < 2:
            raise ValueError("options must map at least two letters to texts")
        options = {str(k).strip().upper(): str(v) for k, v in options.items()}
        answer = str(raw["answer"]).strip().upper()
        if answer not in options:
            raise ValueError(f"answer {raw['answer']!r} is not one of the options "
                             f"{', '.join(options)}")
        spec = {"options": options, "answer": answer, "explanation": str(raw.get("explanation", "")),
                "reveal_answer": bool(raw.get("reveal_answer", True))}
        return Item(item_id, self.kind, str(raw["prompt"]), points, spec)

    def public_fields(self, item: Item) -> dict[str, Any]:
        """The options; never the key or the explanation."""
        return {"options": dict(item.spec["options"])}

    def validate_response(self, item: Item, response: dict[str, Any]) -> str | None:
        if not isinstance(response, dict) or "choice" not in response:
            return "a choice response is {\"choice\": \"<letter>\"}"
        if _normalise_choice(item, response["choice"]) is None:
            valid = ", ".join(item.spec["options"])
            extra = " (or true/false)" if set(item.spec["options"]) == {"T", "F"} else ""
            return f"choice {response['choice']!r} is not one of the options: {valid}{extra}"
        return None

    def grade(self, item: Item, response: dict[str, Any], ctx: GradingContext) -> ItemResult:
        """Full points for the keyed option; the explanation is the feedback either way."""
        chosen = _normalise_choice(item, response.get("choice"))
        answer = item.spec["answer"]
        correct = chosen == answer
        if correct:
            verdict = f"Correct: {answer}."
        elif item.spec["reveal_answer"]:
            verdict = f"Incorrect: you chose {chosen}; the answer is {answer}."
        else:
            verdict = f"Incorrect: you chose {chosen}."
        explanation = item.spec["explanation"]
        output = f"{verdict} {explanation}".strip() if (correct or item.spec["reveal_answer"]) else verdict
        score = item.points if correct else 0.0
        test = TestResult(name="Selected option", score=score, max_score=item.points,
                          status="passed" if correct else "failed", output=output, visibility="visible",
                          tags=["choice"], extra_data={"chosen": chosen})
        return ItemResult(item_id=item.id, kind=self.kind, score=score, max_score=item.points,
                          tests=[test], extra_data={"chosen": chosen, "correct": correct})
