"""The seam between the sandbox use cases and whatever runs sandboxes: the ``SandboxBackend``
protocol and the plain data that crosses it.

It exists so the rules of the sandbox API (``pipelines/usecases/sandbox*.py``) never import the
docker SDK backend (``pipelines/docker``): ``api/services.py`` builds the concrete backend and
hands it in, and the rules are tested against an in-memory one
(``tests/support/fake_sandbox_backend.py``). The protocol holds exactly what the use cases ask of
a backend, no more.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pipelines.core.sandbox_records import Bind, Resources

# where a file system attached to a running sandbox may go when its root is read-only (a mount
# point must be made, and only these are writable)
LIVE_MOUNT_ROOTS = ("/mnt/", "/workspace/", "/tmp/")


class ContainerError(Exception):
    """The backend refused or failed; the message says what to do when it can."""


@dataclass(frozen=True)
class Launch:
    """What one sandbox container is started with."""

    sandbox_id: str
    namespace: str
    generation: int
    image: str
    entrypoint: tuple[str, ...] | None
    resources: Resources
    internet: bool
    token: str
    hostname: str
    pids_limit: int
    binds: tuple[Bind, ...] = ()
    owner: str | None = None  # the label's, when not the installation's (the self-test's probes)


@dataclass(frozen=True)
class Started:
    container_id: str
    address: str  # host:port of the runtime daemon


@dataclass(frozen=True)
class Leftover:
    """A container the backend holds for this installation (reconciliation's view of it)."""

    container_id: str
    sandbox_id: str
    running: bool


class SandboxBackend(Protocol):
    """What the use cases ask of the thing that runs sandbox containers. Every failure is a
    ``ContainerError``; removals are idempotent."""

    # the image is mounted read-only and a sandbox's writable state is its workspace (so a file
    # system attached while it runs goes under LIVE_MOUNT_ROOTS)
    read_only_root: bool

    def available(self) -> bool:
        """Whether the engine answers now."""
        ...

    def image_exists(self, ref: str) -> bool: ...

    def memory_snapshots(self) -> str | None:
        """None when memory snapshots work here, else why not."""
        ...

    def launch(self, req: Launch, timeout_s: float, *, checkpoint: Path | None = None) -> Started:
        """Start the container and wait until its runtime daemon answers; with ``checkpoint`` (a
        memory snapshot's, see ``checkpoint_path``) its processes are restored from it."""
        ...

    def healthy(self, address: str, token: str) -> bool: ...

    def process_logs(self, address: str, token: str, after_ms: int = 0) -> list[dict[str, Any]]:
        """The runtime daemon's processes with their kept output, the lines written at
        ``after_ms`` or later (its ``/api/v1/logs``)."""
        ...

    def address(self, container_id: str) -> str | None:
        """The daemon's host:port, None when the container is gone or has no address."""
        ...

    def is_running(self, container_id: str) -> bool: ...

    def remove(self, container_id: str) -> None: ...

    def mount(self, container_id: str, bind: Bind) -> None:
        """Bind a host directory into the running container."""
        ...

    def capacity(self) -> tuple[float, int]:
        """The CPUs and the memory (MiB) of the host the containers run on."""
        ...

    def memory_used_mb(self, container_id: str) -> int:
        """What the container's processes hold in memory now (MiB, page cache not counted)."""
        ...

    def resize(self, container_id: str, cpus: float, memory_mb: int) -> None:
        """Change a running container's CPU and memory limits in place."""
        ...

    def limits(self, container_id: str) -> tuple[float, int] | None:
        """The container's CPU and memory (MiB) limits now; None when it is gone."""
        ...

    def unmount(self, container_id: str, target: str) -> None: ...

    def adopt_workspace(self, sandbox_id: str, pool_id: str) -> None:
        """A pool container claimed by ``sandbox_id``: its workspace becomes the sandbox's."""
        ...

    def snapshot(self, container_id: str, sandbox_id: str, snapshot_id: str, base_image: str, *,
                 memory: bool = False) -> tuple[str, int]:
        """Capture the sandbox (with its processes when ``memory``): the image to start from and
        the size in bytes."""
        ...

    def checkpoint_path(self, snapshot_id: str) -> Path:
        """Where a memory snapshot's checkpoint is kept (what ``launch`` restores from)."""
        ...

    def seed(self, sandbox_id: str, snapshot_id: str) -> None:
        """Give a sandbox that has no workspace yet the snapshot's copy of one."""
        ...

    def drop_snapshot(self, snapshot_id: str, image: str | None) -> None: ...

    def forget_state(self, sandbox_id: str) -> None:
        """Remove what the backend keeps of the sandbox besides its container (its retention is
        over)."""
        ...

    def leftovers(self) -> list[Leftover]:
        """Every container this installation made, running or not."""
        ...
