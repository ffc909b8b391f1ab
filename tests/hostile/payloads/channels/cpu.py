"""Channel: how much CPU an earlier job spent. It showed in the server's /proc/1/stat (the CPU of
the children it reaped), in /proc/stat and /proc/uptime (the machine's), in the load averages
(/proc/loadavg, ``sysinfo``) and in the resource usage the server kept of the last job. Encoded
here as ``value`` ms of CPU spent in the job's process, or in forked children."""
import ctypes
import json
import os
import time

import numpy as np


def _spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def encode_spin(value):
    _spin(value / 1000)
    return np.zeros(1)


def encode_children(value):
    children = []
    for _ in range(4):
        child = os.fork()
        if child == 0:
            _spin(value / 4000)
            os._exit(0)
        children.append(child)
    for child in children:
        os.waitpid(child, 0)
    return np.zeros(1)


class _Sysinfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3),
                ("rest", ctypes.c_char * 256)]


def _read(path, fields=slice(None)):
    try:
        with open(path) as handle:
            return handle.read().split()[fields]
    except OSError as error:
        return type(error).__name__


def decode():
    info = _Sysinfo()
    accepted = ctypes.CDLL(None, use_errno=True).sysinfo(ctypes.byref(info))
    times = os.times()
    print(json.dumps({
        "/proc/1/stat cpu": _read("/proc/1/stat", slice(13, 17)),
        "/proc/stat cpu": _read("/proc/stat", slice(0, 8)),
        "/proc/uptime idle": _read("/proc/uptime", slice(1, 2)),
        "/proc/loadavg": _read("/proc/loadavg", slice(0, 3)),
        "sysinfo": [accepted, list(info.loads)],
        "children cpu": [times.children_user, times.children_system],
    }))
    return np.zeros(1)
