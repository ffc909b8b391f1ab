"""The application factory (Flask's tutorial pattern): configuration in, app out; nothing global."""
from __future__ import annotations

import atexit
import logging
import weakref
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
    dispatcher = None
    try:  # an app that cannot be built leaves no thread or open database file behind
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
            _OPEN_AT_EXIT.add(dispatcher)  # closed at exit unless closed before (close_app)
    except BaseException:
        if dispatcher is not None:
            dispatcher.close()
        store.dispose()
        raise
    return app


#: The inline dispatchers of the apps not closed yet, closed at exit. Weak: an app that was
#: closed and dropped is not kept alive (with its store's connections) until the process ends,
#: as ``atexit.register(dispatcher.close)`` kept every app a test suite built.
_OPEN_AT_EXIT: "weakref.WeakSet" = weakref.WeakSet()


@atexit.register
def _close_open_dispatchers() -> None:
    for dispatcher in list(_OPEN_AT_EXIT):
        dispatcher.close()


def close_app(app: Flask) -> None:
    """Release what :func:`create_app` opened: the dispatcher's grading threads or processes and
    delivery threads, and the store's pooled connections (each an open database file and its
    -wal and -shm files, or a socket). Idempotent; the app must not serve requests afterwards."""
    state = app.extensions.get("grader")
    if state is None:
        return
    state.dispatcher.close()
    _OPEN_AT_EXIT.discard(state.dispatcher)
    state.store.dispose()
