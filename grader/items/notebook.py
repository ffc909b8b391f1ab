"""A code response given as a Jupyter notebook: ``{"notebook": <the .ipynb document as JSON, or
as its text>}``, read with ``nbformat`` (any nbformat version it reads, converted to v4 and
validated against its schema). The code cells are joined in order (a blank line between cells);
outputs and execution counts stored in the notebook are dropped before anything is read, never
trusted. IPython syntax that is not Python is dropped with a note naming each line: line magics
(``%matplotlib inline``), shell escapes (``!pip install numpy``), their assignments
(``files = !ls``), and cell magics (``%%timeit``: the whole cell). A dropped line inside a block
becomes ``pass`` at its indentation, so the block stays valid; line numbers of the learner's
errors then count lines of the joined source.

Everything here is linear in the notebook's size (string methods only, no regex).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

#: A notebook (as text, or as its JSON re-encoded) longer than this is refused (characters).
MAX_NOTEBOOK_CHARS = 1_000_000
#: At most this many dropped lines are named in the notes; the rest are counted.
MAX_NAMED_DROPS = 10
_SHOWN_LINE_CHARS = 60


class NotebookError(ValueError):
    """The response is not valid JSON or not a Jupyter notebook; the message is a sentence."""


@dataclass
class NotebookSource:
    """The Python source read from a notebook, how many code cells it had, and the lines
    dropped (``(code cell number from 1, line number in the cell from 1, the line, why)``)."""

    source: str
    code_cells: int
    dropped: list[tuple[int, int, str, str]] = field(default_factory=list)

    def notes(self) -> str:
        """One sentence on what was read, then the dropped lines (at most
        :data:`MAX_NAMED_DROPS` named)."""
        cells = f"{self.code_cells} code cell{'' if self.code_cells == 1 else 's'}"
        head = f"Read from your notebook: {cells}, in order (outputs stored in it are ignored)."
        if not self.dropped:
            return head
        lines = [head, f"Dropped {len(self.dropped)} line"
                       f"{'' if len(self.dropped) == 1 else 's'} that Python cannot run:"]
        for cell, line, text, why in self.dropped[:MAX_NAMED_DROPS]:
            shown = text.strip()
            if len(shown) > _SHOWN_LINE_CHARS:
                shown = shown[:_SHOWN_LINE_CHARS] + "…"
            lines.append(f"- code cell {cell}, line {line}: {shown} ({why})")
        if len(self.dropped) > MAX_NAMED_DROPS:
            lines.append(f"- and {len(self.dropped) - MAX_NAMED_DROPS} more")
        return "\n".join(lines)


def _document(raw: Any) -> dict:
    if isinstance(raw, str):
        if len(raw) > MAX_NOTEBOOK_CHARS:
            raise NotebookError(f"notebook: longer than {MAX_NOTEBOOK_CHARS} characters")
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            where = (f" (line {exc.lineno}, column {exc.colno}: {exc.msg})"
                     if isinstance(exc, json.JSONDecodeError) else "")
            raise NotebookError(f"notebook: is not valid JSON{where}, so it is not a Jupyter "
                                "notebook (.ipynb)") from None
    if not isinstance(raw, dict):
        raise NotebookError("notebook: must be a Jupyter notebook (.ipynb): a JSON object with "
                            "'cells' and 'nbformat', or its text")
    if "nbformat" not in raw or not ("cells" in raw or "worksheets" in raw):
        raise NotebookError("notebook: is JSON but not a Jupyter notebook (it has no 'nbformat' "
                            "and 'cells')")
    return raw


def _without_outputs(doc: dict) -> dict:
    """A shallow copy of ``doc`` whose code cells carry no outputs (never read, never
    trusted)."""
    def clean(cell):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            return {**cell, "outputs": [], "execution_count": None}
        return cell

    doc = dict(doc)
    if isinstance(doc.get("cells"), list):
        doc["cells"] = [clean(c) for c in doc["cells"]]
    if isinstance(doc.get("worksheets"), list):  # nbformat 3
        doc["worksheets"] = [{**w, "cells": [clean(c) for c in w.get("cells", [])]}
                             if isinstance(w, dict) and isinstance(w.get("cells"), list) else w
                             for w in doc["worksheets"]]
    return doc


def read_notebook(raw: Any) -> list[str]:
    """The sources of the code cells of the notebook ``raw`` (a dict, or its JSON text), in
    order. Raises :class:`NotebookError` (a sentence naming the field ``notebook``) when it is
    not valid JSON, not a notebook, or fails nbformat's schema."""
    import nbformat
    from nbformat.validator import ValidationError

    doc = _without_outputs(_document(raw))
    try:
        text = json.dumps(doc)
    except (TypeError, ValueError):
        raise NotebookError("notebook: is not a Jupyter notebook (it holds values JSON cannot "
                            "carry)") from None
    if len(text) > MAX_NOTEBOOK_CHARS:
        raise NotebookError(f"notebook: longer than {MAX_NOTEBOOK_CHARS} characters")
    try:
        notebook = nbformat.reads(text, as_version=4)
        nbformat.validate(notebook)
    except ValidationError as exc:
        message = str(exc.message if hasattr(exc, "message") else exc).split("\n")[0][:200]
        raise NotebookError(f"notebook: is not a valid Jupyter notebook ({message})") from None
    except Exception as exc:  # noqa: BLE001 - nbformat's readers raise many kinds
        raise NotebookError(f"notebook: could not be read as a Jupyter notebook "
                            f"({type(exc).__name__})") from None
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def _ipython_kind(stripped: str) -> str | None:
    """Why ``stripped`` (a line without its indentation) is IPython syntax, or ``None``."""
    if stripped.startswith("%"):
        return "an IPython magic"
    if stripped.startswith("!"):
        return "a shell escape"
    target, equals, value = stripped.partition("=")
    value = value.lstrip()
    if equals and value[:1] in ("!", "%") and not value.startswith("!="):
        names = target.replace(",", " ").split()
        if names and all(name.isidentifier() for name in names):
            return "a shell escape" if value.startswith("!") else "an IPython magic"
    return None


def notebook_source(raw: Any) -> NotebookSource:
    """The Python source of the notebook ``raw`` (:func:`read_notebook`), with IPython lines
    dropped and noted. Raises :class:`NotebookError`."""
    cells = read_notebook(raw)
    parts, dropped = [], []
    for number, cell in enumerate(cells, start=1):
        lines = cell.split("\n")
        first = lines[0].lstrip() if lines else ""
        if first.startswith("%%"):
            dropped.append((number, 1, first, "a cell magic: the whole cell was dropped"))
            continue
        kept = []
        for index, line in enumerate(lines, start=1):
            stripped = line.lstrip()
            why = _ipython_kind(stripped)
            if why is None:
                kept.append(line)
                continue
            dropped.append((number, index, stripped, why))
            indent = line[:len(line) - len(stripped)]
            kept.append(indent + "pass" if indent else "")
        parts.append("\n".join(kept).rstrip("\n"))
    source = "\n\n".join(part for part in parts if part.strip()) + "\n"
    return NotebookSource(source=source if source.strip() else "", code_cells=len(cells),
                          dropped=dropped)
