"""The sandboxes' background upkeep: at start, reconcile the engine with the catalog; then, every
``reaper_s``, end idle sandboxes (a named one is suspended, an unnamed one terminated) and forget
the archived ones whose retention is over.

Apart from the request rules because no request drives it: it is a loop of its own (``start``
and ``stop``), and each round (``reap``) can be driven directly, as the tests do.
"""

from __future__ import annotations

import threading

from assets.catalog import sandboxes as repo
from assets.catalog.db import now_us
from pipelines.core.sandbox_backend import ContainerError
from pipelines.core.sandbox_records import Sandbox, SnapshotReason, SnapshotStatus
from pipelines.usecases.sandbox_resize import SandboxResize
from pipelines.usecases.sandbox_steps import S, SandboxSteps, log


class SandboxUpkeep:
    def __init__(self, steps: SandboxSteps) -> None:
        self.steps = steps
        self.backend = steps.backend
        self.engine = steps.engine
        self.cfg = steps.cfg
        self._stop = threading.Event()
        self._reaper: threading.Thread | None = None

    def start(self) -> None:
        """Reconcile with the engine, then look after idle and expired sandboxes until ``stop``."""
        if self.backend.available():
            try:
                self.reconcile()
            except Exception:  # noqa: BLE001 - the API must come up even if the engine misbehaves
                log.exception("sandbox_reconcile_failed")
        self._reaper = threading.Thread(target=self._loop, name="sandbox-reaper", daemon=True)
        self._reaper.start()

    def stop(self) -> None:
        self._stop.set()
        if self._reaper is not None:
            self._reaper.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.cfg.reaper_s):
            try:
                self.reap()
            except Exception:  # noqa: BLE001 - keep looking after sandboxes whatever one step did
                log.exception("sandbox_reaper_failed")

    def reap(self) -> None:
        """One round: idle sandboxes suspended (named) or terminated (unnamed), expired archives
        forgotten."""
        now = now_us()
        for sb in repo.all_with_status(self.engine, [S.running]):
            active = max(self.steps.active.get(sb.id, 0), sb.last_active_us or 0, sb.updated_us)
            timeout = sb.spec.timeout_secs or self.cfg.timeout_s
            if now - active < timeout * 1_000_000:
                continue
            if sb.named:
                log.info("sandbox_idle_suspend", sandbox_id=sb.id)
                if repo.transition(self.engine, sb.id, [S.running], status=S.suspending):
                    self.steps.runner(f"suspend-{sb.id}", lambda i=sb.id: self.steps.suspend_step(i))
            else:
                log.info("sandbox_idle_terminate", sandbox_id=sb.id)
                self.steps.terminate(sb, "idle_timeout")
        for sb in repo.expired(self.engine, now - self.cfg.retention_s * 1_000_000):
            try:
                self._expire(sb)
            except ContainerError as exc:  # tried again on the next round
                log.warning("sandbox_expiry_failed", sandbox_id=sb.id, error=str(exc))

    def _expire(self, sb: Sandbox) -> None:
        with self.steps.locks(sb.id):
            for snap in repo.snapshots_of(self.engine, [sb.id]):
                if snap.reason != SnapshotReason.user:
                    self.backend.drop_snapshot(snap.id, snap.image)
            if sb.container_id:
                self.backend.remove(sb.container_id)
            self.backend.forget_state(sb.id)
            self.steps.logs.forget(sb.id)
            repo.forget(self.engine, sb.id)

    def reconcile(self) -> None:
        """After a restart of the service: make the engine match the catalog. Containers of live
        sandboxes are kept (restarted if stopped), lost ones end their sandbox, interrupted
        steps are settled, and containers nobody owns are removed."""
        leftovers = {c.container_id: c for c in self.backend.leftovers()}
        owned: set[str] = set()
        for snap in repo.snapshots_of(self.engine, statuses=[SnapshotStatus.in_progress]):
            repo.update_snapshot(self.engine, snap.id, status=SnapshotStatus.failed,
                                 error="interrupted by a restart of the service")
        for sb in repo.all_with_status(self.engine, [S.running, S.pending, S.suspending]):
            here = leftovers.get(sb.container_id or "")
            if here is not None:
                owned.add(here.container_id)
            if sb.status == S.running and here is not None:
                address = self.backend.address(here.container_id) if here.running else None
                if address:
                    repo.transition(self.engine, sb.id, [S.running], address=address)
                    SandboxResize(self.steps).settle(sb)
                    continue
            if sb.status == S.suspending and here is not None and here.running:
                repo.transition(self.engine, sb.id, [S.suspending], status=S.running)
                continue
            if here is not None:
                self.backend.remove(here.container_id)
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
                self.backend.remove(c.container_id)
                log.info("sandbox_orphan_removed", container_id=c.container_id, sandbox_id=c.sandbox_id)
