"""One delivery request (grader/notify/http.py and the webhook channel): the connection goes to the
address that was checked (DNS rebinding), TLS still verifies the host name, and the deadline is
for the whole attempt (a dripping receiver is a "deadline" fault, not a hung sender)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from grader.notify.http import DeliveryFault, Target, request
from grader.notify.webhooks import WebhookChannel, private_target
from tests.notify.receivers import Dripper, Receiver, make_certificate, tls_context


class Rebinding:
    """A resolver that answers ``first`` on its first call and ``then`` on every later one (a
    name whose DNS answer changes between the check and the connection)."""

    def __init__(self, first: str, then: str):
        self.answers, self.calls = [first, then], []

    def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append((host, port))
        return [self.answers[min(len(self.calls) - 1, 1)]]


class _Courses:
    def get_course(self, course_id):
        return SimpleNamespace(webhook_secret="s3cret")


STORE = SimpleNamespace(courses=_Courses())


def delivery(url: str) -> SimpleNamespace:
    return SimpleNamespace(id="d1", url=url, course_id="c1", payload={"type": "submission.graded"})


def test_a_rebinding_name_is_refused_or_sent_where_it_was_checked_never_to_loopback():
    """Public first, 127.0.0.1 second: the check passes on the public answer and the POST goes
    to that address; the loopback receiver gets nothing and the name was looked up once."""
    loopback = Receiver("127.0.0.1")
    resolver = Rebinding("1.1.1.1", "127.0.0.1")
    try:
        channel = WebhookChannel(STORE, allow_private=False, resolve=resolver)
        attempt = channel.send(delivery(f"http://hook.example:{loopback.port}/hook"), timeout=0.5)
    finally:
        loopback.close()
    assert loopback.requests == []
    assert resolver.calls == [("hook.example", loopback.port)]
    assert not attempt.delivered and attempt.retry
    assert "at 1.1.1.1]" in attempt.error  # it went to the checked address, and failed there


def test_a_name_checked_as_one_loopback_address_is_not_sent_to_another():
    """Embedded default (private addresses allowed): the resolver answers 127.0.0.2, then
    127.0.0.1; both listen on the same port and only 127.0.0.2 receives the POST, with the
    name, not the address, as its Host."""
    checked = Receiver("127.0.0.2")
    other = Receiver("127.0.0.1", port=checked.port)
    resolver = Rebinding("127.0.0.2", "127.0.0.1")
    try:
        channel = WebhookChannel(STORE, allow_private=True, resolve=resolver)
        attempt = channel.send(delivery(f"http://hook.test:{checked.port}/hook"), timeout=5)
    finally:
        checked.close()
        other.close()
    assert attempt.delivered and attempt.status_code == 200
    assert other.requests == []
    [(path, headers, body)] = checked.requests
    assert (path, headers["Host"]) == ("/hook", f"hook.test:{checked.port}")
    assert body == b'{"type":"submission.graded"}'
    assert len(resolver.calls) == 1


def test_a_loopback_answer_on_the_first_lookup_is_refused_without_a_retry():
    resolver = Rebinding("127.0.0.1", "1.1.1.1")
    channel = WebhookChannel(STORE, allow_private=False, resolve=resolver)
    attempt = channel.send(delivery("http://hook.example/hook"), timeout=1)
    assert (attempt.delivered, attempt.retry) == (False, False)
    assert "non-public address 127.0.0.1" in attempt.error
    assert "non-public address 10.0.0.7" in private_target(
        "http://x.example/", resolve=lambda host, port: ["93.184.216.34", "10.0.0.7"])


def test_tls_verifies_the_host_name_on_the_pinned_address(tmp_path):
    """The connection goes to 127.0.0.2 and the certificate is checked against the URL's name:
    a certificate for hook.test passes, one for other.test fails as a TLS fault."""
    good_cert, good_key = make_certificate(tmp_path, "hook.test")
    bad_cert, bad_key = make_certificate(tmp_path, "other.test")
    good = Receiver("127.0.0.2", tls=tls_context(good_cert, good_key))
    bad = Receiver("127.0.0.2", tls=tls_context(bad_cert, bad_key))
    try:
        answer = request("POST", Target.of(f"https://hook.test:{good.port}/hook"), "127.0.0.2",
                         body=b"{}", deadline=5, ca_file=str(good_cert))
        with pytest.raises(DeliveryFault) as refused:
            request("POST", Target.of(f"https://hook.test:{bad.port}/hook"), "127.0.0.2",
                    body=b"{}", deadline=5, ca_file=str(bad_cert))
    finally:
        good.close()
        bad.close()
    assert (answer.status_code, answer.address) == (200, "127.0.0.2")
    assert len(good.requests) == 1 and bad.requests == []
    assert refused.value.kind == "tls"


@pytest.mark.parametrize("interval", [0.02, 0.2])
def test_a_dripping_receiver_is_a_deadline_fault_of_the_attempt(interval):
    """Each byte comes long before any per-read timeout would fire; the attempt still ends, as
    a "deadline" fault, once its overall deadline has passed."""
    dripper = Dripper(interval=interval)
    try:
        channel = WebhookChannel(STORE, allow_private=True)
        attempt = channel.send(delivery(dripper.url), timeout=0.6)
    finally:
        dripper.close()
    assert dripper.connected.is_set()
    assert not attempt.delivered and attempt.retry
    assert attempt.error.startswith("deadline: no complete answer within 0.6 s")


def test_a_silent_receiver_is_a_deadline_fault_too():
    """Variant: it sends its status line, then nothing."""
    dripper = Dripper(interval=3600)
    try:
        with pytest.raises(DeliveryFault) as fault:
            request("POST", Target.of(dripper.url), "127.0.0.1", body=b"{}", deadline=0.5)
    finally:
        dripper.close()
    assert fault.value.kind == "deadline"
