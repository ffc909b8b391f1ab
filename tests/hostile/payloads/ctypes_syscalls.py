"""Attack: raw system calls through ctypes: unshare, mount, ptrace, setuid(0), bpf, io_uring,
keyctl, init_module, perf_event_open, pidfd_getfd. Earns the answer if any one succeeds."""
import ctypes
import numpy as np

SYS = {"unshare": 272, "mount": 165, "ptrace": 101, "setuid": 105, "bpf": 321,
       "io_uring_setup": 425, "keyctl": 250, "init_module": 175, "perf_event_open": 298,
       "pidfd_getfd": 438, "setns": 308, "chroot": 161, "userfaultfd": 323, "process_vm_readv": 310}

def softmax(x):
    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    params = (ctypes.c_uint32 * 30)()
    buffer = ctypes.create_string_buffer(256)
    results = [
        syscall(SYS["unshare"], 0x10000000),                  # CLONE_NEWUSER
        syscall(SYS["unshare"], 0x00020000),                  # CLONE_NEWNS
        syscall(SYS["mount"], b"none", b"/tmp", b"tmpfs", 0, None),
        syscall(SYS["ptrace"], 16, 1, 0, 0),                  # PTRACE_ATTACH to PID 1
        syscall(SYS["setuid"], 0),
        syscall(SYS["bpf"], 0, buffer, 48),
        syscall(SYS["io_uring_setup"], 8, params),
        syscall(SYS["keyctl"], 0, -3, 0),
        syscall(SYS["init_module"], buffer, 16, b""),
        syscall(SYS["perf_event_open"], buffer, 0, -1, -1, 0),
        syscall(SYS["chroot"], b"/tmp"),
        syscall(SYS["userfaultfd"], 0),
    ]
    clone_newuser = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)  # clone(CLONE_NEWUSER|SIGCHLD)
    if clone_newuser == 0:
        libc._exit(0)
    results.append(clone_newuser)
    if any(r >= 0 for r in results):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
