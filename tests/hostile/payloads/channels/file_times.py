"""Channel: time stamps of files every job (and the host) shares. ``utimensat`` with the current
time needs only write permission, which /dev/null, /dev/zero, /dev/full, /dev/urandom and /dev/tty
give everyone: a job set the host's /dev/null to a moment it chose to the nanosecond, and a later
job read it. Encoded here as the moment ``value`` ms after the second the job started in, set on
every device node; or as writes and reads of them (which touch no time stamp). The read-only
files (the sandbox's own, NumPy's, the standard library's) must keep theirs too."""
import json
import os
import time

import numpy as np

SHARED = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
          "/dev/ptmx", "/dev", "/sandbox/lib/runner.py", np.__file__, os.__file__, "/")


def encode_utime(value):
    target = int(time.time()) + 1 + value / 1000
    time.sleep(max(0.0, target - time.time() - 0.01))
    while time.time() < target:
        pass
    accepted = 0
    for path in SHARED:
        for attempt in (lambda: os.utime(path), lambda: os.utime(path, ns=(value, value))):
            try:
                attempt()
                accepted += 1
            except OSError:
                pass
    print(json.dumps({"accepted": accepted}))
    return np.zeros(1)


def encode_io(value):
    for path in ("/dev/null", "/dev/zero", "/dev/full", "/dev/urandom"):
        try:
            with open(path, "r+b", buffering=0) as handle:
                for _ in range(value):
                    handle.read(1)
                    handle.write(b"x")
        except OSError:
            pass
    return np.zeros(1)


def decode():
    stamps = {}
    for path in SHARED:
        try:
            status = os.stat(path)
            stamps[path] = [status.st_atime_ns, status.st_mtime_ns, status.st_ctime_ns]
        except OSError as error:
            stamps[path] = type(error).__name__
    print(json.dumps(stamps))
    return np.zeros(1)
