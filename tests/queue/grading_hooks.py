"""Initializers for the grading processes of tests/queue/test_grading_pool.py: they run inside
each child, before its grading service is built, and change what grading does there."""
from __future__ import annotations

import os


def slow_trusted_side(busy, release, pid_file: str) -> None:
    """Make the trusted side's grading of every submission slow, holding this process's GIL:
    ``grade_responses`` (diagnosis, disclosure, rubric scoring, ...) first writes the child's pid
    to ``pid_file`` and sets ``busy``, then spins in Python until ``release`` is set."""
    from grader.grading import service

    real = service.grade_responses

    def held(*args, **kwargs):
        with open(pid_file, "w") as out:
            out.write(str(os.getpid()))
        busy.set()
        spins = 0
        while not release.is_set():  # pure Python: this process's GIL is never free for long
            for _ in range(10_000):
                spins += 1
        return real(*args, **kwargs)

    service.grade_responses = held


def die_while_grading(marker: str) -> None:
    """The first grading in any child kills that child (SIGKILL) before it stores anything; a
    later one (after ``marker`` exists) grades normally."""
    import signal

    from grader.grading import service

    real = service.grade_responses

    def crash(*args, **kwargs):
        if not os.path.exists(marker):
            with open(marker, "w") as out:
                out.write(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)

    service.grade_responses = crash


def always_die(counter: str) -> None:
    """Every grading kills its child; each death appends a line to ``counter``."""
    import signal

    from grader.grading import service

    def crash(*args, **kwargs):
        with open(counter, "a") as out:
            out.write(f"{os.getpid()}\n")
        os.kill(os.getpid(), signal.SIGKILL)

    service.grade_responses = crash


def echo_main(config, jobs, events, initializer=None, initargs=()):
    """A stand-in grading process: answers ``("grade", job, text)`` with ``text`` reversed and
    hangs for ever on the text ``"hang"`` (for the pool's own tests)."""
    import time

    while True:
        try:
            message = jobs.recv()
        except EOFError:
            return
        if message is None:
            return
        _kind, job_id, text = message
        if text == "hang":
            events.send(("final", "hanging"))
            while True:
                time.sleep(3600)
        events.send(("done", job_id, text[::-1], None))


def record_logs(path: str) -> None:
    """Append every log record of this child at INFO and above to ``path`` as ``logger name:
    level``, starting with a ``grader.test: INFO`` line of its own (so a file without it means
    the initializer never ran)."""
    import logging

    handler = logging.FileHandler(path)
    handler.setLevel(logging.INFO)
    handler.setFormatter(logging.Formatter("%(name)s: %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.getLogger("grader.test").info("recording the grading process's logs")
