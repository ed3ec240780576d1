"""bulk ingestions by reference into datasets, and what each dataset took

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 11:40:00
"""
import sqlalchemy as sa
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'ingests',
        sa.Column('id', sa.String(length=40), nullable=False),
        sa.Column('organization_id', sa.String(length=128), nullable=False),
        sa.Column('project_id', sa.String(length=128), nullable=False),
        sa.Column('dataset_id', sa.String(length=40), nullable=False),
        sa.Column('source', sa.Text(), nullable=False),
        sa.Column('pattern', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('listed', sa.Integer(), nullable=False),
        sa.Column('created', sa.Integer(), nullable=False),
        sa.Column('skipped', sa.Integer(), nullable=False),
        sa.Column('error', sa.Text(), nullable=True),
        sa.Column('created_us', sa.BigInteger(), nullable=False),
        sa.Column('updated_us', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_ingests_dataset_created', 'ingests', ['dataset_id', 'created_us'])
    op.create_table(
        'ingested',
        sa.Column('dataset_id', sa.String(length=40), nullable=False),
        sa.Column('checksum', sa.String(length=128), nullable=False),
        sa.Column('job_id', sa.String(length=40), nullable=False),
        sa.PrimaryKeyConstraint('dataset_id', 'checksum'),
    )


def downgrade() -> None:
    op.drop_table('ingested')
    op.drop_index('ix_ingests_dataset_created', table_name='ingests')
    op.drop_table('ingests')
