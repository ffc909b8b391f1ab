"""Channel between jobs running at the same time in two slots: the files every slot shares
(/usr/lib, the Python installation, NumPy, /dev/null) are the same files, so a lock one job holds
on them (``flock``, ``fcntl`` record and open-file-description locks, which ``F_GETLK`` reports
to anyone), a lease, or a change notification (``inotify``, ``F_NOTIFY``) would tell another job
something. Every attempt is counted: each must be refused. Variants: through Python, and through
raw system calls with the ``fcntl`` command's upper 32 bits set (the kernel reads an int)."""
import ctypes
import fcntl
import json
import os
import struct

import numpy as np

libc = ctypes.CDLL(None, use_errno=True)
SHARED = (np.__file__, os.__file__, "/dev/null", "/sandbox/lib")
F_GETLK, F_SETLK, F_OFD_GETLK, F_OFD_SETLK, F_SETLEASE, F_NOTIFY = 5, 6, 36, 37, 1024, 1026


def _python(path):
    accepted = 0
    fd = os.open(path, os.O_RDONLY)
    lock = struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0)
    probe = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
    for attempt in (lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB),
                    lambda: fcntl.fcntl(fd, F_SETLK, lock), lambda: fcntl.fcntl(fd, F_GETLK, probe),
                    lambda: fcntl.fcntl(fd, F_OFD_SETLK, lock),
                    lambda: fcntl.fcntl(fd, F_OFD_GETLK, probe),
                    lambda: fcntl.fcntl(fd, F_SETLEASE, fcntl.F_RDLCK),
                    lambda: fcntl.fcntl(fd, F_NOTIFY, 0x1)):
        try:
            attempt()
            accepted += 1
        except OSError:
            pass
    return accepted


def _raw(path):
    accepted = 0
    fd = os.open(path, os.O_RDONLY)
    lock = ctypes.create_string_buffer(struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0), 32)
    for command in (F_SETLK, F_GETLK, F_OFD_SETLK, F_OFD_GETLK):
        if libc.syscall(72, fd, ctypes.c_ulong(command | 1 << 32), lock) == 0:  # fcntl
            accepted += 1
    if libc.syscall(73, fd, fcntl.LOCK_SH | fcntl.LOCK_NB) == 0:  # flock
        accepted += 1
    for number in (253, 294):  # inotify_init, inotify_init1
        watcher = libc.syscall(number, 0) if number == 294 else libc.syscall(number)
        if watcher >= 0 and libc.inotify_add_watch(watcher, path.encode(), 0xFFF) >= 0:
            accepted += 1
    return accepted


def encode_python(value):
    print(json.dumps({"accepted": sum(_python(path) for path in SHARED)}))
    return np.zeros(1)


def encode_raw(value):
    print(json.dumps({"accepted": sum(_raw(path) for path in SHARED)}))
    return np.zeros(1)


def decode():
    print(json.dumps({"accepted": sum(_python(path) + _raw(path) for path in SHARED)}))
    return np.zeros(1)
