"""Loads the built-in content (assignments and their items) from ``rubrics/`` at start.

Layout: ``rubrics/assignments/<assignment_id>.yaml`` holds ``{id, title, description, items: [...]}``;
each item mapping has ``id``, ``kind`` (a name in the registry :func:`grader.items.kinds`),
``points`` and the fields of its kind (see ``grader/items/<kind>.py``). Rubric documents referenced by text items live in
``rubrics/text/``. Content is compiled once here, not per submission.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from grader.deadlines import LatePolicy, shown_due
from grader.ids import ID
from grader.items import Item, get_kind, unknown_kind_message
from grader.items.base import MAX_POINTS, points_problem
from grader.problems.builtin import FAMILY_ASSIGNMENT, family_assignment
from grader.problems.course.options import ContractOptionError
from grader.rubric.refs import follows_latest, parse_ref


#: How an item's hidden tests are shown: ``hidden`` (name, points, pass/fail and diagnosis, never
#: inputs), or ``after_due_date`` (only name, points and pass/fail until the assignment's due date).
HIDDEN_TEST_MODES = ("hidden", "after_due_date")

#: Which attempt of a learner counts (an assignment's ``attempt_policy``): ``latest`` (the latest
#: graded one: the default, as before), ``best`` (the graded one with the highest score) or
#: ``best_per_item`` (each item's best score over the graded attempts, added up); see
#: :func:`grader.grading.attempts.counted_attempts`.
ATTEMPT_POLICIES = ("latest", "best", "best_per_item")


__all__ = ["ATTEMPT_POLICIES", "Assignment", "Catalog", "ContentError", "HIDDEN_TEST_MODES",
           "MAX_POINTS", "builtin_document", "compile_assignment", "load_assignment",
           "load_catalog", "public_assignment"]


class ContentError(ValueError):
    """A content file is invalid; the message names the file and the field."""


@dataclass
class Assignment:
    """A compiled assignment. Built-in ones have ``course_id`` ``None`` and version 0;
    instructor-made ones belong to a course and count versions from 1."""

    id: str
    title: str
    description: str = ""
    items: dict[str, Item] = field(default_factory=dict)
    course_id: str | None = None
    version: int = 0
    due_at: str | None = None
    callback_url: str | None = None
    #: learners may open it (a draft is seen by instructors only); every assignment stored before
    #: drafts existed is published
    published: bool = True
    attempt_policy: str = "latest"
    late_policy: LatePolicy = field(default_factory=LatePolicy)

    @property
    def max_score(self) -> float:
        return float(sum(item.points for item in self.items.values()))


def load_assignment(path: Path, content_dir: Path) -> Assignment:
    """Parse and compile one assignment file. Raises :class:`ContentError`."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ContentError(f"{path}: not valid YAML: {exc}") from exc
    return compile_assignment(raw, content_dir, where=str(path))


def compile_assignment(raw: Any, content_dir: Path, where: str = "assignment",
                       course_id: str | None = None, version: int = 0) -> Assignment:
    """Compile an assignment mapping (the layout of the content files) with every item's kind.
    Raises :class:`ContentError` whose message names the field at fault."""
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not raw.get("id"):
        raise ContentError(f"{where}: id: required string")
    items_raw = raw.get("items")
    if not isinstance(items_raw, list) or not items_raw:
        raise ContentError(f"{where}: items: required non-empty list")
    published = raw.get("published", True)
    if published is None:
        published = True
    if not isinstance(published, bool):
        raise ContentError(f"{where}: published: true or false")
    policy = raw.get("attempt_policy") or "latest"
    if policy not in ATTEMPT_POLICIES:
        raise ContentError(f"{where}: attempt_policy: one of {', '.join(ATTEMPT_POLICIES)}")
    try:
        late_policy = LatePolicy.from_mapping(raw.get("late_policy"))
    except ValueError as exc:
        raise ContentError(f"{where}: late_policy.{exc}" if ":" in str(exc).split(" ")[0]
                           else f"{where}: late_policy: {exc}") from None
    assignment = Assignment(id=raw["id"], title=str(raw.get("title", raw["id"])),
                            description=str(raw.get("description", "")), course_id=course_id,
                            version=version, due_at=raw.get("due_at"),
                            callback_url=raw.get("callback_url"), published=published,
                            attempt_policy=policy, late_policy=late_policy)
    for index, item_raw in enumerate(items_raw):
        here = f"{where}: items[{index}]"
        if not isinstance(item_raw, dict):
            raise ContentError(f"{here}: must be a mapping")
        item_id, kind_name = item_raw.get("id"), item_raw.get("kind")
        if not isinstance(item_id, str) or not ID.match(item_id):
            raise ContentError(f"{here}.id: required, 1-100 of letters, digits, '.', '_', '-'")
        if item_id in assignment.items:
            raise ContentError(f"{here}.id: duplicate item id {item_id!r}")
        try:
            kind = get_kind(kind_name)
        except (KeyError, TypeError):
            raise ContentError(f"{here}.kind: {unknown_kind_message(kind_name)}") from None
        unknown = sorted(set(item_raw) - kind.allowed_fields)
        if unknown:
            raise ContentError(f"{here}.{unknown[0]}: unknown field for a {kind_name} item (allowed: "
                               f"{', '.join(sorted(kind.allowed_fields))})")
        problem = points_problem(item_raw.get("points"))
        if problem:
            raise ContentError(f"{here}.{problem}")
        hidden_tests = item_raw.get("hidden_tests", "hidden")
        if hidden_tests not in HIDDEN_TEST_MODES:
            raise ContentError(f"{here}.hidden_tests: one of {', '.join(HIDDEN_TEST_MODES)}")
        if hidden_tests != "hidden" and not kind.has_hidden_tests:
            raise ContentError(f"{here}.hidden_tests: only code items have hidden tests")
        loadable = {k: v for k, v in item_raw.items() if k != "hidden_tests"}
        try:
            item = kind.load(item_id, loadable, content_dir)
        except ContractOptionError as exc:  # items[2].contract.mask: must be one of ...
            raise ContentError(f"{here}.{exc.field}: {exc.reason}") from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise ContentError(f"{here} ({item_id}): {exc}") from exc
        item.spec["hidden_tests"] = hidden_tests
        assignment.items[item_id] = item
    return assignment


def builtin_document(content_dir: str | Path, assignment_id: str) -> dict[str, Any]:
    """The source mapping of built-in assignment ``assignment_id`` as its file holds it (what a
    course copy starts from), or the generated one of every built-in problem
    (:func:`grader.problems.builtin.family_assignment`). Raises ``KeyError`` when none has that
    id."""
    if assignment_id == FAMILY_ASSIGNMENT:
        return family_assignment()
    for path in sorted((Path(content_dir) / "assignments").glob("*.y*ml")):
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(raw, dict) and raw.get("id") == assignment_id:
            return raw
    raise KeyError(assignment_id)


def load_catalog(content_dir: str | Path) -> dict[str, Assignment]:
    """Every assignment under ``content_dir/assignments``, and the generated one of every
    built-in problem, keyed by id."""
    content_dir = Path(content_dir)
    catalog: dict[str, Assignment] = {}
    for path in sorted((content_dir / "assignments").glob("*.y*ml")):
        assignment = load_assignment(path, content_dir)
        if assignment.id in catalog or assignment.id == FAMILY_ASSIGNMENT:
            raise ContentError(f"{path}: duplicate assignment id {assignment.id!r}")
        catalog[assignment.id] = assignment
    catalog[FAMILY_ASSIGNMENT] = compile_assignment(family_assignment(), content_dir,
                                                    f"built-in assignment {FAMILY_ASSIGNMENT}")
    return catalog


class Catalog:
    """Where grading and the API find assignments: a course's own (versioned, in the store) first,
    then the built-in ones loaded from files. Compiled assignments are cached per version."""

    def __init__(self, builtins: dict[str, Assignment], content_store, content_dir: Path):
        self.builtins = builtins
        self.content_store = content_store
        self.content_dir = Path(content_dir)
        self._compiled: dict[tuple[str, str, int], Assignment] = {}

    def get(self, course_id: str | None, assignment_id: str, version: int | None = None
            ) -> Assignment | None:
        """The assignment visible to ``course_id`` (latest version unless ``version`` is given)."""
        if course_id is not None and self.content_store is not None and assignment_id not in \
                self.builtins:
            record = self.content_store.assignment(course_id, assignment_id,
                                                   version if version else None)
            if record is not None:
                document, following = self.follow_latest(course_id, record.document)
                document = self.with_problems(course_id, document)
                key = (course_id, assignment_id, record.version, tuple(sorted(following.items())))
                if key not in self._compiled:
                    compiled = compile_assignment(
                        document, self.content_dir, where=f"assignment {assignment_id}",
                        course_id=course_id, version=record.version)
                    for item_id in following:
                        compiled.items[item_id].spec["rubric_follows"] = "latest"
                    self._compiled[key] = compiled
                return self._compiled[key]
        return self.builtins.get(assignment_id)

    def follow_latest(self, course_id: str, document: dict[str, Any]
                      ) -> tuple[dict[str, Any], dict[str, int]]:
        """``document`` with every text item whose rubric is ``<id>@latest`` (a course rubric)
        given that rubric's newest version inline, and ``{item id: version}`` of those items
        (:mod:`grader.rubric.refs`). Items naming a built-in rubric keep their reference (the
        file is read as it is). Reads the store once per such item."""
        following: dict[str, int] = {}
        items = document.get("items") if isinstance(document, dict) else None
        if not isinstance(items, list) or not any(
                isinstance(i, dict) and follows_latest(i.get("rubric")) for i in items):
            return document, following
        resolved = []
        for item in items:
            if isinstance(item, dict) and item.get("kind") == "text" \
                    and follows_latest(item.get("rubric")):
                rubric_id = parse_ref(item["rubric"]).rubric_id
                record = self.content_store.rubric(course_id, rubric_id)
                if record is not None:
                    item = {**item, "rubric": {**record.document, "id": record.rubric_id,
                                               "version": record.version}}
                    following[item["id"]] = record.version
            resolved.append(item)
        return {**document, "items": resolved}, following

    def with_problems(self, course_id: str, document: dict[str, Any]) -> dict[str, Any]:
        """``document`` with every code item whose problem is a course's authored one, pinned as
        ``<id>@<version>`` (``grader.api.problems.resolve_problems``), given that version inline
        (:func:`grader.problems.authored.registry.inline`: the document and the values stored
        with it). A pin that names no stored version is left for the code kind to refuse.
        Reads the store once per such item."""
        from grader.problems import PROBLEMS
        from grader.problems.authored.registry import inline

        items = document.get("items") if isinstance(document, dict) else None
        if not isinstance(items, list) or self.content_store is None:
            return document
        resolved, changed = [], False
        for item in items:
            ref = item.get("problem") if isinstance(item, dict) else None
            if isinstance(item, dict) and item.get("kind") == "code":
                if isinstance(ref, str) and ref not in PROBLEMS and "@" in ref:
                    problem_id, _, version = ref.rpartition("@")
                    record = self.content_store.problem(course_id, problem_id, int(version)) \
                        if version.isdigit() else None
                    if record is not None:
                        item, changed = {**item, "problem": inline(record)}, True
            resolved.append(item)
        return {**document, "items": resolved} if changed else document

    def visible(self, course_id: str | None) -> list[Assignment]:
        """Built-in assignments and the latest version of each of the course's own."""
        own = []
        if course_id is not None and self.content_store is not None:
            own = [self.get(course_id, r.assignment_id) for r in
                   self.content_store.assignments(course_id)]
        return list(self.builtins.values()) + own


def public_assignment(assignment: Assignment, time_zone: str | None = None) -> dict[str, Any]:
    """What learners may see: prompts, points and each kind's public view; never keys or hidden
    tests. ``due_at`` is written with its UTC offset, read in ``time_zone`` (the course's; UTC
    when ``None``) when stored without one; ``time_zone`` is said too."""
    return {
        "id": assignment.id,
        "title": assignment.title,
        "description": assignment.description,
        "max_score": assignment.max_score,
        "version": assignment.version,
        "due_at": shown_due(assignment.due_at, time_zone),
        "time_zone": time_zone or "UTC",
        "published": assignment.published,
        "attempt_policy": assignment.attempt_policy,
        "late_policy": assignment.late_policy.to_dict(),
        "items": [get_kind(item.kind).public_view(item) for item in assignment.items.values()],
    }
