"""Every ``curl`` block of the README runs against a live ``grader serve`` (the server ``make run``
starts), so the examples cannot drift from the service.

The blocks run in README order in one bash process (a later block uses the variables an earlier
one set), from a folder laid out like the repository (``examples/``, ``.venv/``, ``instance/``,
the server's instance folder). Only the port is changed (``127.0.0.1:8000`` -> the test
server's). ``curl`` runs with ``--fail-with-body``: an HTTP error fails the block. Each
``# -> ...`` line in a block is what the block must print: a JSON object must match one JSON line
of the output (the fields shown; numbers compared as numbers, so 16 matches 16.0), anything else
must appear as written.
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.conftest import ROOT

FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", re.M | re.S)
EXPECT = re.compile(r"^\s*# -> (.*)$", re.M)
README_BASE = "127.0.0.1:8000"


def curl_blocks(readme: str) -> list[tuple[int, str]]:
    """(line number, text) of each shell block that runs curl."""
    blocks = []
    for match in FENCE.finditer(readme):
        lang, text = match.group(1), match.group(2)
        if lang in ("sh", "bash", "shell", "") and re.search(r"(^|[\s|(])curl\s", text):
            blocks.append((readme.count("\n", 0, match.start()) + 1, text))
    return blocks


def expectations(block: str) -> list[str]:
    return EXPECT.findall(block)


def contains(actual, expected) -> bool:
    """``expected`` (parsed JSON) is part of ``actual``: every field of an object equal (object
    fields recursively), lists item by item, numbers as numbers."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and contains(actual[key], value) for key, value in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            contains(a, e) for a, e in zip(actual, expected))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return float(actual) == float(expected)
    return actual == expected


def satisfied(output: str, expected: str) -> bool:
    try:
        wanted = json.loads(expected)
    except json.JSONDecodeError:
        return expected in output
    for line in output.splitlines():
        try:
            if contains(json.loads(line), wanted):
                return True
        except json.JSONDecodeError:
            continue
    return False


def test_expectation_matching_is_strict_about_values():
    """The checker itself: numbers as numbers, a missing field or another value fails."""
    assert satisfied('{"status":"graded","score":16.0,"x":1}\n', '{"status": "graded", "score": 16}')
    assert not satisfied('{"status":"graded","score":15.5}\n', '{"score": 16}')
    assert not satisfied('{"status":"graded"}\n', '{"score": 16}')
    assert not satisfied('{"ok":true}\n', '{"ok": 1}')
    assert not satisfied('{"kinds":["text","code"]}\n', '{"kinds": ["text"]}')
    assert satisfied("learner-001,16,16,2026\n", "learner-001,16,16,")
    assert not satisfied("learner-001,16.0,16\n", "learner-001,16,16,")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """``grader serve`` on a free port, the embedded default in a fresh instance folder, and a
    working folder laid out like the repository."""
    work = tmp_path_factory.mktemp("readme")
    (work / "examples").symlink_to(ROOT / "examples")
    venv_bin = Path(sys.executable).parent  # the virtualenv running the tests (not resolved:
    (work / ".venv").symlink_to(venv_bin.parent)  # its python is a link to the base one)
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "GRADER_SECRET_KEY")}
    env.update(INSTANCE_PATH=str(work / "instance"), SWEEP_INTERVAL_SECONDS="3600")
    port = free_port()
    log = open(work / "server.log", "w")
    server = subprocess.Popen([str(venv_bin / "grader"), "serve", "--host", "127.0.0.1",
                               "--port", str(port)], cwd=work, env=env, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if requests.get(f"{base}/healthz", timeout=1).ok and \
                    (work / "instance" / "local-instructor-key").exists():
                break
        except requests.RequestException:
            pass
        assert server.poll() is None, (work / "server.log").read_text()[-3000:]
        assert time.monotonic() < deadline, "grader serve did not start in 60 s"
        time.sleep(0.2)
    yield {"work": work, "port": port, "env": env, "log": work / "server.log"}
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
    log.close()


def test_every_curl_block_of_the_readme_runs_and_prints_what_it_says(live):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = curl_blocks(readme)
    assert len(blocks) >= 4, "the README's curl examples were not found"
    assert sum(len(expectations(text)) for _, text in blocks) >= 10
    out = live["work"] / "out"
    out.mkdir(exist_ok=True)
    script = ["set -euo pipefail",
              'curl() { command curl --silent --show-error --fail-with-body "$@"; }']
    for index, (_, text) in enumerate(blocks):
        body = text.replace(README_BASE, f"127.0.0.1:{live['port']}")
        script.append(f"{{\n{body}\n}} > {out}/{index}.txt 2>&1")
    run = subprocess.run(["bash", "-c", "\n".join(script)], cwd=live["work"], env=live["env"],
                         capture_output=True, text=True, timeout=600)
    for index, (line, text) in enumerate(blocks):
        path = out / f"{index}.txt"
        assert path.exists(), f"README block at line {line} did not run (an earlier one failed)"
        output = path.read_text()
        if run.returncode != 0 and not (out / f"{index + 1}.txt").exists():
            pytest.fail(f"README block at line {line} failed (exit {run.returncode}):\n"
                        f"{output[-3000:]}{run.stderr[-2000:]}")
        for expected in expectations(text):
            assert satisfied(output, expected), (
                f"README block at line {line}: expected {expected!r} in its output:\n"
                f"{output[-3000:]}")
    assert run.returncode == 0, run.stderr[-3000:]


def test_the_development_server_log_is_plain_json(live):
    """Issue 14.6: ``grader serve``'s log lines are JSON without terminal colour codes, also
    Werkzeug's development-server warning."""
    requests.get(f"http://127.0.0.1:{live['port']}/healthz", timeout=5)
    text = live["log"].read_text()
    assert "This is a development server" in text
    assert "\x1b[" not in text and "\\u001b" not in text
    warning = [json.loads(line) for line in text.splitlines()
               if line.startswith("{") and "development server" in line]
    assert warning and warning[0]["logger"] == "werkzeug"
