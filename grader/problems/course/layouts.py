"""Multi-head attention written for another ``weights`` layout (issue 21, part 1's second gap).

Code written for one layout of the weights (``separate`` W_q, W_k, W_v, W_o; ``per-head``;
``fused`` W_qkv, b_qkv, W_o, b_o: :data:`~.options.HEAD_WEIGHTS`) and graded under another
mostly crashes on shapes, which alone does not prove which layout it follows. So for a course
whose layout is not today's, each visible example is also sent in every other layout, as
optional calls (:attr:`grader.sandbox.api.Call.optional`: they count towards no limit and
change no score) between the pictures and the hidden tests; their inputs are the visible
examples', which the learner sees anyway. :func:`name` names the layout only when it holds:
every visible example sent in one other layout came back right (the problem's own check on the
reference's values), and some visible example failed in the course's layout on the same inputs.
Then the code computes multi-head attention in that other layout, not in the course's, and every
failing test gets the :data:`TAG` message instead of a crash pattern's.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from grader.problems import pictures
from grader.problems.base import Case, CaseResult, CodeProblem
from grader.problems.caps import result_cap
from grader.problems.course import text, wording
from grader.problems.course.adapter import CourseAdapter
from grader.problems.course.options import HEAD_WEIGHTS
from grader.sandbox.api import Call, CallOutcome

#: The tag of code written for another weights layout.
TAG = "contract_weights_layout"

#: The probe calls' test names start with the pictures' prefix, so a stop in one is treated as
#: a picture's (:func:`grader.problems.pictures.split`).
PREFIX = pictures.PREFIX + "weights layout "

#: Each layout's weights as the contract writes them (canonical names).
LAYOUT_DOC = {"separate": "W_q, W_k, W_v, W_o, each (d_model, d_model)",
              **text.HEAD_WEIGHTS_DOC}

#: How the course's layout is used, by layout (renamed into the course's names).
LAYOUT_HINT = {
    "per-head": "head h's queries are X @ W_q[h], W_q[h] being (d_model, d_head), and the "
                "heads' outputs are concatenated before @ W_o",
    "fused": "Q, K, V = np.split(X @ W_qkv + b_qkv, 3, axis=-1), and the output is "
             "concat @ W_o + b_o",
}


@dataclass(frozen=True)
class Probe:
    """One visible example ``case`` sent in another ``layout``: the ``call`` made and the
    ``adapter`` that made it (it reads the return back into canonical form)."""

    layout: str
    case: Case
    call: Call
    adapter: CourseAdapter


def course_layout(problem: CodeProblem) -> str | None:
    """The course's weights layout when it is not today's (``per-head`` or ``fused``), else
    None (no probes)."""
    course = problem.course
    if course is None or course.kind != "mha":
        return None
    layout = course.options.get("weights")
    return layout if layout in ("per-head", "fused") else None


def _adapter(course: CourseAdapter, layout: str) -> CourseAdapter:
    options = {k: v for k, v in course.options.items() if k != "weights"}
    if layout != "separate":
        options["weights"] = layout
    return replace(course, options=options)


def probes(problem: CodeProblem, cases: list[Case], expected: dict[str, list[Any]]
           ) -> list[Probe]:
    """The probe calls of ``problem`` (none unless :func:`course_layout`): each visible example
    of ``cases`` with one call, in each other layout, in :data:`HEAD_WEIGHTS` order;
    ``expected`` are the cases' reference values (they bound each return's size)."""
    layout = course_layout(problem)
    if layout is None:
        return []
    found = []
    for other in (o for o in HEAD_WEIGHTS if o != layout):
        adapter = _adapter(problem.course, other)
        for case in cases:
            if not case.visible or case.wrapped or len(case.calls) != 1:
                continue
            args, kwargs = case.calls[0]
            sent, sent_kwargs = adapter.call(tuple(args), dict(kwargs))
            call = Call(f"{PREFIX}{other}: {case.name}", problem.function, tuple(sent),
                        dict(sent_kwargs), optional=True,
                        max_result_bytes=result_cap(expected[case.name][0], (args, kwargs)))
            found.append(Probe(other, case, call, adapter))
    return found


def _right(problem: CodeProblem, probe: Probe, outcome: CallOutcome | None,
           expected: list[Any]) -> bool:
    """The probe came back with the reference's value (the example's own check)."""
    args, kwargs = probe.case.calls[0]
    outcome = probe.adapter.outcome(outcome, args, kwargs, False, probe.call.args)
    if outcome is None or outcome.status != "ok":
        return False
    try:
        return problem.checks[probe.case.check]([outcome.value], expected, probe.case) is None
    except Exception:  # noqa: BLE001 - an odd learner value is simply not right
        return False


def layout_followed(problem: CodeProblem, results: list[CaseResult], made: list[Probe],
                    outcomes: list[CallOutcome | None]) -> str | None:
    """The other layout the learner's code follows, or None: every visible example came back
    right in that layout (all its probes), and some visible example failed in the course's
    (the same inputs: only the layout differs)."""
    visible = {r.case.name: r for r in results if r.case.visible}
    if not visible or all(r.passed for r in visible.values()):
        return None
    outcomes = list(outcomes) + [None] * (len(made) - len(outcomes))
    for other in HEAD_WEIGHTS:
        mine = [(p, o) for p, o in zip(made, outcomes) if p.layout == other]
        if mine and {p.case.name for p, _ in mine} == set(visible) and all(
                _right(problem, p, o, visible[p.case.name].expected) for p, o in mine):
            return other
    return None


def message(problem: CodeProblem, other: str) -> str:
    """The :data:`TAG` message: the learner's layout ``other`` and the course's (its names)."""
    layout = course_layout(problem)
    names = wording.names_of(problem.spec, problem.course)
    course = text.rename(f"{LAYOUT_DOC[layout]}: {LAYOUT_HINT[layout]}", names)
    return (f"Your function is written for weights in the {other} layout ({LAYOUT_DOC[other]}): "
            f"given the visible examples' weights that way it returns their expected output, "
            f"but this course's layout is {layout}, {course}. Take the parameters as this "
            f"course's signature gives them.")


def name(problem: CodeProblem, results: list[CaseResult], made: list[Probe],
         outcomes: list[CallOutcome | None]) -> None:
    """Name :data:`TAG` on every failing test (not one the credit rule withheld) when
    :func:`layout_followed` finds the layout: it replaces what the diagnosis said (a crash
    pattern, a mistake), since the code is right in that layout."""
    other = layout_followed(problem, results, made, outcomes) if made else None
    if other is None:
        return
    sentence = message(problem, other)
    for result in results:
        if not result.passed and not result.uncredited:
            result.diagnosis_tag, result.diagnosis = TAG, sentence
            result.also, result.signals = (), ""
