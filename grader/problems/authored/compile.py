"""An authored problem document into the same :class:`grader.problems.spec.ProblemSpec` the
built-ins declare, compiled by :func:`grader.problems.compile.compile_problem` with a
:class:`grader.problems.authored.executor.SandboxExecutor`.

The mapping: each category becomes a category of weight ``points`` with ``cases`` hidden tests
named ``"<category> #k"`` (or ``"<category>: <description> #k"``), each drawn from its own
generator by :func:`grader.problems.authored.draw.draw_case`; ``visible.count`` examples
(``"example k"``, in ``visible.category``) are drawn once, from seed 0; ``tolerance`` becomes the
value checks' ``rtol`` / ``atol``; each mistake is a :class:`~grader.problems.spec.Mistake` made by
its source (:class:`SourceImplementation`); ``picture`` a :class:`~grader.problems.spec.Picture`;
``returns: output_and_weights`` a reference returning ``(output, weights)``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grader.problems.authored.draw import draw_case, plan
from grader.problems.authored.executor import SandboxExecutor
from grader.problems.authored.schema import load_document
from grader.problems.base import CREDIT_NOTE, CodeProblem
from grader.problems.compile import compile_problem
from grader.problems.draws import case_rng
from grader.problems.spec import (CaseSpec, Contract, Draw, Mistake, Param, Picture, ProblemSpec)

#: The seed the visible examples are drawn with (once, the same for every learner).
VISIBLE_SEED = 0
CHECK_NAMES = {"values": "values", "shapes": "shapes", "inputs": "inputs"}


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


def _options(doc: dict, check: str) -> dict:
    return dict(doc["tolerance"]) if check == "values" else {}


def _cases(doc: dict) -> tuple[CaseSpec, ...]:
    found = []
    visible = doc["visible"]
    if visible["count"]:
        shown = plan(doc, visible["category"])
        check = doc["categories"][visible["category"]]["check"]
        for k in range(visible["count"]):
            name = f"example {k + 1}"
            found.append(CaseSpec(name, visible["category"],
                                  draw_case(case_rng(VISIBLE_SEED, name), shown),
                                  CHECK_NAMES[check], _options(doc, check), visible=True))
    for category, spec in doc["categories"].items():
        label = f"{category}: {spec['description']}" if spec.get("description") else category
        drawn = Draw(draw_case, {"plan": plan(doc, category)})
        for k in range(spec["cases"]):
            found.append(CaseSpec(f"{label} #{k + 1}", category, drawn,
                                  CHECK_NAMES[spec["check"]], _options(doc, spec["check"])))
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
    spec = to_spec(doc)
    return compile_problem(spec, lambda implementations: SandboxExecutor(
        [impl.source for impl in implementations], doc["function"], stored))


__all__ = ["SourceImplementation", "compile_document", "to_spec"]
