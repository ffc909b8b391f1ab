"""One Redis client object per broker channel, instead of one per broker operation (lever
``notify`` of :mod:`grader.levers`).

Kombu's Redis transport builds a new ``redis.Redis`` object around the channel's connection pool
for every synchronous operation: on a worker, twice per task (recording the message as unacked
when it arrives, and removing it on the late ack), and once per message an API or worker process
publishes. Each build fills the client's table of some 170 response callbacks, about 0.14 ms of
CPU. The object holds nothing else of its own: every command takes a connection from the pool
and gives it back, and a pipeline is a new object each time. So the same object can serve every
synchronous operation of its channel; it is built again when the channel's pool changes (after a
fork, or a reconnection, kombu drops the pool and makes a new one). The asynchronous clients
(the ``BRPOP`` and pub/sub connections, which hold a connection of their own) are left as kombu
builds them, and nothing about what is sent to Redis changes.
"""
from __future__ import annotations

from grader import levers

_ATTRIBUTE = "_grader_sync_client"


def install() -> bool:
    """Wrap kombu's ``redis.Channel._create_client`` once per process (it reads the lever on
    every call, so with ``notify`` off it builds a client each time, as kombu does). Returns
    whether this call installed it."""
    from kombu.transport import redis as transport

    original = transport.Channel._create_client
    if getattr(original, "_grader_reuses", False):
        return False

    def _create_client(self, asynchronous=False):
        if asynchronous or not levers.enabled("notify"):
            return original(self, asynchronous)
        pool = self.pool
        client = self.__dict__.get(_ATTRIBUTE)
        if client is None or client.connection_pool is not pool:
            client = original(self, False)
            self.__dict__[_ATTRIBUTE] = client
        return client

    _create_client._grader_reuses = True
    _create_client.__wrapped__ = original
    transport.Channel._create_client = _create_client
    return True
