"""The interface every kind of delivery implements (webhooks today; an LTI score POST joins the
same way): see :mod:`grader.notify` for how the notifier uses it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Attempt:
    """The outcome of one try: ``delivered`` on a 2xx answer; otherwise ``status_code`` (when the
    target answered) and ``error``. ``retry=False`` means trying again cannot help (a refused
    target): the delivery is marked ``gave_up`` at once."""

    delivered: bool
    status_code: int | None = None
    error: str | None = None
    retry: bool = True


class Channel(Protocol):
    """One kind of delivery. ``name`` is stored in each delivery's ``channel`` column (at most 32
    characters) and must never change once deliveries carry it."""

    name: str

    def targets(self, submission, assignment, event: dict[str, Any]) -> list[str]:
        """Where ``event`` about ``submission`` (a :class:`grader.store.models.Submission`;
        ``assignment`` its :class:`grader.content.Assignment` version, or ``None``) goes through
        this channel: target URLs, ``[]`` for nowhere. Called once per event."""

    def body(self, event: dict[str, Any], target: str, submission) -> dict[str, Any]:
        """The JSON body to send to ``target`` for ``event`` (stored as the delivery's payload and
        sent as it is on every attempt)."""

    def send(self, delivery, timeout: float) -> Attempt:
        """One attempt of ``delivery`` (a :class:`grader.store.models.WebhookDelivery`): sign or
        authorise, POST ``delivery.payload`` to ``delivery.url`` within ``timeout`` seconds, and
        say what happened. Must not raise for a network fault or a non-2xx answer."""
