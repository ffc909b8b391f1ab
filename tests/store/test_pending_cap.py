"""The learner page's cap on pending submissions (grader/store/pending.py) holds across processes
on PostgreSQL (gunicorn workers): six processes posting for one learner at the same moment with a
cap of 2 create exactly 2 submissions."""
from __future__ import annotations

import multiprocessing

from grader.store import Store


def _post(url: str, barrier, results) -> None:
    from grader.store.pending import TooManyPending, create_capped

    store = Store(url)
    barrier.wait()
    try:
        create_capped(store, 2, "attention-basics", "racer", {"no-positions": {"choice": "B"}},
                      course_id="local")
        results.put("created")
    except TooManyPending as busy:
        results.put(f"refused {len(busy.pending)}")
    finally:
        store.dispose()


def test_six_processes_create_two_pending_submissions(postgres_url):
    Store(postgres_url).upgrade()
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(6), context.Queue()
    workers = [context.Process(target=_post, args=(postgres_url, barrier, results))
               for _ in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    outcomes = sorted(results.get(timeout=5) for _ in workers)
    # 2 created while fewer than 2 were pending; the other 4 each saw the 2 pending ones
    assert outcomes == ["created"] * 2 + ["refused 2"] * 4


def test_a_finished_submission_frees_a_place(tmp_path, request):
    from grader.store.pending import TooManyPending, create_capped, pending_of

    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    request.addfinalizer(store.dispose)
    store.upgrade()
    made = [create_capped(store, 2, "a", "l", {"x": {"choice": "B"}})[0] for _ in range(2)]
    try:
        create_capped(store, 2, "a", "l", {"x": {"choice": "B"}})
        raise AssertionError("a third pending submission was created")
    except TooManyPending as busy:
        assert busy.pending == [made[1].id, made[0].id]  # newest first
    store.fail(made[0].id, "done")
    assert pending_of(store, "local", "l") == [made[1].id]
    assert create_capped(store, 2, "a", "l", {"x": {"choice": "B"}})[1] is True
    # another learner, or another course, has its own count
    assert create_capped(store, 2, "a", "other", {"x": {"choice": "B"}})[1] is True
    assert create_capped(store, 2, "a", "l", {"x": {"choice": "B"}}, course_id="c2")[1] is True
