"""Issue 20 item 3: deliveries never hold grading. The embedded default sends them on their own
pool, at most DELIVERY_PER_HOST at once to one receiving host, each attempt under one overall
deadline: a receiver that drips its answer delays only its own deliveries."""
from __future__ import annotations

import threading
import time

from grader.queue.delivery_pool import DeliveryPool, host_of
from tests.conftest import example, wait_final
from tests.notify.receivers import Dripper

SUB = "/api/v1/assignments/attention-basics/submissions"


def test_one_host_at_its_bound_waits_while_another_host_is_sent_to():
    urls = {"a1": "http://slow.example/1", "a2": "http://slow.example/2",
            "a3": "http://slow.example/3", "b1": "http://other.example:8080/x"}
    started = {name: threading.Event() for name in urls}
    release = threading.Event()

    def send(delivery_id):
        started[delivery_id].set()
        if delivery_id.startswith("a"):
            assert release.wait(60)
        return delivery_id

    pool = DeliveryPool(send, urls.get, workers=4, per_host=2)
    try:
        futures = {name: pool.submit(name) for name in ("a1", "a2", "a3", "b1")}
        assert started["a1"].wait(30) and started["a2"].wait(30)
        assert futures["b1"].result(30) == "b1"  # sent while slow.example holds two threads
        assert pool.in_flight("slow.example") == 2
        assert not started["a3"].is_set()  # waits behind its own host's bound, in order
        release.set()
        assert [futures[n].result(30) for n in ("a1", "a2", "a3")] == ["a1", "a2", "a3"]
    finally:
        release.set()
        pool.close()
    assert pool.in_flight("slow.example") == 0


def test_the_host_key_is_host_and_port():
    assert host_of("https://LMS.example.edu/hook?x=1") == "lms.example.edu"
    assert host_of("http://127.0.0.1:9000/a") == "127.0.0.1:9000"
    assert host_of(None) == ""


def test_a_dripping_receiver_fails_by_its_deadline_while_other_grading_goes_on(embedded_config):
    """Three submissions call back a receiver that sends one byte every 50 ms, forever. Two
    attempts hold its connections (its bound), the third waits behind them; meanwhile a choice
    item is graded. Then each attempt ends as a "deadline" fault of 15 s (not a hung thread)."""
    from grader.app import close_app, create_app

    dripper = Dripper(interval=0.05)
    app = create_app({**embedded_config, "DELIVERY_DEADLINE_SECONDS": 15,
                      "DELIVERY_PER_HOST": 2, "DELIVERY_WORKERS": 4, "INLINE_WORKERS": 1,
                      "WEBHOOK_BACKOFF_SECONDS": 3600})
    state = app.extensions["grader"]
    key = (app.instance_path + "/local-instructor-key")
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = "Bearer " + open(key).read().strip()
    try:
        slow = []
        for i in range(3):
            body = {"learner_id": f"drip-{i}", "callback_url": dripper.url,
                    "responses": {"no-positions": {"choice": "A"}}}
            slow.append(client.post(SUB, json=body).get_json()["id"])
        assert dripper.wait_open(2), "the receiver was never called"
        other = client.post(SUB, json={"learner_id": "elsewhere",
                                       "responses": {"no-positions": {"choice": "B"}}})
        graded = wait_final(lambda: client.get(
            f"/api/v1/submissions/{other.get_json()['id']}?wait=30").get_json())
        assert (graded["status"], graded["score"]) == ("graded", 1)
        # graded while the receiver still held both attempts (each ends only at its deadline)
        host = host_of(dripper.url)
        assert dripper.open == 2 and state.dispatcher.deliveries.in_flight(host) == 2
        deadline = time.monotonic() + 120
        while True:
            listed = client.get("/api/v1/webhooks/deliveries").get_json()
            mine = [d for d in listed if d["url"] == dripper.url]
            if len(mine) == 3 and all(d["attempts"] >= 1 for d in mine):
                break
            assert time.monotonic() < deadline, mine
            time.sleep(0.1)
        assert {d["last_error"].split(" [")[0] for d in mine} == {
            "deadline: no complete answer within 15 s"}
        assert {d["status"] for d in mine} == {"pending"}  # retried later, as any failure
        assert {d["submission_id"] for d in mine} == set(slow)
    finally:
        dripper.close()
        close_app(app)
