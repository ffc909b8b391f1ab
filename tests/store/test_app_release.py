"""An app built by create_app and closed with close_app holds none of its store's files open, and
nothing keeps it alive (atexit held every app's dispatcher, with its store, until the process
ended: late in the whole suite the test process held more than 1,024 descriptors)."""
from __future__ import annotations

import gc
import os
import weakref
from pathlib import Path

import pytest

from grader.app import close_app, create_app


def _open_paths() -> set[str]:
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            found.add(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    return found


def test_a_closed_app_holds_no_file_of_its_store_open(embedded_config):
    app = create_app(embedded_config)
    database = Path(embedded_config["DATABASE_URL"].removeprefix("sqlite:///"))
    assert app.test_client().get("/healthz").status_code == 200
    assert any(path.startswith(str(database)) for path in _open_paths())  # grader.db, -wal, -shm
    close_app(app)
    assert not any(path.startswith(str(database)) for path in _open_paths())
    close_app(app)  # idempotent


def test_a_closed_app_is_not_kept_alive(embedded_config):
    app = create_app(embedded_config)
    close_app(app)
    ref = weakref.ref(app.extensions["grader"].dispatcher)
    del app
    gc.collect()
    assert ref() is None


def test_an_app_that_cannot_be_built_leaves_no_file_of_its_store_open(embedded_config):
    database = Path(embedded_config["DATABASE_URL"].removeprefix("sqlite:///"))
    with pytest.raises(ValueError):  # refused after the store was opened (by the web pages)
        create_app({**embedded_config, "WEB_COOKIE_SAMESITE": "sometimes"})
    assert database.exists()  # the store had been opened and migrated
    assert not any(path.startswith(str(database)) for path in _open_paths())
