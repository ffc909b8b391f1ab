"""Questions about a compiled concept tree (phrases and regular expressions under ``any``/``all``/
``not`` groups and weights, :mod:`grader.rubric.matching`), asked once when a rubric is compiled:
its vocabulary, the words an answer must hold for it to match, what a near miss needs, and which
alternatives only the question's own words can satisfy.
"""
from __future__ import annotations

from grader.rubric.matching import AllOf, AnyOf, NoneOf, Phrase, Regex, Weighted


def walk(node):
    """Every leaf (phrase or regex) of a compiled concept."""
    if isinstance(node, (Phrase, Regex)):
        yield node
    elif isinstance(node, (NoneOf, Weighted)):
        yield from walk(node.child)
    elif isinstance(node, (AnyOf, AllOf)):
        for child in node.children:
            yield from walk(child)


def vocabulary(nodes) -> frozenset | None:
    """The keys and ``*prefix`` entries of every phrase under ``nodes`` (``None`` when a regular
    expression is among them: it can match anything)."""
    out: set[str] = set()
    for node in nodes:
        if node is None:
            continue
        for leaf in walk(node):
            if isinstance(leaf, Regex):
                return None
            for slot in leaf.slots:
                out.update(k for k, _ in slot.keys)
                out.update("*" + p for p, _ in slot.prefixes)
    return frozenset(out)


def needs(node) -> frozenset | None:
    """Keys (and ``*prefix`` entries) at least one of which an answer must hold for ``node`` to
    match: those of its phrases' first words. ``None`` when it can match without any (a 'not'
    group) or through a regular expression."""
    if isinstance(node, Phrase):
        first = node.slots[0]
        return frozenset([k for k, _ in first.keys] + ["*" + p for p, _ in first.prefixes])
    if isinstance(node, Weighted):
        return needs(node.child)
    if isinstance(node, (AnyOf, AllOf)):
        parts = [needs(child) for child in node.children]
        if any(p is None for p in parts):
            return None
        if isinstance(node, AllOf):
            return parts[0]
        return frozenset().union(*parts)
    return None


def near_words(nodes) -> int:
    """The fewest answer words a near miss of ``nodes`` needs: half (rounded up) of the shortest
    phrase of two words or more; 0 when there is none (single words are met or missed)."""
    lengths = [len(leaf.slots) for node in nodes if node is not None for leaf in walk(node)
               if isinstance(leaf, Phrase) and len(leaf.slots) >= 2]
    return (min(lengths) + 1) // 2 if lengths else 0


def question_only(node, question_keys: frozenset) -> bool:
    """True when every match of ``node`` is made of question words only (so it never qualifies
    under ``question_words: discount``)."""
    if isinstance(node, Phrase):
        return node.polarity == "affirmed" and all(
            slot.keys and not slot.prefixes and all(k in question_keys for k, _ in slot.keys) for slot in node.slots)
    if isinstance(node, Weighted):
        return question_only(node.child, question_keys)
    if isinstance(node, AnyOf):
        return all(question_only(c, question_keys) for c in node.children)
    if isinstance(node, AllOf):
        return all(question_only(c, question_keys) for c in node.children)
    return False


def dead_alternatives(node, question_keys: frozenset, path: str) -> list[str]:
    """Paths of alternatives (phrases of an ``any`` group, or the concept itself) that can never
    earn a criterion under the question-word discount."""
    if question_only(node, question_keys):
        return [path]
    if isinstance(node, Weighted):
        return dead_alternatives(node.child, question_keys, path)
    if isinstance(node, AnyOf):
        out = []
        for i, child in enumerate(node.children):
            out.extend(dead_alternatives(child, question_keys, f"{path}.any[{i}]"))
        return out
    return []
