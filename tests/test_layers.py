"""Issue 14.9: the layers read one way. The import graph of ``grader`` and ``workers`` (every
``import``, also inside functions, and the package ``__init__`` each import runs) has no cycle;
observability in particular imports nothing above it (it was ``observability/__init__`` ->
``health`` -> ``grader.runtime`` -> ``observability``)."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGES = ("grader", "workers")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules its execution imports (the module named, else the package
    holding the name, and every parent package, which Python runs first)."""
    mods = modules()

    def owner(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(owner(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                for alias in node.names:
                    targets.add(owner(f"{base}.{alias.name}") if f"{base}.{alias.name}" in mods
                                else owner(base))
        for target in list(targets):
            parts = (target or "").split(".")
            targets.update(".".join(parts[:k]) for k in range(1, len(parts)))
        graph[name] = {t for t in targets if t in mods and t != name
                       and not name.startswith(f"{t}.")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in graph[node]:
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


#: Cycles not broken yet (each through a function-level import), listed so that any NEW cycle
#: fails this test. Remove an entry when it is broken. (None today.)
KNOWN_CYCLES: list[list[str]] = []


def test_the_project_has_no_new_import_cycle():
    graph = import_graph()
    assert "grader.runtime" in graph and "grader.observability.health" in graph
    found = cycles(graph)
    assert [c for c in found if c not in KNOWN_CYCLES] == []
    assert not any(m.startswith(("grader.observability", "grader.runtime"))
                   for c in found for m in c)


def test_observability_imports_nothing_above_it():
    """Observability is a low layer: it may read the store's tables (metrics by status) and use
    the API's error shape, never the runtime, the app, grading, notification or the queue (they
    use it)."""
    graph = import_graph()
    outside = {target for name, targets in graph.items()
               if name.startswith("grader.observability") for target in targets
               if not target.startswith("grader.observability")}
    assert outside <= {"grader", "grader.api", "grader.api.errors", "grader.store",
                       "grader.store.models"}, outside
    assert "grader.observability.instrument" in graph["grader.runtime"]
