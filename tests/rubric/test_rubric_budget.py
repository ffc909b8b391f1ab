"""The per-answer CPU budget charges the rubric's own work, not the process's full collections."""
import gc
import time

import pytest

from grader.rubric.budget import Deadline, ScoringTimeout, collector_seconds


def _spin(seconds: float) -> None:
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        pass


def test_cpu_spent_past_the_budget_raises():
    deadline = Deadline(0.02)
    _spin(0.03)
    with pytest.raises(ScoringTimeout):
        deadline.check()


def test_a_full_collection_inside_the_budget_is_not_charged_to_it():
    heap = [[i] for i in range(3_000_000)]  # a large heap makes one full collection slow
    deadline = Deadline(0.02)
    before, cpu = collector_seconds(), time.thread_time()
    gc.collect(2)
    spent_collecting = time.thread_time() - cpu
    assert spent_collecting > 0.02, "the heap was too small to test anything"
    assert collector_seconds() - before == pytest.approx(spent_collecting, abs=0.01)
    deadline.check()
    assert deadline.cpu_left() > 0.0
    del heap
