"""Alembic environment: runs on the connection handed over by ``assets.catalog.db.migrate``."""

from alembic import context
from sqlalchemy import create_engine

from assets.catalog.db import metadata

config = context.config
connection = config.attributes.get("connection")

if connection is None:
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.begin() as connection:
        context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
