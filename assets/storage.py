"""Object storage over fsspec (``file://``, ``memory://``, ``s3://``) with atomic writes.

Every write goes to a temporary key first and is moved into place only when complete, so a
crash or an interrupted upload never leaves a partial object under a real key.

A store that cannot be reached (refused or dropped connections, timeouts, a 5xx or "slow down"
answer) is an *outage*, not a missing object: ``exists`` and ``ping`` never mistake one for the
other, and a ``Storage`` made with ``wait_s`` (the workers') retries through outages that long.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, TypeVar

import fsspec
from fsspec.core import url_to_fs
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_exponential_jitter

T = TypeVar("T")

# what botocore, aiohttp and s3fs raise when the store is away (besides ConnectionError and
# TimeoutError), by name, so that this module needs none of them
_OUTAGE_TYPES = {"EndpointConnectionError", "ConnectionClosedError", "ConnectTimeoutError", "ReadTimeoutError",
                 "ClientConnectorError", "ServerDisconnectedError", "ClientOSError", "ServerTimeoutError",
                 "FSTimeoutError"}
_OUTAGE_CODES = {"ServiceUnavailable", "SlowDown", "InternalError", "RequestTimeout", "503", "500"}


class StorageUnavailable(Exception):
    """The object store could not be reached (for longer than a worker waits)."""


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc``, or what caused it, says the store was unreachable or overloaded, rather
    than that an object or the request was wrong."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, (ConnectionError, TimeoutError, StorageUnavailable)) or type(e).__name__ in _OUTAGE_TYPES:
            return True
        error = getattr(e, "response", None)
        if isinstance(error, dict) and (str(error.get("Error", {}).get("Code")) in _OUTAGE_CODES
                                        or int(error.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0) >= 500):
            return True
        e = e.__cause__ or e.__context__
    return False


class Storage:
    def __init__(self, url: str, wait_s: float = 0.0) -> None:
        """``wait_s``: how long a call retries (backing off) while the store is unreachable;
        0 (the API's) fails at once, so a request is answered rather than kept waiting."""
        self.url = url.rstrip("/")
        self.wait_s = wait_s
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
        """Write ``key`` atomically: the object appears only if the block completes. On a local
        disk through the OS itself (a result is six small files: fsspec's open and move cost
        more than writing them)."""
        tmp = f"tmp/{uuid.uuid4().hex}"
        committed = False
        try:
            if self._local:  # folders made only when missing (most writes find them)
                try:
                    fh = open(self.path(tmp), "wb")  # noqa: SIM115 - closed by the with below
                except FileNotFoundError:
                    self._ensure_parent(tmp)
                    fh = open(self.path(tmp), "wb")  # noqa: SIM115
                with fh:
                    yield fh
                try:
                    os.replace(self.path(tmp), self.path(key))
                except FileNotFoundError:
                    self._ensure_parent(key)
                    os.replace(self.path(tmp), self.path(key))
            else:
                self._ensure_parent(tmp)
                with self.fs.open(self.path(tmp), "wb") as remote:
                    yield remote
                self._ensure_parent(key)
                self.fs.mv(self.path(tmp), self.path(key))
            committed = True
        finally:
            if not committed:
                self._silent_rm(tmp)

    def patiently(self, call: Callable[[], T]) -> T:
        if self.wait_s <= 0:
            return call()
        for attempt in Retrying(retry=retry_if_exception(is_outage), reraise=True,
                                wait=wait_exponential_jitter(initial=0.5, max=5), stop=stop_after_delay(self.wait_s)):
            with attempt:
                return call()
        raise AssertionError("unreachable")  # pragma: no cover

    def put_bytes(self, key: str, data: bytes) -> None:
        def put() -> None:
            with self.atomic_writer(key) as fh:
                fh.write(data)
        self.patiently(put)

    def read_bytes(self, key: str) -> bytes:
        def read() -> bytes:
            with self.fs.open(self.path(key), "rb") as fh:
                return fh.read()
        return self.patiently(read)

    def open(self, key: str, mode: str = "rb") -> IO[bytes]:
        return self.fs.open(self.path(key), mode)

    def exists(self, key: str) -> bool:
        """Whether ``key`` exists; an unreachable store raises (fsspec's own ``exists`` says
        False, which would pass an outage off as a missing object)."""
        return self.patiently(lambda: self._exists(self.path(key)))

    def _exists(self, path: str) -> bool:
        try:
            self.fs.info(path)
        except FileNotFoundError:
            return False
        return True

    def delete(self, key: str) -> None:
        self.patiently(lambda: self._silent_rm(key))

    def _silent_rm(self, key: str) -> None:
        try:
            self.fs.rm(self.path(key))
        except FileNotFoundError:
            pass

    def list_keys(self, prefix: str) -> list[str]:
        base = self.path(prefix)
        try:
            found = self.patiently(lambda: self.fs.find(base))
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
        self.fs.invalidate_cache()  # ask the store itself, not listings fsspec remembers
        try:
            if top and not self._exists(top):
                raise FileNotFoundError(f"the bucket {top!r} does not exist: create it first")
            self._exists(self.root)
        except Exception as exc:
            if is_outage(exc):
                raise StorageUnavailable(f"the object store at {self.url} cannot be reached: {exc}") from exc
            raise

    def reachable(self) -> bool:
        """False while the store cannot be reached (one try, no waiting)."""
        try:
            self.ping()
        except StorageUnavailable:
            return False
        except Exception:  # noqa: BLE001 - reachable, if wrong in another way
            return True
        return True


@dataclass(frozen=True)
class StoredBytes:
    """One stored object, read or written by whichever process holds this (picklable) handle:
    the limited process converting a document reads its bytes, so the worker never does."""

    storage_url: str
    key: str
    wait_s: float = 0.0  # see Storage

    def __call__(self) -> bytes:
        return Storage(self.storage_url, self.wait_s).read_bytes(self.key)

    def write(self, data: bytes) -> None:
        Storage(self.storage_url, self.wait_s).put_bytes(self.key, data)
