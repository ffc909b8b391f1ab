"""Reading rubric documents from files (YAML or JSON, chosen by extension)."""
from __future__ import annotations

from pathlib import Path

from grader.rubric.engine import CompiledRubric, compile_rubric
from grader.rubric.parsing import parse_rubric
from grader.rubric.schema import RubricError


def find_rubric_file(rubric_id: str, content_dir: str | Path) -> Path:
    """Locate ``<rubric_id>.yaml|.yml|.json`` under ``content_dir/text`` (``content_dir`` being
    ``rubrics/``), or beside the assignments when ``content_dir`` is ``rubrics/assignments``.
    Raises ``ValueError`` naming the places searched."""
    content_dir = Path(content_dir)
    bases = [content_dir / "text", content_dir, content_dir.parent / "text"]
    tried = []
    for base in bases:
        for ext in (".yaml", ".yml", ".json"):
            path = base / f"{rubric_id}{ext}"
            tried.append(str(path))
            if path.is_file():
                return path
    raise ValueError(f"rubric: no rubric file {rubric_id!r} (looked for {', '.join(tried[:3])} ...)")


def load_rubric_file(path: str | Path) -> CompiledRubric:
    """Parse and compile ``path``; the file stem is the rubric id unless the document sets one.
    Raises :class:`RubricError` (errors prefixed with nothing; the message names the file)."""
    path = Path(path)
    fmt = "json" if path.suffix.lower() == ".json" else "yaml"
    try:
        return compile_rubric(parse_rubric(path.read_text(encoding="utf-8"), fmt), rubric_id=path.stem)
    except RubricError as exc:
        raise RubricError([{**e, "message": f"{path.name}: {e['message']}"} for e in exc.errors]) from exc


def load_marked_responses(path: str | Path) -> list[dict]:
    """Read marked responses for a rubric trial: ``[{"text": str, "mark": float, "id": ...}]``.

    Formats by extension: ``.json`` (a list of objects, or ``{"responses": [...]}``), ``.jsonl``
    (one object per line), ``.csv``/``.tsv`` (columns ``text`` and ``mark``; the Mohler names
    ``student_answer`` and ``score_avg`` are accepted too). Raises ``ValueError`` naming the row
    and the field at fault.
    """
    import csv
    import json

    path = Path(path)
    suffix = path.suffix.lower()
    text = path.read_text(encoding="utf-8")
    if suffix == ".json":
        data = json.loads(text)
        rows = data.get("responses") if isinstance(data, dict) else data
    elif suffix == ".jsonl":
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    elif suffix in (".csv", ".tsv"):
        reader = csv.DictReader(text.splitlines(), delimiter="\t" if suffix == ".tsv" else ",")
        rows = [dict(r) for r in reader]
    else:
        raise ValueError(f"{path.name}: use .json, .jsonl, .csv or .tsv")
    if not isinstance(rows, list):
        raise ValueError(f"{path.name}: expected a list of responses")
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ValueError(f"{path.name}: responses[{i}] is not an object")
        answer = row.get("text", row.get("student_answer"))
        mark = row.get("mark", row.get("score_avg"))
        if not isinstance(answer, str):
            raise ValueError(f"{path.name}: responses[{i}].text: a string is required")
        try:
            mark = float(mark)
        except (TypeError, ValueError):
            raise ValueError(f"{path.name}: responses[{i}].mark: a number is required, got {mark!r}") from None
        out.append({"text": answer, "mark": mark, "id": row.get("id", row.get("answer_id", i))})
    return out
