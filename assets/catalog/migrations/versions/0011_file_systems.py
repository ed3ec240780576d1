"""file systems that sandboxes mount, and their permanent snapshots

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-22 22:40:00
"""
import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'file_systems',
        sa.Column('organization_id', sa.String(length=128), nullable=False),
        sa.Column('project_id', sa.String(length=128), nullable=False),
        sa.Column('name', sa.String(length=63), nullable=False),
        sa.Column('created_us', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('organization_id', 'project_id', 'name'),
    )
    op.create_table(
        'file_system_snapshots',
        sa.Column('id', sa.String(length=40), nullable=False),
        sa.Column('organization_id', sa.String(length=128), nullable=False),
        sa.Column('project_id', sa.String(length=128), nullable=False),
        sa.Column('file_system_id', sa.String(length=63), nullable=False),
        sa.Column('size_bytes', sa.BigInteger(), nullable=False),
        sa.Column('created_us', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_file_system_snapshots_fs', 'file_system_snapshots',
                    ['organization_id', 'project_id', 'file_system_id', 'created_us'])


def downgrade() -> None:
    op.drop_index('ix_file_system_snapshots_fs', table_name='file_system_snapshots')
    op.drop_table('file_system_snapshots')
    op.drop_table('file_systems')
