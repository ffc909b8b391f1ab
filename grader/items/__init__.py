"""The registry of item kinds: ``kind`` name -> implementation of :class:`grader.items.base.ItemKind`.

Adding a kind touches this one place (the CTFd challenge-type pattern): subclass
:class:`grader.items.base.BaseKind` in ``grader/items/<kind>.py`` and add an instance to
:func:`kinds`. Content loading (:mod:`grader.content`) asks the registry for a kind's fields,
whether it has hidden tests and its public view; it names no kind itself.
"""
from __future__ import annotations

from functools import lru_cache

from grader.items.base import BaseKind, GradingContext, Item, ItemKind

__all__ = ["BaseKind", "GradingContext", "Item", "ItemKind", "kinds", "get_kind",
           "unknown_kind_message"]


@lru_cache(maxsize=1)
def kinds() -> dict[str, BaseKind]:
    """Every registered kind by name, built once, in registration order."""
    from grader.items.choice import ChoiceKind
    from grader.items.code import CodeKind
    from grader.items.text import TextKind

    return {kind.kind: kind for kind in (CodeKind(), TextKind(), ChoiceKind())}


def get_kind(name: str) -> BaseKind:
    """The kind called ``name``; ``KeyError`` when there is none."""
    return kinds()[name]


def unknown_kind_message(name: object) -> str:
    """The sentence for an item whose ``kind`` is not registered, listing the registered ones
    (``"unknown kind 'essay'; use code, text or choice"``)."""
    names = list(kinds())
    choices = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return f"unknown kind {name!r}; use {choices}"
