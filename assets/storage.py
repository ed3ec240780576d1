"""Object storage over fsspec (``file://``, ``memory://``, ``s3://``) with atomic writes.

Every write goes to a temporary key first and is moved into place only when complete, so a
crash or an interrupted upload never leaves a partial object under a real key.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO

import fsspec
from fsspec.core import url_to_fs


class Storage:
    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        fs, root = url_to_fs(self.url)
        self.fs: fsspec.AbstractFileSystem = fs
        self.root = root.rstrip("/")
        self._local = "file" in (fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,))
        if self._local:
            self.fs.makedirs(self.root, exist_ok=True)

    def path(self, key: str) -> str:
        return f"{self.root}/{key.lstrip('/')}"

    def _ensure_parent(self, key: str) -> None:
        if self._local:
            parent = self.path(key).rsplit("/", 1)[0]
            self.fs.makedirs(parent, exist_ok=True)

    @contextmanager
    def atomic_writer(self, key: str) -> Iterator[IO[bytes]]:
        """Write ``key`` atomically: the object appears only if the block completes."""
        tmp = f"tmp/{uuid.uuid4().hex}"
        self._ensure_parent(tmp)
        committed = False
        try:
            with self.fs.open(self.path(tmp), "wb") as fh:
                yield fh
            self._ensure_parent(key)
            self.fs.mv(self.path(tmp), self.path(key))
            committed = True
        finally:
            if not committed:
                self._silent_rm(tmp)

    def put_bytes(self, key: str, data: bytes) -> None:
        with self.atomic_writer(key) as fh:
            fh.write(data)

    def read_bytes(self, key: str) -> bytes:
        with self.fs.open(self.path(key), "rb") as fh:
            return fh.read()

    def open(self, key: str, mode: str = "rb") -> IO[bytes]:
        return self.fs.open(self.path(key), mode)

    def exists(self, key: str) -> bool:
        return bool(self.fs.exists(self.path(key)))

    def delete(self, key: str) -> None:
        self._silent_rm(key)

    def _silent_rm(self, key: str) -> None:
        try:
            self.fs.rm(self.path(key))
        except FileNotFoundError:
            pass

    def list_keys(self, prefix: str) -> list[str]:
        base = self.path(prefix)
        try:
            found = self.fs.find(base)
        except FileNotFoundError:
            return []
        root = self.root + "/"
        return [p[len(root):] if p.startswith(root) else p for p in found]

    def sweep_tmp(self, older_than_s: float) -> int:
        """Delete temporary objects left by writers that died mid-write; returns how many."""
        removed = 0
        cutoff = time.time() - older_than_s
        try:
            entries = self.fs.ls(self.path("tmp"), detail=True)
        except FileNotFoundError:
            return 0
        for e in entries:
            stamp = e.get("mtime") or e.get("LastModified") or e.get("created")
            if hasattr(stamp, "timestamp"):
                stamp = stamp.timestamp()
            if isinstance(stamp, (int, float)) and stamp < cutoff:
                try:
                    self.fs.rm(e["name"])
                    removed += 1
                except FileNotFoundError:
                    pass
        return removed

    def ping(self) -> None:
        """Raise if the storage cannot be reached, or its bucket (for object stores: the first
        part of the root) does not exist: nothing could be stored there."""
        protocols = self.fs.protocol if isinstance(self.fs.protocol, tuple) else (self.fs.protocol,)
        local = any(p in ("file", "local", "memory") for p in protocols)
        top = None if local else self.root.strip("/").split("/", 1)[0]
        if top and not self.fs.exists(top):
            raise FileNotFoundError(f"the bucket {top!r} does not exist: create it first")
        self.fs.exists(self.root)


@dataclass(frozen=True)
class StoredBytes:
    """One stored object, read or written by whichever process holds this (picklable) handle:
    the limited process converting a document reads its bytes, so the worker never does."""

    storage_url: str
    key: str

    def __call__(self) -> bytes:
        return Storage(self.storage_url).read_bytes(self.key)

    def write(self, data: bytes) -> None:
        Storage(self.storage_url).put_bytes(self.key, data)
