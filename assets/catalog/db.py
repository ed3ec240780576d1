"""The SQL catalog: tables, engine and migrations.

Mutable state lives here (keys, files, jobs); results live in Parquet. SQLite (WAL, busy
timeout) is the embedded default; PostgreSQL through ``postgresql+psycopg://``. Times are stored
as integer microseconds since the epoch (UTC): exact, portable and cheap to index.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Connection,
    Engine,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from tenacity import retry, retry_if_exception, stop_after_delay, wait_exponential_jitter

from pipelines.core.settings import StorageSettings

metadata = MetaData()

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("organization_id", String(128), nullable=False),
    Column("project_id", String(128), nullable=False),
    Column("created_us", BigInteger, nullable=False),
    # "config": from DOCKLAKE_API_KEYS (removed when no longer configured); "created": by the CLI.
    Column("source", String(16), nullable=False, server_default="created"),
)

files = Table(
    "files",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("organization_id", String(128), nullable=False),
    Column("project_id", String(128), nullable=False),
    Column("file_name", Text),
    Column("mime_type", String(255), nullable=False),
    Column("file_size", BigInteger, nullable=False),
    Column("checksum_sha256", String(64), nullable=False),
    Column("labels", JSON, nullable=False),
    Column("storage_key", Text, nullable=False),
    Column("created_us", BigInteger, nullable=False),
    Index("ix_files_scope_created", "organization_id", "project_id", "created_us", "id"),
)

datasets = Table(
    "datasets",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("organization_id", String(128), nullable=False),
    Column("project_id", String(128), nullable=False),
    Column("name", String(255), nullable=False),
    Column("description", Text),
    Column("configuration", JSON, nullable=False),
    Column("created_us", BigInteger, nullable=False),
    Column("updated_us", BigInteger, nullable=False),
    UniqueConstraint("organization_id", "project_id", "name", name="uq_datasets_scope_name"),
    Index("ix_datasets_scope_created", "organization_id", "project_id", "created_us", "id"),
)

webhooks = Table(
    "webhooks",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("organization_id", String(128), nullable=False),
    Column("project_id", String(128), nullable=False),
    Column("url", Text, nullable=False),
    Column("secret", String(128), nullable=False),
    Column("events", JSON, nullable=False),
    Column("dataset_id", String(40)),
    Column("created_us", BigInteger, nullable=False),
    Index("ix_webhooks_scope_created", "organization_id", "project_id", "created_us", "id"),
)

# One event for one webhook; sent until the receiver answers 2xx or the attempts run out.
webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("webhook_id", String(40), nullable=False),
    Column("organization_id", String(128), nullable=False),
    Column("project_id", String(128), nullable=False),
    Column("event", String(32), nullable=False),
    Column("job_id", String(40), nullable=False),
    Column("payload", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_us", BigInteger),
    Column("lease_owner", String(64)),
    Column("last_error", Text),
    Column("created_us", BigInteger, nullable=False),
    Column("delivered_us", BigInteger),
    Index("ix_webhook_deliveries_due", "status", "next_attempt_us"),
    Index("ix_webhook_deliveries_webhook_created", "webhook_id", "created_us", "id"),
)

webhook_attempts = Table(
    "webhook_attempts",
    metadata,
    Column("delivery_id", String(40), primary_key=True),
    Column("attempt", Integer, primary_key=True),
    Column("at_us", BigInteger, nullable=False),
    Column("status_code", Integer),
    Column("error", Text),
    Column("duration_ms", Integer, nullable=False),
)

# A sandbox's row outlives its container: a terminated sandbox stays (archived, restartable) for
# the retention window. ``live_name`` is its name while it is not terminated (NULL after), so a
# name is unique among live sandboxes of a namespace and a terminated one gives it up.
sandboxes = Table(
    "sandboxes",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("organization_id", String(128), nullable=False),
    Column("project_id", String(128), nullable=False),
    Column("namespace", String(128), nullable=False),
    Column("name", String(63)),
    Column("live_name", String(63)),
    Column("status", String(16), nullable=False),
    Column("spec", JSON, nullable=False),
    Column("mounts", JSON, nullable=False),
    Column("container_id", String(80)),
    Column("address", String(64)),
    Column("token", String(64)),
    Column("generation", Integer, nullable=False, default=0),
    Column("created_us", BigInteger, nullable=False),
    Column("updated_us", BigInteger, nullable=False),
    Column("terminated_us", BigInteger),
    Column("termination_reason", Text),
    Column("error_details", JSON),
    Column("restore_snapshot_id", String(40)),
    Column("last_active_us", BigInteger),
    Column("resource_resize", JSON),
    UniqueConstraint("organization_id", "project_id", "namespace", "live_name", name="uq_sandboxes_live_name"),
    Index("ix_sandboxes_scope_created", "organization_id", "project_id", "namespace", "created_us", "id"),
    Index("ix_sandboxes_status", "status"),
)

sandbox_snapshots = Table(
    "sandbox_snapshots",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("organization_id", String(128), nullable=False),
    Column("project_id", String(128), nullable=False),
    Column("namespace", String(128), nullable=False),
    Column("sandbox_id", String(40), nullable=False),
    Column("snapshot_type", String(16), nullable=False),
    Column("reason", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("spec", JSON, nullable=False),
    Column("image", Text),
    Column("size_bytes", BigInteger),
    Column("error", Text),
    Column("created_us", BigInteger, nullable=False),
    Index("ix_sandbox_snapshots_sandbox_created", "sandbox_id", "created_us"),
    Index("ix_sandbox_snapshots_scope_created", "organization_id", "project_id", "namespace", "created_us", "id"),
)

file_systems = Table(
    "file_systems",
    metadata,
    Column("organization_id", String(128), primary_key=True),
    Column("project_id", String(128), primary_key=True),
    Column("name", String(63), primary_key=True),
    Column("created_us", BigInteger, nullable=False),
)

file_system_snapshots = Table(
    "file_system_snapshots",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("organization_id", String(128), nullable=False),
    Column("project_id", String(128), nullable=False),
    Column("file_system_id", String(63), nullable=False),
    Column("size_bytes", BigInteger, nullable=False),
    Column("created_us", BigInteger, nullable=False),
    Index("ix_file_system_snapshots_fs", "organization_id", "project_id", "file_system_id", "created_us"),
)

ingests = Table(  # bulk ingestions by reference into a dataset
    "ingests",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("organization_id", String(128), nullable=False),
    Column("project_id", String(128), nullable=False),
    Column("dataset_id", String(40), nullable=False),
    Column("source", Text, nullable=False),
    Column("pattern", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("listed", Integer, nullable=False, default=0),
    Column("created", Integer, nullable=False, default=0),
    Column("skipped", Integer, nullable=False, default=0),
    Column("error", Text),
    Column("created_us", BigInteger, nullable=False),
    Column("updated_us", BigInteger, nullable=False),
    Index("ix_ingests_dataset_created", "dataset_id", "created_us"),
)
ingested = Table(  # what a dataset took by reference: one job per checksum
    "ingested",
    metadata,
    Column("dataset_id", String(40), primary_key=True),
    Column("checksum", String(128), primary_key=True),
    Column("job_id", String(40), nullable=False),
)
jobs = Table(
    "jobs",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("organization_id", String(128), nullable=False),
    Column("project_id", String(128), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("dataset_id", String(40)),
    Column("dataset_name", String(255)),
    Column("file_id", String(40)),
    Column("file_name", Text),
    Column("request", JSON, nullable=False),
    Column("labels", JSON, nullable=False),
    Column("created_us", BigInteger, nullable=False),
    Column("started_us", BigInteger),
    Column("finished_us", BigInteger),
    Column("lease_owner", String(64)),
    Column("lease_expires_us", BigInteger),
    Column("attempts", Integer, nullable=False, default=0),
    Column("error", Text),
    Column("result_key", Text),
    Column("total_pages", Integer),
    Column("parsed_pages_count", Integer, nullable=False, default=0),
    Column("flow_run_id", String(64)),
    Index("ix_jobs_scope_created", "organization_id", "project_id", "created_us", "id"),
    Index("ix_jobs_scope_status_created", "organization_id", "project_id", "status", "created_us", "id"),
    Index("ix_jobs_dataset_created", "dataset_id", "created_us", "id"),
    Index("ix_jobs_dataset_status", "dataset_id", "status"),
    Index("ix_jobs_scope_dataset_created", "organization_id", "project_id", "dataset_name", "created_us", "id"),
    Index("ix_jobs_scope_dataset_status_created", "organization_id", "project_id", "dataset_name", "status",
          "created_us", "id"),
    Index("ix_jobs_scope_created_file_name", "organization_id", "project_id", "created_us", "id", "file_name"),
    Index("ix_jobs_claim", "status", "lease_expires_us", "created_us"),
    Index("ix_jobs_claim_org", "status", "organization_id", "created_us"),
)
# PostgreSQL only (migration 0003, which skips it where pg_trgm is unavailable): serves the
# case-sensitive ``file_name LIKE '%…%'`` filter of ``assets.catalog.jobs.list_jobs``.
Index("ix_jobs_file_name_trgm", jobs.c.file_name, postgresql_using="gin",
      postgresql_ops={"file_name": "gin_trgm_ops"}).ddl_if(dialect="postgresql")


def now_us() -> int:
    return time.time_ns() // 1000


def _set_wal(cur: sqlite3.Cursor, timeout_s: float = 30.0) -> None:
    """Switch to WAL. Two processes opening a new catalog file together both try to convert it;
    SQLite then fails one of them at once with "database is locked" (a lock upgrade it will not
    wait for), so retry until the other one has finished."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def make_engine(url: str, *, pool_size: int = 10, max_overflow: int = 20) -> Engine:
    """An engine with the settings the catalog relies on (WAL + busy timeout for SQLite; a pool
    of ``pool_size`` + ``max_overflow`` connections elsewhere)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            # Let SQLAlchemy's begin() decide transactions (see _begin below).
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA busy_timeout=30000")
            _set_wal(cur)
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @event.listens_for(engine, "begin")
        def _begin(conn):  # type: ignore[no-untyped-def]
            # Writers take the write lock up front, so two writers never deadlock on a
            # read-to-write upgrade; readers stay deferred and run beside a writer (WAL).
            write = conn.get_execution_options().get("docklake_write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=pool_size, max_overflow=max_overflow)


def is_transient(exc: BaseException) -> bool:
    """The catalog is away for a moment (a restart, a dropped connection, SQLite busy), rather
    than the statement being wrong."""
    return isinstance(exc, (OperationalError, InterfaceError)) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated)


# A worker's catalog calls wait out an outage of up to two minutes instead of failing a job or
# the worker; the call is one transaction, so trying it again is safe.
waits_out_outages = retry(retry=retry_if_exception(is_transient), wait=wait_exponential_jitter(multiplier=0.2, max=5),
                          stop=stop_after_delay(120), reraise=True)


@contextmanager
def write_txn(engine: Engine) -> Iterator[Connection]:
    """A transaction that writes: use it for every change to the catalog (reads use
    ``engine.connect()``). On SQLite it holds the write lock from the first statement."""
    with engine.connect().execution_options(docklake_write=True) as conn, conn.begin():
        yield conn


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


MIGRATION_LOCK_ID = 0x646F636B6C616B  # any constant; "docklak"


def migrate(engine: Engine) -> None:
    """Bring the catalog schema to the newest revision (idempotent)."""
    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    with write_txn(engine) as conn:
        if conn.dialect.name == "postgresql":
            # Processes starting together (API, dispatcher, workers) would race to create the
            # same tables; serialise them (SQLite's BEGIN IMMEDIATE already does).
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_ID})")
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def open_catalog(settings: StorageSettings, *, migrated: bool = True) -> Engine:
    """The catalog named by ``settings``, its schema brought to the newest revision unless
    ``migrated=False`` (for processes that only read, or that must not change the schema)."""
    engine = make_engine(settings.catalog_url, pool_size=settings.catalog_pool_size,
                         max_overflow=settings.catalog_max_overflow)
    if migrated:
        migrate(engine)
    return engine
