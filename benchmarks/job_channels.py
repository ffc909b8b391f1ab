"""Bits a later job of one sandbox slot recovers from what an earlier job encoded.

Run: ``.venv/bin/python benchmarks/job_channels.py [--values 16]``. For every channel of
``tests/hostile/payloads/channels`` (each a file with ``encode_*`` functions and one
``decode``) and every encoder, the script runs, on one warm isolated sandbox, ``encode(v)`` in
one job and ``decode()`` in the next, for ``v`` in ``0 .. values-1``, and prints how many
distinct observations the decoder made: ``log2(distinct)`` bits of the ``log2(values)``
encoded were recovered (0 when every observation is the same). The observations are whatever
the decoder prints (JSON). To measure another tree (e.g. main, before issue 20), point
``PYTHONPATH`` at it: the script uses only ``Call``, ``Limits`` and ``get_sandbox``.
"""
from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

from grader.sandbox import Call, Limits, get_sandbox

CHANNELS = Path(__file__).resolve().parent.parent / "tests" / "hostile" / "payloads" / "channels"
LIMITS = Limits(wall_seconds=2.0, cpu_seconds=1.5, memory_bytes=256 << 20, run_wall_seconds=4.0)


def encoders(source: str) -> list[str]:
    """The ``encode_*`` functions a channel file defines, in order."""
    return re.findall(r"^def (encode_\w+)\(", source, flags=re.M)


def observe(sandbox, source: str, encoder: str, value: int) -> str:
    """What ``decode()`` printed in the job right after ``encoder(value)``'s job."""
    sandbox.run(source, [Call("encode", encoder, (value,))], LIMITS)
    decoded = sandbox.run(source, [Call("decode", "decode", ())], LIMITS)
    return decoded.stdout.strip() or f"{decoded.status}: {decoded.calls[0].error}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--values", type=int, default=16)
    options = parser.parse_args(argv)
    sandbox = get_sandbox("auto")
    try:
        print(f"{'channel':40s} {'distinct':>8s} {'bits':>6s} (of {math.log2(options.values):g})")
        for path in sorted(CHANNELS.glob("*.py")):
            source = path.read_text()
            for encoder in encoders(source):
                seen = {observe(sandbox, source, encoder, value) for value in range(options.values)}
                print(f"{path.stem + '.' + encoder:40s} {len(seen):8d} {math.log2(len(seen)):6.2f}")
    finally:
        sandbox.close()


if __name__ == "__main__":
    main()
