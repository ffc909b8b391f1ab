"""Reading rubric documents from files (YAML or JSON, chosen by extension)."""
from __future__ import annotations

from pathlib import Path

from grader.rubric.engine import CompiledRubric, compile_rubric
from grader.rubric.schema import RubricError, parse_rubric


def load_rubric_file(path: str | Path) -> CompiledRubric:
    """Parse and compile ``path``; the file stem is the rubric id unless the document sets one.
    Raises :class:`RubricError` (errors prefixed with nothing; the message names the file)."""
    path = Path(path)
    fmt = "json" if path.suffix.lower() == ".json" else "yaml"
    try:
        return compile_rubric(parse_rubric(path.read_text(encoding="utf-8"), fmt), rubric_id=path.stem)
    except RubricError as exc:
        raise RubricError([{**e, "message": f"{path.name}: {e['message']}"} for e in exc.errors]) from exc
