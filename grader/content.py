"""Loads the built-in content (assignments and their items) from ``rubrics/`` at start.

Layout: ``rubrics/assignments/<assignment_id>.yaml`` holds ``{id, title, description, items: [...]}``;
each item mapping has ``id``, ``kind`` (``code`` | ``text`` | ``choice``), ``points`` and the fields of
its kind (see ``grader/items/<kind>.py``). Rubric documents referenced by text items live in
``rubrics/text/``. Content is compiled once here, not per submission.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from grader.items import Item, get_kind


class ContentError(ValueError):
    """A content file is invalid; the message names the file and the field."""


@dataclass
class Assignment:
    id: str
    title: str
    description: str = ""
    items: dict[str, Item] = field(default_factory=dict)

    @property
    def max_score(self) -> float:
        return float(sum(item.points for item in self.items.values()))


def load_assignment(path: Path, content_dir: Path) -> Assignment:
    """Parse and compile one assignment file. Raises :class:`ContentError`."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ContentError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not raw.get("id"):
        raise ContentError(f"{path}: id: required string")
    items_raw = raw.get("items")
    if not isinstance(items_raw, list) or not items_raw:
        raise ContentError(f"{path}: items: required non-empty list")
    assignment = Assignment(id=raw["id"], title=str(raw.get("title", raw["id"])),
                            description=str(raw.get("description", "")))
    for index, item_raw in enumerate(items_raw):
        where = f"{path}: items[{index}]"
        if not isinstance(item_raw, dict):
            raise ContentError(f"{where}: must be a mapping")
        item_id, kind_name = item_raw.get("id"), item_raw.get("kind")
        if not isinstance(item_id, str) or not item_id:
            raise ContentError(f"{where}.id: required string")
        if item_id in assignment.items:
            raise ContentError(f"{where}.id: duplicate item id {item_id!r}")
        try:
            kind = get_kind(kind_name)
        except KeyError:
            raise ContentError(f"{where}.kind: unknown kind {kind_name!r}") from None
        try:
            assignment.items[item_id] = kind.load(item_id, item_raw, content_dir)
        except (ValueError, KeyError, TypeError) as exc:
            raise ContentError(f"{where} ({item_id}): {exc}") from exc
    return assignment


def load_catalog(content_dir: str | Path) -> dict[str, Assignment]:
    """Every assignment under ``content_dir/assignments``, keyed by id."""
    content_dir = Path(content_dir)
    catalog: dict[str, Assignment] = {}
    for path in sorted((content_dir / "assignments").glob("*.y*ml")):
        assignment = load_assignment(path, content_dir)
        if assignment.id in catalog:
            raise ContentError(f"{path}: duplicate assignment id {assignment.id!r}")
        catalog[assignment.id] = assignment
    return catalog


def public_assignment(assignment: Assignment) -> dict[str, Any]:
    """What learners may see: prompts, points and each kind's public view; never keys or hidden
    tests."""
    return {
        "id": assignment.id,
        "title": assignment.title,
        "description": assignment.description,
        "max_score": assignment.max_score,
        "items": [
            {"id": item.id, "kind": item.kind, "prompt": item.prompt, "points": item.points,
             **get_kind(item.kind).public_view(item)}
            for item in assignment.items.values()
        ],
    }
