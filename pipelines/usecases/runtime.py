"""The handles every use case needs (settings, catalog engine, storage), built once per process.

The API and the worker build one at their entry point. Prefect flows receive only job ids and
reach these through ``current()``; a flow started on another host builds one from its
environment on first use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlalchemy import Engine

from assets.catalog.db import open_catalog
from assets.storage import Storage
from pipelines.core.settings import Settings


@dataclass
class Runtime:
    settings: Settings
    engine: Engine
    storage: Storage

    @classmethod
    def build(cls, settings: Settings, *, worker: bool = False) -> Runtime:
        """Open the catalog (migrating it: any process may, they serialise) and the storage; a
        ``worker``'s storage waits out outages (``storage.outage_wait_s``), the API's fails fast."""
        wait_s = settings.storage.outage_wait_s if worker else 0.0
        return cls(settings, open_catalog(settings.storage), Storage(settings.storage.url, wait_s))

    def close(self) -> None:
        self.engine.dispose()


_lock = threading.Lock()
_current: Runtime | None = None


def install(rt: Runtime) -> None:
    global _current
    with _lock:
        _current = rt


def current() -> Runtime:
    global _current
    with _lock:
        if _current is None:
            _current = Runtime.build(Settings(), worker=True)
        return _current
