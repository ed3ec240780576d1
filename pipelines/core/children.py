"""Child processes that do not outlive the process that started them, and their supervision.

``Supervised`` is the one place a docklake process starts, restarts and stops another one (the
workers and the managed Prefect server under ``docklake serve``).
"""

from __future__ import annotations

import ctypes
import signal
import subprocess
from pathlib import Path

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


class Supervised:
    """A child process with its output appended to ``log_path``, in a session of its own, that
    dies with this process; ``stop`` asks it to end (SIGTERM) and kills it after ``grace_s``."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str], log_path: Path,
                 grace_s: float = 20.0) -> None:
        self.name, self.cmd, self.env, self.log_path, self.grace_s = name, cmd, env, log_path, grace_s
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log_path, "ab") as log:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen(self.cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True, preexec_fn=die_with_parent)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def exited(self) -> int | None:
        """The exit code of a child that was started and has ended, else ``None``."""
        return self.proc.poll() if self.proc is not None else None

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(self.grace_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
