"""What the sandbox requests and the background upkeep share: the settings, the catalog, the
``SandboxBackend``, the runner of background steps and the per-sandbox locks, and the steps that
change a sandbox's container whoever asks for them (boot a pending sandbox, terminate, take a
snapshot, suspend).

Apart from the request rules (``sandboxes``, ``sandbox_lifecycle``, ``sandbox_mounts``) and the
upkeep (``sandbox_upkeep``) because both drive these steps. The catalog is the record of truth;
containers are reconciled to it. The slow steps (commit, remove, boot) run in the background
through ``runner`` — plain threads by default, Prefect task runs when the orchestration layer
supplies one — and a per-sandbox lock keeps one sandbox's steps in order.
"""

from __future__ import annotations

import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import structlog
from sqlalchemy import Engine

from assets.catalog import sandboxes as repo
from assets.catalog.db import now_us
from pipelines.core.errors import SandboxInvalid, SandboxNotFound, SandboxUnavailable
from pipelines.core.records import Principal
from pipelines.core.sandbox_backend import ContainerError, Launch, SandboxBackend
from pipelines.core.sandbox_records import (
    IMAGE_RE,
    MAX_IMAGE,
    MAX_NAME,
    NAME_RE,
    MountStatus,
    Sandbox,
    SandboxStatus,
    Snapshot,
    SnapshotReason,
    SnapshotStatus,
    SnapshotType,
    new_snapshot_id,
)
from pipelines.core.settings import Settings
from pipelines.usecases.file_systems import FileSystems, Unresolvable
from pipelines.usecases.sandbox_logs import SandboxLogs
from pipelines.usecases.sandbox_pool import Runner, WarmPool

log = structlog.get_logger("docklake.sandboxes")
S = SandboxStatus


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


def check_image(image: str) -> None:
    """A 400 for what is no image reference at all (``W\U0008e050``), before the engine is asked."""
    if len(image) > MAX_IMAGE or not IMAGE_RE.fullmatch(image):
        raise SandboxInvalid(f"image {image!r} is not a valid image reference (e.g. docklake/sandbox-base:2, "
                             "python:3.12-slim)")


class SandboxSteps:
    def __init__(self, settings: Settings, engine: Engine, backend: SandboxBackend,
                 runner: Runner | None = None) -> None:
        self.file_systems = FileSystems(engine, settings.data_dir / "file-systems")
        self.settings = settings
        self.cfg = settings.sandbox
        self.engine = engine
        self.backend = backend
        self.threads = ThreadPoolExecutor(max_workers=8, thread_name_prefix="sandbox-step")
        self.runner: Runner = runner or (lambda name, fn: self.threads.submit(fn))
        self.locks = _Locks()
        self.active: dict[str, int] = {}  # when traffic last reached a sandbox (the proxy's touch)
        self.pool = WarmPool(self.cfg, backend, self.runner)
        self.logs = SandboxLogs(settings.data_dir / "sandbox-logs", backend)

    def close(self) -> None:
        self.threads.shutdown(wait=True, cancel_futures=False)
        self.pool.close()

    # -- lookups and checks -----------------------------------------------------------------------

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

    def check_capacity(self, p: Principal, more: int = 1) -> None:
        if repo.count_live(self.engine, p) + more > self.cfg.max_per_project:
            raise SandboxInvalid(f"this project is at capacity ({self.cfg.max_per_project} sandboxes; "
                                 "DOCKLAKE_SANDBOX__MAX_PER_PROJECT): terminate some first")

    def require_engine(self) -> None:
        if not self.backend.available():
            raise SandboxUnavailable("no Docker engine answers: sandboxes are unavailable on this host "
                                     "(start dockerd, or set DOCKLAKE_SANDBOX__DOCKER_URL)")

    # -- boot -------------------------------------------------------------------------------------

    def boot(self, sb: Sandbox, source: Snapshot | None, *, reason_on_failure: str = "start_failed",
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
                and self.backend.memory_snapshots() is None:
            checkpoint = self.backend.checkpoint_path(source.id)
        try:
            if source is not None:
                self.backend.seed(sb.id, source.id)
            owner = Principal(sb.organization_id, sb.project_id)
            launch = replace(launch, binds=tuple(self.file_systems.resolve(owner, m) for m in sb.mounts
                                                 if m.status != MountStatus.failed))
            try:
                started = self.backend.launch(launch, self.cfg.start_timeout_s, checkpoint=checkpoint)
            except ContainerError as exc:
                if checkpoint is None or not cold_if_unrestorable:
                    raise
                log.warning("sandbox_memory_restore_failed", sandbox_id=sb.id, snapshot_id=source and source.id,
                            error=str(exc))
                started = self.backend.launch(replace(launch, generation=generation + 1),
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
            self.backend.remove(started.container_id)
        log.info("sandbox_running", sandbox_id=sb.id, generation=generation)
        return self.reload(sb)

    # -- terminate --------------------------------------------------------------------------------

    def terminate(self, sb: Sandbox, reason: str) -> Sandbox:
        if sb.status == S.terminated:
            return sb
        if not repo.transition(self.engine, sb.id, [sb.status], status=S.terminated, terminated_us=now_us(),
                               termination_reason=reason):
            return self.terminate(self.reload(sb), reason)
        self.runner(f"terminate-{sb.id}", lambda: self.finish_termination(sb.id))
        return self.reload(sb)

    def finish_termination(self, sandbox_id: str) -> None:
        with self.locks(sandbox_id):
            sb = repo.get(self.engine, sandbox_id)
            if sb is None or sb.status != S.terminated or not sb.container_id:
                return
            running = self.backend.is_running(sb.container_id)
            if self.cfg.snapshot_on_terminate and running:
                self.take_snapshot(sb, SnapshotType.filesystem, SnapshotReason.terminate)
            if running:  # its daemon answers until the container goes
                self.logs.keep(replace(sb, status=S.running))
            self.backend.remove(sb.container_id)
            repo.transition(self.engine, sb.id, [S.terminated], container_id=None, address=None)
            log.info("sandbox_terminated", sandbox_id=sb.id, reason=sb.termination_reason)

    # -- snapshots --------------------------------------------------------------------------------

    def new_snapshot(self, sb: Sandbox, kind: SnapshotType, reason: SnapshotReason) -> Snapshot:
        snap = Snapshot(id=new_snapshot_id(), organization_id=sb.organization_id, project_id=sb.project_id,
                        namespace=sb.namespace, sandbox_id=sb.id, snapshot_type=kind, reason=reason,
                        status=SnapshotStatus.in_progress, spec=sb.spec, created_us=now_us())
        repo.insert_snapshot(self.engine, snap)
        return snap

    def commit(self, sb: Sandbox, snap: Snapshot) -> Snapshot:
        if not sb.container_id:
            repo.update_snapshot(self.engine, snap.id, status=SnapshotStatus.failed,
                                 error="the sandbox has no container any more")
            return replace(snap, status=SnapshotStatus.failed)
        try:
            image, size = self.backend.snapshot(sb.container_id, sb.id, snap.id, sb.spec.image,
                                                memory=snap.snapshot_type == SnapshotType.memory)
        except ContainerError as exc:
            repo.update_snapshot(self.engine, snap.id, status=SnapshotStatus.failed, error=str(exc))
            log.warning("snapshot_failed", sandbox_id=sb.id, snapshot_id=snap.id, error=str(exc))
            return replace(snap, status=SnapshotStatus.failed, error=str(exc))
        repo.update_snapshot(self.engine, snap.id, status=SnapshotStatus.completed, image=image, size_bytes=size)
        return replace(snap, status=SnapshotStatus.completed, image=image, size_bytes=size)

    def take_snapshot(self, sb: Sandbox, kind: SnapshotType, reason: SnapshotReason) -> Snapshot:
        return self.commit(sb, self.new_snapshot(sb, kind, reason))

    # -- suspend ----------------------------------------------------------------------------------

    def suspend_step(self, sandbox_id: str) -> None:
        """The suspending sandbox's filesystem snapshot, then its container removed; it runs on
        when the snapshot fails."""
        with self.locks(sandbox_id):
            sb = repo.get(self.engine, sandbox_id)
            if sb is None or sb.status != S.suspending:
                return
            snap = self.take_snapshot(sb, SnapshotType.filesystem, SnapshotReason.suspend)
            if snap.status != SnapshotStatus.completed:
                repo.transition(self.engine, sb.id, [S.suspending], status=S.running)
                return
            if sb.container_id:
                self.logs.keep(replace(sb, status=S.running))
                self.backend.remove(sb.container_id)
            repo.transition(self.engine, sb.id, [S.suspending], status=S.suspended, container_id=None,
                            address=None, restore_snapshot_id=snap.id)
            log.info("sandbox_suspended", sandbox_id=sb.id, snapshot_id=snap.id)
