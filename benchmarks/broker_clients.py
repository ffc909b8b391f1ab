"""Lever ``notify`` of issue 29 (:mod:`workers.broker_clients`): the CPU of kombu's Redis
transport per message as Celery uses it (publish; consume, which records the message as unacked;
the late ack), with ``CPU_LEVERS=none`` and ``notify`` taking turns block by block in this
process (the lever is read on every broker operation), on the Redis at ``--url``.

    .venv/bin/python benchmarks/broker_clients.py [--url redis://127.0.0.1:6379/15]
                                                  [--messages 200] [--blocks 10]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kombu import Connection, Queue  # noqa: E402

from workers.broker_clients import install  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/15")
    parser.add_argument("--messages", type=int, default=200, help="messages per block")
    parser.add_argument("--blocks", type=int, default=10, help="blocks per configuration")
    args = parser.parse_args(argv)
    install()
    name = f"bench-broker-clients-{uuid.uuid4().hex[:8]}"
    spent: dict[str, list[float]] = {"none": [], "notify": []}
    saved = os.environ.get("CPU_LEVERS")
    with Connection(args.url, transport_options={"visibility_timeout": 600}) as conn:
        queue = Queue(name, routing_key=name)
        channel = conn.channel()
        queue(channel).declare()
        producer = conn.Producer(channel=channel, serializer="json")
        taken = []
        consumer = conn.Consumer(queue, channel=channel, accept=["json"],
                                 callbacks=[lambda body, message: taken.append(message)])
        consumer.qos(prefetch_count=1)
        consumer.consume()
        try:
            for block in range(args.blocks + 1):  # the first block warms up, not counted
                for levers in ("none", "notify") if block % 2 == 0 else ("notify", "none"):
                    os.environ["CPU_LEVERS"] = levers
                    started = time.process_time()
                    for i in range(args.messages):
                        producer.publish({"args": [f"s-{i}"]}, routing_key=name)
                        while not taken:
                            conn.drain_events(timeout=5)
                        taken.pop().ack()
                    if block:
                        spent[levers].append((time.process_time() - started)
                                             / args.messages * 1e3)
        finally:
            queue(channel).delete()
            os.environ.pop("CPU_LEVERS", None) if saved is None else os.environ.update(
                CPU_LEVERS=saved)
    off, on = (statistics.median(spent[k]) for k in ("none", "notify"))
    print(f"CPU-ms per message (publish + consume + late ack), medians of {args.blocks} blocks "
          f"of {args.messages}: none {off:.3f}, notify {on:.3f} (ratio {on / off:.2f}, "
          f"{off - on:.3f} CPU-ms less)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
