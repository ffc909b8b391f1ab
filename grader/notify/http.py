"""One outgoing HTTP request of a delivery (webhooks, LTI scores): an overall deadline, and the
connection made to the address that was checked.

Two faults of a plain ``requests.post(url, timeout=5)`` are closed here:

* **The deadline is for the whole request**, not for each socket read: a receiver that sends one
  byte every few seconds answers every read in time and could hold a sender for hours. libcurl's
  ``CURLOPT_TIMEOUT_MS`` bounds the transfer from start to end (name lookup, connection, TLS,
  sending, the status line, headers and body), ``CURLOPT_CONNECTTIMEOUT_MS`` the connection.
* **No second name lookup** (DNS rebinding): the host is resolved once, with ``resolve``; the
  caller checks those addresses (:func:`grader.notify.webhooks.non_public_address`), and libcurl
  connects to the first of them through ``CURLOPT_RESOLVE`` (``host:port:address``), so a name
  whose answer changes between the check and the connection cannot reach another address. The
  URL keeps its host name, so TLS still verifies the certificate against that name (SNI and host
  verification are libcurl's, with the CA bundle of ``certifi``), and ``Host`` is the name.

No redirects are followed, only ``http`` and ``https`` are spoken, no proxy from the environment
is used (a proxy would resolve the name again), and at most :data:`MAX_BODY_BYTES` of an answer
are kept.
"""
from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, field
from io import BytesIO
from typing import Callable, Iterable, Mapping
from urllib.parse import urlsplit

import certifi
import pycurl

#: Bytes of an answer kept (a receiver's answer is only read for its status and short errors).
MAX_BODY_BYTES = 1 << 20

#: ``resolve(host, port) -> addresses``: the name lookup (``socket.getaddrinfo`` by default).
Resolver = Callable[[str, int], list[str]]


def system_resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (IPv4 and IPv6, in the system's order, deduplicated).
    Raises ``OSError`` when the name cannot be resolved."""
    found = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(info[4][0].split("%", 1)[0] for info in found))


class DeliveryFault(Exception):
    """One request did not get an answer. ``kind``: ``deadline`` (the overall deadline passed),
    ``connect`` (no connection), ``tls`` (the certificate was not valid for the host), ``resolve``
    (the name did not resolve) or ``http`` (another transfer fault)."""

    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind


@dataclass(frozen=True)
class Answer:
    """A target's answer: ``status_code``, up to :data:`MAX_BODY_BYTES` of ``body``, and the
    address the connection was made to (``address``)."""

    status_code: int
    body: bytes
    address: str
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self):
        import json

        return json.loads(self.body)


@dataclass(frozen=True)
class Target:
    """A URL split into what the connection needs: ``host`` (without brackets), ``port``."""

    url: str
    scheme: str
    host: str
    port: int

    @classmethod
    def of(cls, url: str) -> "Target":
        """Raises :class:`DeliveryFault` (``http``) for a URL that is not http(s) with a host."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise DeliveryFault("http", f"not an http(s) URL with a host: {url[:200]!r}")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError as exc:
            raise DeliveryFault("http", f"bad port in {url[:200]!r}") from exc
        return cls(url, parts.scheme, parts.hostname, port)


def resolve_target(target: Target, resolve: Resolver = system_resolve) -> list[str]:
    """The addresses of ``target.host`` (an IP literal is its own address), resolved once.
    Raises :class:`DeliveryFault` (``resolve``) when there are none."""
    try:
        return [str(ipaddress.ip_address(target.host))]
    except ValueError:
        pass
    try:
        addresses = list(resolve(target.host, target.port))
    except OSError as exc:
        raise DeliveryFault("resolve", f"cannot resolve {target.host}: {exc}") from exc
    if not addresses:
        raise DeliveryFault("resolve", f"{target.host} has no address")
    return addresses


def _pin(target: Target, address: str) -> str:
    shown = f"[{address}]" if ":" in address else address
    return f"{target.host}:{target.port}:{shown}"


_FAULTS = {
    pycurl.E_OPERATION_TIMEDOUT: "deadline",
    pycurl.E_COULDNT_CONNECT: "connect",
    pycurl.E_COULDNT_RESOLVE_HOST: "resolve",
    pycurl.E_SSL_CONNECT_ERROR: "tls",
    pycurl.E_PEER_FAILED_VERIFICATION: "tls",
    getattr(pycurl, "E_SSL_CACERT", 60): "tls",
}


def request(method: str, target: Target, address: str, *, body: bytes | None = None,
            headers: Mapping[str, str] | Iterable[tuple[str, str]] = (),
            deadline: float = 10.0, connect_timeout: float | None = None,
            ca_file: str | None = None) -> Answer:
    """Send one ``method`` request to ``target`` over a connection to ``address`` (one of
    :func:`resolve_target`'s, already checked by the caller) and return the answer.

    ``deadline``: seconds for the whole request, from the first byte to the last (libcurl's
    ``TIMEOUT_MS``); ``connect_timeout``: seconds for the connection (default: the deadline, at
    most 5 s). ``ca_file``: the CA bundle for https (default ``certifi``'s). A status that is not
    2xx is an answer, not a fault. Raises :class:`DeliveryFault` when no answer came (``deadline``
    when the deadline passed, whatever the receiver was doing)."""
    curl = pycurl.Curl()
    out = BytesIO()
    kept: dict[str, str] = {}

    def write(chunk: bytes) -> None:  # past the cap: read on (within the deadline), keep nothing
        room = MAX_BODY_BYTES - out.tell()
        if room > 0:
            out.write(chunk[:room])

    def header(line: bytes):
        name, sep, value = line.decode("latin-1").partition(":")
        if sep and len(kept) < 64:
            kept[name.strip().lower()] = value.strip()[:1000]

    pairs = headers.items() if isinstance(headers, Mapping) else headers
    try:
        curl.setopt(pycurl.URL, target.url)
        curl.setopt(pycurl.RESOLVE, [_pin(target, address)])
        curl.setopt(pycurl.PROTOCOLS, pycurl.PROTO_HTTP | pycurl.PROTO_HTTPS)
        curl.setopt(pycurl.FOLLOWLOCATION, 0)
        curl.setopt(pycurl.PROXY, "")
        curl.setopt(pycurl.NOPROXY, "*")
        curl.setopt(pycurl.NOSIGNAL, 1)  # threads: no SIGALRM for timeouts
        curl.setopt(pycurl.TIMEOUT_MS, max(1, int(deadline * 1000)))
        curl.setopt(pycurl.CONNECTTIMEOUT_MS,
                    max(1, int((connect_timeout or min(deadline, 5.0)) * 1000)))
        curl.setopt(pycurl.CAINFO, ca_file or certifi.where())
        curl.setopt(pycurl.SSL_VERIFYPEER, 1)
        curl.setopt(pycurl.SSL_VERIFYHOST, 2)
        curl.setopt(pycurl.HTTPHEADER, [f"{k}: {v}" for k, v in pairs] + ["Expect:"])
        curl.setopt(pycurl.WRITEFUNCTION, write)
        curl.setopt(pycurl.HEADERFUNCTION, header)
        if method == "GET":
            curl.setopt(pycurl.HTTPGET, 1)
        else:
            curl.setopt(pycurl.POSTFIELDS, body or b"")
            if method != "POST":
                curl.setopt(pycurl.CUSTOMREQUEST, method)
        try:
            curl.perform()
        except pycurl.error as exc:
            code, message = exc.args[0], str(exc.args[1] if len(exc.args) > 1 else exc)
            kind = _FAULTS.get(code, "http")
            if kind == "deadline":
                message = f"no complete answer within {deadline:.3g} s"
            raise DeliveryFault(kind, f"{message[:300]} [{target.host} at {address}]") from None
        return Answer(int(curl.getinfo(pycurl.RESPONSE_CODE)), out.getvalue(), address, kept)
    finally:
        curl.close()
