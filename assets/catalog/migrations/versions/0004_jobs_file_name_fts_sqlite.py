"""jobs: trigram full-text index on file_name (SQLite only)

SQLite's B-tree indexes cannot answer a substring filter, so a rare ``filename=`` scanned every
job of the project (1M jobs: ~200 ms). An FTS5 table with the case-sensitive trigram tokenizer,
kept in step by triggers, finds the few matching rows directly; ``assets.catalog.jobs.list_jobs`` uses it
only when a probe shows the substring is rare (common ones are found sooner by the ordered scan).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 03:10:00
"""
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

STATEMENTS = [
    "CREATE VIRTUAL TABLE jobs_file_name_fts USING fts5(file_name, content='jobs', "
    "content_rowid='rowid', tokenize='trigram case_sensitive 1')",
    "INSERT INTO jobs_file_name_fts(jobs_file_name_fts) VALUES ('rebuild')",
    "CREATE TRIGGER jobs_file_name_fts_ai AFTER INSERT ON jobs WHEN new.file_name IS NOT NULL BEGIN "
    "INSERT INTO jobs_file_name_fts(rowid, file_name) VALUES (new.rowid, new.file_name); END",
    "CREATE TRIGGER jobs_file_name_fts_ad AFTER DELETE ON jobs WHEN old.file_name IS NOT NULL BEGIN "
    "INSERT INTO jobs_file_name_fts(jobs_file_name_fts, rowid, file_name) "
    "VALUES ('delete', old.rowid, old.file_name); END",
    "CREATE TRIGGER jobs_file_name_fts_au AFTER UPDATE OF file_name ON jobs BEGIN "
    "INSERT INTO jobs_file_name_fts(jobs_file_name_fts, rowid, file_name) "
    "SELECT 'delete', old.rowid, old.file_name WHERE old.file_name IS NOT NULL; "
    "INSERT INTO jobs_file_name_fts(rowid, file_name) "
    "SELECT new.rowid, new.file_name WHERE new.file_name IS NOT NULL; END",
]


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for sql in STATEMENTS:
        op.execute(sql)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for name in ("jobs_file_name_fts_ai", "jobs_file_name_fts_ad", "jobs_file_name_fts_au"):
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.execute("DROP TABLE IF EXISTS jobs_file_name_fts")
