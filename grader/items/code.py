"""The ``code`` item kind: a learner implements one function of :data:`grader.problems.PROBLEMS`.

Item YAML: ``{id, kind: code, points, problem: <problem id>, limits: {wall_seconds: 5, ...,
imports: [scipy]}, contract: {function: ..., mask: blocked, ...}, prompt: optional}``
(``contract``: a built-in problem in a course's own conventions, :mod:`grader.problems.course`;
``limits.imports``: modules the learner's code may import besides NumPy and the standard
library, checked against what is installed when the item is loaded). ``problem`` names a
built-in problem or, in a course's assignment, one of the course's authored problems (``<id>`` pins its newest version when the assignment is saved, ``<id>@<n>``
version n), which the API inlines (:func:`grader.problems.authored.registry.inline`). Grading runs every call of the problem's visible and hidden cases in one run of
``ctx.sandbox`` and judges the values in the trusted process (:mod:`grader.problems.scoring`).
"""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from grader.budget import NO_BUDGET
from grader.items.base import MIN_ITEM_RUN_SECONDS, BaseKind, GradingContext, Item
from grader.items.notebook import NotebookError, notebook_source
from grader.problems import PROBLEMS, course, examples, scoring
from grader.problems.authored import pool, registry
from grader.problems.authored.schema import DocumentError
from grader.problems.base import CodeProblem
from grader.problems.course.options import ContractOptionError
from grader.results import InfrastructureError, ItemResult
from grader.sandbox.api import Limits

MAX_SOURCE_CHARS = 100_000


#: The feedback of a code response that is empty or only white space (scored 0, nothing run).
EMPTY_CODE = "The code submitted is empty, so nothing was run and it scores 0."


def problem_of(item: Item) -> CodeProblem:
    """The compiled problem of a code item: an authored one it holds, or a built-in one."""
    if isinstance(item.compiled, CodeProblem):
        return item.compiled
    return PROBLEMS[item.spec["problem"]]


class CodeKind(BaseKind):
    """Implements :class:`grader.items.base.ItemKind` for code problems."""

    kind = "code"
    title = "Code"
    response_field = "code"
    fields = frozenset({"problem", "limits", "contract"})
    has_hidden_tests = True

    def build(self, item_id: str, raw: dict[str, Any], points: float, content_dir: Path) -> Item:
        """Raises ``ValueError`` naming the field (``problem``, ``limits``;
        :class:`ContractOptionError` for ``contract.<key>``)."""
        problem_id = raw.get("problem")
        compiled = None
        if registry.is_inline(problem_id):
            try:
                compiled = registry.compiled(problem_id)
            except DocumentError as exc:
                raise ValueError(f"problem: {exc}") from None
            problem_id = registry.label(problem_id)
        elif problem_id not in PROBLEMS:
            raise ValueError(f"problem: unknown problem {problem_id!r} "
                             f"(known: {', '.join(sorted(PROBLEMS))})")
        limits_raw = raw.get("limits")
        if limits_raw is not None and not isinstance(limits_raw, dict):
            raise ValueError("limits: must be a mapping")
        try:
            limits = Limits.from_dict(limits_raw)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"limits: {exc}") from exc
        options: dict[str, Any] = {}
        if "contract" in raw:
            if compiled is not None:
                raise ContractOptionError("contract", "options apply to the built-in problems "
                                                      "only; a course's own problem states its "
                                                      "contract itself")
            options = course.options_of(PROBLEMS[problem_id], raw["contract"])
            if options:
                compiled = course.compile_course(PROBLEMS[problem_id], options)
        problem = compiled or PROBLEMS[problem_id]
        return Item(id=item_id, kind=self.kind, prompt=str(raw.get("prompt") or problem.title),
                    points=points, spec={"problem": problem_id, "limits": limits,
                                         **({"contract": options} if options else {})},
                    compiled=compiled)

    def public_fields(self, item: Item) -> dict[str, Any]:
        """Function name, contract, starter, the visible examples (inputs and expected values),
        the modules the code may import besides NumPy and the standard library and, for an item
        with ``contract:`` options, those that differ from today's (``contract_options``); never
        hidden inputs or expected values."""
        problem = problem_of(item)
        found = {"problem": problem.id, "function": problem.function,
                 "contract": problem.contract, "starter": problem.starter,
                 "visible_tests": examples.public_examples(problem),
                 "imports": list(item.spec["limits"].imports)}
        if item.spec.get("contract"):  # the item's contract options that differ from today's
            found["contract_options"] = {key: list(value) if isinstance(value, tuple) else value
                                         for key, value in item.spec["contract"].items()}
        return found

    def validate_response(self, item: Item, response: dict[str, Any]) -> str | None:
        """``{"code": "<source>"}``, or ``{"notebook": <.ipynb as JSON or text>}``
        (:mod:`grader.items.notebook`): the reason a response is neither, naming the field."""
        if not isinstance(response, dict) or set(response) not in ({"code"}, {"notebook"}):
            return ("a code response must be an object with exactly one field, 'code' (the "
                    "source) or 'notebook' (a Jupyter notebook, as JSON or as its text)")
        try:
            source, _notes = response_source(response)
        except NotebookError as exc:
            return str(exc)
        if not isinstance(source, str):
            return "code: must be a string"
        if len(source) > MAX_SOURCE_CHARS:
            field = "code" if "code" in response else "notebook: its code"
            return f"{field} is {len(source)} characters long; the limit is {MAX_SOURCE_CHARS}"
        return None

    def grade(self, item: Item, response: dict[str, Any], ctx: GradingContext) -> ItemResult:
        """Raises :class:`InfrastructureError` when there is no sandbox or it reports a fault,
        :class:`~grader.budget.BudgetExceeded` when ``ctx.budget`` runs out."""
        if ctx.sandbox is None:
            raise InfrastructureError("no sandbox available to run code")
        error = self.validate_response(item, response)
        if error:
            return ItemResult(item_id=item.id, kind=self.kind, score=0.0, max_score=item.points,
                              output=f"Not graded: {error}.")
        source, notes = response_source(response)
        if not source.strip():  # nothing to run: say so instead of "not defined" x N
            return ItemResult(item_id=item.id, kind=self.kind, score=0.0, max_score=item.points,
                              output="\n".join(filter(None, [notes, EMPTY_CODE])))
        problem = problem_of(item)
        limits = item.spec["limits"]
        sandbox = ctx.sandbox
        if ctx.runs is not None:  # the submission's budget, shared by its code items
            applied = ctx.runs.limits(limits)
            if applied is None:
                return ItemResult(item_id=item.id, kind=self.kind, score=0.0,
                                  max_score=item.points,
                                  output=f"Not run: {ctx.runs.reason()}.")
            limits, sandbox = applied, _LearnerRun(ctx.sandbox, applied, ctx.runs)
        elif ctx.deadline is not None:  # a deadline alone: each item ends by it
            left = max(MIN_ITEM_RUN_SECONDS, ctx.deadline - time.monotonic())
            limits = replace(limits, run_wall_seconds=min(limits.run_wall_seconds, left))
        recorded = ctx.seeds.get(item.id)
        if recorded is not None or ctx.seed_pool:
            seed, record = pool.seed_for(problem, ctx.seed, recorded, ctx.sandbox,
                                         shared=ctx.shared_seed)
            if record and seed == ctx.shared_seed:
                problem.keep(seed)  # its draw and values serve every grading of the seed
        else:  # a regrade of a grading that drew from its own seed, or ``grader grade``
            seed, record = ctx.seed, False
        result = scoring.grade(problem, item.id, item.points, source, sandbox, limits,
                               seed, budget=ctx.budget or NO_BUDGET)
        if record:  # a regrade draws the same inputs (grader/problems/authored/pool.py)
            result.extra_data[pool.SEED_KEY] = seed
        if notes:
            result.output = notes + "\n" + result.output
        return result


class _LearnerRun:
    """``sandbox`` for one code item's grading: the learner's run (the one made with the item's
    ``limits``, not an uploaded problem's reference runs) is recorded in the submission's
    ``budget``, so that a stopped test tightens the later items' limits."""

    def __init__(self, sandbox: Any, limits: Limits, budget: Any):
        self.sandbox, self.limits, self.budget = sandbox, limits, budget

    def run(self, source: str, calls, limits: Limits):
        result = self.sandbox.run(source, calls, limits)
        if limits is self.limits:
            self.budget.record(result)
        return result

    def __getattr__(self, name: str):
        return getattr(self.sandbox, name)


def response_source(response: dict[str, Any]) -> tuple[Any, str]:
    """``(source, notes)`` of a code response: its ``code`` as given (notes empty), or the
    Python read from its ``notebook`` and what was dropped
    (:meth:`grader.items.notebook.NotebookSource.notes`). Raises
    :class:`~grader.items.notebook.NotebookError` for a notebook that cannot be read."""
    if "notebook" in response:
        found = notebook_source(response["notebook"])
        return found.source, found.notes()
    return response["code"], ""
