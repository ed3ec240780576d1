"""The sandbox API's use cases: ``Sandboxes``, what the routes, the proxy and ``api/services.py``
call. This module holds the rules of creating, inspecting, patching and terminating a sandbox and
of its snapshots; the other requests it answers by delegating: suspend, resume, restart and copy
to ``sandbox_lifecycle``, file systems to ``sandbox_mounts``; the background upkeep (idle
timeout, expiry, reconciliation) is ``sandbox_upkeep``'s, and the steps they share
``sandbox_steps``'s.

The containers are run by a ``SandboxBackend`` (``pipelines.core.sandbox_backend``) handed in by
the composition root (``api/services.py``): nothing here knows Docker. Requests that only read or
flip a state answer at once; the slow steps run in the background through ``runner``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from sqlalchemy import Engine

from assets.catalog import sandboxes as repo
from assets.catalog.db import now_us
from pipelines.core.errors import SandboxConflict, SandboxInvalid, SandboxNotFound
from pipelines.core.records import MAX_LIMIT, Page, Principal
from pipelines.core.sandbox_backend import ContainerError, SandboxBackend
from pipelines.core.sandbox_records import (
    DAEMON_PORT,
    Mount,
    NetworkPolicy,
    Resources,
    Sandbox,
    SandboxSpec,
    SandboxStatus,
    Snapshot,
    SnapshotReason,
    SnapshotStatus,
    SnapshotType,
    new_sandbox_id,
)
from pipelines.core.settings import Settings
from pipelines.usecases.sandbox_lifecycle import CopyOutcome, SandboxLifecycle
from pipelines.usecases.sandbox_logs import LogLine, LogQuery
from pipelines.usecases.sandbox_mounts import SandboxMounts
from pipelines.usecases.sandbox_pool import Runner
from pipelines.usecases.sandbox_resize import SandboxResize
from pipelines.usecases.sandbox_steps import S, SandboxSteps, check_image, check_name, log
from pipelines.usecases.sandbox_upkeep import SandboxUpkeep


@dataclass(frozen=True)
class CreateRequest:
    name: str | None = None
    image: str | None = None
    resources: Resources | None = None
    entrypoint: tuple[str, ...] | None = None
    network: NetworkPolicy | None = None
    timeout_secs: int | None = None
    snapshot_id: str | None = None
    allow_unauthenticated_access: bool = False
    exposed_ports: tuple[int, ...] = ()
    file_systems: tuple[Mount, ...] = ()
    auto_resume: bool = True


@dataclass(frozen=True)
class PatchRequest:
    name: str | None = None
    exposed_ports: tuple[int, ...] | None = None
    allow_unauthenticated_access: bool | None = None
    auto_resume: bool | None = None
    resources: dict | None = None
    network_given: bool = False


MAX_CPUS = 1024
MIN_MEMORY_MB, MAX_MEMORY_MB = 16, 1_048_576
MAX_DISK_MB = 1 << 40


def check_ports(ports: Iterable[int]) -> tuple[int, ...]:
    """The ports a sandbox may expose through the proxy: TCP ports, not the runtime daemon's."""
    for port in ports:
        if not 1 <= port <= 65535:
            raise SandboxInvalid(f"exposed port {port} is not a TCP port (1-65535)")
        if port == DAEMON_PORT:
            raise SandboxInvalid(f"exposed port {port} is the runtime daemon's")
    return tuple(sorted(set(ports)))


def check_resources(cpus: float | None = None, memory_mb: int | None = None, disk_mb: int | None = None) -> None:
    """The resources a sandbox may have; None is one not asked for (its default applies)."""
    if cpus is not None and not 0 < cpus <= MAX_CPUS:
        raise SandboxInvalid(f"cpus must be more than 0 and at most {MAX_CPUS}")
    if memory_mb is not None and not MIN_MEMORY_MB <= memory_mb <= MAX_MEMORY_MB:
        raise SandboxInvalid(f"memory_mb must be from {MIN_MEMORY_MB} to {MAX_MEMORY_MB}")
    if disk_mb is not None and not 0 <= disk_mb <= MAX_DISK_MB:
        raise SandboxInvalid(f"disk_mb must be from 0 to {MAX_DISK_MB}")


class Sandboxes:
    def __init__(self, settings: Settings, engine: Engine, backend: SandboxBackend,
                 runner: Runner | None = None) -> None:
        self.steps = SandboxSteps(settings, engine, backend, runner)
        self.settings = settings
        self.cfg = settings.sandbox
        self.engine = engine
        self.containers = backend  # the SandboxBackend (tests reach the concrete one through it)
        self.file_systems = self.steps.file_systems
        self.pool = self.steps.pool
        self.upkeep = SandboxUpkeep(self.steps)
        self.lifecycle = SandboxLifecycle(self.steps)
        self.mounts = SandboxMounts(self.steps)
        self.resizer = SandboxResize(self.steps)

    def start(self) -> None:
        """Reconcile with the engine, then look after idle and expired sandboxes until ``close``."""
        self.upkeep.start()

    def close(self) -> None:
        self.upkeep.stop()
        self.steps.close()

    def reap(self) -> None:
        self.upkeep.reap()

    def reconcile(self) -> None:
        self.upkeep.reconcile()

    # -- lookups ----------------------------------------------------------------------------------

    def find(self, p: Principal, ns: str, id_or_name: str) -> Sandbox:
        return self.steps.find(p, ns, id_or_name)

    def reload(self, sb: Sandbox) -> Sandbox:
        return self.steps.reload(sb)

    def default_network(self) -> NetworkPolicy:
        """The policy of a sandbox whose request has no ``network`` (DOCKLAKE_SANDBOX__INTERNET_BY_DEFAULT)."""
        return NetworkPolicy(allow_internet_access=self.cfg.internet_by_default)

    def addressed(self, ref: str, p: Principal | None) -> Sandbox | None:
        """The sandbox a proxied request names: by id, whoever asks (the proxy then decides who
        may reach it), or else by name in the caller's default namespace."""
        sb = repo.get(self.engine, ref)
        if sb is None and p is not None:
            sb = repo.find(self.engine, p, "default", ref)
        return sb

    def list(self, p: Principal, ns: str, status: Literal["running", "suspended"] | None, *, cursor: str | None,
             direction: Literal["next", "prev"], limit: int) -> Page:
        if not 1 <= limit <= MAX_LIMIT:
            raise SandboxInvalid(f"limit must be between 1 and {MAX_LIMIT}")
        return repo.list_live(self.engine, p, ns, S(status) if status else None, cursor=cursor,
                              direction=direction, limit=limit)

    def archived(self, p: Principal, ns: str, *, cursor: str | None, direction: Literal["next", "prev"],
                 limit: int) -> Page:
        if not 1 <= limit <= MAX_LIMIT:
            raise SandboxInvalid(f"limit must be between 1 and {MAX_LIMIT}")
        since = now_us() - self.cfg.retention_s * 1_000_000
        return repo.list_archived(self.engine, p, ns, since, cursor=cursor, direction=direction, limit=limit)

    def snapshot(self, p: Principal, snapshot_id: str) -> Snapshot:
        snap = repo.get_snapshot(self.engine, snapshot_id, p)
        if snap is None or snap.reason == SnapshotReason.copy:
            raise SandboxNotFound(f"snapshot {snapshot_id!r} not found")
        return snap

    def snapshots(self, p: Principal, ns: str, sandbox_id_or_name: str | None = None) -> list[Snapshot]:
        sandbox_id = self.find(p, ns, sandbox_id_or_name).id if sandbox_id_or_name else None
        return repo.list_snapshots(self.engine, p, ns, sandbox_id)

    def touch(self, sandbox_id: str) -> None:
        """Traffic reached the sandbox (through the proxy): it is not idle."""
        self.steps.active[sandbox_id] = now_us()

    def capabilities(self) -> dict[str, object]:
        """What sandboxes can do on this host (``/readyz`` shows it)."""
        engine = self.containers.available()
        return {"engine": engine, "image": engine and self.containers.image_exists(self.cfg.image),
                "memory_snapshots": engine and self.containers.memory_snapshots() is None, "file_systems": engine,
                "warm": self.pool.count()}

    # -- create -----------------------------------------------------------------------------------

    def create(self, p: Principal, ns: str, req: CreateRequest) -> Sandbox:
        if req.name is not None:
            check_name(req.name)
        ports = check_ports(req.exposed_ports)
        mounts: list[Mount] = []
        for m in req.file_systems:
            self.mounts.check(m, mounts, p)
            mounts.append(m)
        source: Snapshot | None = None
        if req.snapshot_id:
            source = repo.get_snapshot(self.engine, req.snapshot_id, p)
            if source is None or source.reason == SnapshotReason.copy:
                raise SandboxNotFound(f"snapshot {req.snapshot_id!r} not found")
            if source.status != SnapshotStatus.completed:
                raise SandboxInvalid(f"snapshot {req.snapshot_id!r} is {source.status.value}, not ready")
            if source.snapshot_type == SnapshotType.memory and mounts:
                raise SandboxInvalid("a sandbox restored from a memory snapshot cannot mount file systems at "
                                     "creation (its processes resume with the mounts they had): attach them once "
                                     "it runs")
        inherited = source.spec if source else None
        spec = SandboxSpec(
            image=req.image or (inherited.image if inherited else self.cfg.image),
            resources=req.resources or (inherited.resources if inherited else Resources()),
            entrypoint=req.entrypoint if req.entrypoint is not None else (inherited.entrypoint if inherited else None),
            network=req.network or (inherited.network if inherited else self.default_network()),
            timeout_secs=req.timeout_secs, exposed_ports=ports,
            allow_unauthenticated_access=req.allow_unauthenticated_access, auto_resume=req.auto_resume,
        )
        check_resources(spec.resources.cpus, spec.resources.memory_mb, spec.resources.disk_mb)
        self.steps.check_capacity(p)
        self.steps.require_engine()
        if req.image:
            check_image(req.image)
        if req.image and not self.containers.image_exists(req.image):
            raise SandboxInvalid(f"image {req.image!r} is not on this host's Docker engine (no registry is "
                                 "reached: build or load it first)")
        now = now_us()
        sb = Sandbox(id=new_sandbox_id(), organization_id=p.organization_id, project_id=p.project_id, namespace=ns,
                     name=req.name, status=S.pending, spec=spec, created_us=now, updated_us=now,
                     restore_snapshot_id=source.id if source else None, last_active_us=now,
                     mounts=tuple(mounts))
        warm = self.pool.claim() if self.pool.fits(sb, source) else None
        if warm is not None:
            sb = replace(sb, status=S.running, container_id=warm.started.container_id,
                         address=warm.started.address, token=warm.token, generation=1)
            if self.containers.read_only_root:
                self.containers.adopt_workspace(sb.id, warm.pool_id)
        try:
            repo.insert_sandbox(self.engine, sb)
        except SandboxConflict:
            if warm is not None:
                self.containers.remove(warm.started.container_id)
            raise
        self.pool.refill()
        if warm is not None:
            log.info("sandbox_running", sandbox_id=sb.id, pooled=True)
            return sb
        with self.steps.locks(sb.id):
            return self.steps.boot(sb, source)

    # -- patch and terminate ----------------------------------------------------------------------

    def patch(self, p: Principal, ns: str, id_or_name: str, req: PatchRequest) -> Sandbox:
        sb = self.find(p, ns, id_or_name)
        if sb.status == S.terminated:
            raise SandboxConflict(f"sandbox {sb.id!r} is terminated")
        if req.resources is not None:
            if req != PatchRequest(resources=req.resources):
                raise SandboxInvalid("resources cannot be changed together with other sandbox fields: send "
                                     "them in a request of their own")
            return self.resizer.resize(p, ns, id_or_name, req.resources)
        if req.network_given:
            raise SandboxInvalid("changing a sandbox's network policy is not supported after creation")
        changes: dict[str, object] = {}
        spec = sb.spec
        if req.exposed_ports is not None:
            spec = spec.patched(exposed_ports=check_ports(req.exposed_ports))
        if req.allow_unauthenticated_access is not None:
            spec = spec.patched(allow_unauthenticated_access=req.allow_unauthenticated_access)
        if req.auto_resume is not None:
            spec = spec.patched(auto_resume=req.auto_resume)
        if req.name is not None and req.name != sb.name:
            check_name(req.name)
            if repo.live_name_holder(self.engine, p, ns, [req.name]):
                raise repo.name_taken(req.name)
            changes.update(name=req.name)
        if spec != sb.spec:
            changes["spec"] = spec
        if changes:
            try:
                ok = repo.transition(self.engine, sb.id, [sb.status], **changes,
                                     **({"status": sb.status} if "name" in changes else {}))
            except SandboxConflict:
                raise repo.name_taken(req.name or "") from None
            if not ok:
                raise SandboxConflict(f"sandbox {sb.id!r} changed state meanwhile; retry")
        return self.reload(sb)

    def terminate(self, p: Principal, ns: str, id_or_name: str, reason: str = "terminated") -> Sandbox:
        sb = self.find(p, ns, id_or_name)
        return self.steps.terminate(sb, reason)

    # -- snapshots --------------------------------------------------------------------------------

    def request_snapshot(self, p: Principal, ns: str, id_or_name: str, kind: SnapshotType) -> Snapshot:
        sb = self.find(p, ns, id_or_name)
        if kind == SnapshotType.memory and (why := self.containers.memory_snapshots()):
            raise SandboxInvalid(f"memory snapshots are not available: {why}; ask for snapshot_type "
                                 "'filesystem' (the filesystem only, processes restart)")
        if sb.status != S.running or not sb.container_id:
            raise SandboxInvalid(f"sandbox {sb.id!r} is {sb.status.value}: only a running sandbox can be "
                                 "snapshotted")
        if kind == SnapshotType.memory and sb.mounts:
            raise SandboxInvalid(f"sandbox {sb.id!r} has file systems mounted: its processes cannot be "
                                 "checkpointed with them (a restore elsewhere would lack the mounts); detach them "
                                 "or ask for snapshot_type 'filesystem'")
        snap = self.steps.new_snapshot(sb, kind, SnapshotReason.user)

        def step() -> None:
            with self.steps.locks(sb.id):
                self.steps.commit(self.reload(sb), snap)

        self.steps.runner(f"snapshot-{sb.id}", step)
        return snap

    def delete_snapshot(self, p: Principal, snapshot_id: str) -> Snapshot:
        """Mark it deleting and remove it in the background; the snapshot as it was marked."""
        snap = self.snapshot(p, snapshot_id)
        for sb in repo.all_with_status(self.engine, [S.suspended, S.suspending]):
            if sb.restore_snapshot_id == snap.id:
                raise SandboxConflict(f"snapshot {snap.id!r} holds suspended sandbox {sb.id!r}: resume or "
                                      "terminate it first")
        repo.update_snapshot(self.engine, snap.id, status=SnapshotStatus.deleting)

        def step() -> None:
            try:
                self.containers.drop_snapshot(snap.id, snap.image)
            except ContainerError as exc:
                log.warning("snapshot_image_kept", snapshot_id=snap.id, error=str(exc))
            repo.remove_snapshot(self.engine, snap.id)

        self.steps.runner(f"delete-snapshot-{snap.id}", step)
        return replace(snap, status=SnapshotStatus.deleting)

    # -- answered by sandbox_lifecycle and sandbox_mounts -----------------------------------------

    def suspend(self, p: Principal, ns: str, id_or_name: str) -> tuple[Sandbox, bool]:
        """The sandbox and whether it already was suspended (200) rather than on its way (202)."""
        return self.lifecycle.suspend(p, ns, id_or_name)

    def resume(self, p: Principal, ns: str, id_or_name: str) -> tuple[Sandbox, bool]:
        """The sandbox and whether it already was running (200) rather than on its way (202)."""
        return self.lifecycle.resume(p, ns, id_or_name)

    def wait_for(self, sb: Sandbox, target: SandboxStatus, wait_ms: int) -> tuple[Sandbox, bool]:
        """Poll until ``target`` (True) or ``wait_ms`` passed (False)."""
        return self.lifecycle.wait_for(sb, target, wait_ms)

    def restart(self, p: Principal, ns: str, id_or_name: str) -> Sandbox:
        return self.lifecycle.restart(p, ns, id_or_name)

    def copy(self, p: Principal, ns: str, id_or_name: str, times: int, name: str | None) -> CopyOutcome:
        return self.lifecycle.copy(p, ns, id_or_name, times, name)

    def logs(self, p: Principal, ns: str, id_or_name: str, q: LogQuery) -> tuple[Sandbox, list[LogLine], str | None]:
        """The sandbox, the page of its processes' output lines ``q`` asks for, the next page's token."""
        sb = self.find(p, ns, id_or_name)
        return (sb, *self.steps.logs.read(sb, q))

    def logs_since(self, p: Principal, ns: str, id_or_name: str, q: LogQuery,
                   after_ms: int) -> tuple[Sandbox, list[LogLine]]:
        """The sandbox and its new lines (``logs``'s follow)."""
        sb = self.find(p, ns, id_or_name)
        return sb, self.steps.logs.since(sb, q, after_ms)

    def log_processes(self, p: Principal, ns: str, id_or_name: str) -> tuple[Sandbox, list[dict[str, Any]]]:
        sb = self.find(p, ns, id_or_name)
        return sb, self.steps.logs.processes(sb)

    def attach(self, p: Principal, ns: str, id_or_name: str, mount: Mount) -> Sandbox:
        """Persist the mount and answer; it is applied in the background."""
        return self.mounts.attach(p, ns, id_or_name, mount)

    def detach(self, p: Principal, ns: str, id_or_name: str, mount_path: str) -> Sandbox:
        return self.mounts.detach(p, ns, id_or_name, mount_path)
