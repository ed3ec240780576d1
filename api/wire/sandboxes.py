"""The sandbox API's wire (wire notes §3): requests as the Tensorlake SDK sends them, each read into
the use case's request (``to_request``), and the response models the routes return, each built
from a record by its ``of`` (SandboxInfo, SnapshotInfo, copy results, file systems).

Unknown request fields are ignored, as the SDK sends some the service has no use for (``wait``,
``max_pending_secs``, ``secret_names``). The use case's rules for ports and resources are run by
validators here too, so that breaking one is a 422, as for any other invalid field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from pipelines.core.errors import SandboxInvalid
from pipelines.core.sandbox_records import (
    FileSystem,
    FileSystemSnapshot,
    Mount,
    NetworkPolicy,
    Resources,
    Sandbox,
    SandboxStatus,
    Snapshot,
    mounts_json,
)
from pipelines.usecases.sandboxes import CreateRequest, PatchRequest, check_ports, check_resources

# -- requests --------------------------------------------------------------------------------------


def _no_nul(v: Any) -> Any:
    if isinstance(v, str) and "\x00" in v:
        raise ValueError("must not contain NUL characters")
    if isinstance(v, list) and any(isinstance(x, str) and "\x00" in x for x in v):
        raise ValueError("must not contain NUL characters")
    return v


def _rule(check: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Run a use case's rule on a field: what it refuses (SandboxInvalid) is a ValueError here."""
    try:
        check(*args, **kwargs)
    except SandboxInvalid as exc:
        raise ValueError(exc.message) from None


def _exposable(ports: list[int] | None) -> list[int] | None:
    if ports is not None:
        _rule(check_ports, ports)
    return ports


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore")


class GpuIn(_In):
    count: int = 1
    model: str = ""


class ResourcesIn(_In):
    cpus: float | None = None
    memory_mb: int | None = None
    disk_mb: int | None = None
    ephemeral_disk_mb: int | None = None
    gpus: list[GpuIn] | None = None

    @field_validator("cpus", "memory_mb", "disk_mb", "ephemeral_disk_mb")
    @classmethod
    def _allowed(cls, v: float | None, info: ValidationInfo) -> float | None:
        if v is not None:
            _rule(check_resources, **{str(info.field_name).removeprefix("ephemeral_"): v})
        return v

    def to_resize(self) -> dict[str, float]:
        """The targets of a live resize: only those given (the others stay as they are)."""
        if self.gpus and any(g.count for g in self.gpus):
            raise SandboxInvalid("this host has no GPUs for sandboxes")
        disk = self.disk_mb if self.disk_mb is not None else self.ephemeral_disk_mb
        given = {"cpus": self.cpus, "memory_mb": self.memory_mb, "disk_mb": disk}
        return {k: v for k, v in given.items() if v is not None}

    def to_resources(self) -> Resources:
        if self.gpus and any(g.count for g in self.gpus):
            raise SandboxInvalid("this host has no GPUs for sandboxes")
        d = Resources()
        return Resources(cpus=self.cpus or d.cpus, memory_mb=self.memory_mb or d.memory_mb,
                         disk_mb=self.disk_mb or self.ephemeral_disk_mb or d.disk_mb)


class NetworkIn(_In):
    allow_internet_access: bool = True
    allow_out: list[str] = Field(default_factory=list, max_length=1000)
    deny_out: list[str] = Field(default_factory=list, max_length=1000)

    _nul = field_validator("allow_out", "deny_out")(_no_nul)

    def to_policy(self) -> NetworkPolicy:
        return NetworkPolicy(self.allow_internet_access, tuple(self.allow_out), tuple(self.deny_out))


class FileSystemMountIn(_In):
    file_system_id: str = Field(min_length=1, max_length=256)
    mount_path: str = Field(min_length=1, max_length=4096)
    read_only: bool = False
    snapshot_id: str | None = Field(None, max_length=256)
    prefetch: bool | None = None
    owner: str | None = None

    _nul = field_validator("file_system_id", "mount_path", "snapshot_id")(_no_nul)

    def to_mount(self) -> Mount:
        return Mount(self.file_system_id, self.mount_path, self.read_only, self.snapshot_id)


class DetachFileSystemIn(_In):
    mount_path: str = Field(min_length=1, max_length=4096)


class CreateSandboxIn(_In):
    name: str | None = Field(None, max_length=255)
    image: str | None = Field(None, min_length=1, max_length=512)
    resources: ResourcesIn | None = None
    timeout_secs: int | None = Field(None, ge=0, le=10 * 365 * 86400)
    entrypoint: list[str] | None = Field(None, max_length=4096)
    network: NetworkIn | None = None
    snapshot_id: str | None = Field(None, max_length=256)
    allow_unauthenticated_access: bool = False
    exposed_ports: list[int] = Field(default_factory=list, max_length=256)
    file_systems: list[FileSystemMountIn] = Field(default_factory=list, max_length=64)
    auto_resume: bool = True

    _nul = field_validator("name", "image", "entrypoint", "snapshot_id")(_no_nul)
    _ports = field_validator("exposed_ports")(_exposable)

    def to_request(self) -> CreateRequest:
        return CreateRequest(
            name=self.name, image=self.image,
            resources=self.resources.to_resources() if self.resources is not None else None,
            entrypoint=tuple(self.entrypoint) if self.entrypoint is not None else None,
            network=self.network.to_policy() if self.network is not None else None,
            timeout_secs=self.timeout_secs, snapshot_id=self.snapshot_id,
            allow_unauthenticated_access=self.allow_unauthenticated_access, exposed_ports=tuple(self.exposed_ports),
            file_systems=tuple(m.to_mount() for m in self.file_systems), auto_resume=self.auto_resume)


class PatchSandboxIn(_In):
    name: str | None = Field(None, max_length=255)
    exposed_ports: list[int] | None = Field(None, max_length=256)
    allow_unauthenticated_access: bool | None = None
    auto_resume: bool | None = None
    network: NetworkIn | None = None
    resources: ResourcesIn | None = None

    _nul = field_validator("name")(_no_nul)
    _ports = field_validator("exposed_ports")(_exposable)

    def to_request(self) -> PatchRequest:
        return PatchRequest(
            name=self.name, exposed_ports=tuple(self.exposed_ports) if self.exposed_ports is not None else None,
            allow_unauthenticated_access=self.allow_unauthenticated_access, auto_resume=self.auto_resume,
            resources=self.resources.to_resize() if self.resources is not None else None,
            network_given="network" in self.model_fields_set)


class SnapshotIn(_In):
    snapshot_type: Literal["filesystem", "memory"] = "filesystem"


class FileSystemIn(_In):
    name: str = Field(min_length=1, max_length=63)

    _nul = field_validator("name")(_no_nul)


# -- responses -------------------------------------------------------------------------------------


def _ingress(sb: Sandbox, public_url: str) -> dict[str, str | None]:
    """Where the SDK reaches the sandbox's runtime: the proxy in this API. With a loopback base the
    SDK keeps ``sandbox_url``'s path and sends ``Host: <id>.local``; elsewhere it sends
    ``X-Tensorlake-Sandbox-Id``; curl can use the path alone. Nowhere once terminated."""
    if sb.status == SandboxStatus.terminated:
        return {"ingress_endpoint": None, "sandbox_url": None}
    return {"ingress_endpoint": public_url, "sandbox_url": f"{public_url}/sandboxes/{sb.id}/proxy"}


class ResourcesOut(BaseModel):
    cpus: float
    memory_mb: int
    disk_mb: int
    ephemeral_disk_mb: int


class NetworkOut(BaseModel):
    allow_internet_access: bool
    allow_out: list[str]
    deny_out: list[str]


class ResizeOut(BaseModel):
    generation: int
    requested: ResourcesOut
    status: Literal["pending", "succeeded", "failed"]
    error_message: str | None


class MountOut(BaseModel):
    file_system_id: str
    mount_path: str
    read_only: bool
    snapshot_id: str | None = None
    status: Literal["pending", "mounted", "failed"] = Field(
        "mounted", description="An attach to a running sandbox is pending until applied; failed: see error.")
    error: str | None = None


class SandboxInfo(BaseModel):
    sandbox_id: str
    namespace: str
    name: str | None
    status: Literal["pending", "running", "suspending", "suspended", "terminated"]
    image: str
    resources: ResourcesOut
    entrypoint: list[str] | None
    timeout_secs: int | None
    network_policy: NetworkOut
    network: NetworkOut
    allow_unauthenticated_access: bool
    exposed_ports: list[int]
    auto_resume: bool
    file_systems: list[MountOut]
    created_at: int = Field(description="Milliseconds since the epoch.")
    terminated_at: int | None
    termination_reason: str | None
    error_details: Any = None
    ingress_endpoint: str | None
    sandbox_url: str | None
    resource_resize: ResizeOut | None = Field(None, description="The latest live resize (PATCH resources).")

    @classmethod
    def of(cls, sb: Sandbox, public_url: str, **more: Any) -> Self:
        resize = sb.resize.to_json() if sb.resize else None
        if resize:
            resize["requested"]["ephemeral_disk_mb"] = resize["requested"]["disk_mb"]
        spec = sb.spec.to_json()  # the spec's one serialisation, the one the catalog stores
        resources, network = spec.pop("resources"), spec.pop("network")
        return cls(
            **spec, **_ingress(sb, public_url), **more,
            # one of `id` / `sandbox_id` only: the SDK's parser takes them as aliases and refuses both
            sandbox_id=sb.id, namespace=sb.namespace, name=sb.name, status=sb.status.value,
            # the SDK requires disk_mb; older ones read ephemeral_disk_mb
            resources={**resources, "ephemeral_disk_mb": resources["disk_mb"]},
            network_policy=network, network=network, file_systems=mounts_json(sb.mounts),
            # milliseconds since the epoch: the SDK reads numbers (seconds, ms or µs) but no date strings
            created_at=sb.created_us // 1000, terminated_at=sb.terminated_us // 1000 if sb.terminated_us else None,
            termination_reason=sb.termination_reason, error_details=sb.error_details, resource_resize=resize)


class ArchivedSandboxInfo(SandboxInfo):
    archived_at: int | None = Field(description="When it was terminated (ms since the epoch).")

    @classmethod
    def of(cls, sb: Sandbox, public_url: str, **more: Any) -> Self:
        return super().of(sb, public_url, archived_at=(sb.terminated_us or 0) // 1000, **more)


class SandboxList(BaseModel):
    sandboxes: list[SandboxInfo]
    next_cursor: str | None
    prev_cursor: str | None


class ArchivedSandboxList(BaseModel):
    sandboxes: list[ArchivedSandboxInfo]
    next_cursor: str | None
    prev_cursor: str | None


class SandboxState(BaseModel):
    sandbox_id: str
    status: str


class SnapshotCreated(BaseModel):
    snapshot_id: str
    status: str


class SnapshotInfo(BaseModel):
    snapshot_id: str
    namespace: str
    sandbox_id: str
    status: str
    snapshot_type: str
    base_image: str
    size_bytes: int | None
    created_at: int = Field(description="Milliseconds since the epoch.")
    error: str | None

    @classmethod
    def of(cls, s: Snapshot) -> Self:
        return cls(snapshot_id=s.id, namespace=s.namespace, sandbox_id=s.sandbox_id, status=s.status.value,
                   snapshot_type=s.snapshot_type.value, base_image=s.spec.image, size_bytes=s.size_bytes,
                   created_at=s.created_us // 1000, error=s.error)


class SnapshotList(BaseModel):
    snapshots: list[SnapshotInfo]


class CopiedSandbox(BaseModel):
    sandbox_id: str
    status: str
    name: str | None
    sandbox_url: str | None
    ingress_endpoint: str | None
    termination_reason: str | None = None
    error_details: Any = None

    @classmethod
    def of(cls, sb: Sandbox, public_url: str) -> Self:
        return cls(sandbox_id=sb.id, status=sb.status.value, name=sb.name, **_ingress(sb, public_url),
                   termination_reason=sb.termination_reason, error_details=sb.error_details)


class CopyResponse(BaseModel):
    source_sandbox_id: str
    sandboxes: list[CopiedSandbox]


class FileSystemInfo(BaseModel):
    file_system_id: str
    name: str
    status: str
    created_at: int = Field(description="Milliseconds since the epoch.")

    @classmethod
    def of(cls, fs: FileSystem) -> Self:
        return cls(file_system_id=fs.name, name=fs.name, status="ready", created_at=fs.created_us // 1000)


class FileSystemList(BaseModel):
    file_systems: list[FileSystemInfo]


class FileSystemSnapshotInfo(BaseModel):
    snapshot_id: str
    file_system_id: str
    status: str
    size_bytes: int
    created_at: int = Field(description="Milliseconds since the epoch.")

    @classmethod
    def of(cls, s: FileSystemSnapshot) -> Self:
        return cls(snapshot_id=s.id, file_system_id=s.file_system_id, status="completed", size_bytes=s.size_bytes,
                   created_at=s.created_us // 1000)


class FileSystemSnapshotList(BaseModel):
    snapshots: list[FileSystemSnapshotInfo]


# -- error responses, for the OpenAPI document ------------------------------------------------------

TEXT = {"content": {"text/plain": {"schema": {"type": "string"}}}}
_WHY = {
    400: "Invalid request or unsuitable state (text/plain).",
    401: "Missing or invalid API key.",
    404: "No such sandbox or snapshot for this caller (text/plain).",
    409: "Name taken, wrong state or mount conflict (text/plain).",
    422: "Invalid request body or parameters (text/plain).",
    500: "Internal error, or no Docker engine (text/plain).",
}


def sandbox_responses(*codes: int, copy: bool = False) -> dict[int | str, dict[str, Any]]:
    out: dict[int | str, dict[str, Any]] = {
        c: {"description": _WHY[c], **TEXT} for c in sorted({*codes, 401, 422, 500})}
    if copy:
        out[422] = {"description": "A copy failed before it was ready (CopySandboxResponse), or an invalid "
                                   "request (text/plain).", "model": CopyResponse, **TEXT}
        out[504] = {"description": "A copy was not ready in time (CopySandboxResponse).", "model": CopyResponse}
    return out
