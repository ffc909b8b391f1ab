"""A pausable TCP proxy, to make a dependency (PostgreSQL) unreachable for a few seconds without
touching the machine's own server.

``pause()`` drops every open connection and answers new ones by closing them at once (what a
client sees while a database restarts); ``resume()`` forwards again. Threads only, standard
library only.
"""
from __future__ import annotations

import selectors
import socket
import threading


class PausableProxy:
    """Forwards ``127.0.0.1:<port>`` to ``target``; ``port`` is chosen free at start."""

    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(256)
        self.port = self._server.getsockname()[1]
        self._paused = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self.refused = 0  # connections answered by closing while paused
        threading.Thread(target=self._accept_loop, name="proxy-accept", daemon=True).start()

    def url_for(self, database_url: str) -> str:
        """``database_url`` (host 127.0.0.1:5432) rewritten to go through this proxy."""
        host, port = self.target
        return database_url.replace(f"{host}:{port}", f"127.0.0.1:{self.port}", 1)

    def pause(self) -> None:
        """Drop every connection; refuse new ones until :meth:`resume`."""
        self._paused.set()
        with self._lock:
            conns, self._open = list(self._open), set()
        for conn in conns:
            _close(conn)

    def resume(self) -> None:
        self._paused.clear()

    def close(self) -> None:
        self._closed.set()
        self.pause()
        _close(self._server)

    def _accept_loop(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if self._paused.is_set():
                self.refused += 1
                _close(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _close(client)
                continue
            with self._lock:
                self._open.update((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        # a selector, not select.select: late in a long test run the process holds more than
        # 1,024 descriptors, and select() refuses those ("filedescriptor out of range")
        selector = selectors.DefaultSelector()
        try:
            for sock in (a, b):
                selector.register(sock, selectors.EVENT_READ)
            while not self._paused.is_set():
                for key, _ in selector.select(0.2):
                    data = key.fileobj.recv(65536)
                    if not data:
                        return
                    peers[key.fileobj].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            selector.close()
            with self._lock:
                self._open.discard(a)
                self._open.discard(b)
            _close(a)
            _close(b)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
