"""Starts the pre-forked server (``server.py``): isolated under bubblewrap, or bare in development.

Isolated start (``BwrapLauncher``), run by the (root) worker:

``sh`` (joins the slot's memory + pids cgroup, then execs) -> ``bwrap`` as root with new PID, network,
IPC, UTS and cgroup namespaces, a new mount namespace whose root is a read-only tmpfs holding only
read-only binds of the C libraries, the Python installation (every folder of installed packages
in it covered by an empty one: :func:`package_folders`), NumPy, the packages an item may allow
(``packages.py``, under ``/sandbox/extra/<name>``; each job covers those its item does not allow)
and the sandbox files, an empty ``/tmp`` mount point (each job mounts its own fresh tmpfs there),
a fresh ``/proc`` (the server's; each job covers it with an empty one), a minimal ``/dev``,
``--new-session``, ``--die-with-parent``, ``--as-pid-1`` -> ``setpriv`` drops
to the slot's unprivileged *server* uid/gid (never root: bwrap run by root with ``--uid`` would
map to host root, see sandbox.md), clears groups, the inheritable and bounding capability sets,
sets no-new-privs -> ``python -I -S server.py --pid1``, which enters a user namespace of its own
and asks for its id map (:meth:`BwrapLauncher.map_ids`, written here, by root, because only a
privileged writer may map a second id: the slot's *job* uid, under which every job runs).

Every process is started with an empty environment apart from thread-count settings, so no secret
of the worker reaches the sandbox, not even through ``/proc/1/environ``.
"""
from __future__ import annotations

import fcntl
import os
import pwd
import shutil
import socket
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

SANDBOX_FILES = ("wire.py", "runner.py", "server.py", "confine.py")
SANDBOX_LIB = "/sandbox/lib"
SANDBOX_SITE = "/sandbox/site"
SANDBOX_EXTRA = "/sandbox/extra"  # packages an item may allow: /sandbox/extra/<name>/<entry>
BASE_ENV = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "LC_ALL": "C.UTF-8",
    "HOME": "/tmp",
}
UID_BASE = 61000
MAX_SLOTS = 256
JOB_UID_OFFSET = MAX_SLOTS  # slot n: server uid UID_BASE + n, job uid UID_BASE + 256 + n
SLOT_LOCK_DIR = Path("/run/grader-sandbox") if os.geteuid() == 0 else Path("/tmp/grader-sandbox")


@dataclass
class Started:
    """A running server: the host process we spawned, the control socket, the host pid of the
    sandbox's PID 1 (for killing the whole namespace) and the file holding the server's stderr."""

    process: subprocess.Popen
    control: socket.socket
    sandbox_pid: int | None
    errors: object = None


def interpreter() -> str:
    """The real interpreter binary (a virtualenv's ``python`` resolves to its base install)."""
    return os.path.realpath(sys.executable)


def numpy_dirs() -> list[Path]:
    """``numpy`` and, for wheels, its bundled libraries (``numpy.libs``)."""
    import numpy

    package = Path(numpy.__file__).resolve().parent
    found = [package]
    libs = package.parent / "numpy.libs"
    if libs.is_dir():
        found.append(libs)
    return found


def package_folders(roots: list[str]) -> list[str]:
    """The folders of installed packages (``site-packages``, ``dist-packages``) under the bound
    directories ``roots``, and the wheels ``ensurepip`` bundles (pip, setuptools): the sandbox
    covers each with an empty folder, so that only NumPy and the standard library can be
    imported whatever a job appends to ``sys.path``. Symbolic links are left out (the folder
    they lead to is found under its own root)."""
    import glob

    found = []
    for root in roots:
        for pattern in ("*-packages", "python*/*-packages", "lib*/python*/*-packages",
                        "ensurepip/_bundled", "python*/ensurepip/_bundled",
                        "lib*/python*/ensurepip/_bundled"):
            for path in sorted(glob.glob(os.path.join(root, pattern))):
                if os.path.isdir(path) and not os.path.islink(path) and path not in found:
                    found.append(path)
    return found


class SlotLock:
    """An exclusive worker slot (0..255) held through an ``flock`` on ``slot-<n>.lock``: its server
    uid is ``UID_BASE + n`` and its job uid ``UID_BASE + 256 + n``, so RLIMIT_NPROC and process
    ownership never mix two workers' jobs, and no job shares a uid with the server it was forked
    from. A free slot whose uids still own a process (a closed sandbox's server not yet reaped)
    is passed over, so a new sandbox never meets its predecessor's processes."""

    def __init__(self, lock_dir: Path = SLOT_LOCK_DIR, uid_base: int = UID_BASE):
        lock_dir.mkdir(parents=True, exist_ok=True)
        for slot in range(MAX_SLOTS):
            uid, job_uid = uid_base + slot, uid_base + JOB_UID_OFFSET + slot
            if _is_account(uid) or _is_account(job_uid):
                continue  # a real account: never borrow its uid
            handle = open(lock_dir / f"slot-{slot}.lock", "a")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            if _owns_a_process({uid, job_uid}):
                handle.close()
                continue
            self.slot, self.uid, self.job_uid, self._handle = slot, uid, job_uid, handle
            return
        raise RuntimeError("no free sandbox slot")

    def release(self) -> None:
        """Give the slot back (closing the lock file releases the ``flock``)."""
        self._handle.close()


def processes_of(uids: set[int]) -> Iterator[int]:
    """Host pids whose real uid is one of ``uids`` (zombies included), read from ``/proc``."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as status:
                for line in status:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) in uids:
                            yield int(entry)
                        break
        except OSError:
            continue


def _owns_a_process(uids: set[int]) -> bool:
    """Whether any process (zombies included) has one of ``uids`` as its real uid."""
    return next(processes_of(uids), None) is not None


def _is_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


class DevLauncher:
    """Development only: the server runs as the caller, with no namespaces, no seccomp, no cgroup.
    Environment still empty, rlimits still applied per job."""

    isolated = False
    uid = None
    job_uid = None
    warm = False  # the next server warms its job code up first (server.py --warm)

    def command(self, control_fd: int) -> list[str]:
        """argv of the bare server: the real interpreter, isolated mode (``-I -S``)."""
        here = Path(__file__).resolve().parent
        site = numpy_dirs()[0].parent
        return [interpreter(), "-I", "-S", str(here / "server.py"), "--control-fd", str(control_fd),
                "--path", str(site), "--path", str(here)] + (["--warm"] if self.warm else [])

    def start(self) -> Started:
        """Spawn the bare server with an empty environment; it inherits only the control socket."""
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        errors = _error_file()
        try:
            process = subprocess.Popen(self.command(child.fileno()), env=dict(BASE_ENV), cwd="/",
                                       stdin=subprocess.DEVNULL, stderr=errors,
                                       pass_fds=(child.fileno(),),
                                       start_new_session=True)
        finally:
            child.close()
        return Started(process, parent, process.pid, errors)


class BwrapLauncher:
    """The isolated server of one worker slot (see the module docstring). ``uid`` is the slot's
    unprivileged server uid, ``job_uid`` the (different) uid its jobs run as; ``cgroup`` a
    :class:`~grader.sandbox.cgroups.SlotCgroup` or ``None`` (then the per-job process limit falls
    back to RLIMIT_NPROC alone). Raises ``FileNotFoundError`` when bwrap or setpriv is missing
    and ``ValueError`` when the two uids are equal."""

    isolated = True

    def __init__(self, uid: int, job_uid: int, cgroup=None):
        if uid == job_uid:
            raise ValueError("the job uid must differ from the server uid")
        self.uid = uid
        self.job_uid = job_uid
        self.cgroup = cgroup
        self.packages: dict[str, object] = {}  # name -> packages.Package bound at the next start
        self.warm = False  # the next server warms its job code up first (server.py --warm)
        for tool in ("bwrap", "setpriv"):
            if shutil.which(tool, path="/usr/bin:/bin") is None:
                raise FileNotFoundError(f"{tool} is not installed (scripts/install-system-deps.sh)")

    def _binds(self) -> list[str]:
        args: list[str] = []
        made: set[str] = {"/"}

        def ensure_parents(destination: str) -> None:
            parts = Path(destination).parent.parts
            for depth in range(2, len(parts) + 1):
                directory = str(Path(*parts[:depth]))
                if directory not in made:
                    made.add(directory)
                    args.extend(["--perms", "0755", "--dir", directory])

        def bind(source: str | Path, destination: str | Path) -> None:
            ensure_parents(str(destination))
            made.add(str(destination))
            args.extend(["--ro-bind", str(source), str(destination)])

        for directory in ("/usr/lib", "/usr/lib64", "/usr/lib32"):
            if os.path.isdir(directory) and not os.path.islink(directory):
                bind(directory, directory)
        roots = [d for d in ("/usr/lib", "/usr/lib64", "/usr/lib32") if d in made]
        for link in ("/lib", "/lib64", "/lib32"):
            if os.path.islink(link):
                args.extend(["--symlink", os.readlink(link), link])
            elif os.path.isdir(link):
                bind(link, link)
                roots.append(link)
        bind("/etc/ld.so.cache", "/etc/ld.so.cache")
        bind("/usr/bin/setpriv", "/usr/bin/setpriv")
        prefix = os.path.realpath(sys.base_prefix)
        if prefix in ("/usr", "/usr/local", "/"):
            bind(interpreter(), interpreter())
            for key in ("stdlib", "platstdlib"):
                path = os.path.realpath(sysconfig.get_paths(vars={"base": prefix,
                                                                   "platbase": prefix})[key])
                if path not in made:
                    bind(path, path)
                    roots.append(path)
        else:
            bind(prefix, prefix)
            roots.append(prefix)
        for folder in package_folders(roots):
            args.extend(["--tmpfs", folder, "--remount-ro", folder])
        for directory in numpy_dirs():
            bind(directory, f"{SANDBOX_SITE}/{directory.name}")
        for name, package in sorted(self.packages.items()):
            for entry in package.entries:
                bind(entry, f"{SANDBOX_EXTRA}/{name}/{entry.name}")
        here = Path(__file__).resolve().parent
        for name in SANDBOX_FILES:
            bind(here / name, f"{SANDBOX_LIB}/{name}")
        return args

    def provides(self, packages) -> bool:
        """Whether the running (or next) server binds every one of ``packages``."""
        return all(package.name in self.packages for package in packages)

    def add_packages(self, packages) -> None:
        """Bind ``packages`` too from the next start on (the caller restarts the server)."""
        self.packages.update((package.name, package) for package in packages)

    def command(self, control_fd: int, seccomp_fd: int, info_fd: int) -> list[str]:
        """The full argv (with the cgroup-joining shell in front when there is a cgroup)."""
        bwrap = [
            "/usr/bin/bwrap",
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--as-pid-1",
            "--hostname", "sandbox",
            *self._binds(),
            "--proc", "/proc", "--dev", "/dev",
            "--perms", "0755", "--dir", "/tmp",
            "--remount-ro", "/",
            "--chdir", "/",
            "--cap-add", "CAP_SETUID,CAP_SETGID,CAP_SETPCAP",
            "--info-fd", str(info_fd),
            "/usr/bin/setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
            interpreter(), "-I", "-S", f"{SANDBOX_LIB}/server.py", "--control-fd", str(control_fd),
            "--path", SANDBOX_SITE, "--path", SANDBOX_LIB, "--pid1", "--seccomp-fd", str(seccomp_fd),
            "--server-uid", str(self.uid), "--job-uid", str(self.job_uid),
            *(["--warm"] if self.warm else []),
        ]
        if self.cgroup is None:
            return bwrap
        join = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 111; shift; done; shift; exec "$@"'
        return ["/bin/sh", "-c", join, "sh", *self.cgroup.procs_files, "--", *bwrap]

    def start(self) -> Started:
        """Spawn the isolated server; it inherits only the control socket, the compiled seccomp
        program and bwrap's info pipe (read here for the sandbox's PID 1)."""
        from grader.sandbox import seccomp_policy

        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        seccomp_fd = seccomp_policy.bpf_descriptor()
        info_read, info_write = os.pipe()
        errors = _error_file()
        try:
            argv = self.command(child.fileno(), seccomp_fd, info_write)
            process = subprocess.Popen(argv, env=dict(BASE_ENV), cwd="/", stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=errors,
                                       pass_fds=(child.fileno(), seccomp_fd, info_write),
                                       start_new_session=True)
        finally:
            child.close()
            os.close(seccomp_fd)
            os.close(info_write)
        return Started(process, parent, _read_child_pid(info_read), errors)


    def map_ids(self, host_pid: int) -> None:
        """Write the id maps of the user namespace the server at ``host_pid`` just created: the
        server uid and the job uid (and the same gids), each mapped to itself, nothing else.
        Refuses (``PermissionError``) a process that is not the slot's server, or one still in
        our own user namespace."""
        proc = Path(f"/proc/{host_pid}")
        with open(proc / "status") as handle:
            uids = next(line.split()[1:] for line in handle if line.startswith("Uid:"))
        if any(int(uid) != self.uid for uid in uids):
            raise PermissionError(f"process {host_pid} is not the slot's server (uids {uids})")
        if os.readlink(proc / "ns" / "user") == os.readlink("/proc/self/ns/user"):
            raise PermissionError(f"process {host_pid} has not entered a user namespace")
        rows = f"{self.uid} {self.uid} 1\n{self.job_uid} {self.job_uid} 1\n"
        for name in ("uid_map", "gid_map"):
            fd = os.open(proc / name, os.O_WRONLY)
            try:
                os.write(fd, rows.encode("ascii"))
            finally:
                os.close(fd)


def _error_file():
    """An anonymous file for the server's own stderr (a pipe nobody reads could fill and block it).
    Read back by the caller when the server is stopped."""
    import tempfile

    return tempfile.TemporaryFile()


def _read_child_pid(info_read: int) -> int | None:
    """bwrap writes ``{"child-pid": N}`` to the info descriptor once the sandbox exists."""
    import json

    chunks = []
    try:
        while True:
            chunk = os.read(info_read, 4096)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(info_read)
    try:
        return int(json.loads(b"".join(chunks))["child-pid"])
    except (ValueError, KeyError, TypeError):
        return None
