"""Channel: what the server kept of an earlier job in its memory, which every later job's
process inherits when it is forked: the server used to keep the last job's wait status (an exit
code the job chose) and resource usage (CPU microseconds, peak memory, page faults, context
switches) in local variables of its loop, one ``sys._getframe().f_back`` away. Encoded here as
the exit status, ``value`` MiB of memory touched, ``value`` voluntary context switches, or
whether the job ended by itself or was killed at the time limit (odd ``value``)."""
import gc
import json
import os
import re
import sys
import time

import numpy as np


def encode_exit_status(value):
    os._exit(value)


def encode_memory(value):
    block = np.ones(value << 20, dtype=np.uint8)
    return np.zeros(1) + block[:1]


def encode_context_switches(value):
    for _ in range(value):
        time.sleep(0.0005)
    return np.zeros(1)


def _shown(namespace):
    return sorted((name, re.sub(r"0x[0-9a-f]+", "0x", repr(value))[:300])
                  for name, value in namespace.items())


def encode_killed(value):
    if value % 2:
        time.sleep(60)  # past the wall-clock limit: the trusted side has the server kill it
    return np.zeros(1)


def decode():
    """The server's frames (every local variable), the server module's globals, and how many
    objects the collector tracks: all inherited from the server. (Not
    ``sys.getallocatedblocks()``: it moves by a few blocks with every job served, as the
    allocator's free lists fill and the collector runs, whatever the jobs did.)"""
    frames = []
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.endswith("server.py"):
            frames.append([frame.f_code.co_name, _shown(frame.f_locals)])
        frame = frame.f_back
    print(json.dumps({"frames": frames, "server globals": _shown(vars(sys.modules["__main__"])),
                      "tracked objects": len(gc.get_objects()), "modules": sorted(sys.modules)}))
    return np.zeros(1)
