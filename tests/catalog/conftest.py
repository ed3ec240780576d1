"""The databases the catalog tests run on, shared by the tests/catalog/test_catalog*.py modules:
each test gets its own empty database, a new SQLite file or a new PostgreSQL database on the
session's cluster (``tests/support/postgres.py``)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from assets.catalog.db import make_engine, migrate
from tests.support.postgres import admin_execute


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An engine on a brand-new, empty database of each backend (not migrated)."""
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path}/catalog.db")
        yield engine
        engine.dispose()
        return
    base: str = request.getfixturevalue("postgres_url")
    db = "t_" + secrets.token_hex(8)
    admin_execute(base, f"CREATE DATABASE {db}")
    engine = make_engine(base.rsplit("/", 1)[0] + "/" + db)
    try:
        yield engine
    finally:
        engine.dispose()
        admin_execute(base, f"DROP DATABASE {db} WITH (FORCE)")


@pytest.fixture
def catalog_engine(empty_engine: Engine) -> Engine:
    migrate(empty_engine)
    return empty_engine
