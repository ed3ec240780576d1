"""The SQL catalog: the source of truth for mutable state.

``db`` holds the tables, the engine and the migrations (Alembic, under ``migrations/``); one module
per kind of row — ``keys``, ``files``, ``jobs`` (claims with leases), ``deliveries``, ``datasets``,
``webhooks`` (and their outbox), ``sandboxes``, ``file_systems`` — turns rows into the core's typed
records and back. SQLite by default, PostgreSQL tested; nothing here knows Prefect or FastAPI.
"""
