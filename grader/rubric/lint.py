"""Upload-time checks beyond the schema: every problem in one pass over an invalid rubric
(:func:`semantic_errors`) and what a valid rubric probably does not mean (:func:`rubric_warnings`).
Both return ``[{"path", "message"}]``, with paths that index the document as written."""
from __future__ import annotations

from typing import Any

from marshmallow import ValidationError

from grader.rubric.compiler import DEFAULT_OPTIONS, PhraseCompiler
from grader.rubric.concepts import dead_alternatives
from grader.rubric.matching import FuzzyVocabulary
from grader.rubric.schema import ConceptField


def rubric_warnings(data: dict[str, Any], compiled: Any, comp: PhraseCompiler) -> list[dict[str, str]]:
    """What is valid but probably not meant: precedence of ``|`` (from the compiler), concepts made
    only of question words, unused synonym sets, criteria an empty answer earns, and a reference
    answer that does not earn full marks or fires a misconception. ``compiled`` is the
    :class:`grader.rubric.engine.CompiledRubric` being built (not imported here: the engine
    imports this module)."""
    warnings = list(comp.warnings)
    qk = compiled._question_keys
    for i, (c, raw) in enumerate(zip(compiled._criteria, data["criteria"])):
        if c.allow_question_words:
            continue
        for j, concept in enumerate(c.concepts):
            for path in dead_alternatives(concept, qk, f"criteria[{i}].concepts[{j}]"):
                warnings.append({"path": path, "message": (
                    "every word of this alternative is a word of the question, so it never earns the criterion "
                    "(words copied from the question earn nothing by themselves); add the answer's own words "
                    "or set question_words: allow on the criterion")})
    for name in data.get("synonyms") or {}:
        if name not in comp.used_synonyms:
            warnings.append({"path": f"synonyms.{name}", "message": f"synonym set @{name} is never used"})
    empty = compiled.score("", budget=None)
    for i, c in enumerate(empty.criteria):
        if c.points > 0:
            warnings.append({"path": f"criteria[{i}]", "message": (
                "an empty answer earns this criterion (its concepts are all 'not' groups); add a concept the "
                "answer has to state")})
    reference = data.get("reference_answer")
    if reference:
        result = compiled.score(reference, budget=None)
        missed = [c.id for c in result.criteria if not c.met]
        if missed:
            warnings.append({"path": "reference_answer", "message": (
                f"the reference answer does not meet {', '.join(missed)} (it earns {result.points:g} of "
                f"{compiled.max_points:g}): check those criteria's wording")})
        fired = [m.id for m in result.misconceptions if m.matched]
        if fired:
            warnings.append({"path": "reference_answer", "message": (
                f"the reference answer fires the misconception(s) {', '.join(fired)}")})
    return warnings


def semantic_errors(doc: dict[str, Any], partial: dict[str, Any], upload: bool = False) -> list[dict[str, str]]:
    """Compile every concept that passed the schema, so that one pass over an invalid rubric also
    reports unknown synonyms, short wildcards and the like (paths index the document as written;
    ``upload``: the checks of a new document, :func:`grader.rubric.engine.compile_rubric`)."""
    raw_synonyms = doc.get("synonyms") if isinstance(doc.get("synonyms"), dict) else {}
    comp = PhraseCompiler(partial.get("synonyms") or {}, FuzzyVocabulary(), upload=upload)
    opts = {**DEFAULT_OPTIONS, **(partial.get("defaults") or {})}
    for section, key in (("criteria", "concepts"), ("misconceptions", "patterns")):
        entries = doc.get(section)
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            concepts = entry.get(key) if isinstance(entry, dict) else None
            for j, raw in enumerate(concepts if isinstance(concepts, list) else []):
                try:
                    spec = ConceptField().deserialize(raw)
                except ValidationError:
                    continue  # already reported by the schema
                comp.concept(spec, opts, f"{section}[{i}].{key}[{j}]")
    # a synonym set the schema refused is reported there, not again as "unknown" at each use
    return [e for e in comp.errors
            if not any(f"unknown synonym @{name} " in e["message"] for name in raw_synonyms)]

