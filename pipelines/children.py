"""Child processes that do not outlive the process that started them."""

from __future__ import annotations

import ctypes
import signal

_PR_SET_PDEATHSIG = 1

# Resolved once in the parent, so the forked child only makes the call.
try:
    _prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
except (OSError, AttributeError):  # not Linux
    _prctl = None


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Ask the kernel to send ``sig`` to this process when its parent dies, however it dies
    (Linux ``prctl(PR_SET_PDEATHSIG)``; a no-op elsewhere). Usable as ``preexec_fn``."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
