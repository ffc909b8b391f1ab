"""What a learner's code printed, as it may be shown: only output free of hidden inputs (a
precheck's, which runs no hidden test, or ``RunResult.visible_stdout``, printed before any hidden
input was sent), bounded here; the pages escape it."""
from __future__ import annotations

#: At most this many characters of the learner's ``print()`` output are passed on (the sandbox
#: already trims to the item's output limit; this bounds the answer and the page).
MAX_STDOUT_CHARS = 4000


def bounded_stdout(stdout: str, limit: int = MAX_STDOUT_CHARS) -> str:
    """``stdout`` cut to ``limit`` characters, with a note saying how many were left out."""
    if len(stdout) <= limit:
        return stdout
    return stdout[:limit] + f"\n[output trimmed: {len(stdout) - limit} more characters printed]"
