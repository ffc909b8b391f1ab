"""Builds the long-lived parts a process needs (store, content catalogue, grading service, sandbox)
from a configuration. Shared by the API, the Celery worker and the command line."""
from __future__ import annotations

import logging
from functools import partial
from pathlib import Path
from typing import Any, Mapping

from grader.config import setting, webhooks_may_reach_private
from grader.content import Catalog, load_catalog
from grader.grading import GradingService
from grader.store import Store

log = logging.getLogger(__name__)

_builtins: dict[str, dict] = {}


def builtin_assignments(config: Mapping[str, Any]) -> dict:
    """The compiled built-in content of ``CONTENT_DIR``, loaded once per process."""
    key = str(config["CONTENT_DIR"])
    if key not in _builtins:
        _builtins[key] = load_catalog(key)
    return _builtins[key]


def make_catalog(config: Mapping[str, Any], store: Store | None) -> Catalog:
    """Built-in assignments plus the courses' own (from ``store``)."""
    return Catalog(builtin_assignments(config), store.content if store is not None else None,
                   Path(config["CONTENT_DIR"]))


def make_sandbox(config: Mapping[str, Any]):
    """A sandbox in the configured mode. Raises :class:`grader.sandbox.SandboxUnavailable` when
    isolation cannot be established (fail closed)."""
    from grader.observability.instrument import instrument_sandbox
    from grader.sandbox import get_sandbox

    return instrument_sandbox(get_sandbox(config["SANDBOX_MODE"]))


def check_sandbox(config: Mapping[str, Any]) -> None:
    """Start a sandbox and run its self-test (network, canary file, canary variable, uid).
    Raises :class:`grader.sandbox.SandboxUnavailable` naming every problem found."""
    from grader.sandbox import SandboxUnavailable, self_test

    sandbox = make_sandbox(config)
    try:
        problems = self_test(sandbox)
    finally:
        sandbox.close()
    if problems:
        raise SandboxUnavailable("sandbox self-test failed: " + "; ".join(problems))


def make_notifier(config: Mapping[str, Any], store: Store, catalog: Catalog,
                  schedule_webhook=None):
    """The notifier with every delivery channel this deployment runs (webhooks, and LTI scores
    to the LMS gradebooks; see :mod:`grader.notify` for adding a channel).
    ``schedule_webhook(delivery_id)`` hands each delivery to its sender."""
    from grader.lti.channel import LtiScoreChannel
    from grader.notify import Notifier

    notifier = Notifier(store, catalog, schedule_webhook or (lambda _delivery_id: None),
                        backoff_base=config["WEBHOOK_BACKOFF_SECONDS"],
                        allow_private=webhooks_may_reach_private(config))
    notifier.add_channel(LtiScoreChannel.build(config, store, catalog))
    return notifier


def build_service(config: Mapping[str, Any], store: Store | None = None,
                  schedule_webhook=None, catalog: Catalog | None = None,
                  announce=None) -> GradingService:
    """A grading service over ``config``'s store and content (``catalog``, built when not
    given). Final submissions and applied regrades are announced through ``service.notifier``
    (:func:`make_notifier`), and final submissions to waiting long-polls by
    ``announce(submission_id)`` (default: on the broker's pub/sub channel when grading runs on
    Celery, see :mod:`grader.wakeup`)."""
    from grader.observability.instrument import instrument_service
    from grader.wakeup import make_announcer

    if store is None:
        store = Store(config["DATABASE_URL"])
        store.upgrade()
    catalog = catalog or make_catalog(config, store)
    notifier = make_notifier(config, store, catalog, schedule_webhook)
    service = instrument_service(GradingService(
        store=store,
        catalog=catalog,
        secret=config["GRADER_SECRET_KEY"],
        sandbox_factory=partial(make_sandbox, config),
        max_attempts=config["MAX_GRADING_ATTEMPTS"],
        cpu_seconds=setting(config, "GRADING_CPU_SECONDS"),
        notify=notifier.submission_final,
        announce=announce if announce is not None else make_announcer(config),
    ))
    service.notifier = notifier
    from grader.grading.regrade import follow_regrades

    # a regrade applied while a submission was queued or running covers it when it is graded
    service.follow_regrades = follow_regrades
    return service
