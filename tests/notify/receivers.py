"""Real local receivers for the delivery tests: an HTTP receiver on a chosen loopback address
(counting what it was sent), one that drips its answer one byte every ``interval`` seconds, and a
TLS receiver with a certificate made for a chosen host name."""
from __future__ import annotations

import datetime
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class Receiver:
    """An HTTP server on ``host``:``port`` (0: any free port) answering ``status``; keeps each
    request's path, headers and body in ``requests``. ``received`` is set by the first one."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, status: int = 200,
                 tls: ssl.SSLContext | None = None):
        self.requests: list[tuple[str, dict, bytes]] = []
        self.received = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.requests.append((self.path, dict(self.headers), body))
                receiver.received.set()
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Dripper:
    """A receiver that reads the request, then sends ``b"HTTP/1.1 200 OK\\r\\n"`` and one header
    byte every ``interval`` seconds, forever (each read of a per-read timeout is answered in
    time; the request never completes). ``connected`` is set when a sender connects, ``sent``
    counts the bytes dripped; :meth:`close` stops it."""

    def __init__(self, interval: float = 0.05, host: str = "127.0.0.1"):
        self.interval = interval
        self.connected = threading.Event()
        self.stop = threading.Event()
        self.sent = 0
        self.open = 0  # connections being dripped to now
        self.changed = threading.Condition()
        self.sock = socket.create_server((host, 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://{host}:{self.port}/hook"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        self.connected.set()
        with self.changed:
            self.open += 1
            self.changed.notify_all()
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                while not self.stop.wait(self.interval):
                    conn.sendall(b"X")
                    self.sent += 1
            except OSError:  # the sender hung up (its deadline)
                pass
            finally:
                with self.changed:
                    self.open -= 1
                    self.changed.notify_all()

    def wait_open(self, count: int, timeout: float = 60) -> bool:
        """Wait until ``count`` senders are connected at once."""
        with self.changed:
            return self.changed.wait_for(lambda: self.open >= count, timeout)

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


def make_certificate(folder: Path, host: str) -> tuple[Path, Path]:
    """A self-signed certificate for ``host`` (its own CA) and its key, as PEM files in
    ``folder``; returns (certificate, key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / f"{host}.pem", folder / f"{host}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context
