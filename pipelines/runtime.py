"""The worker's handles (settings, catalog engine, storage), built once per process.

Flows receive only job ids; they reach the catalog and storage through ``current()``. The
dispatcher installs its runtime; a flow started by a Prefect deployment on another host builds one
from its environment on first use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlalchemy import Engine

from assets.catalog import make_engine
from assets.storage import Storage
from pipelines.settings import Settings


@dataclass
class Runtime:
    settings: Settings
    engine: Engine
    storage: Storage

    @classmethod
    def build(cls, settings: Settings) -> Runtime:
        return cls(settings, make_engine(settings.catalog_url), Storage(settings.storage_url))


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
            _current = Runtime.build(Settings())
        return _current
