"""The ``grader`` command: local grading without a server, rubric trials, admin keys."""
import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLES, ROOT

GRADER = str(Path(sys.executable).parent / "grader")


def run(*args, stdin=None, env_extra=None, tmp=None):
    import os

    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([GRADER, *args], capture_output=True, text=True, input=stdin,
                          cwd=ROOT, env=env, timeout=120)


def test_grade_a_correct_implementation_locally():
    out = run("grade", "attention-basics", "sdpa", str(EXAMPLES / "sdpa_correct.py"), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert (result["score"], result["max_score"]) == (10.0, 10.0)


def test_grade_names_the_scaling_mistake():
    out = run("grade", "attention-basics", "sdpa", str(EXAMPLES / "sdpa_divides_by_dk.py"))
    assert out.returncode == 0, out.stderr
    assert "sqrt(d_k)" in out.stdout
    assert out.stdout.startswith("sdpa (code): ")
    score = float(out.stdout.split(": ", 1)[1].split(" / ")[0])
    assert 0 < score < 10


def test_grade_a_choice_from_stdin():
    out = run("grade", "attention-basics", "no-positions", "-", "--json", stdin="b\n")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["score"] == 1.0


def test_grade_unknown_item_is_a_clear_error():
    out = run("grade", "attention-basics", "nope", str(EXAMPLES / "sdpa_correct.py"))
    assert out.returncode == 2
    assert "has no item 'nope'" in out.stderr and "sdpa" in out.stderr


def test_rubric_trial_from_the_command_line(tmp_path):
    marked = tmp_path / "marked.json"
    model = (EXAMPLES / "quadratic_cost_model_answer.txt").read_text()
    marked.write_text(json.dumps([{"text": model, "mark": 5},
                                  {"text": "I do not know.", "mark": 0},
                                  {"text": "It is linear in n.", "mark": 0}]))
    out = run("rubric", "trial", "seed000-q5-quadratic-cost", str(marked), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["agreement"]["n"] == 3
    assert report["agreement"]["exact_agreement"] == 1.0


def test_create_admin_key_prints_a_working_key(tmp_path):
    db = tmp_path / "k.db"
    out = run("create-admin-key", env_extra={"DATABASE_URL": f"sqlite:///{db}",
                                             "INSTANCE_PATH": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    key = out.stdout.strip()
    from grader.store import Store

    principal = Store(f"sqlite:///{db}").courses.authenticate(key)
    assert principal is not None and principal.role == "admin"


def test_grade_a_missing_file_is_a_clear_error():
    out = run("grade", "attention-basics", "sdpa", "/nonexistent.py")
    assert out.returncode == 2
    assert "cannot read /nonexistent.py" in out.stderr and "Traceback" not in out.stderr
