"""Fixtures of the LTI tests: the tool (our app) served over HTTP on 127.0.0.1, a simulated
platform beside it, a registration of that platform, and a browser-like HTTP session.

Until the learner page (grader/web, built in parallel) is merged, a stand-in with the agreed
contract (``grader.web.session``: ``LearnerSession``, ``begin``, ``current``; pages ``web.learn``
and ``web.instructor``) answers the launch's redirect with the session it was given."""
from __future__ import annotations

import importlib.util
import sys
import types
from dataclasses import asdict, dataclass

import pytest
import requests
from flask import Blueprint, jsonify, session

from tests.lti.platform import ServerThread, SimulatedPlatform

HAVE_WEB = importlib.util.find_spec("grader.web") is not None


def _stand_in_web(app, monkeypatch):
    """The contract of grader/web/session.py and its two pages, for tests only."""

    @dataclass
    class LearnerSession:
        course_id: str
        learner_id: str
        role: str
        assignment_id: str | None
        name: str
        lti: dict | None = None

    def begin(learner_session):
        session.clear()
        session["learner"] = asdict(learner_session)

    def current():
        data = session.get("learner")
        return LearnerSession(**data) if data else None

    package = types.ModuleType("grader.web")
    module = types.ModuleType("grader.web.session")
    module.LearnerSession, module.begin, module.current = LearnerSession, begin, current
    package.session = module
    monkeypatch.setitem(sys.modules, "grader.web", package)
    monkeypatch.setitem(sys.modules, "grader.web.session", module)

    bp = Blueprint("web", __name__)

    @bp.get("/learn/<assignment_id>")
    def learn(assignment_id):
        return jsonify(page="learner", assignment_id=assignment_id, session=session.get("learner"))

    @bp.get("/instructor/<assignment_id>")
    def instructor(assignment_id):
        return jsonify(page="instructor", assignment_id=assignment_id,
                       session=session.get("learner"))

    app.register_blueprint(bp)
    app.secret_key = app.secret_key or "stand-in-session-key"


@pytest.fixture
def tool_config(embedded_config):
    return {**embedded_config, "LTI_JWKS_REFETCH_COOLDOWN_SECONDS": 0.0,
            "WEBHOOK_BACKOFF_SECONDS": 0.05}


@pytest.fixture
def tool(tool_config, monkeypatch):
    """The app served on 127.0.0.1 (embedded default); yields (app, base URL)."""
    from grader.app import create_app

    app = create_app(tool_config)
    if not HAVE_WEB:
        _stand_in_web(app, monkeypatch)
    server = ServerThread(app)
    yield app, server.url
    server.close()
    app.extensions["grader"].dispatcher.close()


@pytest.fixture
def admin_headers(tool):
    app, _ = tool
    _row, key = app.extensions["grader"].store.courses.create_key("admin", None, "lti tests")
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def platform(tool):
    platform = SimulatedPlatform(tool[1])
    yield platform
    platform.close()


@pytest.fixture
def registered(tool, platform, admin_headers):
    """The platform registered (mapped to the local course); yields the registration answer."""
    resp = requests.post(tool[1] + "/api/v1/lti/platforms", json=platform.registration(),
                         headers=admin_headers, timeout=10)
    assert resp.status_code == 201, resp.text
    return resp.json()


@pytest.fixture
def browser():
    with requests.Session() as session:
        yield session
