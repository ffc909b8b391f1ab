"""Red-team finding 8: 100 clients sending their POST bodies one byte every 3 s held every gunicorn
thread, and ``GET /learn`` timed out. Production sits behind nginx (docker-compose.yml, config
``deploy/nginx/grader.conf.template``). Here Debian's nginx runs that same file, filled in the way
the official image's entrypoint fills it (envsubst of the variables the environment defines), in
front of a real gunicorn serving the grader in production mode (Celery broker on this machine's
Redis, no worker: submissions stay queued, so a long-poll lasts its whole 30 s). It checks:

- slow clients are held by nginx, not gunicorn: with 40 of them dribbling, GET /learn answers at
  once through the proxy (and, as a control, does not answer directly from gunicorn);
- a client that stalls its headers or its body longer than 10 s is cut off (408 / closed);
- bodies over MAX_BODY_BYTES are a 413 in the API's JSON shape; normal requests are served;
- X-Forwarded-* come from nginx and are trusted with TRUSTED_PROXY_HOPS=1: URLs are built with
  the proxy's host and port, and a client's own X-Forwarded-For is ignored;
- a 30 s long-poll survives the proxy (proxy_read_timeout 75 s).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
import requests

from benchmarks.stack import free_port
from grader.config import SETTINGS
from tests.conftest import ROOT, service_missing

pytestmark = pytest.mark.slow

TEMPLATE = ROOT / "deploy" / "nginx" / "grader.conf.template"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
BIN = Path(sys.executable).parent
MAX_BODY = SETTINGS["MAX_BODY_BYTES"][1]  # the grader's default: 2 MiB


def envsubst(text: str, values: dict[str, str]) -> str:
    """What the official image's 20-envsubst-on-templates.sh does: replace ``${NAME}`` and
    ``$NAME`` of the variables it was given, leave every other ``$`` (nginx's own variables)."""
    for name, value in values.items():
        text = text.replace("${" + name + "}", value)
        text = re.sub(r"\$" + name + r"(?![A-Za-z0-9_])", value, text)
    return text


def nginx_conf(tmp: Path, port: int, upstream: str) -> Path:
    """The image's nginx.conf, reduced to what matters here (paths in ``tmp``), including the
    filled-in template as the image includes /etc/nginx/conf.d/*.conf."""
    site = tmp / "default.conf"
    site.write_text(envsubst(TEMPLATE.read_text(), {
        "NGINX_PORT": f"127.0.0.1:{port}", "GRADER_UPSTREAM": upstream,
        "MAX_BODY_BYTES": str(MAX_BODY)}))
    conf = tmp / "nginx.conf"
    conf.write_text(f"""
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log info;
events {{ worker_connections 1024; }}
http {{
    access_log {tmp}/access.log;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {site};
}}
""")
    return conf


def test_the_template_keeps_the_graders_limits_and_compose_wires_it():
    import yaml

    template = TEMPLATE.read_text()
    assert "client_max_body_size ${MAX_BODY_BYTES};" in template
    timeouts = {name: int(value) for name, value in
                re.findall(r"^\s*(\w+_timeout) (\d+)s;", template, re.M)}
    # the proxy waits longer than the grader's longest hold: the long-poll's 30 s and the result
    # page's 25 s (LONG_POLL_MAX_SECONDS, WEB_WAIT_SECONDS)
    assert timeouts["proxy_read_timeout"] > max(SETTINGS["LONG_POLL_MAX_SECONDS"][1],
                                                SETTINGS["WEB_WAIT_SECONDS"][1])
    assert timeouts["client_header_timeout"] == timeouts["client_body_timeout"] == 10
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:")
    assert "./deploy/nginx/grader.conf.template:/etc/nginx/templates/default.conf.template:ro" \
        in proxy["volumes"]
    assert proxy["environment"]["GRADER_UPSTREAM"] == "api:8000"
    assert services["api"]["environment"]["TRUSTED_PROXY_HOPS"] == "1"
    # one variable sets the grader's limit and the proxy's
    assert proxy["environment"]["MAX_BODY_BYTES"] == "${MAX_BODY_BYTES:-2097152}" == \
        compose["x-grader-env"]["MAX_BODY_BYTES"]
    assert 2097152 == MAX_BODY


def test_nginx_accepts_the_configuration(tmp_path):
    if not Path(NGINX).exists():
        service_missing("nginx (Debian package nginx, scripts/install-system-deps.sh)")
    conf = nginx_conf(tmp_path, free_port(), "127.0.0.1:9")
    result = subprocess.run([NGINX, "-t", "-c", str(conf)], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr
    assert "syntax is ok" in result.stderr and "test is successful" in result.stderr


@pytest.fixture
def stack(tmp_path, redis_url):
    """gunicorn (production mode: broker on Redis, unconsumed queue) behind nginx; yields
    (proxy URL, gunicorn URL, LMS key, gunicorn log path)."""
    if not Path(NGINX).exists():
        service_missing("nginx (Debian package nginx, scripts/install-system-deps.sh)")
    env = {**os.environ, "INSTANCE_PATH": str(tmp_path / "instance"),
           "DATABASE_URL": f"sqlite:///{tmp_path / 'grader.db'}", "CELERY_BROKER_URL": redis_url,
           "CELERY_QUEUE": f"nginx-test-{uuid.uuid4().hex[:8]}", "GRADER_SECRET_KEY": "proxy",
           "TRUSTED_PROXY_HOPS": "1", "WEB_PRACTICE": "1", "SANDBOX_MODE": "unsafe-dev",
           "READY_CHECK_SANDBOX": "0", "PYTHONUNBUFFERED": "1"}
    init = subprocess.run([str(BIN / "grader"), "init", "--course", "local"], env=env,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert init.returncode == 0, init.stderr
    key = re.search(r"^GRADER_LMS_KEY=(\S+)", init.stdout, re.M)[1]
    app_port, proxy_port = free_port(), free_port()
    log = tmp_path / "gunicorn.log"
    gunicorn = subprocess.Popen(
        [str(BIN / "gunicorn"), "--worker-class", "gthread", "--workers", "1", "--threads", "4",
         "--bind", f"127.0.0.1:{app_port}", "--timeout", "120", "grader.wsgi:app"],
        env=env, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT,
        start_new_session=True)
    conf = nginx_conf(tmp_path, proxy_port, f"127.0.0.1:{app_port}")
    nginx = subprocess.Popen([NGINX, "-c", str(conf), "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    proxy, direct = f"http://127.0.0.1:{proxy_port}", f"http://127.0.0.1:{app_port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(proxy + "/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline or gunicorn.poll() is not None \
                    or nginx.poll() is not None:
                raise AssertionError(log.read_text(errors="replace")[-3000:] + "\n" +
                                     (tmp_path / "error.log").read_text(errors="replace"))
            time.sleep(0.2)
        yield proxy, direct, key, log
    finally:
        for process in (nginx, gunicorn):
            os.killpg(process.pid, signal.SIGTERM)
        for process in (nginx, gunicorn):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def slow_post(base: str, stop: threading.Event, interval: float = 2.0) -> None:
    """A POST of the learner form whose 200-byte body comes one byte every ``interval``
    seconds (below the 10 s body timeout, so nginx keeps waiting), until ``stop``."""
    host, port = base.rsplit("/", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall((f"POST /learn/attention-basics HTTP/1.1\r\nHost: {host}:{port}\r\n"
                      "Content-Type: application/x-www-form-urlencoded\r\n"
                      "Content-Length: 200\r\n\r\n").encode())
        while not stop.wait(interval):
            try:
                sock.sendall(b"x")
            except OSError:
                return


def stalled(base: str, request: bytes) -> tuple[float, bytes]:
    """Send ``request`` and then nothing; returns (seconds until nginx closed, what it said)."""
    host, port = base.rsplit("/", 1)[1].split(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=40) as sock:
        sock.sendall(request)
        answer = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return time.monotonic() - started, answer


def timed_get(url: str, timeout: float) -> tuple[float, int | None]:
    started = time.monotonic()
    try:
        status = requests.get(url, timeout=timeout).status_code
    except requests.RequestException:
        status = None
    return time.monotonic() - started, status


def test_the_proxy_absorbs_slow_clients_cuts_off_stalled_ones_and_keeps_long_polls(stack):
    proxy, direct, key, log = stack
    api = {"Authorization": f"Bearer {key}"}
    # normal requests
    assert requests.get(proxy + "/learn/attention-basics", timeout=10).status_code == 200
    created = requests.post(proxy + "/api/v1/assignments/attention-basics/submissions",
                            headers=api, timeout=10,
                            json={"learner_id": "l", "responses": {"no-positions":
                                                                    {"choice": "B"}}})
    assert created.status_code == 202, created.text
    submission = created.json()["id"]

    # the long-poll starts first and runs alongside everything below (nobody consumes the
    # queue, so the grader holds it the whole LONG_POLL_MAX_SECONDS = 30 s)
    poll: dict = {}

    def long_poll():
        started = time.monotonic()
        resp = requests.get(f"{proxy}/api/v1/submissions/{submission}?wait=30", headers=api,
                            timeout=90)
        poll.update(seconds=time.monotonic() - started, status=resp.status_code,
                    body=resp.json())

    poller = threading.Thread(target=long_poll)
    poller.start()

    # URLs come out with the proxy's host and port (X-Forwarded-Host/-Port trusted, one hop)
    config = requests.get(proxy + "/lti/config", timeout=10).json()
    assert config["login_url"] == proxy + "/lti/login"
    # a client's own X-Forwarded-For does not reach the grader: nginx sets it to the peer
    probe = f"/probe-{uuid.uuid4().hex}"
    assert requests.get(proxy + probe, headers={"X-Forwarded-For": "203.0.113.66"},
                        timeout=10).status_code == 404
    lines = [json.loads(line) for line in log.read_text(errors="replace").splitlines()
             if probe in line and line.startswith("{")]
    assert lines and {line.get("remote_addr") for line in lines} == {"127.0.0.1"}

    # a body over MAX_BODY_BYTES: 413 in the API's error shape, from the proxy
    big = requests.post(proxy + "/api/v1/assignments/attention-basics/submissions",
                        headers={**api, "Content-Type": "application/json"},
                        data=b"x" * (MAX_BODY + 1), timeout=30)
    assert big.status_code == 413
    assert big.json()["code"] == "payload_too_large" and str(MAX_BODY) in big.json()["message"]

    # stalled clients, in the background: headers never finished / body never finished
    cut: dict = {}

    def stall(name, request):
        cut[name] = stalled(proxy, request)

    stalls = [threading.Thread(target=stall, args=("headers", b"GET /learn HTTP/1.1\r\nHost: x")),
              threading.Thread(target=stall, args=(
                  "body", b"POST /learn/attention-basics HTTP/1.1\r\nHost: x\r\n"
                          b"Content-Type: application/x-www-form-urlencoded\r\n"
                          b"Content-Length: 100\r\n\r\nresponse-no-positions=B"))]
    for thread in stalls:
        thread.start()

    # 40 slow clients dribbling their bodies through the proxy (10 x the 4 gunicorn threads)
    stop = threading.Event()
    slow = [threading.Thread(target=slow_post, args=(proxy, stop), daemon=True)
            for _ in range(40)]
    for thread in slow:
        thread.start()
    time.sleep(3)
    # every request through the proxy is answered meanwhile (a few ms each, typically)
    through_proxy = [timed_get(proxy + "/learn/attention-basics", 10) for _ in range(5)]
    assert all(status == 200 for _, status in through_proxy), through_proxy

    # the control: the same slow clients sent straight to gunicorn hold all its threads
    direct_stop = threading.Event()
    direct_slow = [threading.Thread(target=slow_post, args=(direct, direct_stop), daemon=True)
                   for _ in range(8)]
    for thread in direct_slow:
        thread.start()
    time.sleep(3)
    _, status = timed_get(direct + "/learn/attention-basics", 4)
    assert status is None  # starved: no answer at all, as the red team found
    direct_stop.set()
    stop.set()

    for thread in stalls:
        thread.join(40)
    # nginx closed each stalled client (client_header_timeout, client_body_timeout: 10 s; the
    # client's own socket gives up only after 40 s, which would leave no entry in ``cut``),
    # with 408 or without a word; nothing of it reached gunicorn
    assert sorted(cut) == ["body", "headers"], cut
    for name in ("headers", "body"):
        _, answer = cut[name]
        assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), (name, answer[:100])

    poller.join(90)
    # the grader held it to its end (queued: never graded here), and the proxy waited for the
    # answer instead of cutting the request (a 504 from nginx otherwise)
    assert poll["status"] == 200 and poll["body"]["status"] == "queued", poll
    assert requests.get(proxy + "/learn/attention-basics", timeout=30).status_code == 200
