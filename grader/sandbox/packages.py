"""The packages a code item lets learner code import besides NumPy and the standard library
(``limits.imports``), found on the trusted side and bound read-only into the sandbox.

Learner code can import NumPy and the standard library only: the sandbox binds no other
package (every ``site-packages``/``dist-packages`` folder of the bound Python installations is
covered by an empty directory, ``launcher.py``), so appending the host's folders to ``sys.path``
finds nothing. An instructor who wants more lists top-level module names (``imports: [scipy]``);
:func:`resolve` finds the installed distribution of each, and the distributions it requires
(their requirement markers evaluated for this interpreter, extras left out), and returns them as
:class:`Package` values: the folders and files each installs at the top of its site folder (its
``RECORD``), which the launcher binds under ``/sandbox/extra/<name>/`` and each job keeps or
covers (``confine.cover_packages``) as its item allows.

Refused, each with a sentence that names ``limits.imports``: a name that is not a module name,
one that is part of the standard library or NumPy (always importable), one that is not installed
here, and the grader itself (its hidden tests and problems must never be readable from a job).
"""
from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

FIELD = "limits.imports"
ALWAYS = frozenset({"numpy"})  # NumPy is bound for every job (launcher.numpy_dirs)
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
REQUIREMENT_NAME = re.compile(r"\A\s*([A-Za-z0-9][A-Za-z0-9._-]*)")  # anchored: linear
GRADER = Path(__file__).resolve().parents[1]  # the grader's own package: never bound
PROJECT = GRADER.parent
SKIPPED_ENTRIES = (".dist-info", ".egg-info", ".pth", ".data")


@dataclass(frozen=True)
class Package:
    """One installed distribution as the sandbox binds it: ``name`` (normalised, the folder
    ``/sandbox/extra/<name>``), ``entries`` (the top-level folders and files it installed, on
    the host) and ``modules`` (the top-level import names among them)."""

    name: str
    entries: tuple[Path, ...]
    modules: tuple[str, ...]


def validate(names) -> tuple[str, ...]:
    """``names`` (a list or tuple of top-level module names) as a tuple; ``ValueError`` naming
    :data:`FIELD` when it is not a list of module names (the check :class:`Limits` makes on
    construction; :func:`resolve` finds them)."""
    if isinstance(names, str) or not isinstance(names, (list, tuple)):
        raise ValueError(f"{FIELD}: must be a list of top-level module names, e.g. [scipy]")
    for name in names:
        if not isinstance(name, str) or not MODULE_NAME.fullmatch(name):
            raise ValueError(f"{FIELD}: {name!r} is not a top-level module name (a package "
                             "such as scipy, without dots)")
    if len(set(names)) != len(names):
        raise ValueError(f"{FIELD}: a module is listed twice")
    return tuple(names)


@functools.lru_cache(maxsize=64)
def resolve(names: tuple[str, ...]) -> tuple[Package, ...]:
    """The distributions providing the modules ``names`` and those they require, in the order
    found (cached: installed packages do not change while the grader runs). Raises
    ``ValueError`` naming :data:`FIELD` and the module."""
    if not validate(names):
        return ()
    provided = metadata.packages_distributions()
    found: dict[str, Package] = {}
    for name in names:
        if name in sys.stdlib_module_names or name in ALWAYS:
            raise ValueError(f"{FIELD}: {name!r} is always importable (NumPy and the Python "
                             "standard library): list only other packages")
        _refuse_the_grader(name)
        distributions = provided.get(name)
        if not distributions:
            raise ValueError(f"{FIELD}: no package provides the module {name!r} on this "
                             "grader (install it where the worker runs, or remove it)")
        for distribution in dict.fromkeys(distributions):  # a namespace package: all of them
            _add(metadata.distribution(distribution), found, name)
    return tuple(found.values())


def allowed_modules(packages: tuple[Package, ...]) -> tuple[str, ...]:
    """Every top-level module name ``packages`` provide, sorted."""
    return tuple(sorted({module for package in packages for module in package.modules}))


def _refuse_the_grader(name: str) -> None:
    """``ValueError`` when the module ``name`` lives in the grader's own tree (found without
    importing it)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return
    places = [spec.origin] if spec is not None and spec.origin else []
    places += list(spec.submodule_search_locations or []) if spec is not None else []
    if any(_reveals_the_grader(Path(place).resolve()) for place in places):
        raise ValueError(f"{FIELD}: {name!r} is part of the grader itself; learner code can "
                         "never import it")


def _reveals_the_grader(path: Path) -> bool:
    """Whether binding ``path`` would show the grader's code, its workers or its instance
    folder (the project's folders other than its virtual environment)."""
    protected = [GRADER, PROJECT / "workers", PROJECT / "instance", PROJECT / "tests"]
    return any(path == place or place in path.parents or path in place.parents
               for place in protected)


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _add(distribution, found: dict, asked: str) -> None:
    """Add ``distribution`` and, recursively, the installed distributions it requires."""
    name = _normalised(distribution.metadata["Name"])
    if name in found or name in {_normalised(n) for n in ALWAYS}:
        return
    package = _package(distribution, name, asked)
    found[name] = package
    for requirement in distribution.requires or ():
        required = _required_name(requirement)
        if required is None:
            continue
        try:
            _add(metadata.distribution(required), found, asked)
        except metadata.PackageNotFoundError:
            continue  # not installed: importing it fails in the sandbox as it would here


def _package(distribution, name: str, asked: str) -> Package:
    tops = sorted({Path(str(path)).parts[0] for path in distribution.files or ()
                   if Path(str(path)).parts and not str(path).startswith("..")})
    entries, modules = [], []
    for top in tops:
        if top == "__pycache__" or top.endswith(SKIPPED_ENTRIES):
            continue
        entry = Path(distribution.locate_file(top)).resolve()
        if not entry.exists():
            continue
        if _reveals_the_grader(entry):
            raise ValueError(f"{FIELD}: {asked!r} would make the grader's own code readable "
                             "from learner code; it cannot be allowed")
        entries.append(entry)
        if entry.is_dir():
            module = top  # a package, unless its name is not one (e.g. scipy.libs)
        elif top.endswith(".py"):
            module = top[:-3]
        else:
            module = top.split(".")[0] if top.endswith(".so") else ""
        if MODULE_NAME.fullmatch(module):
            modules.append(module)
    if not entries:
        raise ValueError(f"{FIELD}: the package providing {asked!r} ({name}) lists no files "
                         "to bind (an editable or unusual install)")
    return Package(name, tuple(entries), tuple(sorted(set(modules))))


def _required_name(requirement: str) -> str | None:
    """The distribution ``requirement`` names when it applies here (no extra, its marker true
    for this interpreter), else None."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        parsed = Requirement(requirement)
    except InvalidRequirement:
        match = REQUIREMENT_NAME.match(requirement)
        return match.group(1) if match and ";" not in requirement else None
    if parsed.marker is not None:
        try:
            if not parsed.marker.evaluate({"extra": ""}):
                return None
        except Exception:  # noqa: BLE001 - a marker this packaging cannot evaluate: skip it
            return None
    return parsed.name
