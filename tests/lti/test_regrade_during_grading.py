"""A regrade applied while submissions are still queued or being graded (issue 27, item 4): the
run lists them (not 0 rows), and each is scored with the new version as soon as its grading ends,
so the LMS gets the new score, never the old one.

Expected by hand: the quiz is one choice item of 1 point. Version 1's key is B, version 2's is A;
both learners answer A: 0 under version 1, 1 under version 2."""
from __future__ import annotations

from pathlib import Path

from tests.lti.flows import launch, learner
from tests.lti.test_passback import settled_deliveries, wait_scores

QUIZ = {"id": "quiz-27", "title": "Scaling quiz", "published": True, "items": [
    {"id": "scale", "kind": "choice", "points": 1, "prompt": "Scores are divided by ...",
     "options": {"A": "sqrt(d_k)", "B": "d_k", "C": "n"}, "answer": "B"}]}


def test_a_regrade_during_grading_covers_queued_and_running_submissions(tool, platform,
                                                                         registered, browser):
    from grader.bootstrap import KEY_FILE

    app, base = tool
    key = (Path(app.config["GRADER"]["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()
    api = app.test_client()
    api.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    assert api.post("/api/v1/assignments", json=QUIZ).status_code == 201
    item = platform.add_lineitem(score_maximum=1)
    for sub in ("learner-61", "learner-62"):
        assert launch(browser, platform, learner(sub, lineitem_id=item,
                                                 custom={"assignment_id": "quiz-27"})
                      ).status_code == 303
    grader = app.extensions["grader"]
    store = grader.store
    # submitted against version 1 and not graded yet: one queued, one being graded
    queued, _ = store.create_submission("quiz-27", "learner-61", {"scale": {"choice": "A"}},
                                        course_id="local", assignment_version=1)
    running, _ = store.create_submission("quiz-27", "learner-62", {"scale": {"choice": "A"}},
                                         course_id="local", assignment_version=1)
    assert store.start(running.id).status == "running"
    # the key was wrong: version 2, and a regrade applied now
    fixed = {**QUIZ, "items": [{**QUIZ["items"][0], "answer": "A"}]}
    assert api.put("/api/v1/assignments/quiz-27", json=fixed).get_json()["version"] == 2
    run = api.post("/api/v1/assignments/quiz-27/regrades", json={"dry_run": False}).get_json()
    done = api.get(f"/api/v1/regrades/{run['id']}?wait=30").get_json()
    assert done["status"] == "done"
    assert sorted((e["learner_id"], e["status"], e["applied"]) for e in done["report"]) == [
        ("learner-61", "queued", False), ("learner-62", "running", False)]
    assert all(e["deferred"].startswith("not graded yet: scored with this version")
               for e in done["report"])
    # their gradings end now: scored with version 2, and that is what the LMS gets
    service = grader.dispatcher.service
    for submission in (queued, running):
        assert service.grade(submission.id).action == "graded"
        assert store.get(submission.id).score == 1.0
    received = wait_scores(platform, 2)
    assert sorted((b["userId"], b["scoreGiven"]) for b in received) == [
        ("learner-61", 1.0), ("learner-62", 1.0)]
    rows = settled_deliveries(store, "local", 2)
    assert sorted((r.event, r.status) for r in rows) == [
        ("submission.graded", "delivered"), ("submission.graded", "delivered")]
    # the history keeps both results: version 1's 0, then the regrade's 1
    assert [h[1] for h in store.grade_timeline("local", "quiz-27")[queued.id]] == [0.0, 1.0]
    print(f"scores delivered after a regrade during grading: "
          f"{sum(1 for b in received if b['scoreGiven'] == 1.0)} of 2 with the new key")
