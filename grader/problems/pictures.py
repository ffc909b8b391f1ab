"""Pictures of a learner's function on the VISIBLE examples, for the result page's heatmaps.

A learner would rather look than read: the result page draws the learner's matrix beside the
expected one (``grader/web/heatmap.py``), so a causal-mask leak (weight above the diagonal) or a
softmax over the wrong axis (columns, not rows, summing to 1) shows at a glance. Only the inputs of
the problem's visible examples are used, never hidden ones, and only the expected values the
learner can already see on the assignment page (``public_view``).

What is drawn is declared by each problem (:class:`grader.problems.spec.Picture`):

- ``call="identity_values"`` (scaled dot-product attention): the attention weights. The learner's
  function is called on the example's Q, K (and mask) with V = the identity matrix of size Lk,
  whose output ``weights @ I`` IS the weight matrix, so it works when the learner returns only
  the output. Batched examples show batch element 0.
- ``call="example"``: the example's own output matrix (a 1-D output as one row; a mask as
  True = 1).
- ``call="squeezed"``: the example's own output with its length-1 axes removed (grouped-query
  attention's (H, 1, G) output on one-hot values is the head-to-group map, (H, G)).

The expected matrix is the reference's value on the picture's call, from the problem's executor
(:mod:`grader.problems.executor`); nothing here calls an implementation.

The picture calls run in the one sandbox run after the visible examples and BEFORE any hidden test
(whose inputs the learner's process does not hold yet: ``Call.secret``), so a picture cannot carry
a hidden input; they are ``Call.optional`` (a picture that stops its process costs no limit and
the other pictures are skipped) and capped in size like the tests' returns; :func:`split` removes
them from the run the tests see. Pictures earn nothing and never change a score. :func:`draw`
turns the picture calls' outcomes into JSON-safe dicts for the item result's
``extra_data["pictures"]``.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from grader.budget import NO_BUDGET, CpuBudget
from grader.problems.base import REFERENCE, Case, CodeProblem
from grader.problems.caps import result_cap
from grader.problems.compare import as_array, split_return
from grader.problems.spec import Picture
from grader.sandbox.api import Call, CallOutcome, RunResult

#: Test names of picture calls start with this (:func:`split` recognises a picture's stop by
#: it, in ``RunResult.stopped_test`` and ``StoppedTest.test``).
PREFIX = "picture: "
MAX_CELLS = 400  # a picture larger than this is not drawn


@dataclass(frozen=True)
class Plan:
    """One picture: the call to make, the expected matrix (2-D), what it shows and how to read
    the learner's value. ``scale`` is ``unit`` (0..1) or ``diverging`` (signed values)."""

    call: Call
    example: str
    shows: str  # "weights" | "output" | "mask" | "encoding"
    expected: np.ndarray
    scale: str
    rows: str  # axis names, e.g. "query" / "key"
    columns: str
    pick: Callable[[Any], Any]
    canonical: tuple = ((), {})  # the canonical (args, kwargs) of ``call``


def _as_matrix(value: Any) -> np.ndarray | None:
    array = as_array(value)
    if array is None:
        return None
    return array.reshape(1, -1) if array.ndim == 1 else array


def _output(value: Any) -> Any:
    """The output: an array, the first of (output, weights) or of three or more results."""
    if isinstance(value, tuple) and len(value) > 2:
        return value[0]
    return split_return(value)[0]


def _nth(index: int) -> Callable[[Any], Any]:
    """Picks result ``index`` of a function that returns several (None when the value is not a
    tuple or list that long)."""
    def pick(value: Any) -> Any:
        if isinstance(value, (tuple, list)) and len(value) > index:
            return value[index]
        return None

    return pick


def _first_batch(value: Any) -> Any:
    array = as_array(_output(value))
    return None if array is None else array.reshape(-1, *array.shape[-2:])[0] \
        if array.ndim > 2 else array


def _squeezed(value: Any) -> Any:
    array = as_array(_output(value))
    return None if array is None else np.squeeze(array)


def _identity_values(args: tuple) -> tuple:
    """The example's (Q, K, V[, mask]) with V replaced by the identity of size Lk (per batch)."""
    K = np.asarray(args[1])
    n_keys = K.shape[-2]
    identity = np.broadcast_to(np.eye(n_keys), K.shape[:-2] + (n_keys, n_keys)).copy()
    return (args[0], args[1], identity, *args[3:])


def _picture_case(case: Case, args: tuple, kwargs: dict) -> Case:
    return replace(case, name=PREFIX + case.name, calls=((args, kwargs),),
                   key=(case.key[0], None, PREFIX + case.name), rows=())


def _drawn(picture: Picture, case: Case) -> Case | None:
    """The case of ``picture`` drawn for the visible example ``case`` (None: not drawable)."""
    if len(case.calls) != 1:
        return None
    args, kwargs = case.calls[0]
    if picture.call == "identity_values":
        args = _identity_values(args)
    return _picture_case(case, tuple(args), dict(kwargs))


def reference_cases(problem: CodeProblem) -> list[Case]:
    """The cases whose reference values the pictures read (an executor that computes values
    ahead, :mod:`grader.problems.authored.executor`, prepares them with the visible examples)."""
    found = (_drawn(picture, case) for picture in problem.pictures
             for case in problem.visible_cases())
    return [case for case in found if case is not None]


def _plan(problem: CodeProblem, picture: Picture, case: Case) -> Plan | None:
    drawn = _drawn(picture, case)
    if drawn is None:
        return None
    args, kwargs = drawn.calls[0]
    pick = {"identity_values": _first_batch, "squeezed": _squeezed}.get(picture.call, _output)
    if picture.result is not None:
        pick = _nth(picture.result)
    example = case.name
    value, error = problem.executor.values(REFERENCE, drawn)[0]
    if error is not None:
        return None
    expected = _as_matrix(pick(value))
    if expected is None or expected.ndim != 2:
        return None
    if picture.call == "identity_values" and np.ndim(_output(value)) > 2:
        example += " (batch element 0)"
    elif picture.call in ("example", "squeezed"):
        expected = np.round(expected, 6)  # as the example's public expected output
    sent, sent_kwargs = (args, kwargs) if problem.course is None else \
        problem.course.call(tuple(args), dict(kwargs))
    call = Call(drawn.name, problem.function, tuple(sent), dict(sent_kwargs), optional=True,
                max_result_bytes=result_cap(value, (args, kwargs)))
    return Plan(call, example, picture.shows, expected, picture.scale, picture.rows,
                picture.columns, pick, drawn.calls[0])


_PLANS: "weakref.WeakKeyDictionary[CodeProblem, list[Plan]]" = weakref.WeakKeyDictionary()


def plans(problem: CodeProblem) -> list[Plan]:
    """The pictures of ``problem`` (visible examples only). They depend on the problem alone, so
    they are made once per process; their arrays are read-only copies."""
    key = problem  # weakly: an uploaded problem's version compiled again is another problem
    if key not in _PLANS:
        made = [_plan(problem, picture, case) for picture in problem.pictures
                for case in problem.visible_cases()]
        _PLANS[key] = [_read_only(plan) for plan in made if plan is not None]
    return _PLANS[key]


def _frozen_array(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.flags.writeable = False
    return value


def _read_only(plan: Plan) -> Plan:
    call = replace(plan.call, args=tuple(_frozen_array(a) for a in plan.call.args),
                   kwargs={k: _frozen_array(v) for k, v in plan.call.kwargs.items()})
    return replace(plan, call=call, expected=_frozen_array(plan.expected))


def calls(problem: CodeProblem) -> list[Call]:
    """The picture calls, to make after the visible examples and before any hidden test."""
    return [plan.call for plan in plans(problem)]


def canonical(problem: CodeProblem, outcomes: list) -> list:
    """The picture calls' ``outcomes`` with their values in canonical form (the problem's
    course adapter, :mod:`grader.problems.course.adapter`; unchanged without one)."""
    if problem.course is None:
        return outcomes
    found = list(outcomes)
    for index, plan in enumerate(plans(problem)[:len(found)]):
        args, kwargs = plan.canonical
        found[index] = problem.course.outcome(found[index], args, kwargs, False, plan.call.args)
    return found


def split(run: RunResult, n_visible: int, n_pictures: int) -> tuple[RunResult, list]:
    """Split a run of ``n_visible`` visible test calls, then ``n_pictures`` picture calls, then
    the hidden test calls into ``(the run as the tests see it, the picture calls' outcomes)``.

    The tests see their own calls in order, and only the stops of test calls: a picture that
    stopped its process (a ``Call.optional`` call, which costs no limit) leaves no trace in the
    tests' run (status, message, stopped tests), as if no picture had been drawn."""
    pictures = list(run.calls[n_visible:n_visible + n_pictures])
    calls = list(run.calls[:n_visible]) + list(run.calls[n_visible + n_pictures:])
    stops = [stop for stop in run.stopped_tests if not stop.test.startswith(PREFIX)]
    summary = run  # whose status, message, stopped test, limit, line and broken stream the tests see
    if len(stops) != len(run.stopped_tests) or (run.stopped_test or "").startswith(PREFIX):
        if stops:
            summary = RunResult("crashed" if stops[0].kind == "result_too_large" else
                                stops[0].kind, message=stops[0].message,
                                stopped_test=stops[0].test, limit=stops[0].limit)
        elif run.status in ("timeout", "memory_limit", "crashed", "output_limit") and \
                not any(outcome.status == "skipped" for outcome in calls):
            summary = RunResult("ok")
    tests = RunResult(status=summary.status, calls=calls, message=summary.message,
                      stdout=run.stdout, visible_stdout=run.visible_stdout,
                      seconds=run.seconds, stopped_tests=stops,
                      gave_up=run.gave_up, later_seconds=run.later_seconds,
                      stopped_test=summary.stopped_test,
                      limit=summary.limit, line=summary.line,
                      broken_stream=summary.broken_stream)
    return tests, pictures


def _json_matrix(matrix: np.ndarray) -> list[list[float | str]]:
    """Rows of floats rounded to 4 decimals; NaN and inf as the strings "nan", "inf", "-inf"
    (JSON and PostgreSQL's json type have no NaN)."""
    def cell(value: float) -> float | str:
        if np.isnan(value):
            return "nan"
        if np.isinf(value):
            return "inf" if value > 0 else "-inf"
        return round(float(value), 4)
    return [[cell(v) for v in row] for row in np.asarray(matrix, dtype=np.float64)]


def _finding(learner: np.ndarray, expected: np.ndarray, shows: str) -> str:
    """One sentence comparing the learner's matrix with the expected one."""
    with np.errstate(invalid="ignore"):
        difference = np.abs(learner - expected)
    if not np.all(np.isfinite(learner)):
        return f"Your {shows} contain NaN or inf values (grey cells)."
    if np.allclose(learner, expected, rtol=1e-4, atol=1e-5):
        return f"Your {shows} match the expected {shows}."
    i, j = np.unravel_index(int(np.argmax(difference)), difference.shape)
    return (f"Your {shows} differ from the expected {shows}: the largest difference is "
            f"{difference[i, j]:.2f}, at row {i}, column {j}.")


def _outcome_note(outcome: CallOutcome | None) -> str:
    if outcome is None or outcome.status == "skipped":
        return "Your function was not called for this picture (the run stopped earlier)."
    if outcome.status == "timeout":
        return "Your function ran out of time on this example."
    first = (outcome.error or outcome.status).strip().splitlines()
    reason = first[0][:200] if first else outcome.status
    return f"Your function did not return a value for this example: {reason}."


def draw(problem: CodeProblem, outcomes: list[CallOutcome | None]) -> list[dict[str, Any]]:
    """The pictures for ``extra_data["pictures"]`` from the picture calls' ``outcomes`` (in
    :func:`calls` order; missing ones count as not run). Each is ``{"example", "shows", "scale",
    "rows", "columns", "expected", "learner" (None when there is nothing to draw), "finding"}``
    with matrices as lists of rows."""
    pictures = []
    course = problem.course  # a course's convention (grader/problems/course/): drawn its way
    form = course.picture if course is not None else (lambda matrix: matrix)
    for index, plan in enumerate(plans(problem)):
        outcome = outcomes[index] if index < len(outcomes) else None
        learner, finding = None, ""
        expected = form(plan.expected)
        if outcome is not None and outcome.status == "ok":
            try:
                matrix = _as_matrix(plan.pick(outcome.value))
                matrix = form(matrix) if matrix is not None and matrix.ndim == 2 else matrix
            except (TypeError, ValueError):
                matrix = None
            if matrix is None:
                finding = "Your function's return value on this example is not an array of numbers."
            elif matrix.shape != expected.shape:
                finding = (f"Your {plan.shows} have shape {tuple(matrix.shape)}; the expected "
                           f"{plan.shows} have shape {tuple(expected.shape)}, so they "
                           "cannot be drawn side by side.")
            elif matrix.size > MAX_CELLS:
                finding = f"Your {plan.shows} are too large to draw."
            else:
                learner = matrix
                finding = _finding(matrix, expected, plan.shows)
        else:
            finding = _outcome_note(outcome)
        pictures.append({"example": plan.example, "shows": plan.shows, "scale": plan.scale,
                         "rows": plan.rows, "columns": plan.columns,
                         "expected": _json_matrix(expected),
                         "learner": None if learner is None else _json_matrix(learner),
                         "finding": finding})
    return pictures


def draw_outcomes(problem: CodeProblem, outcomes: list,
                  budget: CpuBudget = NO_BUDGET) -> list[dict]:
    """:func:`draw` on the picture calls' outcomes. Never raises but for ``budget`` running out
    (:class:`~grader.budget.BudgetExceeded`): a picture that cannot be made is left out
    (pictures never cost a grading)."""
    budget.check("the pictures")
    try:
        return draw(problem, list(outcomes))
    except Exception:  # noqa: BLE001 - a picture is a courtesy, never a reason to fail grading
        return []
