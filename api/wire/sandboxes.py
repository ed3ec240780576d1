"""Wire models of the sandbox API (requests as the Tensorlake SDK sends them, responses as it
reads them: wire notes §3). Unknown request fields are ignored, as the SDK sends some the service
has no use for (``wait``, ``max_pending_secs``, ``secret_names``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipelines.core.sandbox_records import DAEMON_PORT


def _no_nul(v: Any) -> Any:
    if isinstance(v, str) and "\x00" in v:
        raise ValueError("must not contain NUL characters")
    if isinstance(v, list) and any(isinstance(x, str) and "\x00" in x for x in v):
        raise ValueError("must not contain NUL characters")
    return v


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore")


class GpuIn(_In):
    count: int = 1
    model: str = ""


class ResourcesIn(_In):
    cpus: float | None = Field(None, gt=0, le=1024)
    memory_mb: int | None = Field(None, ge=16, le=1_048_576)
    disk_mb: int | None = Field(None, ge=0, le=1 << 40)
    ephemeral_disk_mb: int | None = Field(None, ge=0, le=1 << 40)
    gpus: list[GpuIn] | None = None


class NetworkIn(_In):
    allow_internet_access: bool = True
    allow_out: list[str] = Field(default_factory=list, max_length=1000)
    deny_out: list[str] = Field(default_factory=list, max_length=1000)

    _nul = field_validator("allow_out", "deny_out")(_no_nul)


class FileSystemMountIn(_In):
    file_system_id: str = Field(min_length=1, max_length=256)
    mount_path: str = Field(min_length=1, max_length=4096)
    read_only: bool = False
    snapshot_id: str | None = Field(None, max_length=256)
    prefetch: bool | None = None
    owner: str | None = None

    _nul = field_validator("file_system_id", "mount_path", "snapshot_id")(_no_nul)


class DetachFileSystemIn(_In):
    mount_path: str = Field(min_length=1, max_length=4096)


Port = Field(ge=1, le=65535)


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

    @field_validator("exposed_ports")
    @classmethod
    def _ports(cls, v: list[int]) -> list[int]:
        for port in v:
            if not 1 <= port <= 65535:
                raise ValueError(f"{port} is not a TCP port")
            if port == DAEMON_PORT:
                raise ValueError(f"port {DAEMON_PORT} is the runtime daemon's")
        return v


class PatchSandboxIn(_In):
    name: str | None = Field(None, max_length=255)
    exposed_ports: list[int] | None = Field(None, max_length=256)
    allow_unauthenticated_access: bool | None = None
    auto_resume: bool | None = None
    network: NetworkIn | None = None
    resources: ResourcesIn | None = None

    _nul = field_validator("name")(_no_nul)
    _ports = field_validator("exposed_ports")(lambda v: CreateSandboxIn._ports(v) if v is not None else v)


class SnapshotIn(_In):
    snapshot_type: Literal["filesystem", "memory"] = "filesystem"


# -- responses (for the OpenAPI document; the routes build plain dicts) ----------------------------

class ResourcesOut(BaseModel):
    cpus: float
    memory_mb: int
    disk_mb: int
    ephemeral_disk_mb: int


class NetworkOut(BaseModel):
    allow_internet_access: bool
    allow_out: list[str]
    deny_out: list[str]


class MountOut(BaseModel):
    file_system_id: str
    mount_path: str
    read_only: bool
    snapshot_id: str | None = None


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


class ArchivedSandboxInfo(SandboxInfo):
    archived_at: int | None = Field(description="When it was terminated (ms since the epoch).")


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


class CopyResponse(BaseModel):
    source_sandbox_id: str
    sandboxes: list[CopiedSandbox]


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


class FileSystemIn(_In):
    name: str = Field(min_length=1, max_length=63)

    _nul = field_validator("name")(_no_nul)


class FileSystemInfo(BaseModel):
    file_system_id: str
    name: str
    status: str
    created_at: int = Field(description="Milliseconds since the epoch.")


class FileSystemList(BaseModel):
    file_systems: list[FileSystemInfo]


class FileSystemSnapshotInfo(BaseModel):
    snapshot_id: str
    file_system_id: str
    status: str
    size_bytes: int
    created_at: int = Field(description="Milliseconds since the epoch.")


class FileSystemSnapshotList(BaseModel):
    snapshots: list[FileSystemSnapshotInfo]
