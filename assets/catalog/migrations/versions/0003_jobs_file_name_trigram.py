"""jobs: trigram index on file_name (PostgreSQL only)

``GET /documents/v2/parse?filename=…`` is a case-sensitive substring filter. On PostgreSQL,
``list_jobs`` sends it as ``file_name LIKE '%…%'`` (case-sensitive there), which a pg_trgm GIN
index answers; the planner still prefers the ordered scan for common substrings. 1M jobs, rare
substring: 567 ms → 12 ms (bench/README.md). pg_trgm is a trusted extension (PostgreSQL 13+);
where it cannot be created the index is skipped and the filter stays a (correct) scan.
SQLite has no equivalent index and is left alone.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 02:55:00
"""
import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    try:
        with bind.begin_nested():
            bind.execute(sa.text("CREATE EXTENSION IF NOT EXISTS pg_trgm"))
    except sa.exc.DBAPIError:
        return  # no pg_trgm here: filename= keeps working, unindexed
    op.create_index('ix_jobs_file_name_trgm', 'jobs', ['file_name'], unique=False,
                    postgresql_using='gin', postgresql_ops={'file_name': 'gin_trgm_ops'})


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute("DROP INDEX IF EXISTS ix_jobs_file_name_trgm")
