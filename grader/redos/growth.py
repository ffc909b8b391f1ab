"""How a regular expression's cost grows with its input, measured as a ratio.

:func:`growth` compares, in CPU time of this thread, one scan of a :data:`LARGE` adversarial
string with ``LARGE / SMALL`` scans of the :data:`SMALL` string of the same kind
(:func:`grader.redos.attack.adversarial`). A scan is ``finditer`` with every match consumed:
what ``search``, ``sub``, ``split`` and ``findall`` do, trying every start position. The ratio
is about 1 for a linear pattern and ``LARGE / SMALL`` (64) for a quadratic one; an exponential
one does not finish, so every measurement runs under a CPU-time alarm (:func:`cpu_alarm`) that
turns the hang into :class:`TooSlow`. A ratio, not milliseconds: a busy machine slows both sides
alike, and a side that still looks slow is measured again (the smallest ratio is kept).
"""
from __future__ import annotations

import gc
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from grader.redos.attack import adversarial
from grader.redos.discovery import Found
from grader.rubric.regex_safety import regex_problem

#: Characters of the short and the long adversarial strings.
SMALL, LARGE = 1 << 10, 64 << 10
#: Most a pattern's time per character may grow from :data:`SMALL` to :data:`LARGE`: linear
#: patterns measure 1 to 3.5 (the longer string's backtracking stack and caches), quadratic ones
#: about 64; 16 leaves a factor of 4 either way.
MAX_GROWTH = 16.0
#: CPU seconds one measurement may take before it counts as a hang (a linear pattern takes
#: milliseconds on :data:`LARGE` characters).
HANG_SECONDS = 10.0
#: A scan too short for the clock to see (an anchored pattern stops at once) is repeated, both
#: sides alike, until it takes about this many CPU seconds, at most :data:`_MAX_REPEATS` times.
_MEASURED_SECONDS, _MAX_REPEATS = 0.001, 64


class TooSlow(Exception):
    """A measurement took more than its CPU-time allowance (see :func:`cpu_alarm`)."""


@contextmanager
def cpu_alarm(seconds: float) -> Iterator[None]:
    """Raise :class:`TooSlow` in the main thread once the process has used ``seconds`` more
    CPU time (``ITIMER_VIRTUAL``; ``re`` checks for signals while it backtracks, so even a
    catastrophic match stops). Outside the main thread, no alarm is set."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise TooSlow(f"more than {seconds:g} CPU-s")

    previous = signal.signal(signal.SIGVTALRM, expire)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


def cpu_seconds(work: Callable[[], Any], times: int = 1) -> float:
    """CPU seconds of this thread for calling ``work()`` ``times`` times, with the garbage
    collector off (a collection's cost depends on the whole heap, not on the work)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        started = time.thread_time()
        for _ in range(times):
            work()
        return time.thread_time() - started
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class Growth:
    """``found``'s growth on its worst adversarial string ``string``: ``ratio`` is the time of
    a scan of :data:`LARGE` characters over that of ``LARGE / SMALL`` scans of :data:`SMALL`
    ones, ``large_ms`` the CPU milliseconds of one large scan."""

    found: Found
    string: str
    ratio: float
    large_ms: float

    @property
    def linear(self) -> bool:
        """Whether the ratio is within :data:`MAX_GROWTH`."""
        return self.ratio <= MAX_GROWTH


def ratio(small: Callable[[], Any], large: Callable[[], Any], copies: int
          ) -> tuple[float, float]:
    """(CPU time of ``large()`` over that of ``copies`` calls of ``small()``, CPU seconds of
    one ``large()``): about 1 when ``large`` does ``copies`` times the work of ``small`` in
    linear time. A side too short for the clock to see is repeated, both alike."""
    once = cpu_seconds(large)
    repeats = min(_MAX_REPEATS, max(1, int(_MEASURED_SECONDS / max(once, 1e-7))))
    small_seconds = cpu_seconds(small, copies * repeats)
    large_seconds = cpu_seconds(large, repeats) if repeats > 1 else once
    return large_seconds / max(small_seconds, 1e-7), large_seconds / repeats


def _scan(pattern: Any, text: str | bytes) -> Callable[[], None]:
    def scan():
        for _match in pattern.finditer(text):
            pass
    return scan


def least_ratio(small: Callable[[], Any], large: Callable[[], Any], copies: int,
                tries: int = 3) -> tuple[float, float]:
    """:func:`ratio`, measured again while it passes :data:`MAX_GROWTH`, ``tries`` times in
    all: the smallest (a busy machine only adds time, to either side)."""
    best = ratio(small, large, copies)
    for _ in range(tries - 1):
        if best[0] <= MAX_GROWTH:
            break
        best = min(best, ratio(small, large, copies))
    return best


def growth(found: Found, small: int = SMALL, large: int = LARGE, tries: int = 3,
           hang_seconds: float = HANG_SECONDS) -> Growth:
    """:class:`Growth` of ``found`` over its adversarial strings (:func:`least_ratio` of each).
    Raises :class:`TooSlow` naming the pattern and the string when measuring one takes more
    than ``hang_seconds`` of CPU time."""
    short = dict(adversarial(found.pattern, small))
    worst: Growth | None = None
    for name, text in adversarial(found.pattern, large):
        if name not in short:  # two strings that coincide at one size only
            continue
        try:
            with cpu_alarm(hang_seconds):
                measured = least_ratio(_scan(found.pattern, short[name]),
                                       _scan(found.pattern, text), large // small, tries)
        except TooSlow as exc:
            raise TooSlow(f"{found.where} ({found.pattern.pattern!r}) on {name}: {exc}") \
                from None
        if worst is None or measured[0] > worst.ratio:
            worst = Growth(found, name, measured[0], measured[1] * 1000)
    assert worst is not None  # the corpus is never empty
    return worst


def static_problem(found: Found) -> str | None:
    """What the rubric's static check (:func:`grader.rubric.regex_safety.regex_problem`, at any
    length) says of the pattern: a shape that can backtrack, or ``None``. It is conservative
    (it refuses some linear grammars, such as a repeat and an optional item that both start with
    a comma), so the measurement decides; this names the likely cause when it fails."""
    source = found.pattern.pattern
    if isinstance(source, bytes):
        source = source.decode("latin-1")
    return regex_problem(source, max_chars=None)
