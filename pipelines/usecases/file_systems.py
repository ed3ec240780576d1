"""File systems: a project's named, persistent directories that sandboxes mount (at creation or
while running), and their permanent snapshots, which a read-only mount can pin.

The bytes are plain directories under ``<data dir>/file-systems/<tenant>/``: a file system is
``<name>/``, a snapshot ``.snapshots/<id>/`` (a copy, never written again). A file system in
use by a live sandbox cannot be deleted.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from sqlalchemy import Engine

from assets.catalog import file_systems as repo
from assets.catalog import sandboxes as sandboxes_repo
from assets.catalog.db import now_us
from pipelines.core.errors import SandboxConflict, SandboxInvalid, SandboxNotFound
from pipelines.core.records import Principal
from pipelines.core.sandbox_records import (
    LIVE,
    NAME_RE,
    Bind,
    FileSystem,
    FileSystemSnapshot,
    Mount,
    new_fs_snapshot_id,
)


class Unresolvable(Exception):
    """A mount's file system or pinned snapshot does not exist (the sandbox is terminated)."""


class FileSystems:
    def __init__(self, engine: Engine, root: Path) -> None:
        self.engine = engine
        self.root = root

    def _tenant(self, organization_id: str, project_id: str) -> Path:
        # hashed: organization and project ids may hold characters a path should not
        return self.root / hashlib.sha256(f"{organization_id}/{project_id}".encode()).hexdigest()[:24]

    def path(self, fs: FileSystem) -> Path:
        return self._tenant(fs.organization_id, fs.project_id) / fs.name

    def snapshot_path(self, snap: FileSystemSnapshot) -> Path:
        return self._tenant(snap.organization_id, snap.project_id) / ".snapshots" / snap.id

    def create(self, p: Principal, name: str) -> FileSystem:
        if not NAME_RE.fullmatch(name):
            raise SandboxInvalid(f"file system name {name!r} is not valid: use lower-case letters, digits and "
                                 "hyphens (at most 63), starting and ending with a letter or digit")
        fs = FileSystem(name, p.organization_id, p.project_id, now_us())
        repo.insert_fs(self.engine, fs)
        path = self.path(fs)
        path.mkdir(parents=True, exist_ok=True)
        path.chmod(0o1777)  # any user of a sandbox may write it, as /tmp
        return fs

    def get(self, p: Principal, name: str) -> FileSystem:
        fs = repo.get_fs(self.engine, p, name)
        if fs is None:
            raise SandboxNotFound(f"file system {name!r} not found")
        return fs

    def list(self, p: Principal) -> list[FileSystem]:
        return repo.list_fs(self.engine, p)

    def delete(self, p: Principal, name: str) -> None:
        fs = self.get(p, name)
        for sb in sandboxes_repo.all_with_status(self.engine, LIVE):
            if (sb.organization_id, sb.project_id) == (p.organization_id, p.project_id) and \
                    any(m.file_system_id == name for m in sb.mounts):
                raise SandboxConflict(f"file system {name!r} is mounted by sandbox {sb.id!r}: detach it first")
        for snap in repo.list_snapshots(self.engine, p, name):
            shutil.rmtree(self.snapshot_path(snap), ignore_errors=True)
        repo.delete_fs(self.engine, p, name)
        shutil.rmtree(self.path(fs), ignore_errors=True)

    def snapshot(self, p: Principal, name: str) -> FileSystemSnapshot:
        """A permanent copy of the file system as it is now."""
        fs = self.get(p, name)
        snap_id = new_fs_snapshot_id()
        target = self._tenant(p.organization_id, p.project_id) / ".snapshots" / snap_id
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(self.path(fs), target, symlinks=True)
        size = sum(f.stat().st_size for f in target.rglob("*") if f.is_file() and not f.is_symlink())
        snap = FileSystemSnapshot(snap_id, name, p.organization_id, p.project_id, now_us(), size)
        repo.insert_snapshot(self.engine, snap)
        return snap

    def snapshots(self, p: Principal, name: str) -> list[FileSystemSnapshot]:
        self.get(p, name)
        return repo.list_snapshots(self.engine, p, name)

    def resolve(self, p: Principal, mount: Mount) -> Bind:
        """The host directory a mount binds, or Unresolvable."""
        fs = repo.get_fs(self.engine, p, mount.file_system_id)
        if fs is None:
            raise Unresolvable(f"file system {mount.file_system_id!r} does not exist")
        if mount.snapshot_id:
            snap = repo.get_snapshot(self.engine, p, mount.snapshot_id)
            if snap is None or snap.file_system_id != fs.name:
                raise Unresolvable(f"{mount.snapshot_id!r} is not a permanent snapshot of file system "
                                   f"{fs.name!r}")
            return Bind(str(self.snapshot_path(snap)), mount.mount_path, True)
        return Bind(str(self.path(fs)), mount.mount_path, mount.read_only)
