"""The one interface every item kind implements (code problem, rubric-scored text, choice).

Modelled on CTFd's challenge types: each kind is a class with the same small interface, registered
in one dictionary (:mod:`grader.items`), so adding a kind touches one place.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from grader.results import ItemResult


@dataclass
class Item:
    """One gradable item of an assignment, as loaded from ``rubrics/``.

    ``spec`` holds the kind-specific, trusted content (answer key, rubric, problem id, limits). It is
    never sent to learners; :meth:`ItemKind.public_view` decides what is.
    """

    id: str
    kind: str
    prompt: str
    points: float
    spec: dict[str, Any] = field(default_factory=dict)
    compiled: Any = None  # kind-specific compiled form (e.g. a compiled rubric), built once at load


@dataclass
class GradingContext:
    """What a kind needs besides the item and the response.

    ``seed`` draws the hidden inputs of code items; it is derived from a server secret and the
    submission id, so the learner never sees it and a regrade draws the same inputs.
    ``sandbox`` is a :class:`grader.sandbox.Sandbox` (only code items use it).
    ``deadline`` (``time.monotonic()`` seconds) bounds the sandbox time of the whole submission:
    each code item's run ends by then (:data:`MIN_ITEM_RUN_SECONDS` at least), so one learner's
    hanging code cannot hold a worker for every item's full limits in turn.
    """

    seed: int
    sandbox: Any = None
    settings: dict[str, Any] = field(default_factory=dict)
    deadline: float | None = None


#: A code item's run may always last this long, even past a submission's deadline (seconds).
MIN_ITEM_RUN_SECONDS = 6.0


class ItemKind(Protocol):
    """A kind of item. Implementations live in ``grader/items/<kind>.py``."""

    kind: str

    def load(self, item_id: str, raw: dict[str, Any], content_dir: Path) -> Item:
        """Build an :class:`Item` from its YAML/JSON document. Raises ``ValueError`` naming the field."""

    def public_view(self, item: Item) -> dict[str, Any]:
        """The fields a learner may see (prompt, options, function contract, starter code)."""

    def validate_response(self, item: Item, response: dict[str, Any]) -> str | None:
        """Return an error message when the response has the wrong shape for this kind, else None."""

    def grade(self, item: Item, response: dict[str, Any], ctx: GradingContext) -> ItemResult:
        """Grade one response. Raises :class:`grader.results.InfrastructureError` for faults that are
        not the learner's."""
