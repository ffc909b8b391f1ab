"""Fixtures of the LTI tests: the tool (our app) served over HTTP on 127.0.0.1, a simulated
platform beside it, a registration of that platform, and a browser-like HTTP session."""
from __future__ import annotations

import pytest
import requests

from grader.app import close_app
from tests.lti.platform import ServerThread, SimulatedPlatform


@pytest.fixture
def tool_config(embedded_config):
    return {**embedded_config, "LTI_JWKS_REFETCH_COOLDOWN_SECONDS": 0.0,
            "WEBHOOK_BACKOFF_SECONDS": 0.05}


@pytest.fixture
def tool(tool_config):
    """The app served on 127.0.0.1 (embedded default); yields (app, base URL)."""
    from grader.app import create_app

    app = create_app(tool_config)
    server = ServerThread(app)
    yield app, server.url
    server.close()
    close_app(app)


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
