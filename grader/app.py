"""The application factory (Flask's tutorial pattern): configuration in, app out; nothing global."""
from __future__ import annotations

import atexit
import logging
from datetime import timedelta
from functools import partial
from typing import Any

from flask import Flask

from grader.api import ratelimit, register_api
from grader.api.state import AppState
from grader.bootstrap import bootstrap_local_course
from grader.config import grading_is_inline, load_config
from grader.lti import init_app as init_lti
from grader.observability.health import make_sandbox_check
from grader.observability.web import init_app as init_observability
from grader.queue import make_dispatcher
from grader.wakeup import make_wakeups
from grader.runtime import (build_service, check_sandbox, make_catalog, make_notifier,
                            make_sandbox)
from grader.store import Store
from grader.web import init_app as init_web

log = logging.getLogger(__name__)


def _celery(config: dict[str, Any]):
    """The Celery app the dispatcher sends to (imported only when grading runs on Celery)."""
    from workers.celery_app import make_celery

    return make_celery(config)


def _grading_process():
    """The grading processes' entry point on the embedded default (see grader.queue)."""
    from workers.grading_process import main

    return main


def create_app(overrides: dict[str, Any] | None = None) -> Flask:
    """Build the API app.

    ``overrides`` replace settings read from the environment (see :mod:`grader.config`). On the
    embedded default (no ``CELERY_BROKER_URL``) the app grades in grading processes beside it
    (``INLINE_GRADING``; see :mod:`grader.queue`) and sweeps submissions left queued by a
    restart.
    """
    config = load_config(**(overrides or {}))
    app = Flask(__name__, instance_path=config["INSTANCE_PATH"])
    app.config["MAX_CONTENT_LENGTH"] = config["MAX_BODY_BYTES"]
    app.config["GRADER"] = config
    app.json.sort_keys = False

    store = Store(config["DATABASE_URL"])
    store.upgrade()
    content = make_catalog(config, store)
    wakeups = make_wakeups(config)  # long-polls wake when their submission is final
    app.extensions["grader_wakeups"] = wakeups
    dispatcher = make_dispatcher(
        config, lambda schedule: build_service(config, store=store, schedule_webhook=schedule,
                                               catalog=content, announce=wakeups.wake),
        celery_app=None if grading_is_inline(config) else _celery(config),
        grading_process=_grading_process() if grading_is_inline(config) else None)
    service = getattr(dispatcher, "service", None)  # in-process grading has its own
    notifier = service.notifier if service is not None else make_notifier(
        config, store, content, dispatcher.deliver_webhook)
    app.extensions["grader"] = AppState(config=config, store=store, catalog=content,
                                        dispatcher=dispatcher, notifier=notifier,
                                        # production mode: trials go to a worker
                                        sandbox_factory=partial(make_sandbox, config)
                                        if grading_is_inline(config) else None)
    api = register_api(app)
    init_web(app)  # the learner page, result pages and instructor view (grader/web)
    init_lti(app, api)  # the LTI tool (grader/lti): /lti and /api/v1/lti/platforms
    ratelimit.init_app(app)
    init_observability(app, sandbox_check=make_sandbox_check(config, check_sandbox))

    if grading_is_inline(config):
        bootstrap_local_course(store, config)
        log.warning("grading on this machine (no CELERY_BROKER_URL): the embedded default, "
                    "in %s", "grading processes" if getattr(dispatcher, "processes", None)
                    else "threads of this process")
        dispatcher.sweep(timedelta(0))  # left queued/running by a restart: grade it now
        dispatcher.start_sweeper()
        atexit.register(dispatcher.close)
    return app
