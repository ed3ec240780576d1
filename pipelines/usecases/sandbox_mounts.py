"""File systems in sandboxes: the mount rules (the spec's rules 3 and 4) checked at creation and
when one is attached to or detached from a running sandbox.

Apart from the other request rules because it is its own part of the API
(``/sandboxes/{id}/file_systems``) with its own errors; ``Sandboxes`` delegates here. An attach
or a detach is checked (the file system must exist), persisted and answered at once; the backend
applies it in the background; one that fails then is marked failed on the mount, and the sandbox
runs on.
"""

from __future__ import annotations

from dataclasses import replace

from assets.catalog import sandboxes as repo
from pipelines.core.errors import SandboxConflict, SandboxInvalid, SandboxNotFound
from pipelines.core.records import Principal
from pipelines.core.sandbox_backend import LIVE_MOUNT_ROOTS, ContainerError
from pipelines.core.sandbox_records import Mount, MountStatus, Sandbox
from pipelines.usecases.file_systems import Unresolvable
from pipelines.usecases.sandbox_steps import S, SandboxSteps, log


class SandboxMounts:
    def __init__(self, steps: SandboxSteps) -> None:
        self.steps = steps
        self.engine = steps.engine
        self.cfg = steps.cfg

    def check(self, mount: Mount, existing: list[Mount] | tuple[Mount, ...], p: Principal,
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
                self.steps.file_systems.resolve(p, mount)
            except Unresolvable as exc:
                raise SandboxInvalid(str(exc)) from None

    def attach(self, p: Principal, ns: str, id_or_name: str, mount: Mount) -> Sandbox:
        """Persist the mount (``pending``) and answer; it is applied in the background. A file
        system (or pin) that does not exist is refused here (400) and nothing changes: a typo must
        not cost the running sandbox. One that cannot be mounted when the mount is applied (gone
        meanwhile, or the engine refused) leaves the sandbox running: the mount says ``failed``
        and why, and can be detached."""
        sb = self.steps.find(p, ns, id_or_name)
        self.check(mount, (), p, resolve=True)  # the 400s first, the file system's existence among them
        if self.steps.backend.read_only_root and not mount.mount_path.startswith(LIVE_MOUNT_ROOTS):
            raise SandboxInvalid(f"mount_path {mount.mount_path!r}: a running sandbox's root is read-only, so a "
                                 f"file system attached now goes under {', '.join(LIVE_MOUNT_ROOTS)} (any path "
                                 "works at creation)")
        if sb.status != S.running:
            raise SandboxConflict(f"sandbox {sb.id!r} is {sb.status.value}, not running")
        self.check(mount, sb.mounts, p, resolve=False)
        mount = replace(mount, status=MountStatus.pending, error=None)
        if not repo.transition(self.engine, sb.id, [S.running], mounts=(*sb.mounts, mount)):
            raise SandboxConflict(f"sandbox {sb.id!r} changed state meanwhile; retry")

        def settle(status: MountStatus, error: str | None = None) -> None:
            current = self.steps.reload(sb)
            mounts = tuple(replace(m, status=status, error=error) if m.mount_path == mount.mount_path else m
                           for m in current.mounts)
            repo.transition(self.engine, sb.id, None, mounts=mounts)

        def step() -> None:
            with self.steps.locks(sb.id):
                current = self.steps.reload(sb)
                if current.status != S.running or not current.container_id \
                        or mount.mount_path not in {m.mount_path for m in current.mounts}:
                    return
                try:
                    self.steps.backend.mount(current.container_id, self.steps.file_systems.resolve(p, mount))
                except (Unresolvable, ContainerError) as exc:
                    log.warning("file_system_mount_failed", sandbox_id=sb.id, mount_path=mount.mount_path,
                                error=str(exc))
                    settle(MountStatus.failed, str(exc))
                else:
                    settle(MountStatus.mounted)

        self.steps.runner(f"mount-{sb.id}", step)
        return self.steps.reload(sb)

    def detach(self, p: Principal, ns: str, id_or_name: str, mount_path: str) -> Sandbox:
        sb = self.steps.find(p, ns, id_or_name)
        kept = tuple(m for m in sb.mounts if m.mount_path.rstrip("/") != mount_path.rstrip("/"))
        if len(kept) == len(sb.mounts):
            raise SandboxNotFound(f"nothing is mounted at {mount_path!r}")
        if sb.status != S.running:
            raise SandboxConflict(f"sandbox {sb.id!r} is {sb.status.value}, not running")
        if not repo.transition(self.engine, sb.id, [S.running], mounts=kept):
            raise SandboxConflict(f"sandbox {sb.id!r} changed state meanwhile; retry")

        def step() -> None:
            with self.steps.locks(sb.id):
                current = self.steps.reload(sb)
                gone = next((m for m in sb.mounts if m.mount_path.rstrip("/") == mount_path.rstrip("/")), None)
                if current.container_id and current.status == S.running and gone is not None \
                        and gone.status != MountStatus.failed:
                    try:
                        self.steps.backend.unmount(current.container_id, mount_path)
                    except ContainerError as exc:
                        log.warning("file_system_unmount_failed", sandbox_id=sb.id, error=str(exc))

        self.steps.runner(f"unmount-{sb.id}", step)
        return self.steps.reload(sb)
