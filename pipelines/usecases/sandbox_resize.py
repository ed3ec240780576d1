"""Live resize: a running sandbox's CPU and memory changed in place (``PATCH`` with ``resources``).

Apart from the other request rules because it has its own record (``Sandbox.resize``: a
generation per request, pending until applied, then succeeded or failed) that the SDK polls.
What the host cannot give is refused up front with a 400 and changes nothing: more CPUs or
memory than the host has, less memory than the sandbox's processes hold now (the kernel would
kill them to fit), a smaller disk. A change the engine refuses ends as a failed generation and
leaves the sandbox running on its old limits. Applied, the new resources are the sandbox's
own: a restart, a resume or a copy gets them.
"""

from __future__ import annotations

from dataclasses import replace

from assets.catalog import sandboxes as repo
from pipelines.core.errors import SandboxConflict, SandboxInvalid
from pipelines.core.records import Principal
from pipelines.core.sandbox_backend import ContainerError
from pipelines.core.sandbox_records import Resize, ResizeStatus, Resources, Sandbox
from pipelines.usecases.sandbox_steps import S, SandboxSteps, log

# memory above what the processes hold, so a resize does not leave them at the edge of the limit
HEADROOM_MB = 32


class SandboxResize:
    def __init__(self, steps: SandboxSteps) -> None:
        self.steps = steps
        self.engine = steps.engine
        self.backend = steps.backend

    def resize(self, p: Principal, ns: str, id_or_name: str, wanted: dict[str, float]) -> Sandbox:
        """Apply ``wanted`` (any of cpus, memory_mb, disk_mb; the others stay) and answer with
        the sandbox, its ``resize`` settled. Nothing to change answers the sandbox as it is."""
        sb = self.steps.find(p, ns, id_or_name)
        with self.steps.locks(sb.id):
            sb = self.steps.reload(sb)
            if sb.status != S.running or not sb.container_id:
                raise SandboxConflict(f"sandbox {sb.id!r} is {sb.status.value}: only a running sandbox can be "
                                      "resized live")
            now = sb.spec.resources
            target = Resources(cpus=float(wanted.get("cpus", now.cpus)),
                               memory_mb=int(wanted.get("memory_mb", now.memory_mb)),
                               disk_mb=int(wanted.get("disk_mb", now.disk_mb)))
            if target == now:
                return sb
            self._check(sb, now, target)
            pending = Resize((sb.resize.generation if sb.resize else 0) + 1, target, ResizeStatus.pending)
            if not repo.transition(self.engine, sb.id, [S.running], resource_resize=pending):
                raise SandboxConflict(f"sandbox {sb.id!r} changed state meanwhile; retry")
            try:
                self.backend.resize(sb.container_id, target.cpus, target.memory_mb)
            except ContainerError as exc:
                log.warning("sandbox_resize_failed", sandbox_id=sb.id, generation=pending.generation,
                            error=str(exc))
                repo.transition(self.engine, sb.id, None, resource_resize=replace(
                    pending, status=ResizeStatus.failed, error_message=str(exc)))
            else:
                repo.transition(self.engine, sb.id, None, spec=sb.spec.patched(resources=target),
                                resource_resize=replace(pending, status=ResizeStatus.succeeded))
                log.info("sandbox_resized", sandbox_id=sb.id, generation=pending.generation,
                         cpus=target.cpus, memory_mb=target.memory_mb)
            return self.steps.reload(sb)

    def _check(self, sb: Sandbox, now: Resources, target: Resources) -> None:
        if target.cpus != now.cpus and target.cpus % 1:
            raise SandboxInvalid(f"cpus {target.cpus:g} must be a whole number of CPUs for a live resize")
        if target.disk_mb < now.disk_mb:
            raise SandboxInvalid(f"disk_mb {target.disk_mb} is below the sandbox's {now.disk_mb} MiB: a live "
                                 "disk resize can only grow")
        try:
            host_cpus, host_mb = self.backend.capacity()
            used_mb = self.backend.memory_used_mb(sb.container_id or "") if target.memory_mb < now.memory_mb else 0
        except ContainerError as exc:
            raise SandboxConflict(f"the sandbox engine cannot say what it can give now: {exc}") from exc
        if target.cpus > host_cpus:
            raise SandboxInvalid(f"cpus {target.cpus:g} is more than this host has ({host_cpus:g})")
        if target.memory_mb > host_mb:
            raise SandboxInvalid(f"memory_mb {target.memory_mb} is more than this host has ({host_mb} MiB)")
        if target.memory_mb < used_mb + HEADROOM_MB:
            raise SandboxInvalid(f"memory_mb {target.memory_mb} is too little: the sandbox's processes hold "
                                 f"{used_mb} MiB now (free some, or ask for at least {used_mb + HEADROOM_MB})")

    def settle(self, sb: Sandbox) -> None:
        """After a restart of the service: a resize left pending is settled by what the
        container's limits say (applied, or not, before the stop)."""
        if sb.resize is None or sb.resize.status != ResizeStatus.pending or not sb.container_id:
            return
        want = sb.resize.requested
        applied = self.backend.limits(sb.container_id) == (want.cpus, want.memory_mb)
        if applied:
            repo.transition(self.engine, sb.id, None, spec=sb.spec.patched(resources=want),
                            resource_resize=replace(sb.resize, status=ResizeStatus.succeeded))
        else:
            repo.transition(self.engine, sb.id, None, resource_resize=replace(
                sb.resize, status=ResizeStatus.failed, error_message="interrupted by a restart of the service"))
