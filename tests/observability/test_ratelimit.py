"""Per-key rate limiting: 429 with Retry-After in the one JSON error shape."""
import pytest

from grader.api import ratelimit
from grader.app import close_app

LIST = "/api/v1/assignments"


@pytest.fixture
def limited_app(embedded_config):
    from grader.app import create_app

    app = create_app({**embedded_config, "RATE_LIMIT": "3 per minute"})
    yield app
    close_app(app)


def bearer(key):
    return {"Authorization": f"Bearer {key}"}


def test_the_request_over_the_limit_is_429_with_retry_after(limited_app):
    client = limited_app.test_client()
    statuses = [client.get(LIST, headers=bearer("k1")).status_code for _ in range(3)]
    resp = client.get(LIST, headers=bearer("k1"))
    assert 429 not in statuses
    assert resp.status_code == 429
    body = resp.get_json()
    assert (body["status"], body["code"], body["field"]) == (429, "rate_limited", None)
    assert 1 <= int(resp.headers["Retry-After"]) <= 60


def test_each_key_has_its_own_budget(limited_app):
    client = limited_app.test_client()
    for _ in range(4):
        client.get(LIST, headers=bearer("k1"))
    assert client.get(LIST, headers=bearer("k1")).status_code == 429
    assert client.get(LIST, headers=bearer("k2")).status_code != 429
    assert client.get(LIST).status_code != 429  # no key: counted by remote address


def test_requests_without_a_key_are_limited_by_address(limited_app):
    client = limited_app.test_client()
    statuses = [client.get(LIST).status_code for _ in range(4)]
    assert statuses[:3] == [401, 401, 401] and statuses[3] == 429


def test_health_probes_are_never_limited(limited_app):
    client = limited_app.test_client()
    assert [client.get("/healthz").status_code for _ in range(10)] == [200] * 10


def test_key_is_a_digest_not_the_secret(limited_app):
    with limited_app.test_request_context(headers=bearer("agk_secret")):
        key = ratelimit.rate_limit_key()
    assert key.startswith("key:") and "secret" not in key


def test_limit_off_installs_nothing(embedded_config):
    from grader.app import create_app

    app = create_app({**embedded_config, "RATE_LIMIT": "off"})
    try:
        assert "grader_ratelimit" not in app.extensions
        client = app.test_client()
        assert 429 not in {client.get(LIST).status_code for _ in range(20)}
    finally:
        close_app(app)


def test_default_limit_leaves_a_busy_client_alone(app):
    assert "grader_ratelimit" in app.extensions
    client = app.test_client()
    assert 429 not in {client.get(LIST, headers=bearer("k")).status_code for _ in range(200)}
