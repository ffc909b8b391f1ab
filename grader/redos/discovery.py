"""Find every regular expression of the ``grader`` package.

Two sources, so that a new pattern is covered without being listed anywhere:

* :func:`compiled_patterns`: the compiled patterns (``re.Pattern``, ``regex.Pattern``,
  marshmallow's ``validate.Regexp`` and ``validate.URL``, and the fields and schemas that hold
  one) in each module's
  globals, in the classes it defines, and in their lists, tuples and dicts;
* :func:`source_patterns`: every call ``re.<function>(pattern, ...)`` (or ``regex.``) in the
  source files, compiled here when its pattern is a literal or a module constant. A call whose
  pattern is built at run time is a :class:`Site`, and must be listed in :data:`DYNAMIC_SITES`
  with how its patterns are covered.

Every module is imported but those in :data:`NOT_IMPORTED` (their source is still scanned).
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import regex

PACKAGE_DIR = Path(__file__).resolve().parents[1]

#: Modules that are not imported (their source is still scanned), and why.
NOT_IMPORTED = {
    "grader.wsgi": "builds an application at import (gunicorn's entry point)",
    "grader.sandbox.runner": "runs inside the job, on the learner's side of the sandbox",
    "grader.store.migrations.env": "alembic's environment script, run by alembic only",
}

#: Calls whose pattern is built at run time, by ``path:function`` (path under ``grader/``), and
#: how their patterns are covered.
DYNAMIC_SITES = {
    "problems/disclosure.py:_compile": "the templates' patterns, kept in disclosure._COMPILED "
                                       "(found among the module's globals)",
    "problems/disclosure.py:<module>": "the rewordings' patterns, kept in disclosure._REWORDED "
                                       "(found among the module's globals)",
    "rubric/compiler.py:regex": "an instructor's regex: refused at upload by "
                                "rubric/regex_safety.py when it can backtrack exponentially (a "
                                "warning when polynomial), and searched under the answer's time "
                                "budget (rubric/matching.py: Regex.find)",
}

_FUNCTIONS = frozenset({"compile", "match", "search", "fullmatch", "sub", "subn", "split",
                        "findall", "finditer"})
#: Position of the flags argument of each function (``re.sub(pattern, repl, string, count,
#: flags)``).
_FLAGS_AT = {"compile": 1, "sub": 4, "subn": 4, "split": 3}
PATTERN_TYPES = (re.Pattern, regex.Pattern)


@dataclass(frozen=True)
class Found:
    """One pattern and where it was found (``grader.problems.disclosure._LINE``, or
    ``problems/disclosure.py:295`` for an inline one)."""

    pattern: Any  # re.Pattern | regex.Pattern
    where: str


@dataclass(frozen=True)
class Site:
    """A call whose pattern is built at run time: ``key`` is ``path:function`` (as in
    :data:`DYNAMIC_SITES`), ``line`` its line."""

    key: str
    line: int


def modules() -> list[Any]:
    """Every module of the ``grader`` package but :data:`NOT_IMPORTED`, imported."""
    import grader

    return [importlib.import_module(info.name)
            for info in pkgutil.walk_packages(grader.__path__, "grader.")
            if info.name not in NOT_IMPORTED]


def _contained(value: Any, where: str, depth: int, seen: set[int]) -> Iterator[Found]:
    """The patterns in ``value``: a pattern, a marshmallow ``Regexp`` or ``URL`` validator, a
    field (its validators and inner fields), a schema class, or a list, tuple, set or dict of
    those."""
    from marshmallow import Schema, fields, validate

    if id(value) in seen or depth > 4:
        return
    seen.add(id(value))
    if isinstance(value, PATTERN_TYPES):
        yield Found(value, where)
    elif isinstance(value, validate.Regexp):
        yield Found(value.regex, where)
    elif isinstance(value, validate.URL):
        yield Found(value._regex(relative=value.relative, absolute=value.absolute,
                                 require_tld=value.require_tld), where)
    elif isinstance(value, fields.Field):
        parts = list(value.validators) + [getattr(value, name, None)
                                          for name in ("inner", "key_field", "value_field")]
        for index, part in enumerate(parts):
            yield from _contained(part, f"{where}[{index}]", depth + 1, seen)
    elif isinstance(value, type) and issubclass(value, Schema):
        for name, field in value._declared_fields.items():
            yield from _contained(field, f"{where}.{name}", depth + 1, seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for index, item in enumerate(value):
            yield from _contained(item, f"{where}[{index}]", depth + 1, seen)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _contained(item, f"{where}[{key!r}]", depth + 1, seen)


def compiled_patterns(found_modules: list[Any]) -> list[Found]:
    """The compiled patterns held by the modules' globals and by the classes they define."""
    out: list[Found] = []
    seen: set[int] = set()
    for module in found_modules:
        for name, value in vars(module).items():
            where = f"{module.__name__}.{name}"
            if isinstance(value, type) and value.__module__ == module.__name__:
                for attr, member in vars(value).items():
                    out.extend(_contained(member, f"{where}.{attr}", 1, seen))
            out.extend(_contained(value, where, 0, seen))
    return out


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _flags(node: ast.AST | None) -> int | None:
    """The value of a flags argument made of ``re.X`` names joined by ``|`` (None when it is
    anything else)."""
    if node is None:
        return 0
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id in ("re", "regex"):
        return int(getattr(re if node.value.id == "re" else regex, node.attr))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _flags(node.left), _flags(node.right)
        return None if left is None or right is None else left | right
    return None


class _Calls(ast.NodeVisitor):
    """The ``re.<function>(...)`` and ``regex.<function>(...)`` calls of one file, each with its
    enclosing function, but those assigned to a module global (found among the globals)."""

    def __init__(self):
        self.calls: list[tuple[ast.Call, str, str]] = []  # (call, module alias, function)
        self.function = "<module>"
        self.held: set[int] = set()

    def visit_FunctionDef(self, node):
        outer, self.function = self.function, node.name
        self.generic_visit(node)
        self.function = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node):
        if self.function == "<module>" and isinstance(node.value, ast.Call):
            self.held.add(id(node.value))
        self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _FUNCTIONS \
                and isinstance(func.value, ast.Name) and func.value.id in ("re", "regex") \
                and id(node) not in self.held:
            self.calls.append((node, func.value.id, self.function))
        self.generic_visit(node)


def _argument(call: ast.Call, position: int, name: str) -> ast.AST | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


def source_patterns(root: Path = PACKAGE_DIR) -> tuple[list[Found], list[Site]]:
    """Scan the source files under ``root`` (the package): the patterns of the calls whose
    pattern is a literal or a module constant (a name is looked up in the module, imported, when
    ``root`` is the package), and the :class:`Site` of every other call."""
    patterns: list[Found] = []
    sites: list[Site] = []
    for path in sorted(root.rglob("*.py")):
        visitor = _Calls()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        relative = path.relative_to(root).as_posix()
        namespace: dict[str, Any] | None = None
        for call, alias, function in visitor.calls:
            node = _argument(call, 0, "pattern")
            flags = _flags(_argument(call, _FLAGS_AT.get(call.func.attr, 2), "flags"))
            value: Any = None
            if isinstance(node, ast.Constant):
                value = node.value
            elif isinstance(node, ast.Name):
                if namespace is None:
                    name = _module_name(path) if root == PACKAGE_DIR else None
                    namespace = {} if name is None or name in NOT_IMPORTED else \
                        vars(importlib.import_module(name))
                value = namespace.get(node.id)
            where = f"{relative}:{call.lineno}"
            if isinstance(value, PATTERN_TYPES):
                patterns.append(Found(value, where))
            elif isinstance(value, (str, bytes)) and flags is not None:
                patterns.append(Found((re if alias == "re" else regex).compile(value, flags),
                                      where))
            else:
                sites.append(Site(f"{relative}:{function}", call.lineno))
    return patterns, sites


def trusted_patterns() -> list[Found]:
    """Every distinct pattern of the package (:func:`compiled_patterns` of :func:`modules`,
    then the static ones of :func:`source_patterns`), each once, where it was first found."""
    unique: dict[tuple, Found] = {}
    for item in compiled_patterns(modules()) + source_patterns()[0]:
        unique.setdefault((type(item.pattern), item.pattern.pattern, item.pattern.flags), item)
    return list(unique.values())
