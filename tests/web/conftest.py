"""Fixtures for the browser tests: a live server on a free port and headless Chromium.

Reusable by any test of the pages (the LTI browser flow builds on them):

- ``live_server``: the app on the embedded default (SQLite in a temporary folder, grading in
  process, the real sandbox) served by werkzeug on ``127.0.0.1:<free port>`` in a thread.
  ``live_server.url``, ``.app``, ``.config``, ``.sign_in_url(LearnerSession, next_url)`` (a
  test-only route that calls :func:`grader.web.session.begin`, as an LTI launch would).
  ``live_server_factory(overrides)`` starts one with other settings.
- ``browser``: a Selenium WebDriver on Debian's ``/usr/bin/chromium`` through
  ``/usr/bin/chromedriver`` (``scripts/install-system-deps.sh`` installs both), headless, with a
  fresh profile; one Chromium per test session, cookies cleared for each test.
- ``screenshots``: a function ``screenshots(driver, name)`` saving a full-page PNG under
  ``tests/web/screenshots/`` (ignored by git; ``GRADER_SCREENSHOTS`` names another folder) and
  returning its path.
- ``axe_violations(driver)``: runs the vendored axe-core in the page and returns its violations.

Without Chromium (e.g. a laptop without the Debian packages) the browser tests skip, except under
CI=true, where they fail: CI installs Chromium.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from dataclasses import asdict
from pathlib import Path
from urllib.parse import quote

import pytest

from grader.app import close_app

ROOT = Path(__file__).resolve().parents[2]
#: Where screenshots go: ``GRADER_SCREENSHOTS`` (e.g. a temporary folder), else
#: tests/web/screenshots/ (ignored by git).
SCREENSHOTS = Path(os.environ.get("GRADER_SCREENSHOTS") or ROOT / "tests" / "web" / "screenshots")
AXE = ROOT / "grader" / "web" / "static" / "vendor" / "axe-core" / "axe.min.js"
CHROMIUM = os.environ.get("CHROMIUM_BINARY", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--disable-dev-shm-usage", "--window-size=1280,1600")


class LiveServer:
    """The app served on a free port of 127.0.0.1 in a background thread."""

    def __init__(self, app):
        from werkzeug.serving import make_server

        self.app = app
        self.config = app.config["GRADER"]
        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self.port = self._server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name=f"live-server-{self.port}")
        self._thread.start()

    def sign_in_url(self, learner, next_url: str) -> str:
        """A URL that signs ``learner`` (a LearnerSession) in and redirects to ``next_url``."""
        data = quote(json.dumps(asdict(learner)))
        return f"{self.url}/_test/sign-in?learner={data}&next={quote(next_url)}"

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join(timeout=10)
        close_app(self.app)


def _add_test_sign_in(app) -> None:
    """GET /_test/sign-in?learner=<json>&next=<path>: begin(LearnerSession(**json)) then
    redirect. Registered by the test fixture only, never by the app."""
    from flask import redirect, request

    from grader.web.session import LearnerSession, begin

    def sign_in():
        begin(LearnerSession(**json.loads(request.args["learner"])))
        return redirect(request.args.get("next", "/learn"))

    app.add_url_rule("/_test/sign-in", "test_sign_in", sign_in)


@pytest.fixture
def live_server_factory(tmp_path):
    """``factory(overrides=None) -> LiveServer`` on a fresh embedded default; stopped after the
    test."""
    from grader.app import create_app

    servers = []

    def factory(overrides: dict | None = None) -> LiveServer:
        index = len(servers)
        config = {
            "INSTANCE_PATH": str(tmp_path / f"instance{index}"),
            "DATABASE_URL": f"sqlite:///{tmp_path / f'grader{index}.db'}",
            "CELERY_BROKER_URL": "",
            "GRADER_SECRET_KEY": "browser-test-secret",
            "SWEEP_INTERVAL_SECONDS": 3600,
            # grading starts at once on a thread (as tests/conftest.py's app): these pages wait
            # WEB_WAIT_SECONDS for a grade, and a grading process first has to start
            "INLINE_GRADING": "threads",
            **(overrides or {}),
        }
        app = create_app(config)
        _add_test_sign_in(app)
        server = LiveServer(app)
        servers.append(server)
        return server

    yield factory
    for server in servers:
        server.stop()


@pytest.fixture
def live_server(live_server_factory):
    return live_server_factory()


def _chromium_missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            return f"{path} not found (run scripts/install-system-deps.sh)"
    return None


@pytest.fixture(scope="session")
def _chromium():
    problem = _chromium_missing()
    if problem:
        if os.environ.get("CI") == "true":
            pytest.fail(f"headless Chromium is required in CI: {problem}")
        pytest.skip(problem)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="grader-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def browser(_chromium):
    """The session's Chromium with no cookies and a blank page (JavaScript on)."""
    _chromium.delete_all_cookies()
    _chromium.get("about:blank")
    yield _chromium
    _chromium.delete_all_cookies()


@pytest.fixture
def screenshots():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def save(driver, name: str, element=None) -> Path:
        """A full-page screenshot (the window is stretched to the page's height first), or of
        ``element`` alone."""
        if element is not None:
            path = SCREENSHOTS / f"{name}.png"
            driver.execute_script("arguments[0].scrollIntoView()", element)
            element.screenshot(str(path))
            print(f"screenshot: {path}")
            return path
        width = driver.execute_script("return document.documentElement.scrollWidth")
        height = driver.execute_script("return document.documentElement.scrollHeight")
        original = driver.get_window_size()
        driver.set_window_size(max(1280, width), min(max(800, height + 140), 12000))
        path = SCREENSHOTS / f"{name}.png"
        driver.save_screenshot(str(path))
        driver.set_window_size(original["width"], original["height"])
        print(f"screenshot: {path}")
        return path

    return save


def axe_violations(driver, impacts=("serious", "critical")) -> list[dict]:
    """Run axe-core (vendored from npm) on the current page; the violations of ``impacts``."""
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then(r => done(r.violations)).catch(e => done([{id: 'axe-error', impact: 'critical',"
        " description: String(e), nodes: []}]));")
    return [v for v in result if v.get("impact") in impacts]
