"""Issues 14.9 and 16: the layers read one way. The import graph of ``grader`` and ``workers``
(every ``import``, also inside functions, and the package ``__init__`` each import runs) has no
cycle and no upward import (:data:`LAYERS`); observability in particular imports nothing above it
(it was ``observability/__init__`` -> ``health`` -> ``grader.runtime`` -> ``observability``, and
``outage`` -> ``grader.api``, which loaded flask-smorest and every API blueprint into the Celery
worker)."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
import tempfile
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
    """Observability is a low layer: it may read the store's tables (metrics by status), the
    settings and the neutral error shape, never the API, the runtime, the app, grading,
    notification or the queue (they use it)."""
    graph = import_graph()
    outside = {target for name, targets in graph.items()
               if name.startswith("grader.observability") for target in targets
               if not target.startswith("grader.observability")}
    assert outside <= {"grader", "grader.config", "grader.errors", "grader.store",
                       "grader.store.models"}, outside
    assert "grader.observability.instrument" in graph["grader.runtime"]


#: The layers, highest first. A module may import modules of its own layer or of a layer below,
#: never above. Each unit is a top-level module or package of ``grader`` (``grader.api``,
#: ``grader.runtime``, ...) or the ``workers`` package.
LAYERS: list[set[str]] = [
    {"grader.redos"},  # the audit of every module's regular expressions (imports them all)
    {"grader.app", "grader.cli", "grader.wsgi", "workers"},  # composition roots
    {"grader.runtime", "grader.bootstrap"},  # builds the long-lived parts of a process
    {"grader.lti"},  # the LTI tool: pages, launches, score passback
    {"grader.web"},  # learner and instructor pages
    {"grader.api"},  # the REST API
    {"grader.queue", "grader.grading", "grader.notify", "grader.wakeup"},
    {"grader.content"},  # assignments: items and their specs
    {"grader.items"},  # the item kinds
    {"grader.problems", "grader.rubric"},  # code problems, rubric language
    {"grader.observability"},
    {"grader.sandbox", "grader.store", "grader.results", "grader.jsontext"},
    {"grader.auth", "grader.budget", "grader.config", "grader.errors", "grader.ids",
     "grader.levers", "grader.deadlines", "grader.safetext"},  # leaves
]


def unit(module: str) -> str | None:
    """The layer unit of a project module (``None`` for the ``grader`` package itself)."""
    parts = module.split(".")
    if parts[0] == "workers":
        return "workers"
    return ".".join(parts[:2]) if len(parts) > 1 else None


def layer_of(name: str) -> int:
    return next(i for i, units in enumerate(LAYERS) if name in units)


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, imported) pairs where the imported module's layer is above the importer's."""
    found = []
    for name, targets in graph.items():
        if unit(name) is None:
            continue
        for target in targets:
            if unit(target) is not None and layer_of(unit(target)) < layer_of(unit(name)):
                found.append((name, target))
    return sorted(found)


def test_every_package_has_a_layer():
    units = {unit(name) for name in modules()} - {None}
    placed = set().union(*LAYERS)
    assert units - placed == set(), "place the new package in LAYERS"
    assert sum(len(layer) for layer in LAYERS) == len(placed)  # none placed twice


def test_the_layer_check_finds_an_upward_import():
    assert upward_imports({"grader.store.db": {"grader.api.errors"}, "grader.api.errors": set()}) \
        == [("grader.store.db", "grader.api.errors")]
    assert upward_imports({"grader.api.errors": {"grader.store.db"}, "grader.store.db": set()}) \
        == []


def test_no_module_imports_a_layer_above_its_own():
    assert upward_imports(import_graph()) == []


#: What the Celery worker imports: at start (the app and its tasks) and when it builds its
#: grading service (the notifier, with the LTI score channel).
WORKER_IMPORTS = ("grader.notify", "workers.tasks", "workers.celery_app", "grader.runtime",
                  "grader.lti.channel")


def loaded_after(imports: tuple[str, ...]) -> list[str]:
    """``sys.modules`` of a fresh interpreter (in this project) after importing ``imports``."""
    code = (f"import json, sys\nimport {', '.join(imports)}\n"
            "print(json.dumps(sorted(sys.modules)))")
    with tempfile.TemporaryDirectory() as instance:  # workers.celery_app reads the environment
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, timeout=120,
                             env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
                                  "INSTANCE_PATH": instance,
                                  "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_the_worker_loads_no_api_module():
    """Issue 16.5: importing ``grader.notify`` and ``workers.tasks`` (and everything the worker
    builds) loads no ``grader.api`` module, no flask-smorest, and no Flask at all."""
    loaded = loaded_after(WORKER_IMPORTS)
    assert "grader.notify" in loaded and "workers.tasks" in loaded
    assert [m for m in loaded if m == "grader.api" or m.startswith(("grader.api.",
                                                                  "flask_smorest"))] == []
    assert [m for m in loaded if m.split(".")[0] in ("flask", "werkzeug", "jinja2")] == []


def test_the_api_is_seen_when_it_is_loaded():
    """The check above can fail: the app factory does load the API."""
    assert "grader.api" in loaded_after(("grader.app",))
