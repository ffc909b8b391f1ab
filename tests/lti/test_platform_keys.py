"""The platforms' keys (issue 27, items 6 and 10): a kid that is not cached is fetched for once
per launch whatever the cool-down, with a bounded rate across launches (a token bucket, counted
with a clock of the test's own); the fetch honours ``REQUESTS_CA_BUNDLE`` (a platform behind a
private CA), and a fetch that fails shows the learner neither the URL nor the TLS details."""
from __future__ import annotations

import datetime as dt
import ipaddress
import threading

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from flask import Flask, jsonify
from werkzeug.serving import make_server

from grader.lti.platform_keys import PlatformKeys
from grader.lti.refusals import LtiRefused
from tests.lti.flows import launch, learner


@pytest.fixture
def tool_config(embedded_config):
    """A cool-down of 300 s: far longer than the tests, so every refetch they see is the
    bucket's or an unknown kid's, never the cool-down's."""
    return {**embedded_config, "LTI_JWKS_REFETCH_COOLDOWN_SECONDS": 300.0}


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_an_unknown_kid_is_fetched_once_per_launch_within_a_bucket(platform):
    clock = Clock()
    keys = PlatformKeys(lifespan=300, cooldown=5, burst=2, clock=clock)
    url = platform.url + "/jwks"
    assert keys.signing_key(url, platform.kid).key_id == platform.kid
    assert platform.jwks_fetches == 1
    assert keys.signing_key(url, platform.kid).key_id == platform.kid  # cached
    platform.rotate_key()  # the platform rotates at once (0 s after our fetch)
    assert keys.signing_key(url, platform.kid).key_id == platform.kid
    assert platform.jwks_fetches == 2
    with pytest.raises(LtiRefused) as refused:  # the bucket's second token
        keys.signing_key(url, "forged-1")
    assert (refused.value.status, refused.value.code) == (401, "unknown_signing_key")
    assert platform.jwks_fetches == 3
    with pytest.raises(LtiRefused):  # the bucket is empty: no fetch
        keys.signing_key(url, "forged-2")
    assert platform.jwks_fetches == 3
    clock.now += 5.0  # one token back
    with pytest.raises(LtiRefused):
        keys.signing_key(url, "forged-3")
    assert platform.jwks_fetches == 4
    with pytest.raises(LtiRefused):
        keys.signing_key(url, "forged-4")
    assert platform.jwks_fetches == 4
    clock.now += 300.0  # the cached set expired: fetched again for a known kid
    assert keys.signing_key(url, platform.kid).key_id == platform.kid
    assert platform.jwks_fetches == 5


def test_a_launch_right_after_a_rotation_is_accepted(tool, platform, registered, browser):
    assert launch(browser, platform, learner()).status_code == 303
    fetches = platform.jwks_fetches
    platform.rotate_key()
    assert launch(browser, platform, learner()).status_code == 303  # 300 s cool-down or not
    assert platform.jwks_fetches == fetches + 1


def _certificates(tmp_path):
    """A private CA and a certificate for 127.0.0.1 it signed: (ca.pem, cert.pem, key.pem)."""
    now = dt.datetime.now(dt.timezone.utc)
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Test private CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - dt.timedelta(minutes=5))
          .not_valid_after(now + dt.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = tmp_path / "ca.pem", tmp_path / "cert.pem", tmp_path / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


def test_keys_behind_a_private_ca_are_fetched_with_requests_ca_bundle(
        tool, platform, admin_headers, browser, tmp_path, monkeypatch):
    ca, cert, key = _certificates(tmp_path)
    keys_app = Flask("platform_keys_tls")
    keys_app.get("/jwks")(lambda: jsonify({"keys": [platform.jwk]}))
    server = make_server("127.0.0.1", 0, keys_app, threaded=True,
                         ssl_context=(str(cert), str(key)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    key_set_url = f"https://127.0.0.1:{server.server_port}/jwks"
    try:
        resp = requests.post(tool[1] + "/api/v1/lti/platforms", headers=admin_headers,
                             json=platform.registration(key_set_url=key_set_url), timeout=10)
        assert resp.status_code == 201, resp.text
        for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
            monkeypatch.delenv(name, raising=False)
        refused = launch(browser, platform, learner())  # the system CAs do not know ours
        assert refused.status_code == 502
        assert "could not be fetched" in refused.text
        for secret in (key_set_url, "127.0.0.1:" + str(server.server_port), "SSL",
                       "CERTIFICATE_VERIFY_FAILED"):
            assert secret not in refused.text
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(ca))
        assert launch(browser, platform, learner()).status_code == 303
    finally:
        server.shutdown()
        thread.join(timeout=10)
