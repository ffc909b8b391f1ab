"""An authored problem document into the same :class:`grader.problems.spec.ProblemSpec` the
built-ins declare, compiled by :func:`grader.problems.compile.compile_problem` with a
:class:`grader.problems.authored.executor.SandboxExecutor`.

The mapping: each category becomes a category of weight ``points`` with ``cases`` hidden tests
named ``"<category> #k"`` (or ``"<category>: <description> #k"``), each drawn from its own
generator by :func:`grader.problems.authored.draw.draw_case`; ``visible.count`` examples
(``"example k"``, in ``visible.category``) are drawn once, from seed 0; ``tolerance`` becomes the
value checks' ``rtol`` / ``atol``; each mistake is a :class:`~grader.problems.spec.Mistake` made by
its source (:class:`SourceImplementation`); ``picture`` a :class:`~grader.problems.spec.Picture`;
``returns: output_and_weights`` a reference returning ``(output, weights)``. Mistakes whose
edits of the reference combine (:mod:`grader.problems.authored.edits`, at most
:data:`MAX_COMBINED` pairs and triples) are named together like the built-ins' toggles: their
variants carry the edits as ``toggles`` and the executor computes the combined sources when a
diagnosis asks for one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from grader.problems.authored.draw import draw_case, plan
from grader.problems.authored.edits import combinations, edits
from grader.problems.authored.executor import SandboxExecutor
from grader.problems.authored.schema import DocumentError, load_document
from grader.problems.base import CREDIT_NOTE, CodeProblem
from grader.problems.compile import compile_problem
from grader.problems.conditions import CaseConditionError
from grader.problems.draws import case_rng
from grader.problems.spec import CaseSpec, Contract, Draw, Mistake, Param, Picture, ProblemSpec

#: The seed the visible examples are drawn with (once, the same for every learner).
VISIBLE_SEED = 0
#: Combinations of mistakes a problem keeps, pairs first (each is one more implementation on
#: every test of the run a diagnosis asks for, :meth:`SandboxExecutor.computing`).
MAX_COMBINED = 8
CHECK_NAMES = {"values": "values", "shapes": "shapes", "inputs": "inputs",
               "invariance": "relation"}


@dataclass(frozen=True)
class SourceImplementation:
    """Instructor code as text: it runs only in the sandbox (:mod:`.executor`); calling it here
    raises, so nothing can run it in the trusted process by accident."""

    source: str
    label: str

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.label} is instructor code: it runs only in the sandbox")


def _starter(doc: dict) -> str:
    params = ", ".join(doc["arguments"])
    return (f"import numpy as np\n\n\ndef {doc['function']}({params}):\n"
            f"    raise NotImplementedError\n")


def _contract_text(doc: dict) -> str:
    tolerance = doc["tolerance"]
    return (doc["contract"].rstrip("\n") + "\n"
            f"Outputs are compared in float64 with rtol {tolerance['rtol']:g}, atol "
            f"{tolerance['atol']:g}; the dtype is not judged.\n" + CREDIT_NOTE)


def _check(doc: dict, category: str, test: dict | None = None) -> str:
    return (test or {}).get("check") or doc["categories"][category].get("check") or "values"


def _options(doc: dict, category: str, test: dict | None = None) -> dict:
    check = _check(doc, category, test)
    if check == "invariance":
        what = (test or {}).get("what") or doc["categories"][category].get("what")
        return {"what": what or "the invariance", "relation": "same"}
    return dict(doc["tolerance"]) if check == "values" else {}


def _example(doc: dict, category: str, test: dict | None, name: str) -> CaseSpec:
    return CaseSpec(name, category, draw_case(case_rng(VISIBLE_SEED, name),
                                              plan(doc, category, test)),
                    CHECK_NAMES[_check(doc, category, test)], _options(doc, category, test),
                    visible=True)


def _examples(doc: dict) -> list[CaseSpec]:
    """The visible examples: ``visible.count`` in ``visible.category``, then each category's own
    (``visible: n``, or its ``tests`` marked ``visible``), drawn once from
    :data:`VISIBLE_SEED`."""
    wanted = [(doc["visible"]["category"], None)] * doc["visible"]["count"]
    for name, found in doc["categories"].items():
        wanted += [(name, None)] * found["visible"]
        wanted += [(name, test) for test in found.get("tests", []) if test["visible"]]
    return [_example(doc, category, test, f"example {index + 1}")
            for index, (category, test) in enumerate(wanted)]


def _hidden(doc: dict, category: str) -> list[CaseSpec]:
    found = doc["categories"][category]
    label = f"{category}: {found['description']}" if found.get("description") else category
    if "tests" not in found:
        drawn = Draw(draw_case, {"plan": plan(doc, category)})
        return [CaseSpec(f"{label} #{k + 1}", category, drawn, CHECK_NAMES[_check(doc, category)],
                         _options(doc, category)) for k in range(found["cases"])]
    cases = []
    for k, test in enumerate(t for t in found["tests"] if not t["visible"]):
        name = f"{category}: {test['description']}" if test.get("description") else \
            f"{label} #{k + 1}"
        cases.append(CaseSpec(name, category, Draw(draw_case, {"plan": plan(doc, category, test)}),
                              CHECK_NAMES[_check(doc, category, test)],
                              _options(doc, category, test)))
    return cases


def _cases(doc: dict) -> tuple[CaseSpec, ...]:
    found = _examples(doc)
    for category in doc["categories"]:
        found += _hidden(doc, category)
    return tuple(found)


def to_spec(doc: dict) -> ProblemSpec:
    """The :class:`ProblemSpec` of the validated document ``doc`` (:func:`load_document`)."""
    mistakes = tuple(Mistake(m["id"], m["message"], (SourceImplementation(
        m["source"], f"mistake {m['id']!r}"),)) for m in doc["mistakes"])
    picture = doc.get("picture")
    return ProblemSpec(
        id=doc["id"], title=doc["title"],
        contract=Contract(doc["function"], tuple(Param(name) for name in doc["arguments"]),
                          _contract_text(doc), doc.get("starter") or _starter(doc)),
        categories={name: c["points"] for name, c in doc["categories"].items()},
        cases=_cases(doc), reference=SourceImplementation(doc["reference"], "the reference"),
        mistakes=mistakes,
        pictures=(Picture(**picture),) if picture else (),
        returns_weights=doc["returns"] == "output_and_weights",
        show_weights=doc["returns"] == "output_and_weights")


def compile_document(raw: Any, stored: dict | None = None) -> CodeProblem:
    """Validate and compile a problem document. ``stored``: the visible examples' values
    computed at upload (:meth:`SandboxExecutor.visible_values`). Raises
    :class:`grader.problems.authored.schema.DocumentError` naming every field at fault."""
    doc = load_document(raw)
    try:
        spec = to_spec(doc)
    except CaseConditionError as exc:  # a visible example is drawn here
        raise DocumentError([{"path": "categories", "message": f"a visible example: {exc}"}]) \
            from None
    sources = [m["source"] for m in doc["mistakes"]]
    combined = combinations(doc["reference"], sources, limit=MAX_COMBINED)
    problem = compile_problem(spec, lambda implementations: SandboxExecutor(
        [impl.source for impl in implementations], doc["function"], stored,
        combined=combined))
    # a mistake that combines with another is marked by its edits of the reference (the
    # combination search tries only marked ones, grader/problems/combinations.py)
    combining = {i for members, _ in combined for i in members}
    problem.variants = tuple(
        replace(v, toggles={"edits": edits(doc["reference"], sources[i])})
        if i in combining else v for i, v in enumerate(problem.variants))
    return problem


__all__ = ["SourceImplementation", "compile_document", "to_spec"]
