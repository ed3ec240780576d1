"""The handles the API needs, built once per app from the settings."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from sqlalchemy import Engine

from assets import keys as keys_repo
from assets.catalog import make_engine, migrate
from assets.keys import Principal
from assets.storage import Storage
from pipelines.settings import Settings


@dataclass
class Services:
    settings: Settings
    engine: Engine
    storage: Storage
    _auth_cache: dict[str, Principal] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, settings: Settings) -> Services:
        engine = make_engine(settings.catalog_url)
        migrate(engine)
        for token, org, project in settings.configured_keys:
            keys_repo.add_key(engine, token, org, project)
        return cls(settings, engine, Storage(settings.storage_url))

    def cached_principal(self, token: str) -> Principal | None:
        with self._lock:
            return self._auth_cache.get(keys_repo.hash_key(token))

    def authenticate(self, token: str) -> Principal | None:
        """The key's principal (cached once found; a key is never reassigned)."""
        hit = self.cached_principal(token)
        if hit is not None:
            return hit
        h = keys_repo.hash_key(token)
        principal = keys_repo.lookup(self.engine, token)
        if principal is not None:
            with self._lock:
                self._auth_cache[h] = principal
        return principal

    def close(self) -> None:
        self.engine.dispose()
