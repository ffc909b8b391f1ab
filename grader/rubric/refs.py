"""How a text item names its rubric: ``<id>``, ``<id>@<version>`` or ``<id>@latest``.

- ``heads-why@2``: version 2 of the course's rubric ``heads-why``, pinned: the item scores with
  it whatever versions come later.
- ``heads-why@latest``: the rubric's newest version at the time of each grading, so a new version
  (``PUT /rubrics/heads-why``) is what the next grading and the next regrade use, with no edit of
  the assignment.
- ``heads-why`` (no ``@``), as before: the course's newest version *when the assignment is
  saved*, pinned then (the meaning every stored assignment and every existing request keeps); a
  built-in rubric (a file under ``rubrics/text``) always reads its file.

The ``@`` cannot occur in an id (:data:`grader.ids.ID_PATTERN`), so every id valid before means
what it meant.
"""
from __future__ import annotations

from dataclasses import dataclass

from grader.ids import ID

LATEST = "latest"
#: The largest version a reference may name (the store's versions are 32-bit integers).
MAX_VERSION = 2**31 - 1


@dataclass(frozen=True)
class RubricRef:
    """A parsed reference: ``rubric_id``, and ``version`` (pinned) or ``latest`` (following);
    neither for a bare id."""

    rubric_id: str
    version: int | None = None
    latest: bool = False

    def __str__(self) -> str:
        if self.latest:
            return f"{self.rubric_id}@{LATEST}"
        return f"{self.rubric_id}@{self.version}" if self.version is not None else self.rubric_id


def parse_ref(text: str) -> RubricRef:
    """``<id>``, ``<id>@<n>`` (1 <= n < 2**31) or ``<id>@latest``. Raises ``ValueError`` saying
    which part is wrong."""
    rubric_id, at, suffix = text.partition("@")
    if not ID.match(rubric_id):
        raise ValueError(f"{text!r}: a rubric id is 1-100 of letters, digits, '.', '_', '-', "
                         "optionally followed by @<version> or @latest")
    if not at:
        return RubricRef(rubric_id)
    if suffix == LATEST:
        return RubricRef(rubric_id, latest=True)
    if suffix.isascii() and suffix.isdigit() and 1 <= int(suffix) <= MAX_VERSION:
        return RubricRef(rubric_id, version=int(suffix))
    raise ValueError(f"{text!r}: after '@' comes a version number (1, 2, ...) or 'latest'")


def follows_latest(ref: object) -> bool:
    """Whether an item's ``rubric`` field (a string or an inline mapping) follows the newest
    version (``<id>@latest``)."""
    if not isinstance(ref, str):
        return False
    try:
        return parse_ref(ref).latest
    except ValueError:
        return False
