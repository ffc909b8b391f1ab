"""Code problems that instructors write: a document (YAML or JSON) with a reference, an input
spec, categories and named mistakes, compiled into the same
:class:`grader.problems.base.CodeProblem` as the built-ins (README, "Authored code problems").

* :mod:`.schema`: the document, read with marshmallow; errors name the field;
* :mod:`.draw`: drawing dimensions and arguments per case;
* :mod:`.compile`: the document into a :class:`grader.problems.spec.ProblemSpec`;
* :mod:`.executor`: the reference and mistakes run in the sandbox, cached per seed;
* :mod:`.mutants`: automatic AST mutants of the reference;
* :mod:`.trial`: the checks an upload passes before learners see it.
"""
from __future__ import annotations

from grader.problems.authored.compile import compile_document
from grader.problems.authored.schema import DocumentError, load_document, parse

__all__ = ["DocumentError", "compile_document", "load_document", "parse"]
