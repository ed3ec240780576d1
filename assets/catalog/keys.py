"""API keys: stored as SHA-256 hashes, each bound to one organization and project."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import Engine, delete, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from assets.catalog.db import api_keys, now_us, write_txn
from pipelines.core.records import Principal


def hash_key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return "dl_" + secrets.token_urlsafe(32)


def add_key(engine: Engine, token: str, org: str, project: str, *, source: str = "created") -> str:
    """Store ``token`` (hashed) for org/project unless it is already known; return its id.
    A configured key (``source="config"``) that the configuration now assigns elsewhere moves."""
    h = hash_key(token)
    with write_txn(engine) as conn:
        found = conn.execute(select(api_keys).where(api_keys.c.key_hash == h)).mappings().first()
        if found:
            if source == "config" and (found["organization_id"], found["project_id"], found["source"]) != (
                    org, project, source):
                conn.execute(update(api_keys).where(api_keys.c.id == found["id"]).values(
                    organization_id=org, project_id=project, source=source))
            return found["id"]
        # Processes starting together register the same configured keys: on a conflict the
        # other one's row wins (Postgres waits for it to commit), so none of them fails.
        dialect_insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
        conn.execute(dialect_insert(api_keys).values(
            id="key_" + secrets.token_hex(8), key_hash=h, organization_id=org, project_id=project,
            created_us=now_us(), source=source,
        ).on_conflict_do_nothing(index_elements=["key_hash"]))
        return conn.execute(select(api_keys.c.id).where(api_keys.c.key_hash == h)).scalar_one()


def sync_configured(engine: Engine, configured: list[tuple[str, str, str]]) -> None:
    """Make the ``config`` keys exactly ``configured`` (token, org, project): add or move the
    listed ones, delete the ones no longer listed."""
    keep = {add_key(engine, token, org, project, source="config") for token, org, project in configured}
    with write_txn(engine) as conn:
        conn.execute(delete(api_keys).where(api_keys.c.source == "config", api_keys.c.id.not_in(keep)))


def revoke(engine: Engine, token: str) -> bool:
    with write_txn(engine) as conn:
        return bool(conn.execute(delete(api_keys).where(api_keys.c.key_hash == hash_key(token))).rowcount)


def create_key(engine: Engine, org: str, project: str) -> str:
    token = new_token()
    add_key(engine, token, org, project)
    return token


def count_keys(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(api_keys)).scalar() or 0)


def lookup(engine: Engine, token: str) -> Principal | None:
    with engine.connect() as conn:
        row = conn.execute(
            select(api_keys.c.id, api_keys.c.organization_id, api_keys.c.project_id)
            .where(api_keys.c.key_hash == hash_key(token))
        ).first()
    return Principal(row.organization_id, row.project_id, row.id) if row else None
