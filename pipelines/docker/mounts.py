"""Mount a host directory into a running container at any path, or unmount it, without
restarting the container: ``python -m pipelines.docker.mounts attach PID SOURCE TARGET [ro]`` and
``python -m pipelines.docker.mounts detach PID TARGET``.

The new mount API does it: ``open_tree`` clones the source as a detached mount (made read-only
with ``mount_setattr`` when asked: read-only at the mount, which the container cannot undo
without capabilities), then ``setns`` into the container's mount namespace and ``move_mount``
places it. ``setns`` into a mount namespace needs a single-threaded process, hence a short-lived
child of its own rather than a call in the threaded API server. Linux ≥ 5.12 (mount_setattr).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_MOUNT_SETATTR = 428, 429, 442  # x86_64 and arm64 alike
OPEN_TREE_CLONE, AT_RECURSIVE, AT_EMPTY_PATH = 0x1, 0x8000, 0x1000
MOVE_MOUNT_F_EMPTY_PATH = 0x4
MOUNT_ATTR_RDONLY = 0x1
AT_FDCWD = -100
CLONE_NEWNS = 0x00020000
MNT_DETACH = 0x2


class MountError(Exception):
    pass


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise MountError(f"{what}: {os.strerror(err)}")
    return result


def _enter(libc: ctypes.CDLL, pid: int) -> None:
    ns = os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY)
    try:
        _check(libc.setns(ns, CLONE_NEWNS), "setns")
    finally:
        os.close(ns)


def attach_here(pid: int, source: str, target: str, read_only: bool) -> None:
    libc = _libc()
    flags = OPEN_TREE_CLONE | os.O_CLOEXEC | AT_RECURSIVE
    fd = _check(libc.syscall(SYS_OPEN_TREE, AT_FDCWD, source.encode(), flags), f"open_tree {source}")
    if read_only:
        attr = _MountAttr(MOUNT_ATTR_RDONLY, 0, 0, 0)
        _check(libc.syscall(SYS_MOUNT_SETATTR, fd, b"", AT_EMPTY_PATH | AT_RECURSIVE, ctypes.byref(attr),
                            ctypes.sizeof(attr)), "mount_setattr")
    _enter(libc, pid)  # from here on, paths are the container's
    os.makedirs(target, exist_ok=True)
    _check(libc.syscall(SYS_MOVE_MOUNT, fd, b"", AT_FDCWD, target.encode(), MOVE_MOUNT_F_EMPTY_PATH),
           f"move_mount {target}")


def detach_here(pid: int, target: str) -> None:
    libc = _libc()
    _enter(libc, pid)
    _check(libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def _run(args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "pipelines.docker.mounts", *args], capture_output=True, text=True,
                          timeout=30, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                           "PYTHONPATH": os.pathsep.join(sys.path)})
    if done.returncode != 0:
        raise MountError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}")


def attach(pid: int, source: str, target: str, read_only: bool) -> None:
    """Mount ``source`` (a host path) at ``target`` inside the mount namespace of ``pid``."""
    _run(["attach", str(pid), source, target, "ro" if read_only else "rw"])


def detach(pid: int, target: str) -> None:
    _run(["detach", str(pid), target])


def main(argv: list[str]) -> int:
    try:
        if argv[0] == "attach":
            attach_here(int(argv[1]), argv[2], argv[3], argv[4] == "ro")
        elif argv[0] == "detach":
            detach_here(int(argv[1]), argv[2])
        else:
            raise MountError(f"unknown command {argv[0]!r}")
    except (MountError, OSError) as exc:
        print(f"mount failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
