"""Automatic mutants of an authored problem's reference: small AST edits that make the mistakes
learners make, so the trial can say which of them the hidden cases would not catch (mutmut's and
cosmic-ray's operator tables, restricted to the attention family's slips).

Each operator rewrites ONE site of the reference (every site gives its own mutant); a mutant is
source text, graded like a learner's code in the sandbox, never run here. The operators:

* ``drop-sqrt``: ``np.sqrt(x)`` / ``math.sqrt(x)`` -> ``x`` (dividing by d_k instead of sqrt(d_k));
* ``change-axis``: ``axis=a`` -> another axis (``-1`` <-> ``-2``, ``k`` -> ``k + 1``);
* ``drop-keepdims``: ``keepdims=True`` -> ``False``;
* ``remove-transpose``: ``np.swapaxes(x, ...)``, ``np.transpose(x, ...)``, ``x.transpose(...)``,
  ``x.T`` -> ``x``;
* ``flip-comparison``: ``<`` <-> ``>=``, ``>`` <-> ``<=``, ``==`` <-> ``!=``;
* ``comparison-boundary``: ``<`` <-> ``<=``, ``>`` <-> ``>=`` (an off-by-one: a causal mask's
  diagonal, a padding mask's first padded position);
* ``remove-max-subtraction``: ``x - x.max(...)`` / ``x - np.max(x, ...)`` -> ``x``;
* ``divide-to-multiply``: ``a / b`` -> ``a * b``;
* ``drop-exp``: ``np.exp(x)`` -> ``x``.
"""
from __future__ import annotations

import ast
import copy
import time
from dataclasses import dataclass
from typing import Callable

MAX_MUTANTS = 40
CPU_SECONDS = 2.0


@dataclass(frozen=True)
class Mutant:
    """One mutant: ``id`` (``"<operator>@<line>"``, numbered when a line has several),
    ``operator``, ``line`` of the reference and its ``source``."""

    id: str
    operator: str
    line: int
    source: str


def _is_call_to(node: ast.AST, names: tuple[str, ...]) -> bool:
    """``np.<name>(...)``, ``math.<name>(...)``, ``numpy.<name>(...)`` or ``<name>(...)``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr in names and func.value.id in ("np", "numpy", "math")
    return isinstance(func, ast.Name) and func.id in names


def _first_arg(node: ast.Call) -> ast.AST | None:
    return node.args[0] if node.args else None


def _drop_sqrt(node):
    return _first_arg(node) if _is_call_to(node, ("sqrt",)) else None


def _drop_exp(node):
    return _first_arg(node) if _is_call_to(node, ("exp",)) else None


def _remove_transpose(node):
    if _is_call_to(node, ("swapaxes", "transpose")) and node.args:
        return node.args[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr in ("transpose", "swapaxes") and not _is_call_to(node, ("transpose",
                                                                                    "swapaxes")):
        return node.func.value
    if isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
        return node.value
    return None


def _other_axis(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return {-1: -2, -2: -1}.get(value, value + 1)


def _change_axis(node):
    if not isinstance(node, ast.keyword) or node.arg != "axis":
        return None
    value = node.value
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) and \
            isinstance(value.operand, ast.Constant):
        current = -value.operand.value if isinstance(value.operand.value, int) else None
    else:
        current = value.value if isinstance(value, ast.Constant) else None
    other = _other_axis(current)
    if other is None:
        return None
    return ast.keyword(arg="axis", value=ast.Constant(other))


def _drop_keepdims(node):
    if isinstance(node, ast.keyword) and node.arg == "keepdims" and \
            isinstance(node.value, ast.Constant) and node.value.value is True:
        return ast.keyword(arg="keepdims", value=ast.Constant(False))
    return None


_FLIPS = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq,
          ast.NotEq: ast.Eq}


def _flip_comparison(node):
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FLIPS:
        return ast.Compare(left=node.left, ops=[_FLIPS[type(node.ops[0])]()],
                           comparators=node.comparators)
    return None


_BOUNDARIES = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


def _comparison_boundary(node):
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
            type(node.ops[0]) in _BOUNDARIES:
        return ast.Compare(left=node.left, ops=[_BOUNDARIES[type(node.ops[0])]()],
                           comparators=node.comparators)
    return None


def _is_max(node: ast.AST) -> bool:
    if _is_call_to(node, ("max", "amax")):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr in ("max", "amax")


def _remove_max_subtraction(node):
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _is_max(node.right):
        return node.left
    return None


def _divide_to_multiply(node):
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return ast.BinOp(left=node.left, op=ast.Mult(), right=node.right)
    return None


#: Each operator: a function of a node returning its replacement, or None (not a site).
OPERATORS: dict[str, Callable[[ast.AST], ast.AST | None]] = {
    "drop-sqrt": _drop_sqrt,
    "change-axis": _change_axis,
    "drop-keepdims": _drop_keepdims,
    "remove-transpose": _remove_transpose,
    "flip-comparison": _flip_comparison,
    "comparison-boundary": _comparison_boundary,
    "remove-max-subtraction": _remove_max_subtraction,
    "divide-to-multiply": _divide_to_multiply,
    "drop-exp": _drop_exp,
}


class _Rewrite(ast.NodeTransformer):
    """Replaces the ``target``-th site of ``operator`` (in ``generic_visit`` order)."""

    def __init__(self, operator, target: int):
        self.operator, self.target, self.seen, self.line = operator, target, 0, 0

    def visit(self, node):
        replacement = self.operator(node)
        if replacement is not None:
            self.seen += 1
            if self.seen - 1 == self.target:
                self.line = getattr(node, "lineno", 0) or getattr(
                    getattr(node, "value", None), "lineno", 0)
                return ast.copy_location(replacement, node) if hasattr(node, "lineno") \
                    else replacement
        return self.generic_visit(node)


def mutants(source: str, limit: int = MAX_MUTANTS, cpu_seconds: float = CPU_SECONDS
            ) -> list[Mutant]:
    """The mutants of ``source`` (parsed, never run), at most ``limit``; distinct sources only,
    from at most ``4 * limit`` rewrites (each copies the tree once) and ``cpu_seconds`` of this
    process's CPU time (a long reference gets the mutants made by then). Empty when the source is
    nested too deeply to copy (``RecursionError``); ``SyntaxError`` when it does not parse."""
    try:
        return _mutants(source, limit, time.process_time() + cpu_seconds)
    except RecursionError:
        return []


def _mutants(source: str, limit: int, deadline: float) -> list[Mutant]:
    tree = ast.parse(source)
    found, sources, tries = [], {ast.unparse(tree)}, 0
    for name, operator in OPERATORS.items():
        target = 0
        while len(found) < limit and tries < 4 * limit and time.process_time() < deadline:
            tries += 1
            rewrite = _Rewrite(operator, target)
            mutated = ast.fix_missing_locations(rewrite.visit(copy.deepcopy(tree)))
            if rewrite.seen <= target:
                break
            text = ast.unparse(mutated)
            target += 1
            if text in sources:
                continue
            sources.add(text)
            same_line = sum(1 for m in found if m.operator == name and m.line == rewrite.line)
            ident = f"{name}@{rewrite.line}" + (f"#{same_line + 1}" if same_line else "")
            found.append(Mutant(ident, name, rewrite.line, text + "\n"))
    return found


__all__ = ["MAX_MUTANTS", "Mutant", "OPERATORS", "mutants"]
