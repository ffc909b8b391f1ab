"""Rubric text to a rubric document: YAML or JSON, bounded before anything is built.

A rubric upload is untrusted text. Integers are bounded like JSON's (:mod:`grader.jsontext`),
and the document's size is counted on PyYAML's node graph with every alias expanded, so the
"billion laughs" bomb is refused in milliseconds (``tests/hostile/test_rubric_uploads.py``).
"""
from __future__ import annotations

import json
from typing import Any

import yaml

from grader.jsontext import MAX_INT_DIGITS, NumberTooLong, check_int_size
from grader.jsontext import loads as json_loads
from grader.rubric.schema import MAX_DOCUMENT_NODES, RubricError


class _YamlLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """PyYAML's safe loader whose integers are bounded like JSON's (:mod:`grader.jsontext`): a
    literal of more than 4,300 digits (or a ``0x...`` one as large) is a syntax error at its line
    and column, not a ``ValueError`` that Python raises when it converts it from or to text."""


def _bounded_yaml_int(loader, node):
    try:
        return check_int_size(yaml.constructor.SafeConstructor.construct_yaml_int(loader, node))
    except ValueError as exc:  # NumberTooLong, or Python's own limit on the conversion
        digits = sum(ch.isdigit() for ch in str(node.value))
        reason = exc if isinstance(exc, NumberTooLong) or digits <= MAX_INT_DIGITS \
            else NumberTooLong(digits)
        raise yaml.constructor.ConstructorError(None, None, str(reason), node.start_mark) \
            from None


_YamlLoader.add_constructor("tag:yaml.org,2002:int", _bounded_yaml_int)
_YAML_LOADER = _YamlLoader


def _expanded_yaml_nodes(root: yaml.Node, limit: int) -> int:
    """Number of values ``root`` stands for once every alias is expanded, counted without
    expanding anything (each distinct node's size is computed once, iteratively). Returns
    ``limit + 1`` as soon as the count exceeds ``limit``, and ``-1`` for a recursive alias (a node
    that contains itself), which would expand forever."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            if isinstance(node, yaml.MappingNode):
                children = [n for pair in node.value for n in pair]
            else:
                children = node.value
            total = 1 + sum(sizes[id(c)] for c in children)
            sizes[key] = min(total, limit + 1)
            if key == id(root):
                break
            continue
        if key in sizes:
            continue
        if key in on_path:
            return -1  # a recursive alias
        if isinstance(node, yaml.ScalarNode):
            sizes[key] = 1
            continue
        on_path.add(key)
        stack.append((node, True))
        children = [n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode) else node.value
        stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes.get(id(root), limit + 1)


def _json_nodes(value: Any, limit: int) -> int:
    """Number of values in a parsed JSON document, counting stops past ``limit``."""
    count = 0
    stack = [value]
    while stack and count <= limit:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def _too_large(count: int) -> RubricError:
    return RubricError([{"path": "", "message": (
        f"the rubric document has more than {MAX_DOCUMENT_NODES:,} values"
        + (" once its YAML aliases (*name) are expanded" if count < 0 else "")
        + "; split it or remove repeated aliases")}])


def _load_yaml(text: str) -> Any:
    """``yaml.safe_load`` with a bound on the expanded size, checked on the composed node graph
    before any Python object is built (PyYAML shares aliased objects, but whatever walks the
    result, such as validation, pays for every expanded copy)."""
    loader = _YAML_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        count = _expanded_yaml_nodes(node, MAX_DOCUMENT_NODES)
        if count < 0:
            raise RubricError([{"path": "", "message": "a YAML alias (*name) refers to the node that "
                                "defines its anchor (&name): the document would be infinite"}])
        if count > MAX_DOCUMENT_NODES:
            raise _too_large(-1)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load_yaml(text: str) -> Any:
    """A YAML document from outside the service, read as rubrics are (integers bounded like
    JSON's, at most :data:`MAX_DOCUMENT_NODES` values once aliases are expanded, checked before
    anything is built). Raises :class:`RubricError` (its ``errors`` list the reason) or
    ``yaml.YAMLError`` for a syntax error."""
    return _load_yaml(text)


def parse_rubric(text: str, fmt: str | None = None) -> dict[str, Any]:
    """Parse a rubric document. ``fmt`` is ``"yaml"``, ``"json"`` or ``None`` (JSON when the text
    starts with ``{``, else YAML, which also reads JSON). Raises :class:`RubricError` on syntax
    errors, when the top level is not a mapping, and when the document holds more than
    :data:`MAX_DOCUMENT_NODES` values (YAML aliases expanded: the "billion laughs" bomb is refused
    in milliseconds, before anything is built or validated)."""
    if fmt not in (None, "yaml", "json"):
        raise ValueError(f"unknown rubric format {fmt!r}; use 'yaml' or 'json'")
    try:
        if fmt == "json" or (fmt is None and text.lstrip().startswith("{")):
            doc = json_loads(text)
            if _json_nodes(doc, MAX_DOCUMENT_NODES) > MAX_DOCUMENT_NODES:
                raise _too_large(1)
        else:
            doc = _load_yaml(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise RubricError([{"path": "", "message": f"cannot parse rubric: {exc}"}]) from exc
    except RecursionError:
        raise RubricError([{"path": "", "message": "cannot parse rubric: nested too deeply"}]) from None
    if not isinstance(doc, dict):
        raise RubricError([{"path": "", "message": "a rubric document is a mapping"}])
    return doc
