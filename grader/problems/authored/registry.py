"""Compiled versions of authored problems, kept per process: an assignment that uses one (its
code item's ``problem`` inlined by the API, :func:`inline`) compiles it once, so every grading of
that version shares its cache of reference values per seed."""
from __future__ import annotations

import threading
from collections import OrderedDict

from grader.problems.authored.compile import compile_document
from grader.problems.authored.executor import decode
from grader.problems.base import CodeProblem

KEPT = 64
_compiled: OrderedDict = OrderedDict()
_lock = threading.Lock()


def inline(record) -> dict:
    """What a code item's ``problem`` becomes for the stored version ``record``
    (:class:`grader.store.models.ProblemRecord`): its document, version and stored values."""
    return {"course": record.course_id, "id": record.problem_id, "version": record.version,
            "document": record.document, "expected": record.expected}


def is_inline(value) -> bool:
    return isinstance(value, dict) and {"id", "version", "document"} <= set(value)


def label(value: dict) -> str:
    """``"<id>@<version>"``, how results and regrades name an authored problem's version."""
    return f"{value['id']}@{value['version']}"


def adopt(value: dict, problem: CodeProblem) -> CodeProblem:
    """Keep ``problem`` (compiled and tried from the document of ``value``: course, id,
    version) as that version's compiled problem in this process, its cache and pool of seeds
    with it (:mod:`grader.problems.authored.pool`), in place of one compiled before (a
    version's trial passed just now: its document is the stored one)."""
    key = (value.get("course"), value["id"], value["version"])
    with _lock:
        _compiled[key] = problem
        _compiled.move_to_end(key)
        while len(_compiled) > KEPT:
            _compiled.popitem(last=False)
    return problem


def compiled(value: dict) -> CodeProblem:
    """The compiled problem of an inlined version (:func:`inline`), compiled once per process.
    Raises :class:`grader.problems.authored.schema.DocumentError` for a document that no longer
    compiles."""
    key = (value.get("course"), value["id"], value["version"])
    with _lock:
        found = _compiled.get(key)
        if found is not None:
            _compiled.move_to_end(key)
            return found
    problem = compile_document(value["document"], decode(value.get("expected") or {}))
    with _lock:
        problem = _compiled.setdefault(key, problem)
        while len(_compiled) > KEPT:
            _compiled.popitem(last=False)
    return problem
