"""datasets: named collections' settings; jobs indexed by dataset for its listing and counts

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-22 20:10:00
"""
import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'datasets',
        sa.Column('id', sa.String(length=40), nullable=False),
        sa.Column('organization_id', sa.String(length=128), nullable=False),
        sa.Column('project_id', sa.String(length=128), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('description', sa.Text(), nullable=True),
        sa.Column('configuration', sa.JSON(), nullable=False),
        sa.Column('created_us', sa.BigInteger(), nullable=False),
        sa.Column('updated_us', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('organization_id', 'project_id', 'name', name='uq_datasets_scope_name'),
    )
    op.create_index('ix_datasets_scope_created', 'datasets', ['organization_id', 'project_id', 'created_us', 'id'])
    with op.batch_alter_table('jobs') as batch_op:
        batch_op.create_index('ix_jobs_dataset_created', ['dataset_id', 'created_us', 'id'], unique=False)
        batch_op.create_index('ix_jobs_dataset_status', ['dataset_id', 'status'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('jobs') as batch_op:
        batch_op.drop_index('ix_jobs_dataset_status')
        batch_op.drop_index('ix_jobs_dataset_created')
    op.drop_index('ix_datasets_scope_created', table_name='datasets')
    op.drop_table('datasets')
