"""The sandbox API's rules: create, inspect, patch, terminate, snapshot, suspend and resume, copy,
restart, archived sandboxes, file systems, the idle timeout and reconciliation with the engine.

The catalog is the record of truth; containers are reconciled to it. Requests that only read or
flip a state answer at once; the slow steps (commit, remove, boot) run in the background through
``runner`` — plain threads by default, Prefect task runs when the orchestration layer supplies
one — and a per-sandbox lock keeps one sandbox's steps in order.
"""

from __future__ import annotations

import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Literal

import structlog
from sqlalchemy import Engine

from assets.catalog import sandboxes as repo
from assets.catalog.db import now_us
from assets.catalog.pagination import MAX_LIMIT, Page
from pipelines.core.errors import (
    SandboxConflict,
    SandboxError,
    SandboxInvalid,
    SandboxNotFound,
    SandboxUnavailable,
)
from pipelines.core.records import Principal
from pipelines.core.sandbox_records import (
    MAX_NAME,
    NAME_RE,
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
    new_snapshot_id,
)
from pipelines.core.settings import Settings
from pipelines.docker.containers import LIVE_MOUNT_ROOTS, ContainerError, Containers, Launch
from pipelines.usecases.file_systems import FileSystems, Unresolvable
from pipelines.usecases.sandbox_pool import Runner, WarmPool

log = structlog.get_logger("docklake.sandboxes")
S = SandboxStatus


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


@dataclass(frozen=True)
class CopyOutcome:
    source: Sandbox
    copies: list[Sandbox]
    failed: bool  # a copy failed before it was ready (422)
    timed_out: bool  # a copy was not ready in time (504)


@dataclass
class _Locks:
    guard: threading.Lock = field(default_factory=threading.Lock)
    by_id: dict[str, threading.Lock] = field(default_factory=dict)

    def __call__(self, sandbox_id: str) -> threading.Lock:
        with self.guard:
            return self.by_id.setdefault(sandbox_id, threading.Lock())


def check_name(name: str, what: str = "name") -> None:
    if len(name) > MAX_NAME:
        raise SandboxInvalid(f"{what} {name!r} is longer than {MAX_NAME} characters")
    if not NAME_RE.fullmatch(name):
        raise SandboxInvalid(f"{what} {name!r} is not valid: use lower-case letters, digits and hyphens, "
                             "starting and ending with a letter or digit")


def check_ports(ports: tuple[int, ...]) -> tuple[int, ...]:
    for port in ports:
        if not 1 <= port <= 65535:
            raise SandboxInvalid(f"exposed port {port} is not a TCP port (1-65535)")
    return tuple(sorted(set(ports)))


def copy_names(source: Sandbox, times: int, name: str | None) -> list[str | None]:
    """Rule 1: a name as given for one copy, ``name-1`` … ``name-N`` for several; without a name,
    ``<source name>-copy`` (suffixed the same way) for a named source, unnamed copies otherwise."""
    base = name if name is not None else (f"{source.name}-copy" if source.name else None)
    if base is None:
        return [None] * times
    return [base] if times == 1 else [f"{base}-{i}" for i in range(1, times + 1)]


class Sandboxes:
    def __init__(self, settings: Settings, engine: Engine, containers: Containers,
                 runner: Runner | None = None) -> None:
        self.file_systems = FileSystems(engine, settings.data_dir / "file-systems")
        self.settings = settings
        self.cfg = settings.sandbox
        self.engine = engine
        self.containers = containers
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="sandbox-step")
        self._runner = runner or (lambda name, fn: self._pool.submit(fn))
        self._locks = _Locks()
        self._active: dict[str, int] = {}
        self.pool = WarmPool(self.cfg, containers, self._runner)
        self._stop = threading.Event()
        self._reaper: threading.Thread | None = None

    # -- lookups ----------------------------------------------------------------------------------

    def find(self, p: Principal, ns: str, id_or_name: str) -> Sandbox:
        sb = repo.find(self.engine, p, ns, id_or_name)
        if sb is None:
            raise SandboxNotFound(f"sandbox {id_or_name!r} not found")
        return sb

    def reload(self, sb: Sandbox) -> Sandbox:
        fresh = repo.get(self.engine, sb.id)
        if fresh is None:
            raise SandboxNotFound(f"sandbox {sb.id!r} not found")
        return fresh

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
        self._active[sandbox_id] = now_us()

    # -- create -----------------------------------------------------------------------------------

    def _check_capacity(self, p: Principal, more: int = 1) -> None:
        if repo.count_live(self.engine, p) + more > self.cfg.max_per_project:
            raise SandboxInvalid(f"this project is at capacity ({self.cfg.max_per_project} sandboxes; "
                                 "DOCKLAKE_SANDBOX__MAX_PER_PROJECT): terminate some first")

    def _require_engine(self) -> None:
        if not self.containers.available():
            raise SandboxUnavailable("no Docker engine answers: sandboxes are unavailable on this host "
                                     "(start dockerd, or set DOCKLAKE_SANDBOX__DOCKER_URL)")

    def create(self, p: Principal, ns: str, req: CreateRequest) -> Sandbox:
        if req.name is not None:
            check_name(req.name)
        ports = check_ports(req.exposed_ports)
        mounts: list[Mount] = []
        for m in req.file_systems:
            self._check_mount(m, mounts, p)
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
            network=req.network or (inherited.network if inherited else NetworkPolicy()),
            timeout_secs=req.timeout_secs, exposed_ports=ports,
            allow_unauthenticated_access=req.allow_unauthenticated_access, auto_resume=req.auto_resume,
        )
        self._check_resources(spec.resources)
        self._check_capacity(p)
        self._require_engine()
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
        with self._locks(sb.id):
            return self._boot(sb, source)

    def capabilities(self) -> dict[str, object]:
        """What sandboxes can do on this host (``/readyz`` shows it)."""
        engine = self.containers.available()
        return {"engine": engine, "image": engine and self.containers.image_exists(self.cfg.image),
                "memory_snapshots": engine and self.containers.memory_snapshots() is None, "file_systems": engine,
                "warm": self.pool.count()}

    def _check_resources(self, r: Resources) -> None:
        if r.cpus <= 0 or r.memory_mb < 16 or r.disk_mb < 0:
            raise SandboxInvalid("resources: cpus must be positive and memory_mb at least 16")

    def _boot(self, sb: Sandbox, source: Snapshot | None, *, reason_on_failure: str = "start_failed",
              cold_if_unrestorable: bool = False) -> Sandbox:
        """Start a container for the pending sandbox ``sb`` (from ``source``'s image when given)
        and mark it running; on failure it ends terminated with the reason. A memory snapshot's
        processes are restored with their memory (where memory snapshots work here); when that
        fails, ``cold_if_unrestorable`` boots from its filesystem instead (a restart: "else cold
        boot"), else the boot fails (a new sandbox or a copy asked for the running processes)."""
        token = secrets.token_hex(24)
        generation = sb.generation + 1
        launch = Launch(sandbox_id=sb.id, namespace=sb.namespace, generation=generation,
                        image=source.image if source and source.image else sb.spec.image,
                        entrypoint=sb.spec.entrypoint, resources=sb.spec.resources,
                        internet=sb.spec.network.allow_internet_access, token=token,
                        hostname=sb.name or sb.id, pids_limit=self.cfg.pids_limit)
        checkpoint = None
        if source is not None and source.snapshot_type == SnapshotType.memory \
                and self.containers.memory_snapshots() is None:
            checkpoint = self.containers.checkpoint_path(source.id)
        try:
            if source is not None:
                self.containers.seed(sb.id, source.id)
            owner = Principal(sb.organization_id, sb.project_id)
            launch = replace(launch, binds=tuple(self.file_systems.resolve(owner, m) for m in sb.mounts))
            try:
                started = self.containers.launch(launch, self.cfg.start_timeout_s, checkpoint=checkpoint)
            except ContainerError as exc:
                if checkpoint is None or not cold_if_unrestorable:
                    raise
                log.warning("sandbox_memory_restore_failed", sandbox_id=sb.id, snapshot_id=source and source.id,
                            error=str(exc))
                started = self.containers.launch(replace(launch, generation=generation + 1),
                                                 self.cfg.start_timeout_s)
                generation += 1
        except (ContainerError, Unresolvable) as exc:
            log.warning("sandbox_start_failed", sandbox_id=sb.id, error=str(exc))
            repo.transition(self.engine, sb.id, None, status=S.terminated, terminated_us=now_us(),
                            termination_reason=reason_on_failure, error_details={"message": str(exc)},
                            container_id=None, address=None, generation=generation)
            raise SandboxUnavailable(f"the sandbox could not start: {exc}") from exc
        ok = repo.transition(self.engine, sb.id, [S.pending], status=S.running, container_id=started.container_id,
                             address=started.address, token=token, generation=generation,
                             last_active_us=now_us(), terminated_us=None, termination_reason=None,
                             error_details=None)
        if not ok:  # terminated while it booted: the container is not wanted
            self.containers.remove(started.container_id)
        log.info("sandbox_running", sandbox_id=sb.id, generation=generation)
        return self.reload(sb)

    # -- patch and terminate ----------------------------------------------------------------------

    def patch(self, p: Principal, ns: str, id_or_name: str, req: PatchRequest) -> Sandbox:
        sb = self.find(p, ns, id_or_name)
        if sb.status == S.terminated:
            raise SandboxConflict(f"sandbox {sb.id!r} is terminated")
        if req.resources is not None:
            raise SandboxInvalid("resizing a sandbox's resources is not supported: copy it with new resources "
                                 "instead")
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
        return self._terminate(sb, reason)

    def _terminate(self, sb: Sandbox, reason: str) -> Sandbox:
        if sb.status == S.terminated:
            return sb
        if not repo.transition(self.engine, sb.id, [sb.status], status=S.terminated, terminated_us=now_us(),
                               termination_reason=reason):
            return self._terminate(self.reload(sb), reason)
        self._runner(f"terminate-{sb.id}", lambda: self._finish_termination(sb.id))
        return self.reload(sb)

    def _finish_termination(self, sandbox_id: str) -> None:
        with self._locks(sandbox_id):
            sb = repo.get(self.engine, sandbox_id)
            if sb is None or sb.status != S.terminated or not sb.container_id:
                return
            if self.cfg.snapshot_on_terminate and self.containers.is_running(sb.container_id):
                self._take_snapshot(sb, SnapshotType.filesystem, SnapshotReason.terminate)
            self.containers.remove(sb.container_id)
            repo.transition(self.engine, sb.id, [S.terminated], container_id=None, address=None)
            log.info("sandbox_terminated", sandbox_id=sb.id, reason=sb.termination_reason)

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
        snap = self._new_snapshot(sb, kind, SnapshotReason.user)

        def step() -> None:
            with self._locks(sb.id):
                self._commit(self.reload(sb), snap)

        self._runner(f"snapshot-{sb.id}", step)
        return snap

    def _new_snapshot(self, sb: Sandbox, kind: SnapshotType, reason: SnapshotReason) -> Snapshot:
        snap = Snapshot(id=new_snapshot_id(), organization_id=sb.organization_id, project_id=sb.project_id,
                        namespace=sb.namespace, sandbox_id=sb.id, snapshot_type=kind, reason=reason,
                        status=SnapshotStatus.in_progress, spec=sb.spec, created_us=now_us())
        repo.insert_snapshot(self.engine, snap)
        return snap

    def _commit(self, sb: Sandbox, snap: Snapshot) -> Snapshot:
        if not sb.container_id:
            repo.update_snapshot(self.engine, snap.id, status=SnapshotStatus.failed,
                                 error="the sandbox has no container any more")
            return replace(snap, status=SnapshotStatus.failed)
        try:
            image, size = self.containers.snapshot(sb.container_id, sb.id, snap.id, sb.spec.image,
                                                   memory=snap.snapshot_type == SnapshotType.memory)
        except ContainerError as exc:
            repo.update_snapshot(self.engine, snap.id, status=SnapshotStatus.failed, error=str(exc))
            log.warning("snapshot_failed", sandbox_id=sb.id, snapshot_id=snap.id, error=str(exc))
            return replace(snap, status=SnapshotStatus.failed, error=str(exc))
        repo.update_snapshot(self.engine, snap.id, status=SnapshotStatus.completed, image=image, size_bytes=size)
        return replace(snap, status=SnapshotStatus.completed, image=image, size_bytes=size)

    def _take_snapshot(self, sb: Sandbox, kind: SnapshotType, reason: SnapshotReason) -> Snapshot:
        return self._commit(sb, self._new_snapshot(sb, kind, reason))

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

        self._runner(f"delete-snapshot-{snap.id}", step)
        return replace(snap, status=SnapshotStatus.deleting)

    # -- suspend and resume -----------------------------------------------------------------------

    def suspend(self, p: Principal, ns: str, id_or_name: str) -> tuple[Sandbox, bool]:
        """The sandbox and whether it already was suspended (200) rather than on its way (202)."""
        sb = self.find(p, ns, id_or_name)
        if sb.status == S.suspended:
            return sb, True
        if sb.status == S.suspending:
            return sb, False
        if not sb.named or sb.status != S.running:
            raise SandboxInvalid(f"sandbox {sb.id!r} cannot be suspended: "
                                 + ("only named sandboxes can" if not sb.named else f"it is {sb.status.value}"))
        if not repo.transition(self.engine, sb.id, [S.running], status=S.suspending):
            return self.suspend(p, ns, id_or_name)
        self._runner(f"suspend-{sb.id}", lambda: self._suspend_step(sb.id))
        return self.reload(sb), False

    def _suspend_step(self, sandbox_id: str) -> None:
        with self._locks(sandbox_id):
            sb = repo.get(self.engine, sandbox_id)
            if sb is None or sb.status != S.suspending:
                return
            snap = self._take_snapshot(sb, SnapshotType.filesystem, SnapshotReason.suspend)
            if snap.status != SnapshotStatus.completed:
                repo.transition(self.engine, sb.id, [S.suspending], status=S.running)
                return
            if sb.container_id:
                self.containers.remove(sb.container_id)
            repo.transition(self.engine, sb.id, [S.suspending], status=S.suspended, container_id=None,
                            address=None, restore_snapshot_id=snap.id)
            log.info("sandbox_suspended", sandbox_id=sb.id, snapshot_id=snap.id)

    def resume(self, p: Principal, ns: str, id_or_name: str) -> tuple[Sandbox, bool]:
        """The sandbox and whether it already was running (200) rather than on its way (202)."""
        sb = self.find(p, ns, id_or_name)
        if sb.status == S.running:
            return sb, True
        if sb.status == S.pending and sb.restore_snapshot_id and sb.named:
            return sb, False  # resuming
        snap = repo.get_snapshot(self.engine, sb.restore_snapshot_id) if sb.restore_snapshot_id else None
        if sb.status != S.suspended or snap is None or snap.status != SnapshotStatus.completed:
            raise SandboxInvalid(f"sandbox {sb.id!r} cannot be resumed: "
                                 + (f"it is {sb.status.value}" if sb.status != S.suspended
                                    else "its suspend snapshot is not ready"))
        self._require_engine()
        if not repo.transition(self.engine, sb.id, [S.suspended], status=S.pending):
            return self.resume(p, ns, id_or_name)

        def step() -> None:
            with self._locks(sb.id):
                current = self.reload(sb)
                if current.status == S.pending:
                    try:
                        self._boot(current, snap, reason_on_failure="resume_failed")
                    except SandboxError:
                        pass

        self._runner(f"resume-{sb.id}", step)
        return self.reload(sb), False

    def wait_for(self, sb: Sandbox, target: SandboxStatus, wait_ms: int) -> tuple[Sandbox, bool]:
        """Poll until ``target`` (True) or ``wait_ms`` passed (False)."""
        deadline = time.monotonic() + wait_ms / 1000
        while True:
            sb = self.reload(sb)
            if sb.status == target:
                return sb, True
            if time.monotonic() >= deadline or sb.status == S.terminated:
                return sb, False
            time.sleep(0.05)

    # -- restart ----------------------------------------------------------------------------------

    def restart(self, p: Principal, ns: str, id_or_name: str) -> Sandbox:
        sb = self.find(p, ns, id_or_name)
        if sb.status != S.terminated:
            raise SandboxInvalid(f"sandbox {sb.id!r} is {sb.status.value}: only a terminated sandbox can be "
                                 "restarted")
        if (sb.terminated_us or 0) < now_us() - self.cfg.retention_s * 1_000_000:
            raise SandboxInvalid(f"sandbox {sb.id!r} was terminated more than "
                                 f"{self.cfg.retention_s // 3600} hours ago: it can no longer be restarted")
        if sb.name and repo.live_name_holder(self.engine, p, ns, [sb.name]):
            raise SandboxConflict(f"the name {sb.name!r} was claimed by a new sandbox")
        for snap in repo.snapshots_of(self.engine, [sb.id], [SnapshotStatus.deleting]):
            if snap.id == sb.restore_snapshot_id or snap == repo.latest_usable(self.engine, sb.id):
                raise SandboxConflict(f"the snapshot to restore from ({snap.id}) is being deleted")
        self._check_capacity(p)
        self._require_engine()
        try:
            ok = repo.transition(self.engine, sb.id, [S.terminated], status=S.pending)
        except SandboxConflict:
            raise SandboxConflict(f"the name {sb.name!r} was claimed by a new sandbox") from None
        if not ok:
            raise SandboxInvalid(f"sandbox {sb.id!r} is no longer terminated")

        def step() -> None:
            with self._locks(sb.id):
                current = self.reload(sb)
                if current.status != S.pending:
                    return
                source = repo.latest_usable(self.engine, sb.id)
                if source is None and sb.restore_snapshot_id:
                    source = repo.get_snapshot(self.engine, sb.restore_snapshot_id)
                    if source is not None and source.status != SnapshotStatus.completed:
                        source = None
                try:
                    self._boot(current, source, reason_on_failure="restart_failed", cold_if_unrestorable=True)
                except SandboxError:
                    pass

        self._runner(f"restart-{sb.id}", step)
        return self.reload(sb)

    # -- copy -------------------------------------------------------------------------------------

    def copy(self, p: Principal, ns: str, id_or_name: str, times: int, name: str | None) -> CopyOutcome:
        source = self.find(p, ns, id_or_name)
        if times < 1:
            raise SandboxInvalid("times must be at least 1")
        if source.status not in (S.running, S.suspended):
            raise SandboxInvalid(f"sandbox {source.id!r} is {source.status.value}: only a running or suspended "
                                 "sandbox can be copied")
        names = copy_names(source, times, name)
        for n in names:
            if n is not None:
                check_name(n, "copy name")
        held = repo.live_name_holder(self.engine, p, ns, [n for n in names if n])
        if held:
            raise SandboxConflict(f"a live sandbox already holds the name {held!r}; no copy was made")
        self._check_capacity(p, times)
        self._require_engine()
        with self._locks(source.id):
            source = self.reload(source)
            if source.status == S.running and source.container_id:
                # copies restore filesystem, memory and processes: with memory where it works here
                # and the source has no file systems mounted (copies do not inherit them)
                snap = None
                if not source.mounts and self.containers.memory_snapshots() is None:
                    snap = self._take_snapshot(source, SnapshotType.memory, SnapshotReason.copy)
                    if snap.status != SnapshotStatus.completed:
                        log.warning("copy_without_memory", sandbox_id=source.id, error=snap.error)
                if snap is None or snap.status != SnapshotStatus.completed:
                    snap = self._take_snapshot(source, SnapshotType.filesystem, SnapshotReason.copy)
            elif source.status == S.suspended and source.restore_snapshot_id:
                snap = repo.get_snapshot(self.engine, source.restore_snapshot_id)
            else:
                raise SandboxInvalid(f"sandbox {source.id!r} changed state; retry")
        if snap is None or snap.status != SnapshotStatus.completed:
            raise SandboxUnavailable(f"the source's filesystem could not be captured: {snap.error if snap else ''}")
        now = now_us()
        copies = [Sandbox(id=new_sandbox_id(), organization_id=p.organization_id, project_id=p.project_id,
                          namespace=ns, name=n, status=S.pending, spec=source.spec, created_us=now, updated_us=now,
                          restore_snapshot_id=snap.id if snap.reason != SnapshotReason.copy else None,
                          last_active_us=now)
                  for n in names]
        inserted: list[Sandbox] = []
        try:
            for c in copies:
                repo.insert_sandbox(self.engine, c)
                inserted.append(c)
        except SandboxConflict:
            for c in inserted:
                repo.forget(self.engine, c.id)
            raise SandboxConflict("a copy's name was claimed meanwhile; no copy was made") from None

        def boot(c: Sandbox) -> None:
            with self._locks(c.id):
                try:
                    self._boot(c, snap, reason_on_failure="copy_failed")
                except SandboxError:
                    pass

        futures = [self._pool.submit(boot, c) for c in copies]
        done, pending = wait(futures, timeout=self.cfg.copy_timeout_s)
        result = [self.reload(c) for c in copies]
        return CopyOutcome(source=source, copies=result,
                           failed=any(c.status == S.terminated for c in result),
                           timed_out=bool(pending) or any(c.status == S.pending for c in result))

    # -- file systems -----------------------------------------------------------------------------

    def _check_mount(self, mount: Mount, existing: list[Mount] | tuple[Mount, ...], p: Principal,
                     *, resolve: bool = True) -> None:
        """Rule 3's 400s and 409s; at creation also that the file system exists (400)."""
        path = mount.mount_path
        if not path.startswith("/") or "\x00" in path or any(part == ".." for part in path.split("/")) \
                or path.rstrip("/") in ("", "/proc", "/sys", "/dev", "/opt/docklake", "/run/docklake"):
            raise SandboxInvalid(f"mount_path {path!r} must be an absolute path outside the system directories")
        if mount.snapshot_id and not mount.read_only:
            raise SandboxInvalid("a snapshot_id pin is only valid together with read_only: true")
        if any(m.mount_path.rstrip("/") == path.rstrip("/") for m in existing):
            raise SandboxConflict(f"something is already mounted at {path!r}")
        if len(existing) >= self.cfg.max_mounts:
            raise SandboxConflict(f"a sandbox may have {self.cfg.max_mounts} file systems mounted at most "
                                  "(DOCKLAKE_SANDBOX__MAX_MOUNTS)")
        if resolve:
            try:
                self.file_systems.resolve(p, mount)
            except Unresolvable as exc:
                raise SandboxInvalid(str(exc)) from None

    def attach(self, p: Principal, ns: str, id_or_name: str, mount: Mount) -> Sandbox:
        """Persist the mount and answer; it is applied in the background. A file system (or pin)
        that does not exist terminates the sandbox, with the reason (the spec's state table)."""
        sb = self.find(p, ns, id_or_name)
        self._check_mount(mount, (), p, resolve=False)  # the 400s first
        if self.containers.read_only_root and not mount.mount_path.startswith(LIVE_MOUNT_ROOTS):
            raise SandboxInvalid(f"mount_path {mount.mount_path!r}: a running sandbox's root is read-only, so a "
                                 f"file system attached now goes under {', '.join(LIVE_MOUNT_ROOTS)} (any path "
                                 "works at creation)")
        if sb.status != S.running:
            raise SandboxConflict(f"sandbox {sb.id!r} is {sb.status.value}, not running")
        self._check_mount(mount, sb.mounts, p, resolve=False)
        if not repo.transition(self.engine, sb.id, [S.running], mounts=(*sb.mounts, mount)):
            raise SandboxConflict(f"sandbox {sb.id!r} changed state meanwhile; retry")

        def step() -> None:
            with self._locks(sb.id):
                current = self.reload(sb)
                if current.status != S.running or not current.container_id:
                    return
                try:
                    self.containers.mount(current.container_id, self.file_systems.resolve(p, mount))
                except (Unresolvable, ContainerError) as exc:
                    log.warning("file_system_mount_failed", sandbox_id=sb.id, error=str(exc))
                    if repo.transition(self.engine, sb.id, [S.running], status=S.terminated,
                                       terminated_us=now_us(), termination_reason="file_system_mount_failed",
                                       error_details={"file_system_id": mount.file_system_id,
                                                      "mount_path": mount.mount_path, "message": str(exc)}):
                        self._runner(f"terminate-{sb.id}", lambda: self._finish_termination(sb.id))

        self._runner(f"mount-{sb.id}", step)
        return self.reload(sb)

    def detach(self, p: Principal, ns: str, id_or_name: str, mount_path: str) -> Sandbox:
        sb = self.find(p, ns, id_or_name)
        kept = tuple(m for m in sb.mounts if m.mount_path.rstrip("/") != mount_path.rstrip("/"))
        if len(kept) == len(sb.mounts):
            raise SandboxNotFound(f"nothing is mounted at {mount_path!r}")
        if sb.status != S.running:
            raise SandboxConflict(f"sandbox {sb.id!r} is {sb.status.value}, not running")
        if not repo.transition(self.engine, sb.id, [S.running], mounts=kept):
            raise SandboxConflict(f"sandbox {sb.id!r} changed state meanwhile; retry")

        def step() -> None:
            with self._locks(sb.id):
                current = self.reload(sb)
                if current.container_id and current.status == S.running:
                    try:
                        self.containers.unmount(current.container_id, mount_path)
                    except ContainerError as exc:
                        log.warning("file_system_unmount_failed", sandbox_id=sb.id, error=str(exc))

        self._runner(f"unmount-{sb.id}", step)
        return self.reload(sb)

    # -- the background loop: idle timeout, expiry, reconciliation --------------------------------

    def start(self) -> None:
        """Reconcile with the engine, then look after idle and expired sandboxes until ``close``."""
        if self.containers.available():
            try:
                self.reconcile()
            except Exception:  # noqa: BLE001 - the API must come up even if the engine misbehaves
                log.exception("sandbox_reconcile_failed")
        self._reaper = threading.Thread(target=self._loop, name="sandbox-reaper", daemon=True)
        self._reaper.start()

    def close(self) -> None:
        self._stop.set()
        if self._reaper is not None:
            self._reaper.join(timeout=5)
        self._pool.shutdown(wait=True, cancel_futures=False)
        self.pool.close()

    def _loop(self) -> None:
        while not self._stop.wait(self.cfg.reaper_s):
            try:
                self.reap()
            except Exception:  # noqa: BLE001 - keep looking after sandboxes whatever one step did
                log.exception("sandbox_reaper_failed")

    def reap(self) -> None:
        now = now_us()
        for sb in repo.all_with_status(self.engine, [S.running]):
            active = max(self._active.get(sb.id, 0), sb.last_active_us or 0, sb.updated_us)
            timeout = sb.spec.timeout_secs or self.cfg.timeout_s
            if now - active < timeout * 1_000_000:
                continue
            if sb.named:
                log.info("sandbox_idle_suspend", sandbox_id=sb.id)
                if repo.transition(self.engine, sb.id, [S.running], status=S.suspending):
                    self._runner(f"suspend-{sb.id}", lambda i=sb.id: self._suspend_step(i))
            else:
                log.info("sandbox_idle_terminate", sandbox_id=sb.id)
                self._terminate(sb, "idle_timeout")
        for sb in repo.expired(self.engine, now - self.cfg.retention_s * 1_000_000):
            try:
                self._expire(sb)
            except ContainerError as exc:  # tried again on the next round
                log.warning("sandbox_expiry_failed", sandbox_id=sb.id, error=str(exc))

    def _expire(self, sb: Sandbox) -> None:
        with self._locks(sb.id):
            for snap in repo.snapshots_of(self.engine, [sb.id]):
                if snap.reason != SnapshotReason.user:
                    self.containers.drop_snapshot(snap.id, snap.image)
            if sb.container_id:
                self.containers.remove(sb.container_id)
            self.containers.forget_state(sb.id)
            repo.forget(self.engine, sb.id)

    def reconcile(self) -> None:
        """After a restart of the service: make the engine match the catalog. Containers of live
        sandboxes are kept (restarted if stopped), lost ones end their sandbox, interrupted
        steps are settled, and containers nobody owns are removed."""
        leftovers = {c.container_id: c for c in self.containers.leftovers()}
        owned: set[str] = set()
        for snap in repo.snapshots_of(self.engine, statuses=[SnapshotStatus.in_progress]):
            repo.update_snapshot(self.engine, snap.id, status=SnapshotStatus.failed,
                                 error="interrupted by a restart of the service")
        for sb in repo.all_with_status(self.engine, [S.running, S.pending, S.suspending]):
            here = leftovers.get(sb.container_id or "")
            if here is not None:
                owned.add(here.container_id)
            if sb.status == S.running and here is not None:
                address = self.containers.address(here.container_id) if here.running else None
                if address:
                    repo.transition(self.engine, sb.id, [S.running], address=address)
                    continue
            if sb.status == S.suspending and here is not None and here.running:
                repo.transition(self.engine, sb.id, [S.suspending], status=S.running)
                continue
            if here is not None:
                self.containers.remove(here.container_id)
            if sb.named and sb.restore_snapshot_id and sb.status in (S.pending, S.suspending):
                repo.transition(self.engine, sb.id, [sb.status], status=S.suspended, container_id=None,
                                address=None)
            else:
                repo.transition(self.engine, sb.id, [sb.status], status=S.terminated, terminated_us=now_us(),
                                termination_reason="lost", container_id=None, address=None,
                                error_details={"message": "the container was gone or stopped after a restart "
                                                          "of the service or the engine"})
            log.warning("sandbox_reconciled", sandbox_id=sb.id, was=sb.status.value)
        for c in leftovers.values():
            if c.container_id not in owned:
                self.containers.remove(c.container_id)
                log.info("sandbox_orphan_removed", container_id=c.container_id, sandbox_id=c.sandbox_id)
