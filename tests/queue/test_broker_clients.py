"""Lever ``notify`` (grader/levers.py, workers/broker_clients.py): a broker channel keeps one
Redis client object for its synchronous operations; what reaches Redis, late acks and
redelivery are as without the lever."""
from __future__ import annotations

import base64
import json
import uuid

import pytest
import redis
from kombu import Connection, Queue
from kombu.transport import redis as transport

from workers.broker_clients import install


@pytest.fixture
def broker(redis_url):
    """(a kombu connection to the test Redis with its own unacked keys, a fresh queue)."""
    install()
    tag = uuid.uuid4().hex[:10]
    url = redis_url.rsplit("/", 1)[0] + "/15"
    options = {"visibility_timeout": 600, "unacked_key": f"unacked-{tag}",
               "unacked_index_key": f"unacked-index-{tag}",
               "unacked_mutex_key": f"unacked-mutex-{tag}"}
    with Connection(url, transport_options=options) as conn:
        queue = Queue(f"lever-notify-{tag}", routing_key=f"lever-notify-{tag}")
        yield conn, queue, options
        with conn.channel() as channel:
            queue(channel).delete()
            client = channel._create_client()
            client.delete(options["unacked_key"], options["unacked_index_key"])


def test_install_wraps_kombu_once_and_every_celery_app_has_it():
    from workers.celery_app import make_celery

    make_celery({"CELERY_BROKER_URL": "redis://127.0.0.1:6379/15", "CELERY_QUEUE": "q",
                 "SWEEP_INTERVAL_SECONDS": 60})
    assert install() is False
    assert transport.Channel._create_client._grader_reuses is True


def test_with_the_lever_a_channel_keeps_one_client_until_its_pool_changes(broker, monkeypatch):
    conn, _queue, _options = broker
    monkeypatch.setenv("CPU_LEVERS", "notify")
    channel = conn.channel()
    first = channel._create_client()
    assert channel._create_client() is first
    assert first.connection_pool is channel.pool
    # the asynchronous clients (BRPOP, pub/sub: a connection of their own) are built as before
    assert channel._create_client(asynchronous=True) is not channel._create_client(
        asynchronous=True)
    channel._disconnect_pools()  # what kombu does after a fork
    again = channel._create_client()
    assert again is not first and again.connection_pool is channel.pool
    assert again.ping() is True
    # another channel has its own
    other = conn.channel()
    assert other._create_client() is not again
    channel.close()
    other.close()


def test_without_the_lever_every_operation_builds_its_client(broker, monkeypatch):
    conn, _queue, _options = broker
    monkeypatch.setenv("CPU_LEVERS", "none")
    channel = conn.channel()
    assert channel._create_client() is not channel._create_client()
    channel.close()


def _late_ack_round(conn, queue, options) -> list:
    """What Redis holds along one message's late-acked life and one message's redelivery:
    (queue length, unacked entries) after publishing two messages, after taking both, after
    acking the first, after the channel closed with the second unacked (restored), and the
    bodies received again."""
    states = []
    with conn.channel() as channel:
        client = channel._create_client()

        def state():
            return (client.llen(queue.name), client.hlen(options["unacked_key"]),
                    client.zcard(options["unacked_index_key"]))

        producer = conn.Producer(channel=channel, serializer="json")
        queue(channel).declare()
        for n in (1, 2):
            producer.publish({"submission": n}, routing_key=queue.routing_key,
                             declare=[queue])
        states.append(state())
        taken = []
        consumer = conn.Consumer(queue, channel=channel, accept=["json"],
                                 callbacks=[lambda body, message: taken.append(message)])
        consumer.qos(prefetch_count=2)
        consumer.consume()
        while len(taken) < 2:
            conn.drain_events(timeout=5)
        states.append(state())
        taken[0].ack()
        states.append(state())
        states.append([m.payload for m in taken])
    # the channel closed with the second message unacknowledged: restored to the queue
    with conn.channel() as channel:
        client = channel._create_client()
        states.append((client.llen(queue.name), client.hlen(options["unacked_key"])))
        again = []
        consumer = conn.Consumer(queue, channel=channel, accept=["json"],
                                 callbacks=[lambda body, message: again.append(message)])
        consumer.consume()
        while not again:
            conn.drain_events(timeout=5)
        again[0].ack()
        states.append([m.payload for m in again])
        states.append((client.llen(queue.name), client.hlen(options["unacked_key"])))
    return states


def test_late_acks_and_redelivery_leave_redis_alike_with_and_without_the_lever(broker,
                                                                               monkeypatch):
    conn, queue, options = broker
    built = []
    original = redis.Redis.__init__

    def counting(self, *args, **kwargs):
        built.append(kwargs.get("connection_pool"))
        original(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counting)
    rounds, clients = {}, {}
    for value in ("none", "notify"):
        monkeypatch.setenv("CPU_LEVERS", value)
        built.clear()
        rounds[value] = _late_ack_round(conn, queue, options)
        clients[value] = len(built)
    assert rounds["none"] == rounds["notify"] == [
        (2, 0, 0),  # published, none taken
        (0, 2, 2),  # both taken: each recorded as unacked
        (0, 1, 1),  # the first acked
        [{"submission": 1}, {"submission": 2}],
        (1, 0),  # the unacked one is back in the queue
        [{"submission": 2}],  # and delivered again
        (0, 0),
    ]
    # Redis client objects built: without the lever one per operation (publishes, unacked
    # records, acks, the restore on close, the round's reads); with it, per channel its
    # asynchronous client (BRPOP, as before) and one for the rest, and one more for the restore
    # on close (kombu drops the channel's pool first: a new pool, a new client)
    assert clients == {"none": 16, "notify": 5}


def test_a_delivery_task_is_published_alike_with_and_without_the_lever(redis_url, monkeypatch):
    """What the grading side puts on the deliveries' queue for a webhook or LTI delivery
    (``deliver_later``): the same task, arguments, queue and options either way."""
    from workers.celery_app import make_celery
    from workers.tasks import DELIVER_WEBHOOK, deliver_later

    tag = uuid.uuid4().hex[:10]
    url = redis_url.rsplit("/", 1)[0] + "/15"
    app = make_celery({"CELERY_BROKER_URL": url, "CELERY_QUEUE": f"grading-{tag}",
                       "SWEEP_INTERVAL_SECONDS": 60})
    queue = f"grading-{tag}-deliveries"
    client = redis.Redis.from_url(url)
    published = {}
    try:
        for value in ("none", "notify"):
            monkeypatch.setenv("CPU_LEVERS", value)
            deliver_later(app, "delivery-1")
            deliver_later(app, "delivery-2", countdown=None)
            messages = [json.loads(raw) for raw in reversed(client.lrange(queue, 0, -1))]
            client.delete(queue)
            published[value] = [
                (m["headers"]["task"], m["headers"]["argsrepr"], m["headers"]["eta"],
                 m["properties"]["delivery_info"], m["content-type"],
                 json.loads(base64.b64decode(m["body"]))[:2])
                for m in messages]
    finally:
        client.delete(queue)
        app.close()
    assert published["none"] == published["notify"]
    assert [p[0] for p in published["none"]] == [DELIVER_WEBHOOK] * 2
    assert [p[5] for p in published["none"]] == [[["delivery-1"], {}], [["delivery-2"], {}]]
    assert published["none"][0][3] == {"exchange": "", "routing_key": queue}
