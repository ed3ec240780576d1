"""An in-memory ``SandboxBackend`` (``pipelines.core.sandbox_backend``) for testing the sandbox
rules without a Docker engine (tests/sandbox/test_sandbox_rules.py).

What it keeps: containers as records with a state (running or stopped), the snapshots it was
asked to take, which snapshot seeded which sandbox's workspace, and every call that changed
something (``launches``, ``removed``, ``dropped``, ``forgotten``), so a test can check what the
rules asked of the backend.

What it cannot do, and does not pretend to: it runs no process and holds no file, so a
workspace is only the name of the snapshot it was seeded from; no runtime daemon answers at a
container's address (``healthy`` only says whether such a container runs here); memory snapshots
are unavailable unless a test sets ``memory_reason`` to None, and then a checkpoint is a name,
never a folder (``checkpoint_path`` points nowhere); a mount is remembered, never made.

A container's ``processes`` stand for what its daemon's ``/api/v1/logs`` answers (a test writes
them). A resize sets the container's ``limits`` against a host of ``host_cpus`` and ``host_memory_mb``,
its processes holding ``memory_in_use_mb``.

Failures are the test's to inject: ``engine_up``, ``fail_launch``, ``fail_snapshot``,
``fail_resize`` and ``fail_mount`` (each a message; the call then raises ``ContainerError`` with it), ``stop`` (a
container that died).
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from pathlib import Path

from pipelines.core.sandbox_backend import ContainerError, Launch, Leftover, Started
from pipelines.core.sandbox_records import DAEMON_PORT, Bind

NO_MEMORY = "the fake backend runs no processes, so it has no memory to checkpoint"


@dataclass
class FakeContainer:
    container_id: str
    launch: Launch
    address: str
    running: bool = True
    binds: list[Bind] = field(default_factory=list)
    restored_from: Path | None = None  # the checkpoint a memory snapshot's restore named
    limits: tuple[float, int] | None = None  # set by a resize (launched with its Launch's resources)
    # what its runtime daemon's /api/v1/logs answers (a test writes the processes' output here)
    processes: list[dict] = field(default_factory=list)

    @property
    def sandbox_id(self) -> str:
        return self.launch.sandbox_id


@dataclass(frozen=True)
class FakeSnapshot:
    snapshot_id: str
    sandbox_id: str
    image: str
    memory: bool


class FakeSandboxBackend:
    def __init__(self, *, images: tuple[str, ...] = ("docklake/sandbox-base:2",), read_only_root: bool = True,
                 memory_reason: str | None = NO_MEMORY) -> None:
        self.read_only_root = read_only_root
        self.images = set(images)
        self.memory_reason = memory_reason
        self.engine_up = True
        self.fail_launch: str | None = None
        self.fail_snapshot: str | None = None
        self.fail_mount: str | None = None
        self.fail_resize: str | None = None
        self.host_cpus, self.host_memory_mb, self.memory_in_use_mb = 2.0, 4096, 100
        self.containers: dict[str, FakeContainer] = {}
        self.snapshots: dict[str, FakeSnapshot] = {}
        # a sandbox's workspace, once it has one: the snapshot that seeded it (None: started empty)
        self.workspaces: dict[str, str | None] = {}
        self.launches: list[Launch] = []
        self.removed: list[str] = []
        self.dropped: list[str] = []
        self.forgotten: list[str] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()  # copies boot on threads of their own

    # -- what a test uses to look and to break things ---------------------------------------------

    def running_for(self, sandbox_id: str) -> list[FakeContainer]:
        with self._lock:
            return [c for c in self.containers.values() if c.sandbox_id == sandbox_id and c.running]

    def stop(self, container_id: str) -> None:
        """The container died (it stays, stopped, as on an engine)."""
        with self._lock:
            self.containers[container_id].running = False

    def _engine(self) -> None:
        if not self.engine_up:
            raise ContainerError("no engine answers (the fake's engine_up is off)")

    def _get(self, container_id: str) -> FakeContainer:
        container = self.containers.get(container_id)
        if container is None:
            raise ContainerError("the sandbox's container is gone")
        return container

    # -- the SandboxBackend -----------------------------------------------------------------------

    def available(self) -> bool:
        return self.engine_up

    def image_exists(self, ref: str) -> bool:
        self._engine()
        return ref in self.images

    def memory_snapshots(self) -> str | None:
        return self.memory_reason

    def launch(self, req: Launch, timeout_s: float, *, checkpoint: Path | None = None) -> Started:
        self._engine()
        if self.fail_launch:
            raise ContainerError(self.fail_launch)
        if req.image not in self.images:
            raise ContainerError(f"image {req.image!r} is not on the (fake) engine")
        if checkpoint is not None and self.memory_reason is not None:
            raise ContainerError(f"restoring the processes failed: {self.memory_reason}")
        with self._lock:
            n = next(self._ids)
            container = FakeContainer(f"fake{n:04d}", req, f"fake-{n}.invalid:{DAEMON_PORT}",
                                      binds=list(req.binds), restored_from=checkpoint)
            self.containers[container.container_id] = container
            self.launches.append(req)
            self.workspaces.setdefault(req.sandbox_id, None)
        return Started(container.container_id, container.address)

    def healthy(self, address: str, token: str) -> bool:
        with self._lock:
            return any(c.address == address and c.launch.token == token and c.running
                       for c in self.containers.values())

    def address(self, container_id: str) -> str | None:
        container = self.containers.get(container_id)
        return container.address if container is not None and container.running else None

    def is_running(self, container_id: str) -> bool:
        container = self.containers.get(container_id)
        return container is not None and container.running

    def remove(self, container_id: str) -> None:
        with self._lock:
            if self.containers.pop(container_id, None) is not None:
                self.removed.append(container_id)

    def mount(self, container_id: str, bind: Bind) -> None:
        container = self._get(container_id)
        if self.fail_mount:
            raise ContainerError(self.fail_mount)
        if not container.running:
            raise ContainerError("the sandbox's container is not running")
        container.binds.append(bind)

    def process_logs(self, address: str, token: str, after_ms: int = 0) -> list[dict]:
        for c in self.containers.values():
            if c.address == address and c.running:
                return [{**p, "lines": [ln for ln in p["lines"] if ln[1] >= after_ms]} for p in c.processes]
        raise ContainerError(f"no runtime daemon answers at {address}")

    def capacity(self) -> tuple[float, int]:
        self._engine()
        return self.host_cpus, self.host_memory_mb

    def memory_used_mb(self, container_id: str) -> int:
        self._get(container_id)
        return self.memory_in_use_mb

    def resize(self, container_id: str, cpus: float, memory_mb: int) -> None:
        container = self._get(container_id)
        if self.fail_resize:
            raise ContainerError(self.fail_resize)
        container.limits = (cpus, memory_mb)

    def limits(self, container_id: str) -> tuple[float, int] | None:
        container = self.containers.get(container_id)
        if container is None:
            return None
        r = container.launch.resources
        return container.limits or (r.cpus, r.memory_mb)

    def unmount(self, container_id: str, target: str) -> None:
        container = self._get(container_id)
        if not container.running:
            raise ContainerError("the sandbox's container is not running")
        container.binds = [b for b in container.binds if b.target != target]

    def adopt_workspace(self, sandbox_id: str, pool_id: str) -> None:
        self.workspaces[sandbox_id] = self.workspaces.pop(pool_id, None)

    def snapshot(self, container_id: str, sandbox_id: str, snapshot_id: str, base_image: str, *,
                 memory: bool = False) -> tuple[str, int]:
        self._engine()
        self._get(container_id)
        if self.fail_snapshot:
            raise ContainerError(self.fail_snapshot)
        if memory and self.memory_reason is not None:
            raise ContainerError(f"checkpointing the sandbox's processes failed: {self.memory_reason}")
        image = base_image if self.read_only_root else f"fake/snapshot:{snapshot_id}"
        with self._lock:
            self.snapshots[snapshot_id] = FakeSnapshot(snapshot_id, sandbox_id, image, memory)
        return image, 0

    def checkpoint_path(self, snapshot_id: str) -> Path:
        return Path("/nonexistent/fake-checkpoints") / snapshot_id

    def seed(self, sandbox_id: str, snapshot_id: str) -> None:
        """As the Docker backend: only a sandbox with no workspace yet is seeded (a resumed or
        restarted one keeps its own, newer than any snapshot of it)."""
        with self._lock:
            if self.read_only_root and sandbox_id not in self.workspaces and snapshot_id in self.snapshots:
                self.workspaces[sandbox_id] = snapshot_id

    def drop_snapshot(self, snapshot_id: str, image: str | None) -> None:
        with self._lock:
            self.snapshots.pop(snapshot_id, None)
            self.dropped.append(snapshot_id)

    def forget_state(self, sandbox_id: str) -> None:
        with self._lock:
            self.workspaces.pop(sandbox_id, None)
            self.forgotten.append(sandbox_id)

    def leftovers(self) -> list[Leftover]:
        with self._lock:
            return [Leftover(c.container_id, c.sandbox_id, c.running) for c in self.containers.values()]
