"""Sandbox records as the wire shows them (SandboxInfo, SnapshotInfo, copy results)."""

from __future__ import annotations

from typing import Any

from pipelines.core.sandbox_records import FileSystem, FileSystemSnapshot, Sandbox, SandboxStatus, Snapshot


def sandbox_url(public_url: str, sb: Sandbox) -> str | None:
    """Where the SDK reaches the sandbox's runtime: the proxy in this API. With a loopback base the
    SDK keeps this path and sends ``Host: <id>.local``; elsewhere it sends
    ``X-Tensorlake-Sandbox-Id``; curl can use the path alone."""
    if sb.status == SandboxStatus.terminated:
        return None
    return f"{public_url}/sandboxes/{sb.id}/proxy"


def info(sb: Sandbox, public_url: str) -> dict[str, Any]:
    network = {"allow_internet_access": sb.spec.network.allow_internet_access,
               "allow_out": list(sb.spec.network.allow_out), "deny_out": list(sb.spec.network.deny_out)}
    r = sb.spec.resources
    return {
        # one of `id` / `sandbox_id` only: the SDK's parser takes them as aliases and refuses both
        "sandbox_id": sb.id,
        "namespace": sb.namespace,
        "name": sb.name,
        "status": sb.status.value,
        "image": sb.spec.image,
        "resources": {"cpus": r.cpus, "memory_mb": r.memory_mb, "disk_mb": r.disk_mb, "ephemeral_disk_mb": r.disk_mb},
        "entrypoint": list(sb.spec.entrypoint) if sb.spec.entrypoint is not None else None,
        "timeout_secs": sb.spec.timeout_secs,
        "network_policy": network,
        "network": network,
        "allow_unauthenticated_access": sb.spec.allow_unauthenticated_access,
        "exposed_ports": list(sb.spec.exposed_ports),
        "auto_resume": sb.spec.auto_resume,
        "file_systems": [{"file_system_id": m.file_system_id, "mount_path": m.mount_path, "read_only": m.read_only,
                          "snapshot_id": m.snapshot_id} for m in sb.mounts],
        # milliseconds since the epoch: the SDK reads numbers (seconds, ms or µs) but no date strings
        "created_at": sb.created_us // 1000,
        "terminated_at": sb.terminated_us // 1000 if sb.terminated_us else None,
        "termination_reason": sb.termination_reason,
        "error_details": sb.error_details,
        "ingress_endpoint": public_url if sb.status != SandboxStatus.terminated else None,
        "sandbox_url": sandbox_url(public_url, sb),
    }


def archived(sb: Sandbox, public_url: str) -> dict[str, Any]:
    return {**info(sb, public_url), "archived_at": (sb.terminated_us or 0) // 1000}


def snapshot(s: Snapshot) -> dict[str, Any]:
    return {
        "snapshot_id": s.id,
        "namespace": s.namespace,
        "sandbox_id": s.sandbox_id,
        "status": s.status.value,
        "snapshot_type": s.snapshot_type.value,
        "base_image": s.spec.image,
        "size_bytes": s.size_bytes,
        "created_at": s.created_us // 1000,
        "error": s.error,
    }


def copied(sb: Sandbox, public_url: str) -> dict[str, Any]:
    return {"sandbox_id": sb.id, "status": sb.status.value, "name": sb.name,
            "sandbox_url": sandbox_url(public_url, sb),
            "ingress_endpoint": public_url if sb.status != SandboxStatus.terminated else None,
            "termination_reason": sb.termination_reason, "error_details": sb.error_details}


def file_system(fs: FileSystem) -> dict[str, Any]:
    return {"file_system_id": fs.name, "name": fs.name, "status": "ready", "created_at": fs.created_us // 1000}


def file_system_snapshot(s: FileSystemSnapshot) -> dict[str, Any]:
    return {"snapshot_id": s.id, "file_system_id": s.file_system_id, "status": "completed",
            "size_bytes": s.size_bytes, "created_at": s.created_us // 1000}
