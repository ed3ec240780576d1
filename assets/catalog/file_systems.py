"""The catalog's file systems (a project's named directories for sandboxes) and their permanent
snapshots. The bytes live in directories under the data dir (``pipelines.usecases.file_systems``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, delete, insert, select
from sqlalchemy.exc import IntegrityError

from assets.catalog.db import file_system_snapshots, file_systems, write_txn
from pipelines.core.errors import SandboxConflict
from pipelines.core.records import Principal
from pipelines.core.sandbox_records import FileSystem, FileSystemSnapshot


def _fs(row: Any) -> FileSystem:
    return FileSystem(row["name"], row["organization_id"], row["project_id"], row["created_us"])


def _snap(row: Any) -> FileSystemSnapshot:
    return FileSystemSnapshot(row["id"], row["file_system_id"], row["organization_id"], row["project_id"],
                              row["created_us"], row["size_bytes"])


def insert_fs(engine: Engine, fs: FileSystem) -> None:
    try:
        with write_txn(engine) as conn:
            conn.execute(insert(file_systems).values(organization_id=fs.organization_id, project_id=fs.project_id,
                                                     name=fs.name, created_us=fs.created_us))
    except IntegrityError:
        raise SandboxConflict(f"a file system named {fs.name!r} already exists in this project") from None


def get_fs(engine: Engine, p: Principal, name: str) -> FileSystem | None:
    with engine.connect() as conn:
        row = conn.execute(select(file_systems).where(
            file_systems.c.organization_id == p.organization_id, file_systems.c.project_id == p.project_id,
            file_systems.c.name == name)).mappings().first()
    return _fs(row) if row else None


def list_fs(engine: Engine, p: Principal) -> list[FileSystem]:
    with engine.connect() as conn:
        rows = conn.execute(select(file_systems).where(
            file_systems.c.organization_id == p.organization_id, file_systems.c.project_id == p.project_id)
            .order_by(file_systems.c.name))
        return [_fs(r) for r in rows.mappings()]


def delete_fs(engine: Engine, p: Principal, name: str) -> None:
    with write_txn(engine) as conn:
        conn.execute(delete(file_system_snapshots).where(
            file_system_snapshots.c.organization_id == p.organization_id,
            file_system_snapshots.c.project_id == p.project_id, file_system_snapshots.c.file_system_id == name))
        conn.execute(delete(file_systems).where(
            file_systems.c.organization_id == p.organization_id, file_systems.c.project_id == p.project_id,
            file_systems.c.name == name))


def insert_snapshot(engine: Engine, snap: FileSystemSnapshot) -> None:
    with write_txn(engine) as conn:
        conn.execute(insert(file_system_snapshots).values(
            id=snap.id, organization_id=snap.organization_id, project_id=snap.project_id,
            file_system_id=snap.file_system_id, size_bytes=snap.size_bytes, created_us=snap.created_us))


def get_snapshot(engine: Engine, p: Principal, snapshot_id: str) -> FileSystemSnapshot | None:
    with engine.connect() as conn:
        row = conn.execute(select(file_system_snapshots).where(
            file_system_snapshots.c.organization_id == p.organization_id,
            file_system_snapshots.c.project_id == p.project_id,
            file_system_snapshots.c.id == snapshot_id)).mappings().first()
    return _snap(row) if row else None


def list_snapshots(engine: Engine, p: Principal, name: str) -> list[FileSystemSnapshot]:
    with engine.connect() as conn:
        rows = conn.execute(select(file_system_snapshots).where(
            file_system_snapshots.c.organization_id == p.organization_id,
            file_system_snapshots.c.project_id == p.project_id, file_system_snapshots.c.file_system_id == name)
            .order_by(file_system_snapshots.c.created_us.desc()))
        return [_snap(r) for r in rows.mappings()]
