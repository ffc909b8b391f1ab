"""Issue 25 on the instructor pages: each authored problem version's trial state (passed with
its figures, refused with the reason, failed, queued or running on a worker) and the version
each code item uses. The versions and trial runs are stored directly (what an upload in
production mode leaves while its trial waits, runs or ends), so no sandbox is needed; the page
is read as HTML."""
from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from grader.problems import pictures
from grader.problems.authored import compile_document, parse
from grader.problems.authored.executor import encode
from tests.problems.conftest import FakeSandbox
from tests.web.test_instructor_pages import sign_in

ROOT = Path(__file__).resolve().parents[2]
SOURCE = (ROOT / "examples" / "problems" / "cosine_attention.yaml").read_text()
PASSED = {"reference": {"score": 10.0, "max_score": 10.0, "full": True},
          "mutants_caught": {"caught": 15, "of": 15}, "findings": [], "refused": None}
REFUSED = "seed 0, test 'values #0': the reference failed: ValueError: 2-D input"


@pytest.fixture
def course(app, client):
    """Version 1 passed and used by hw-cos/cos; then 2 running (its worker's second start),
    3 refused, 4 failed, 5 queued."""
    store = app.extensions["grader"].store
    content, trials = store.content, store.problem_trials
    document = parse(SOURCE)
    problem = compile_document(document)  # the visible examples' values, as an upload stores
    problem.executor.prepare(problem.visible_cases() + pictures.reference_cases(problem),
                             FakeSandbox())
    expected = encode(problem.executor.visible_values())

    def version(status, trial):
        return content.add_problem_version("local", "cosine-attention", document, SOURCE,
                                           expected if status == "passed" else {}, trial,
                                           status=status)

    version("passed", PASSED)
    made = client.post("/api/v1/assignments", json={
        "id": "hw-cos", "title": "Cosine attention", "published": True,
        "items": [{"id": "cos", "kind": "code", "points": 10, "problem": "cosine-attention"}]})
    assert made.status_code == 201, made.get_data(as_text=True)
    running = trials.create("local", "cosine-attention", version("pending", {}).version,
                            decides=True)
    assert trials.start(running.id) and trials.start(running.id)  # a redelivery: start 2
    version("refused", {"refused": REFUSED})
    version("failed", {"refused": None, "error": "sandbox_unavailable: no sandbox slot"})
    trials.create("local", "cosine-attention", version("pending", {}).version, decides=True)
    return store


def table_rows(page: str) -> list[list[str]]:
    """The cells of each body row of the table ``#problem-versions``, as text."""
    table = re.search(r'<table[^>]*id="problem-versions".*?</table>', page, re.S).group(0)
    body = table.split("<tbody>", 1)[1]
    return [[html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
             for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_the_assignment_page_shows_the_version_an_item_uses_and_the_newer_ones(app, course,
                                                                              instructor_key):
    browser = app.test_client()
    sign_in(browser, instructor_key, "/learn/hw-cos/instructor")
    page = browser.get("/learn/hw-cos/instructor").get_data(as_text=True)
    assert table_rows(page) == [[
        "cos", "cosine-attention", "1",
        "passed: trial passed: the reference earns full marks, 15 of 15 mutants caught",
        "version 2: running (trial running on a worker (start 2)); "
        f"version 3: refused (refused: {REFUSED}); "
        "version 4: failed (the trial could not run (sandbox_unavailable: no sandbox slot); "
        "try it again); "
        "version 5: queued (trial queued for a worker)"]]


def test_the_assignments_page_lists_every_version_and_who_uses_it(app, course,
                                                                  instructor_key):
    browser = app.test_client()
    sign_in(browser, instructor_key, "/instructor")
    page = browser.get("/instructor").get_data(as_text=True)
    title = "Cosine-similarity attention (cosine-attention)"
    assert table_rows(page) == [
        [title, "1", "passed: trial passed: the reference earns full marks, 15 of 15 mutants "
                     "caught", "hw-cos/cos"],
        [title, "2", "running: trial running on a worker (start 2)", "no item"],
        [title, "3", f"refused: refused: {REFUSED}", "no item"],
        [title, "4", "failed: the trial could not run (sandbox_unavailable: no sandbox slot); "
                     "try it again", "no item"],
        [title, "5", "queued: trial queued for a worker", "no item"]]
    # a built-in assignment's page has no such section
    assert 'id="problem-versions"' not in browser.get(
        "/learn/attention-basics/instructor").get_data(as_text=True)


def test_a_finished_trial_changes_what_the_page_says(app, course, instructor_key):
    store = course
    running = next(r for r in store.problem_trials.of_course("local") if r.status == "running")
    store.content.settle_problem_version("local", "cosine-attention", running.version,
                                         "passed", PASSED, {})
    store.problem_trials.finish(running.id, PASSED)
    browser = app.test_client()
    sign_in(browser, instructor_key, "/learn/hw-cos/instructor")
    row, = table_rows(browser.get("/learn/hw-cos/instructor").get_data(as_text=True))
    assert row[2] == "1"  # still pinned: the assignment names version 1
    assert row[4].startswith("version 2: passed (trial passed: the reference earns full marks, "
                             "15 of 15 mutants caught); version 3: refused")
