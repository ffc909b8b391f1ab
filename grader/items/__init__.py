"""The registry of item kinds: ``kind`` name -> implementation of :class:`grader.items.base.ItemKind`.

Adding a kind touches this one place (the CTFd challenge-type pattern).
"""
from __future__ import annotations

from functools import lru_cache

from grader.items.base import GradingContext, Item, ItemKind

__all__ = ["GradingContext", "Item", "ItemKind", "kinds", "get_kind"]


@lru_cache(maxsize=1)
def kinds() -> dict[str, ItemKind]:
    """Every registered kind, built once."""
    from grader.items.choice import ChoiceKind
    from grader.items.code import CodeKind
    from grader.items.text import TextKind

    return {kind.kind: kind for kind in (CodeKind(), TextKind(), ChoiceKind())}


def get_kind(name: str) -> ItemKind:
    """The kind called ``name``; ``KeyError`` when there is none."""
    return kinds()[name]
