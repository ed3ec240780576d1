"""API keys: stored as SHA-256 hashes, each bound to one organization and project."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy import Engine, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from assets.catalog import api_keys, now_us, write_txn


@dataclass(frozen=True)
class Principal:
    organization_id: str
    project_id: str
    key_id: str


def hash_key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return "dl_" + secrets.token_urlsafe(32)


def add_key(engine: Engine, token: str, org: str, project: str) -> str:
    """Store ``token`` (hashed) for org/project unless it is already known; return its id."""
    h = hash_key(token)
    with write_txn(engine) as conn:
        found = conn.execute(select(api_keys.c.id).where(api_keys.c.key_hash == h)).scalar()
        if found:
            return found
        # Processes starting together register the same configured keys: on a conflict the
        # other one's row wins (Postgres waits for it to commit), so none of them fails.
        dialect_insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
        conn.execute(dialect_insert(api_keys).values(
            id="key_" + secrets.token_hex(8), key_hash=h, organization_id=org, project_id=project,
            created_us=now_us(),
        ).on_conflict_do_nothing(index_elements=["key_hash"]))
        return conn.execute(select(api_keys.c.id).where(api_keys.c.key_hash == h)).scalar_one()


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
