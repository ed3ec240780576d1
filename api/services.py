"""The handles the API needs, built once per app from the settings: the use cases' ``Runtime``
and a short-lived cache of checked API keys."""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine

from assets.catalog import keys as keys_repo
from assets.storage import Storage
from pipelines.core.records import Principal
from pipelines.core.settings import Settings
from pipelines.docker.containers import DockerBackend
from pipelines.usecases import ingest
from pipelines.usecases.runtime import Runtime
from pipelines.usecases.sandboxes import Runner, Sandboxes

LEFTOVER_AGE_S = 3600.0


def _sweep(spool: Path, storage: Storage) -> None:
    """Remove what uploads and writes interrupted by a crash left behind (an hour old at least:
    nothing still in flight)."""
    cutoff = time.time() - LEFTOVER_AGE_S
    if spool.is_dir():
        for f in spool.glob("upload-*"):
            try:
                if f.stat().st_mtime < cutoff:
                    f.unlink()
            except FileNotFoundError:
                pass
    storage.sweep_tmp(LEFTOVER_AGE_S)


@dataclass
class Services:
    rt: Runtime
    sandboxes: Sandboxes
    keeper: ingest.Keeper | None = None
    _auth_cache: dict[str, tuple[Principal, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, settings: Settings, runner: Runner | None = None) -> Services:
        """``runner`` runs the sandboxes' background steps (the orchestration layer passes one that
        makes each a Prefect task run; plain threads otherwise)."""
        rt = Runtime.build(settings)
        keys_repo.sync_configured(rt.engine, settings.configured_keys)
        ingest.resume(rt)  # bulk ingestions whose API process stopped mid-way, and later ones
        keeper = ingest.Keeper(rt)
        keeper.start()
        _sweep(settings.data_dir / "spool", rt.storage)
        # containers are labelled with the catalog they belong to: installations sharing an engine
        # (or test runs) never reconcile away each other's sandboxes
        owner = hashlib.sha256(settings.storage.catalog_url.encode()).hexdigest()[:16]
        containers = DockerBackend(settings.sandbox.docker_url, settings.data_dir / "sandboxes", owner,
                                   read_only_root=settings.sandbox.read_only_root, tmp_mb=settings.sandbox.tmp_mb,
                                   memory_snapshots=settings.sandbox.memory_snapshots,
                                   probe_image=settings.sandbox.image)
        sandboxes = Sandboxes(settings, rt.engine, containers, runner)
        sandboxes.start()
        return cls(rt, sandboxes, keeper)

    @property
    def settings(self) -> Settings:
        return self.rt.settings

    @property
    def engine(self) -> Engine:
        return self.rt.engine

    @property
    def storage(self) -> Storage:
        return self.rt.storage

    def cached_principal(self, token: str) -> Principal | None:
        with self._lock:
            hit = self._auth_cache.get(keys_repo.hash_key(token))
        if hit is None or hit[1] < time.monotonic():
            return None
        return hit[0]

    def authenticate(self, token: str) -> Principal | None:
        """The key's principal, cached for ``api.auth_cache_s`` (a revoked key stops within that)."""
        hit = self.cached_principal(token)
        if hit is not None:
            return hit
        h = keys_repo.hash_key(token)
        principal = keys_repo.lookup(self.engine, token)
        if principal is not None:
            with self._lock:
                self._auth_cache[h] = (principal, time.monotonic() + self.settings.api.auth_cache_s)
        return principal

    def close(self) -> None:
        if self.keeper is not None:
            self.keeper.stop()
        self.sandboxes.close()
        self.rt.close()
