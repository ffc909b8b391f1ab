"""Make the fixture of rubrics stored by earlier versions (``stored_rubrics.json``).

Kept for the record of how the fixture was made, like ``tests/store/legacy/make_fixture.py``: it
ran once and must not be run again to "fix" a failing test (the point is to freeze what earlier
versions stored and how they scored it). For every rubric document the repository ever stored
(``rubrics/text``, ``rubrics/mohler``, ``examples/rubric_heads_why.yaml`` at each commit of main
that changed them, the rubric in the legacy store of ``tests/store/legacy`` and an uploaded rubric
with the regular expression of issue 22 item 3, which the API accepted before 98a8f1a), it:

1. keeps the document's text as stored and the first commit that stored it;
2. scores a few answers with that commit's own engine, in a temporary worktree: the reference
   answer, the model answers of the items that use it, the question itself, a refusal, the
   reference answer negated, and for the Mohler rubrics the first six dev answers of the question
   (Mohler, Bunescu and Mihalcea 2011, ``../shared/data/mohler-dev``; CC BY 4.0);
3. scores them again with the engine of every later commit that changed ``grader/rubric`` (main's,
   then this branch's) and records each change of score with the commit that made it.

``tests/rubric/test_stored_rubrics.py`` checks that each document loads today and scores what the
last recorded commit gave; a score that moved is explained commit by commit in ``history``.

Usage (once, at the branch's last engine commit): ``.venv/bin/python tests/rubric/legacy/make_fixture.py``
"""
from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
MAIN = "6378414"  # main when this fixture was made (issue 22's base)
SOURCES = ["rubrics/text", "rubrics/mohler", "examples/rubric_heads_why.yaml"]
MOHLER = ROOT.parent.parent / "shared" / "data" / "mohler-dev" / "answers.tsv"
POINTER_REGEX = r"=\s*&?\s*\w+\s*(\[\s*0\s*\])?\s*;"
POINTER_RUBRIC = f"""id: pointer-assignment
question: How do you make a pointer point to the first element of an array?
reference_answer: "Assign the array's name (or the address of its first element) to the pointer: p = a; or p = &a[0];"
max_points: 5
criteria:
  - id: assign
    description: assigns the array (or its first element's address) to the pointer
    points: 3
    concepts: [{{any: [{{regex: {json.dumps(POINTER_REGEX)}}}, "assign* array|address"]}}]
  - id: name-is-address
    description: the array's name is the address of its first element
    points: 2
    concepts: [{{phrase: "name address first element", gap: 3}}]
"""

SCORER = r"""
import json, sys
from grader.rubric import compile_rubric, parse_rubric
out = {}
for doc in json.load(sys.stdin):
    try:
        rubric = compile_rubric(parse_rubric(doc["text"], doc["format"]), rubric_id=doc["stem"])
        out[doc["id"]] = [round(rubric.score(a).points, 4) for a in doc["answers"]]
    except Exception as exc:
        out[doc["id"]] = "refused: " + str(exc)[:300]
json.dump(out, sys.stdout)
"""


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def mohler_answers() -> dict[str, list[str]]:
    by_question: dict[str, list[str]] = {}
    with MOHLER.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            by_question.setdefault(row["question_id"], []).append(row["student_answer"])
    return {q: answers[:6] for q, answers in by_question.items()}


def model_answers(commit: str) -> dict[str, list[str]]:
    """Rubric id -> the model answers of the items that use it, in the assignments at ``commit``."""
    out: dict[str, list[str]] = {}
    for path in git("ls-tree", "--name-only", commit, "rubrics/assignments/").split():
        try:
            doc = yaml.safe_load(git("show", f"{commit}:{path}"))
        except yaml.YAMLError:
            continue
        for item in (doc or {}).get("items", []):
            if item.get("kind") == "text" and isinstance(item.get("rubric"), str) and item.get("model_answer"):
                out.setdefault(item["rubric"], []).append(item["model_answer"])
    return out


def answers_for(text: str, stem: str, source: str, models: dict, mohler: dict) -> list[str]:
    doc = yaml.safe_load(text)
    answers = []
    reference = doc.get("reference_answer")
    if isinstance(reference, str):
        answers += [reference, "It is not true that " + reference[:1].lower() + reference[1:]]
    answers += models.get(stem, [])
    answers += [str(doc.get("question", "")), "I don't know."]
    if source.startswith("rubrics/mohler/"):
        answers += mohler.get(stem, [])
    return list(dict.fromkeys(answers))


def collect() -> list[dict]:
    mohler = mohler_answers()
    documents: dict[str, dict] = {}

    def add(text: str, source: str, stem: str, commit: str, fmt: str = "yaml", models=None) -> None:
        key = hashlib.sha256(text.encode()).hexdigest()[:16]
        if key not in documents:
            documents[key] = {"id": key, "source": source, "stem": stem, "commit": commit, "format": fmt,
                              "text": text, "answers": answers_for(text, stem, source, models or {}, mohler)}

    for commit in git("rev-list", "--reverse", MAIN, "--", *SOURCES).split():
        models = model_answers(commit)
        for path in git("ls-tree", "-r", "--name-only", commit, "--", *SOURCES).split():
            if path.endswith((".yaml", ".yml")):
                add(git("show", f"{commit}:{path}"), path, Path(path).stem, commit[:7], models=models)
    legacy = json.loads((ROOT / "tests" / "store" / "legacy" / "main-2a4cd5d.json").read_text())
    for row in legacy["rows"].get("rubrics", []):
        document = row["document"] if isinstance(row["document"], dict) else json.loads(row["document"])
        add(json.dumps(document), "tests/store/legacy/main-2a4cd5d.json", row["rubric_id"], legacy["commit"], "json")
    add(POINTER_RUBRIC, "an upload accepted before the overlapping-repeats check", "pointer-assignment",
        git("rev-parse", "--short=7", "98a8f1a^").strip())
    return list(documents.values())


def score_at(commit: str, docs: list[dict], worktrees: Path) -> dict:
    tree = worktrees / commit
    if not tree.exists():
        git("worktree", "add", "--detach", str(tree), commit)
    result = subprocess.run([sys.executable, "-c", SCORER], cwd=tree, input=json.dumps(docs), check=True,
                            capture_output=True, text=True, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
    return json.loads(result.stdout)


def main() -> int:
    docs = collect()
    head = git("rev-parse", "--short=7", "HEAD").strip()
    # the engines that served stored rubrics: main's first-parent line (merges included) and this
    # branch, at each commit that changed grader/rubric
    chain = [c[:7] for c in git("rev-list", "--first-parent", "--reverse", "--abbrev-commit", "HEAD", "--",
                                "grader/rubric").split()]
    descendants = {d: {d} | {c[:7] for c in git("rev-list", "--abbrev-commit", "--ancestry-path",
                                                  f"{d}..HEAD").split()}
                   for d in {doc["commit"] for doc in docs}}
    commits = list(dict.fromkeys([d["commit"] for d in docs] + chain))
    subjects = {c: git("log", "-1", "--format=%s", c).strip()[:160] for c in commits}
    for doc in docs:
        # its own commit first, then every engine commit after it on the line, in order
        doc["due"] = [doc["commit"]] + [c for c in chain if c != doc["commit"] and c in descendants[doc["commit"]]]
        doc["history"] = [[] for _ in doc["answers"]]
        doc["scores"] = None
    with tempfile.TemporaryDirectory(prefix="text-legacy-") as tmp:
        results = {c: score_at(c, [{k: d[k] for k in ("id", "text", "format", "stem", "answers")}
                                   for d in docs if c in d["due"]], Path(tmp)) for c in commits}
    git("worktree", "prune")
    for doc in docs:
        for commit in doc["due"]:
            new = results[commit][doc["id"]]
            if doc["scores"] is None:
                doc["scores"] = doc["at_commit"] = doc["loaded"] = new  # at its own commit
                continue
            if isinstance(new, str) != isinstance(doc["loaded"], str):
                doc.setdefault("load_history", []).append({"commit": commit, "subject": subjects[commit],
                                                           "result": new if isinstance(new, str) else "loads"})
            doc["loaded"] = new
            if isinstance(new, str):
                continue  # refused here: scores compare with the last engine that loaded it
            for i, (old, value) in enumerate(zip(doc["scores"], new)):
                if old != value:
                    doc["history"][i].append({"commit": commit, "subject": subjects[commit], "score": value})
            doc["scores"] = new
    out = {"made_at": head, "main": MAIN, "documents": [
        {"id": d["id"], "source": d["source"], "stem": d["stem"], "commit": d["commit"], "format": d["format"],
         "text": d["text"], "load_history": d.get("load_history", []),
         "answers": [{"text": a, "score_at_commit": s, "history": h}
                     for a, s, h in zip(d["answers"], d["at_commit"], d["history"])]} for d in docs]}
    (HERE / "stored_rubrics.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(docs)} documents, {sum(len(d['answers']) for d in docs)} answers, scored at {len(commits)} commits")
    assert not any(isinstance(d["at_commit"], str) for d in docs), "a document did not load at its own commit"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
