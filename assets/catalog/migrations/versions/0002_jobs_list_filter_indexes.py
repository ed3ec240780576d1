"""jobs: indexes for the dataset+status list filter and the file-name substring filter

``GET /documents/v2/parse?dataset_name=…&status=…`` used ix_jobs_scope_status_created and
checked dataset_name row by row; (scope, dataset_name, status, created_us, id) answers it with
one index range. ``filename=`` is a case-sensitive substring test that no B-tree can seek; with
file_name in an index ordered like the listing, SQLite tests it on index entries instead of
fetching every table row (3x faster on 1M rows; see bench/README.md).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 02:45:00
"""
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.create_index('ix_jobs_scope_dataset_status_created',
                              ['organization_id', 'project_id', 'dataset_name', 'status', 'created_us', 'id'],
                              unique=False)
        batch_op.create_index('ix_jobs_scope_created_file_name',
                              ['organization_id', 'project_id', 'created_us', 'id', 'file_name'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.drop_index('ix_jobs_scope_created_file_name')
        batch_op.drop_index('ix_jobs_scope_dataset_status_created')
