"""Channel: how many processes or threads an earlier job started. PIDs come from counters that
every process moves: in a PID namespace shared by the slot's jobs, a later job read them in its
own PID, its children's PIDs, /proc/loadavg's last PID and /proc/1/stat (the server's). Encoded
here as ``value`` processes forked one after the other, or ``value`` threads."""
import json
import os
import threading

import numpy as np


def encode_forks(value):
    for _ in range(value):
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
    return np.zeros(1)


def encode_threads(value):
    for _ in range(value):
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
    return np.zeros(1)


def _read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError as error:
        return type(error).__name__


def decode():
    child = os.fork()
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
    seen = []
    thread = threading.Thread(target=lambda: seen.append(threading.get_native_id()))
    thread.start()
    thread.join()
    try:
        pidfd = os.pidfd_open(os.getpid())
        pidfd_inode = os.fstat(pidfd).st_ino
    except OSError as error:
        pidfd_inode = type(error).__name__
    print(json.dumps({
        "pid": os.getpid(), "ppid": os.getppid(), "child": child, "thread": seen,
        "sid": os.getsid(0), "pgid": os.getpgid(0), "pidfd inode": pidfd_inode,
        "/proc/loadavg": _read("/proc/loadavg").split()[-1:],
        "/proc/1/stat": _read("/proc/1/stat").split()[:1] + _read("/proc/1/stat").split()[13:17],
        "ns_last_pid": _read("/proc/sys/kernel/ns_last_pid"), "/proc": sorted(os.listdir("/proc")),
    }))
    return np.zeros(1)
