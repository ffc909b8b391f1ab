"""The one interface every item kind implements (code problem, rubric-scored text, choice), and
:class:`BaseKind`, which holds what kinds share.

Modelled on CTFd's challenge types (``BaseChallenge`` plus a registry dict): each kind is a class
with the same small interface, registered in one dictionary (:mod:`grader.items`), so adding a kind
touches one place. A kind subclasses :class:`BaseKind` and overrides only what differs: its
``kind`` name, its ``fields``, :meth:`BaseKind.build`, :meth:`BaseKind.public_fields`,
``validate_response`` and ``grade``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from grader.budget import CpuBudget
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
    ``budget`` bounds the CPU time of the trusted side's own work on the submission, all its
    items together (:class:`grader.budget.CpuBudget`, checked by the kinds' loops; past it they
    raise :class:`grader.budget.BudgetExceeded`); None: unbounded.
    ``runs`` (a :class:`grader.sandbox.shared_budget.SharedRunBudget` ending at ``deadline``) is
    shared by the submission's code items: once one of them had a stopped test, or once the
    deadline passed, the later ones run under the tighter per-test limits, and none starts
    more than :data:`SUBMISSION_OVERRUN_SECONDS` past the deadline (it is reported as not run).
    ``seeds``: the seeds an earlier grading of the submission recorded, by item id (an authored
    problem's seed taken from its pool, :mod:`grader.problems.authored.pool`): a regrade draws
    those items' inputs from them instead of ``seed``. ``seed_pool`` False: an item without a
    recorded seed draws from ``seed``, never from a pool (a regrade: its first grading did;
    ``grader grade``, whose ``--seed`` means what it says; no top-up either).
    ``shared_seed``: the seed a built-in problem's item without a recorded seed draws from
    instead of ``seed`` when ``seed_pool`` is True (one of a few seeds shared by all submissions,
    :func:`grader.grading.service.shared_seed`, recorded on the result); None: ``seed``.
    """

    seed: int
    sandbox: Any = None
    settings: dict[str, Any] = field(default_factory=dict)
    deadline: float | None = None
    budget: CpuBudget | None = None
    runs: Any = None
    seeds: dict[str, int] = field(default_factory=dict)
    seed_pool: bool = True
    shared_seed: int | None = None


#: A code item's run may always last this long, even past a submission's deadline (seconds).
MIN_ITEM_RUN_SECONDS = 6.0

#: No code item of a submission starts more than this long past its deadline (seconds): with the
#: 45 s budget, a submission holds the sandbox at most 45 + 15 + 6 = 66 s however many items hang.
SUBMISSION_OVERRUN_SECONDS = 15.0


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


#: The fields every item has, whatever its kind (an assignment file's item mapping).
COMMON_FIELDS = frozenset({"id", "kind", "points", "prompt", "hidden_tests"})
#: The most points one item may carry.
MAX_POINTS = 10_000


def points_problem(points: Any) -> str | None:
    """What is wrong with an item's ``points``, as ``"points: ..."`` (no item id: the caller adds
    the path), or ``None`` when it is a finite number greater than 0 and at most
    :data:`MAX_POINTS` (booleans are not numbers here)."""
    if isinstance(points, bool) or not isinstance(points, (int, float)) or \
            not math.isfinite(points) or not 0 < points <= MAX_POINTS:
        return f"points: required number greater than 0, at most {MAX_POINTS}"
    return None


class BaseKind:
    """The defaults every kind shares (CTFd's ``BaseChallenge``).

    A kind sets ``kind`` (its name in assignment files), ``title``, ``response_field``, ``fields`` (the fields its items may have
    besides :data:`COMMON_FIELDS`), ``required`` (those of them, or ``prompt``, that must be
    present) and ``has_hidden_tests``; it implements :meth:`build`, :meth:`public_fields`,
    ``validate_response`` and ``grade`` (see :class:`ItemKind`).
    """

    kind: str = ""
    #: the kind in words, for pages ("Explanation" for ``text``)
    title: str = ""
    #: a response is ``{response_field: <string>}`` (the form field and the CLI file fill it)
    response_field: str = ""
    fields: frozenset[str] = frozenset()
    required: tuple[str, ...] = ()
    #: whether items of this kind have hidden tests (and so the ``hidden_tests`` display modes)
    has_hidden_tests: bool = False

    @property
    def allowed_fields(self) -> frozenset[str]:
        """Every field an item of this kind may have (a typo is an error, never dropped)."""
        return COMMON_FIELDS | self.fields

    def load(self, item_id: str, raw: dict[str, Any], content_dir: Path) -> Item:
        """Check the required fields and the points, then :meth:`build` the item. Raises
        ``ValueError`` whose message starts with the field at fault and never repeats the item id
        (:func:`grader.content.compile_assignment` adds the path once)."""
        for name in self.required:
            if name not in raw:
                raise ValueError(f"missing field {name!r}")
        problem = points_problem(raw.get("points"))
        if problem:
            raise ValueError(problem)
        return self.build(item_id, raw, float(raw["points"]), content_dir)

    def build(self, item_id: str, raw: dict[str, Any], points: float, content_dir: Path) -> Item:
        """The kind's own part of :meth:`load`: ``points`` is checked already. Raises
        ``ValueError`` naming the field."""
        raise NotImplementedError

    def public_view(self, item: Item) -> dict[str, Any]:
        """What a learner may see of ``item``: ``id``, ``kind``, ``prompt``, ``points`` and the
        kind's :meth:`public_fields`; never ``spec`` itself."""
        return {"id": item.id, "kind": self.kind, "prompt": item.prompt, "points": item.points,
                **self.public_fields(item)}

    def public_fields(self, item: Item) -> dict[str, Any]:
        """The kind's own public fields (none by default)."""
        return {}
