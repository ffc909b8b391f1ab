"""Channel: counters of the whole machine that a job could move and a later one read: new pipes,
memfds, AIO contexts and pidfds are numbered by kernel-wide inode counters (a later job reads
the number of its own new pipe), and ``sysinfo``/``/proc/meminfo`` tell the free memory and the
number of processes. Encoded here as ``value`` pipes, memfds, AIO contexts and pidfds, or as
``value`` MiB of memory held while the job's processes sleep. Each call the kernel accepts is
counted: every one must be refused."""
import ctypes
import json
import os
import time

import numpy as np

libc = ctypes.CDLL(None, use_errno=True)
CLONE_PIDFD, SIGCHLD = 0x1000, 17


def _attempts():
    """Each way of getting a new object numbered by a machine-wide counter: its inode number,
    or the error that refused it."""
    found = {}
    for name, make in (("pipe", lambda: os.pipe()[0]), ("pipe2", lambda: os.pipe2(0)[0]),
                       ("memfd", lambda: os.memfd_create("x")),
                       ("pidfd", lambda: os.pidfd_open(os.getpid()))):
        try:
            found[name] = os.fstat(make()).st_ino
        except OSError as error:
            found[name] = type(error).__name__
    context = ctypes.c_ulong(0)
    found["io_setup"] = libc.syscall(206, 1, ctypes.byref(context))  # -1 when refused
    pidfd = ctypes.c_int(-1)
    child = libc.syscall(56, CLONE_PIDFD | SIGCHLD, 0, ctypes.byref(pidfd), 0, 0)
    if child == 0:
        libc._exit(0)
    if child > 0:
        os.waitpid(child, 0)
    found["clone pidfd"] = os.fstat(pidfd.value).st_ino if pidfd.value >= 0 else child
    return found


def encode_objects(value):
    accepted = 0
    for _ in range(value):
        accepted += sum(1 for seen in _attempts().values() if isinstance(seen, int) and seen > 0)
    print(json.dumps({"accepted": accepted}))
    return np.zeros(1)


def encode_memory_held(value):
    if os.fork() == 0:
        block = np.ones(value << 20, dtype=np.uint8)
        time.sleep(5 + block[0])
        os._exit(0)
    time.sleep(0.2)
    return np.zeros(1)


class _Sysinfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3),
                ("totalram", ctypes.c_ulong), ("freeram", ctypes.c_ulong),
                ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong),
                ("procs", ctypes.c_ushort), ("rest", ctypes.c_char * 256)]


def decode():
    info = _Sysinfo()
    accepted = libc.sysinfo(ctypes.byref(info))
    try:
        meminfo = open("/proc/meminfo").read().split()[:6]
    except OSError as error:
        meminfo = type(error).__name__
    try:
        available = os.sysconf("SC_AVPHYS_PAGES")
    except (OSError, ValueError) as error:
        available = type(error).__name__
    print(json.dumps({"new objects": _attempts(), "meminfo": meminfo, "available": available,
                      "sysinfo": [accepted, info.freeram, info.sharedram, info.procs]}))
    return np.zeros(1)
