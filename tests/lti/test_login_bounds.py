"""Red-team finding 2: the unauthenticated ``/lti/login`` stored 2,000 logins with 4,000-character
``login_hint``/``lti_message_hint``/``target_link_uri`` (26.5 MB, kept a day). Now each parameter
is at most 1 KiB (400 above, nothing stored), a row keeps only what the launch needs, rows are
deleted at their 10-minute expiry, and logins are rate-limited per client address."""
from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import func, select, update

from grader.app import close_app
from grader.store.lti_models import LtiLoginState
from grader.store.models import utcnow

TOOL = "http://localhost"  # the Flask test client's host


@pytest.fixture
def lti_app(embedded_config):
    from grader.app import create_app

    def make(**overrides):
        app = create_app({**embedded_config, **overrides})
        app.extensions["grader"].store.lti.create_platform(
            issuer="https://lms.example.edu", client_id="tool-1", deployment_ids=["d1"],
            auth_login_url="https://lms.example.edu/auth",
            auth_token_url="https://lms.example.edu/token",
            key_set_url="https://lms.example.edu/jwks", course_id="local")
        made.append(app)
        return app

    made = []
    yield make
    for app in made:
        close_app(app)


def params(**extra) -> dict:
    return {"iss": "https://lms.example.edu", "client_id": "tool-1", "login_hint": "u-1",
            "target_link_uri": TOOL + "/lti/launch", "lti_message_hint": "m-1",
            "lti_deployment_id": "d1", **extra}


def login(client, address="192.0.2.10", **extra):
    return client.post("/lti/login", data=params(**extra), environ_base={"REMOTE_ADDR": address},
                       headers={"Accept": "text/html"})


def rows(app) -> int:
    with app.extensions["grader"].store.sessions() as session:
        return session.execute(select(func.count()).select_from(LtiLoginState)).scalar_one()


@pytest.mark.parametrize("name,value,size", [
    ("login_hint", "h" * 1025, 1025),
    ("lti_message_hint", "m" * 4000, 4000),
    ("lti_message_hint", "é" * 513, 1026),  # 513 characters, 2 bytes each in UTF-8
    ("target_link_uri", TOOL + "/lti/launch?pad=" + "x" * 1000, 1032),  # 16 + 16 + 1000
])
def test_a_parameter_over_1_kib_is_a_400_page_and_nothing_is_stored(lti_app, name, value, size):
    app = lti_app()
    resp = login(app.test_client(), **{name: value})
    assert resp.status_code == 400
    page = resp.get_data(as_text=True)
    assert f"{name} is {size} bytes long; this tool accepts at most 1024 (1 KiB)" in page
    assert "<code>parameter_too_long</code>" in page
    assert rows(app) == 0


def test_1024_bytes_are_accepted_and_only_what_the_launch_needs_is_kept(lti_app):
    app = lti_app()
    hint = "h" * 1024
    resp = login(app.test_client(), login_hint=hint)
    assert resp.status_code == 302
    state = parse_qs(urlsplit(resp.headers["Location"]).query)["state"][0]
    row = app.extensions["grader"].store.lti.login_state(state)
    # iss and client_id are the platform's (the row names it); nothing else is kept
    assert row.params == {"login_hint": hint, "target_link_uri": TOOL + "/lti/launch",
                          "lti_message_hint": "m-1", "lti_deployment_id": "d1"}
    assert timedelta(minutes=9, seconds=59) < row.expires_at - row.created_at \
        <= timedelta(minutes=10)


def test_expired_login_states_are_deleted_at_the_next_login(lti_app):
    app = lti_app()
    client = app.test_client()
    for _ in range(3):
        assert login(client).status_code == 302
    store = app.extensions["grader"].store
    with store.sessions.begin() as session:  # two of them expired 11 minutes ago ...
        ids = list(session.execute(select(LtiLoginState.state)).scalars())[:2]
        session.execute(update(LtiLoginState).where(LtiLoginState.state.in_(ids)).values(
            expires_at=utcnow() - timedelta(minutes=1)))
    assert rows(app) == 3
    assert login(client).status_code == 302
    # ... and are gone (before: kept until a day after expiry): 3 - 2 + 1
    assert rows(app) == 2
    assert all(store.lti.login_state(state) is None for state in ids)


def test_logins_are_rate_limited_per_client_address(lti_app):
    app = lti_app(LTI_RATE_LIMIT="5 per minute")
    client = app.test_client()
    codes = [login(client).status_code for _ in range(6)]
    assert codes == [302] * 5 + [429]
    refused = login(client)
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert "Too many requests to this tool from your network address (the limit is 5 per 1 " \
        "minute)" in refused.get_data(as_text=True)
    assert login(client, address="192.0.2.11").status_code == 302  # another address
    assert rows(app) == 6
    # the JSON shape for API-style clients carries Retry-After too
    as_json = client.post("/lti/login", data=params(), headers={"Accept": "application/json"},
                          environ_base={"REMOTE_ADDR": "192.0.2.10"})
    assert as_json.status_code == 429 and as_json.get_json()["code"] == "rate_limited"
    assert int(as_json.headers["Retry-After"]) >= 1


def test_the_red_teams_flood_stores_nothing_and_a_flood_of_valid_logins_stays_bounded(lti_app):
    app = lti_app()  # the default LTI_RATE_LIMIT: 120 per minute, 2000 per hour
    client = app.test_client()
    big = "x" * 4000
    codes = {login(client, login_hint=big, lti_message_hint=big,
                   target_link_uri=TOOL + "/lti/launch?" + big).status_code for _ in range(300)}
    assert codes == {400, 429} and rows(app) == 0  # refused before anything is stored
    # logins just under the cap, from one address: at most 120 per fixed one-minute window, and
    # the loop may straddle one window boundary, so at most 2 x 120 rows
    hint = "h" * 1000
    accepted = sum(login(client, address="192.0.2.99", login_hint=hint,
                         lti_message_hint=hint).status_code == 302 for _ in range(400))
    assert 120 <= accepted <= 240 and rows(app) == accepted
