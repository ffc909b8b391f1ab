"""The ``grader`` command: local grading without a server, rubric trials, admin keys, the
production bootstrap (``init``), and where beat and the worker leave their traces."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

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


def parse_env_lines(stdout: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in stdout.splitlines()
                if line and not line.startswith("#"))


@pytest.mark.services
@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_init_makes_the_course_and_prints_working_admin_and_lms_keys(tmp_path, request, dialect):
    """Issue 14.5: one command instead of create-admin-key, POST /courses, POST .../keys."""
    from grader.store import Store

    url = (f"sqlite:///{tmp_path / 'prod.db'}" if dialect == "sqlite"
           else request.getfixturevalue("postgres_url"))
    env = {"DATABASE_URL": url, "INSTANCE_PATH": str(tmp_path / "instance")}
    out = run("init", "--course", "cs401", "--name", "CS 401", env_extra=env)
    assert out.returncode == 0, out.stderr
    values = parse_env_lines(out.stdout)
    assert set(values) == {"GRADER_ADMIN_KEY", "GRADER_LMS_KEY", "GRADER_WEBHOOK_SECRET"}
    store = Store(url)
    admin = store.courses.authenticate(values["GRADER_ADMIN_KEY"])
    lms = store.courses.authenticate(values["GRADER_LMS_KEY"])
    assert (admin.role, admin.course_id) == ("admin", None)
    assert (lms.role, lms.course_id) == ("lms", "cs401")
    course = store.courses.get_course("cs401")
    assert (course.name, course.webhook_secret) == ("CS 401", values["GRADER_WEBHOOK_SECRET"])
    # again: the course is kept (same secret), new keys are made, the secret is not shown again
    again = run("init", "--course", "cs401", "--instructor", env_extra=env)
    assert again.returncode == 0, again.stderr
    more = parse_env_lines(again.stdout)
    assert set(more) == {"GRADER_ADMIN_KEY", "GRADER_INSTRUCTOR_KEY", "GRADER_LMS_KEY"}
    assert "existed already" in again.stdout
    assert store.courses.authenticate(more["GRADER_INSTRUCTOR_KEY"]).course_id == "cs401"
    assert store.courses.get_course("cs401").webhook_secret == values["GRADER_WEBHOOK_SECRET"]
    store.dispose()


def test_init_with_a_bad_course_id_is_a_clear_error(tmp_path):
    out = run("init", "--course", "CS 401!", env_extra={
        "DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}", "INSTANCE_PATH": str(tmp_path)})
    assert out.returncode == 2
    assert "course id must be" in out.stderr and "Traceback" not in out.stderr


def run_until(args, env, cwd, ready, timeout=60) -> str:
    """Start ``grader ARGS`` in ``cwd``; stop it (SIGTERM) once ``ready(stderr so far)`` is true
    or after ``timeout`` seconds; return its standard error."""
    import os
    import signal
    import time

    err_path = Path(cwd) / "stderr.txt"
    with open(err_path, "w") as err_file:
        proc = subprocess.Popen([GRADER, *args], cwd=cwd, env={**os.environ, **env},
                                stdout=subprocess.DEVNULL, stderr=err_file, text=True)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline and proc.poll() is None \
                    and not ready(err_path.read_text()):
                time.sleep(0.2)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    text = err_path.read_text()
    err_path.unlink()
    return text


@pytest.mark.services
@pytest.mark.slow
def test_beat_keeps_its_schedule_in_the_instance_folder(tmp_path, redis_url):
    import uuid

    instance, cwd = tmp_path / "instance", tmp_path / "cwd"
    cwd.mkdir()
    env = {"INSTANCE_PATH": str(instance), "CELERY_BROKER_URL": redis_url,
           "CELERY_QUEUE": f"beat-test-{uuid.uuid4().hex[:8]}",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'g.db'}"}
    err = run_until(["beat"], env, cwd, lambda _err: any(instance.glob("celerybeat-schedule*")))
    assert sorted(p.name for p in instance.glob("celerybeat-schedule*")), err[-2000:]
    assert list(cwd.iterdir()) == []  # nothing in the working directory
    assert not list(ROOT.glob("celerybeat-schedule*"))


@pytest.mark.services
@pytest.mark.slow
def test_worker_as_root_explains_why_instead_of_celerys_generic_warning(tmp_path, redis_url):
    import os
    import uuid

    env = {"INSTANCE_PATH": str(tmp_path / "instance"), "CELERY_BROKER_URL": redis_url,
           "CELERY_QUEUE": f"worker-test-{uuid.uuid4().hex[:8]}",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'g.db'}"}
    err = run_until(["worker", "--concurrency", "1"], env, tmp_path,
                    lambda text: " ready" in text)
    assert " ready" in err, err[-2000:]
    if os.geteuid() == 0:  # CI and this machine: the sandbox needs root
        assert "running as root, as the sandbox needs" in err
        assert "accepts only JSON messages" in err
    else:
        assert "running as root" not in err
    assert "You're running the worker with superuser privileges" not in err


def test_the_worker_accepts_no_pickle():
    """The root note's claim: a broker message cannot run code by being deserialised."""
    from workers.celery_app import make_celery

    app = make_celery({"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CELERY_QUEUE": "q",
                       "SWEEP_INTERVAL_SECONDS": 30})
    assert list(app.conf.accept_content) == ["json"] and app.conf.task_serializer == "json"


def test_grade_shows_a_deduction_as_one_line_with_its_amount(tmp_path):
    # issue 22 item 5: a deduction read "-0.75/0" above "-0.75 points (the penalty is ...)"; now the
    # name line has no "x/0" and the next line says what was taken and why. The answer meets all-pairs
    # (2) and long-sequences (1) and says attention is linear (-1): 2 of 5
    answer = tmp_path / "a.txt"
    answer.write_text("There is a score for every pair of tokens, and that is "
                      "prohibitively expensive for long inputs. But self-attention itself is linear in "
                      "sequence length.")
    out = run("grade", "attention-basics", "quadratic-cost", str(answer))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "quadratic-cost (text): 2 / 5"
    at = lines.index("  [FAIL] Deduction for a misconception: attention-linear")
    assert lines[at + 1].startswith("         -1: claims self-attention itself is linear in sequence length.")
    assert "/0" not in out.stdout
