"""The per-app objects views use: store, content catalogue, dispatcher, configuration."""
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


def state() -> AppState:
    return current_app.extensions["grader"]
