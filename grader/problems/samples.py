"""Sample submissions of the built-in problems and what each must get (PrairieLearn keeps
``submitted_code_samples`` beside a question the same way): ``grader/problems/builtin/<id>/
samples/`` holds ``correct_*.py`` files, which get full marks, and ``bug_*.py`` files, each with
an entry in the package's ``expected.py`` (``EXPECTED``): the diagnosis tag it must get on every
failing test, and which tests fail:

- ``Whole({...})``: exactly these categories fail, entirely (the mistake is isolated to them),
  plus, with ``also``, the cases with that trait (a masking mistake also fails the scaling case
  and the stability case with a mask, trait ``mask-elsewhere``);
- ``Some({...})``: exactly these categories have failing tests (a few of their tests may pass);
- ``Where(predicate, exclude)``: exactly the cases whose traits satisfy the predicate fail (those
  of the ``exclude`` categories pass whatever their traits).

A file that passes no value test also loses its property and inputs tests (the credit rule,
grader/problems/credit.py), and an output with NaN/inf entries loses the shape tests.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Callable

BUILTIN = Path(__file__).resolve().parent / "builtin"


@dataclass(frozen=True)
class Whole:
    categories: frozenset
    also: str = ""  # a case trait: the cases with it fail too (outside those categories)


@dataclass(frozen=True)
class Some:
    categories: frozenset


@dataclass(frozen=True)
class Where:
    fails: Callable[[frozenset], bool]
    exclude: tuple[str, ...] = ()  # categories whose cases pass whatever their traits

    def failing(self, cases) -> set[str]:
        """The names of the ``cases`` that must fail."""
        return {c.name for c in cases if c.category not in self.exclude and self.fails(c.traits)}


def whole(*c, also: str = ""):
    return Whole(frozenset(c), also)


def some(*c):
    return Some(frozenset(c))


def directory(problem: str) -> Path:
    """The samples folder of the built-in problem ``problem``."""
    return BUILTIN / problem / "samples"


def names(problem: str, prefix: str) -> list[str]:
    """Names of the sample files of ``problem`` starting with ``prefix``."""
    return sorted(p.stem for p in directory(problem).glob(f"{prefix}*.py"))


def source(problem: str, name: str) -> str:
    """The source of sample ``name`` of ``problem``."""
    return (directory(problem) / f"{name}.py").read_text(encoding="utf-8")


def expected(problem: str) -> dict[str, tuple[str, object]]:
    """The ``EXPECTED`` table of the built-in problem ``problem`` (by bug file name)."""
    return import_module(f"grader.problems.builtin.{problem}.expected").EXPECTED
