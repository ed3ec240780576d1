"""Sandbox records: what the catalog keeps of a sandbox and of its snapshots, and the request
shapes the use cases accept (the wire models in ``api/`` translate to and from these)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from sandbox_runtime.contract import PORT as DAEMON_PORT

# A name (and so a copy's derived name) is a DNS label: it can stand in a proxy host name.
NAME_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
MAX_NAME = 63
# An image reference as Docker's own grammar reads it (github.com/distribution/reference): an
# optional registry host[:port]/, lower-case path components, an optional :tag and @digest.
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_HOST = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?"
IMAGE_RE = re.compile(rf"(?:{_HOST}/)?{_COMPONENT}(?:/{_COMPONENT})*(?::\w[\w.-]{{0,127}})?"
                      r"(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?", re.ASCII)
MAX_IMAGE = 255
__all__ = ["DAEMON_PORT"]


class SandboxStatus(StrEnum):
    pending = "pending"
    running = "running"
    suspending = "suspending"
    suspended = "suspended"
    terminated = "terminated"


LIVE = (SandboxStatus.pending, SandboxStatus.running, SandboxStatus.suspending, SandboxStatus.suspended)


class SnapshotType(StrEnum):
    filesystem = "filesystem"
    memory = "memory"


class SnapshotStatus(StrEnum):
    in_progress = "in_progress"
    completed = "completed"
    failed = "failed"
    deleting = "deleting"


class SnapshotReason(StrEnum):
    """Why a snapshot exists: asked for, or taken by a suspend, a copy or a termination."""

    user = "user"
    suspend = "suspend"
    copy = "copy"
    terminate = "terminate"


def new_sandbox_id() -> str:
    # lower-case letters and digits only: the id is the first label of a proxy host name
    return "sb" + secrets.token_hex(10)


def new_snapshot_id() -> str:
    return "snap" + secrets.token_hex(10)


@dataclass(frozen=True)
class Resources:
    cpus: float = 1.0
    memory_mb: int = 1024
    disk_mb: int = 10240


class ResizeStatus(StrEnum):
    pending = "pending"
    succeeded = "succeeded"
    failed = "failed"


@dataclass(frozen=True)
class Resize:
    """The latest live resize of a running sandbox: its generation (1, 2, ... per sandbox), the
    whole allocation asked for, and how it ended (``spec.resources`` is what it has)."""

    generation: int
    requested: Resources
    status: ResizeStatus
    error_message: str | None = None

    def to_json(self) -> dict[str, Any]:
        r = self.requested
        return {"generation": self.generation, "status": self.status.value, "error_message": self.error_message,
                "requested": {"cpus": r.cpus, "memory_mb": r.memory_mb, "disk_mb": r.disk_mb}}

    @classmethod
    def from_json(cls, d: dict[str, Any] | None) -> Resize | None:
        if not d:
            return None
        return cls(int(d["generation"]), Resources(**d["requested"]), ResizeStatus(d["status"]),
                   d.get("error_message"))


@dataclass(frozen=True)
class NetworkPolicy:
    allow_internet_access: bool = False
    allow_out: tuple[str, ...] = ()
    deny_out: tuple[str, ...] = ()


class MountStatus(StrEnum):
    """Where a mount stands: attached to a running sandbox it is ``pending`` until applied, then
    ``mounted``, or ``failed`` (with the error; the sandbox runs on without it)."""

    pending = "pending"
    mounted = "mounted"
    failed = "failed"


@dataclass(frozen=True)
class Mount:
    file_system_id: str
    mount_path: str
    read_only: bool = False
    snapshot_id: str | None = None
    status: MountStatus = MountStatus.mounted
    error: str | None = None


def mounts_json(mounts: Iterable[Mount]) -> list[dict[str, Any]]:
    """Mounts as the catalog stores them and the wire shows them (the one place that says so)."""
    return [{"file_system_id": m.file_system_id, "mount_path": m.mount_path, "read_only": m.read_only,
             "snapshot_id": m.snapshot_id, "status": MountStatus(m.status).value, "error": m.error} for m in mounts]


@dataclass(frozen=True)
class Bind:
    """A host directory bound into a sandbox (what a mount resolves to)."""

    source: str
    target: str
    read_only: bool


@dataclass(frozen=True)
class SandboxSpec:
    """What a sandbox is made of; copies and restarts inherit all of it."""

    image: str
    resources: Resources = field(default_factory=Resources)
    entrypoint: tuple[str, ...] | None = None
    network: NetworkPolicy = field(default_factory=NetworkPolicy)
    timeout_secs: int | None = None
    exposed_ports: tuple[int, ...] = ()
    allow_unauthenticated_access: bool = False
    auto_resume: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "image": self.image,
            "resources": {"cpus": self.resources.cpus, "memory_mb": self.resources.memory_mb,
                          "disk_mb": self.resources.disk_mb},
            "entrypoint": list(self.entrypoint) if self.entrypoint is not None else None,
            "network": {"allow_internet_access": self.network.allow_internet_access,
                        "allow_out": list(self.network.allow_out), "deny_out": list(self.network.deny_out)},
            "timeout_secs": self.timeout_secs,
            "exposed_ports": list(self.exposed_ports),
            "allow_unauthenticated_access": self.allow_unauthenticated_access,
            "auto_resume": self.auto_resume,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SandboxSpec:
        net = d.get("network") or {}
        return cls(
            image=d["image"],
            resources=Resources(**d.get("resources") or {}),
            entrypoint=tuple(d["entrypoint"]) if d.get("entrypoint") is not None else None,
            network=NetworkPolicy(bool(net.get("allow_internet_access", False)), tuple(net.get("allow_out") or ()),
                                  tuple(net.get("deny_out") or ())),
            timeout_secs=d.get("timeout_secs"),
            exposed_ports=tuple(d.get("exposed_ports") or ()),
            allow_unauthenticated_access=bool(d.get("allow_unauthenticated_access", False)),
            auto_resume=bool(d.get("auto_resume", True)),
        )

    def patched(self, **changes: Any) -> SandboxSpec:
        return replace(self, **changes)


@dataclass(frozen=True)
class Sandbox:
    id: str
    organization_id: str
    project_id: str
    namespace: str
    name: str | None
    status: SandboxStatus
    spec: SandboxSpec
    created_us: int
    updated_us: int
    mounts: tuple[Mount, ...] = ()
    container_id: str | None = None
    address: str | None = None  # host:port of the runtime daemon, while running
    token: str | None = None  # the daemon's token (never shown to clients)
    generation: int = 0
    terminated_us: int | None = None
    termination_reason: str | None = None
    error_details: Any = None
    restore_snapshot_id: str | None = None  # what a resume or a restart starts from
    last_active_us: int | None = None
    resize: Resize | None = None  # the latest live resize (``PATCH`` with ``resources``)

    @property
    def named(self) -> bool:
        return self.name is not None

    @property
    def live(self) -> bool:
        return self.status != SandboxStatus.terminated


@dataclass(frozen=True)
class Snapshot:
    id: str
    organization_id: str
    project_id: str
    namespace: str
    sandbox_id: str
    snapshot_type: SnapshotType
    reason: SnapshotReason
    status: SnapshotStatus
    spec: SandboxSpec
    created_us: int
    image: str | None = None  # the committed image holding the filesystem
    size_bytes: int | None = None
    error: str | None = None


@dataclass(frozen=True)
class FileSystem:
    """A project's persistent directory that sandboxes mount (``file_system_id`` is its name)."""

    name: str
    organization_id: str
    project_id: str
    created_us: int


@dataclass(frozen=True)
class FileSystemSnapshot:
    """A permanent, read-only copy of a file system, which a mount can pin (``snapshot_id``)."""

    id: str
    file_system_id: str
    organization_id: str
    project_id: str
    created_us: int
    size_bytes: int


def new_fs_snapshot_id() -> str:
    return "fssnap" + secrets.token_hex(10)
