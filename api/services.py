"""The handles the API needs, built once per app from the settings."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine

from assets import keys as keys_repo
from assets.catalog import make_engine, migrate
from assets.keys import Principal
from assets.storage import Storage
from pipelines.settings import Settings

AUTH_CACHE_S = 30.0


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
    settings: Settings
    engine: Engine
    storage: Storage
    _auth_cache: dict[str, tuple[Principal, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, settings: Settings) -> Services:
        engine = make_engine(settings.catalog_url)
        migrate(engine)
        keys_repo.sync_configured(engine, settings.configured_keys)
        storage = Storage(settings.storage_url)
        _sweep(settings.data_dir / "spool", storage)
        return cls(settings, engine, storage)

    def cached_principal(self, token: str) -> Principal | None:
        with self._lock:
            hit = self._auth_cache.get(keys_repo.hash_key(token))
        if hit is None or hit[1] < time.monotonic():
            return None
        return hit[0]

    def authenticate(self, token: str) -> Principal | None:
        """The key's principal, cached for ``AUTH_CACHE_S`` (a revoked key stops within that)."""
        hit = self.cached_principal(token)
        if hit is not None:
            return hit
        h = keys_repo.hash_key(token)
        principal = keys_repo.lookup(self.engine, token)
        if principal is not None:
            with self._lock:
                self._auth_cache[h] = (principal, time.monotonic() + AUTH_CACHE_S)
        return principal

    def close(self) -> None:
        self.engine.dispose()
