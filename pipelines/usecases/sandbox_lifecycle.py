"""The requests that move an existing sandbox through the spec's state table beyond terminating
it: suspend, resume, restart, and copies of it (with their naming rule).

Apart from ``sandboxes`` (create, inspect, patch, terminate, snapshots) to keep each module
readable; ``Sandboxes`` answers these requests by delegating here. A request checks and flips the
state in the catalog and answers; the slow part (snapshot, boot) runs through the runner.
"""

from __future__ import annotations

import time
from concurrent.futures import wait
from dataclasses import dataclass

from assets.catalog import sandboxes as repo
from assets.catalog.db import now_us
from pipelines.core.errors import SandboxConflict, SandboxError, SandboxInvalid, SandboxUnavailable
from pipelines.core.records import Principal
from pipelines.core.sandbox_records import (
    Sandbox,
    SandboxStatus,
    SnapshotReason,
    SnapshotStatus,
    SnapshotType,
    new_sandbox_id,
)
from pipelines.usecases.sandbox_steps import S, SandboxSteps, check_name, log


@dataclass(frozen=True)
class CopyOutcome:
    source: Sandbox
    copies: list[Sandbox]
    failed: bool  # a copy failed before it was ready (422)
    timed_out: bool  # a copy was not ready in time (504)


def copy_names(source: Sandbox, times: int, name: str | None) -> list[str | None]:
    """Rule 1: a name as given for one copy, ``name-1`` … ``name-N`` for several; without a name,
    ``<source name>-copy`` (suffixed the same way) for a named source, unnamed copies otherwise."""
    base = name if name is not None else (f"{source.name}-copy" if source.name else None)
    if base is None:
        return [None] * times
    return [base] if times == 1 else [f"{base}-{i}" for i in range(1, times + 1)]


class SandboxLifecycle:
    def __init__(self, steps: SandboxSteps) -> None:
        self.steps = steps
        self.engine = steps.engine
        self.cfg = steps.cfg

    # -- suspend and resume -----------------------------------------------------------------------

    def suspend(self, p: Principal, ns: str, id_or_name: str) -> tuple[Sandbox, bool]:
        """The sandbox and whether it already was suspended (200) rather than on its way (202)."""
        sb = self.steps.find(p, ns, id_or_name)
        if sb.status == S.suspended:
            return sb, True
        if sb.status == S.suspending:
            return sb, False
        if not sb.named or sb.status != S.running:
            raise SandboxInvalid(f"sandbox {sb.id!r} cannot be suspended: "
                                 + ("only named sandboxes can" if not sb.named else f"it is {sb.status.value}"))
        if not repo.transition(self.engine, sb.id, [S.running], status=S.suspending):
            return self.suspend(p, ns, id_or_name)
        self.steps.runner(f"suspend-{sb.id}", lambda: self.steps.suspend_step(sb.id))
        return self.steps.reload(sb), False

    def resume(self, p: Principal, ns: str, id_or_name: str) -> tuple[Sandbox, bool]:
        """The sandbox and whether it already was running (200) rather than on its way (202)."""
        sb = self.steps.find(p, ns, id_or_name)
        if sb.status == S.running:
            return sb, True
        if sb.status == S.pending and sb.restore_snapshot_id and sb.named:
            return sb, False  # resuming
        snap = repo.get_snapshot(self.engine, sb.restore_snapshot_id) if sb.restore_snapshot_id else None
        if sb.status != S.suspended or snap is None or snap.status != SnapshotStatus.completed:
            raise SandboxInvalid(f"sandbox {sb.id!r} cannot be resumed: "
                                 + (f"it is {sb.status.value}" if sb.status != S.suspended
                                    else "its suspend snapshot is not ready"))
        self.steps.require_engine()
        if not repo.transition(self.engine, sb.id, [S.suspended], status=S.pending):
            return self.resume(p, ns, id_or_name)

        def step() -> None:
            with self.steps.locks(sb.id):
                current = self.steps.reload(sb)
                if current.status == S.pending:
                    try:
                        self.steps.boot(current, snap, reason_on_failure="resume_failed")
                    except SandboxError:
                        pass

        self.steps.runner(f"resume-{sb.id}", step)
        return self.steps.reload(sb), False

    def wait_for(self, sb: Sandbox, target: SandboxStatus, wait_ms: int) -> tuple[Sandbox, bool]:
        """Poll until ``target`` (True) or ``wait_ms`` passed (False)."""
        deadline = time.monotonic() + wait_ms / 1000
        while True:
            sb = self.steps.reload(sb)
            if sb.status == target:
                return sb, True
            if time.monotonic() >= deadline or sb.status == S.terminated:
                return sb, False
            time.sleep(0.05)

    # -- restart ----------------------------------------------------------------------------------

    def restart(self, p: Principal, ns: str, id_or_name: str) -> Sandbox:
        sb = self.steps.find(p, ns, id_or_name)
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
        self.steps.check_capacity(p)
        self.steps.require_engine()
        try:
            ok = repo.transition(self.engine, sb.id, [S.terminated], status=S.pending)
        except SandboxConflict:
            raise SandboxConflict(f"the name {sb.name!r} was claimed by a new sandbox") from None
        if not ok:
            raise SandboxInvalid(f"sandbox {sb.id!r} is no longer terminated")

        def step() -> None:
            with self.steps.locks(sb.id):
                current = self.steps.reload(sb)
                if current.status != S.pending:
                    return
                source = repo.latest_usable(self.engine, sb.id)
                if source is None and sb.restore_snapshot_id:
                    source = repo.get_snapshot(self.engine, sb.restore_snapshot_id)
                    if source is not None and source.status != SnapshotStatus.completed:
                        source = None
                try:
                    self.steps.boot(current, source, reason_on_failure="restart_failed", cold_if_unrestorable=True)
                except SandboxError:
                    pass

        self.steps.runner(f"restart-{sb.id}", step)
        return self.steps.reload(sb)

    # -- copy -------------------------------------------------------------------------------------

    def copy(self, p: Principal, ns: str, id_or_name: str, times: int, name: str | None) -> CopyOutcome:
        source = self.steps.find(p, ns, id_or_name)
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
        self.steps.check_capacity(p, times)
        self.steps.require_engine()
        with self.steps.locks(source.id):
            source = self.steps.reload(source)
            if source.status == S.running and source.container_id:
                # copies restore filesystem, memory and processes: with memory where it works here
                # and the source has no file systems mounted (copies do not inherit them)
                snap = None
                if not source.mounts and self.steps.backend.memory_snapshots() is None:
                    snap = self.steps.take_snapshot(source, SnapshotType.memory, SnapshotReason.copy)
                    if snap.status != SnapshotStatus.completed:
                        log.warning("copy_without_memory", sandbox_id=source.id, error=snap.error)
                if snap is None or snap.status != SnapshotStatus.completed:
                    snap = self.steps.take_snapshot(source, SnapshotType.filesystem, SnapshotReason.copy)
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
            with self.steps.locks(c.id):
                try:
                    self.steps.boot(c, snap, reason_on_failure="copy_failed")
                except SandboxError:
                    pass

        futures = [self.steps.threads.submit(boot, c) for c in copies]
        done, pending = wait(futures, timeout=self.cfg.copy_timeout_s)
        result = [self.steps.reload(c) for c in copies]
        return CopyOutcome(source=source, copies=result,
                           failed=any(c.status == S.terminated for c in result),
                           timed_out=bool(pending) or any(c.status == S.pending for c in result))
