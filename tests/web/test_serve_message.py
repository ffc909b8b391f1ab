"""`make run` (grader serve) prints the practice page's link on the embedded default."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from grader.app import close_app
from grader.cli import serve_message

ROOT = Path(__file__).resolve().parents[2]


def test_the_message_names_the_practice_page(app):
    message = serve_message(app, "0.0.0.0", 8000)
    assert "http://127.0.0.1:8000/learn/attention-basics" in message
    assert "http://127.0.0.1:8000/learn\n" not in message and message.endswith(
        "All practice assignments: http://127.0.0.1:8000/learn")


def test_without_practice_pages_the_message_says_so(embedded_config):
    from grader.app import create_app

    app = create_app({**embedded_config, "WEB_PRACTICE": "0"})
    try:
        assert "practice pages are off" in serve_message(app, "127.0.0.1", 8000)
    finally:
        close_app(app)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_grader_serve_prints_a_link_that_opens_the_practice_page(tmp_path):
    port = _free_port()
    env = {**os.environ, "INSTANCE_PATH": str(tmp_path / "instance"), "PYTHONUNBUFFERED": "1"}
    env.pop("DATABASE_URL", None)
    env.pop("CELERY_BROKER_URL", None)
    process = subprocess.Popen([sys.executable, "-m", "grader.cli", "serve", "--port", str(port)],
                               cwd=ROOT, env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    try:
        link, deadline = None, time.monotonic() + 60
        while link is None and time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line and process.poll() is not None:
                break
            if line.startswith("Practice page"):
                link = line.rsplit(" ", 1)[1].strip()
        assert link == f"http://127.0.0.1:{port}/learn/attention-basics"
        for _ in range(100):
            try:
                page = requests.get(link, timeout=5)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        assert page.status_code == 200 and "Self-attention basics" in page.text
    finally:
        process.terminate()
        process.wait(timeout=20)
