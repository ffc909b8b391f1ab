"""The per-app objects views use: store, content catalogue, dispatcher, notifier, configuration."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import current_app


@dataclass
class AppState:
    config: dict[str, Any]
    store: Any
    catalog: dict
    dispatcher: Any
    notifier: Any = None  # grader.notify.Notifier: replays from the API
    #: ``() -> sandbox`` (grader.runtime.make_sandbox with the app's config): the trials of
    #: authored problems (grader/api/problems.py); None: no trials in this process
    sandbox_factory: Any = None


def state() -> AppState:
    return current_app.extensions["grader"]
