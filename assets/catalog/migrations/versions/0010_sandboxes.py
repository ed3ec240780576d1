"""sandboxes and their snapshots

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-22 22:30:00
"""
import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'sandboxes',
        sa.Column('id', sa.String(length=40), nullable=False),
        sa.Column('organization_id', sa.String(length=128), nullable=False),
        sa.Column('project_id', sa.String(length=128), nullable=False),
        sa.Column('namespace', sa.String(length=128), nullable=False),
        sa.Column('name', sa.String(length=63), nullable=True),
        sa.Column('live_name', sa.String(length=63), nullable=True),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('spec', sa.JSON(), nullable=False),
        sa.Column('mounts', sa.JSON(), nullable=False),
        sa.Column('container_id', sa.String(length=80), nullable=True),
        sa.Column('address', sa.String(length=64), nullable=True),
        sa.Column('token', sa.String(length=64), nullable=True),
        sa.Column('generation', sa.Integer(), nullable=False),
        sa.Column('created_us', sa.BigInteger(), nullable=False),
        sa.Column('updated_us', sa.BigInteger(), nullable=False),
        sa.Column('terminated_us', sa.BigInteger(), nullable=True),
        sa.Column('termination_reason', sa.Text(), nullable=True),
        sa.Column('error_details', sa.JSON(), nullable=True),
        sa.Column('restore_snapshot_id', sa.String(length=40), nullable=True),
        sa.Column('last_active_us', sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('organization_id', 'project_id', 'namespace', 'live_name', name='uq_sandboxes_live_name'),
    )
    op.create_index('ix_sandboxes_scope_created', 'sandboxes',
                    ['organization_id', 'project_id', 'namespace', 'created_us', 'id'])
    op.create_index('ix_sandboxes_status', 'sandboxes', ['status'])
    op.create_table(
        'sandbox_snapshots',
        sa.Column('id', sa.String(length=40), nullable=False),
        sa.Column('organization_id', sa.String(length=128), nullable=False),
        sa.Column('project_id', sa.String(length=128), nullable=False),
        sa.Column('namespace', sa.String(length=128), nullable=False),
        sa.Column('sandbox_id', sa.String(length=40), nullable=False),
        sa.Column('snapshot_type', sa.String(length=16), nullable=False),
        sa.Column('reason', sa.String(length=16), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('spec', sa.JSON(), nullable=False),
        sa.Column('image', sa.Text(), nullable=True),
        sa.Column('size_bytes', sa.BigInteger(), nullable=True),
        sa.Column('error', sa.Text(), nullable=True),
        sa.Column('created_us', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_sandbox_snapshots_sandbox_created', 'sandbox_snapshots', ['sandbox_id', 'created_us'])
    op.create_index('ix_sandbox_snapshots_scope_created', 'sandbox_snapshots',
                    ['organization_id', 'project_id', 'namespace', 'created_us', 'id'])


def downgrade() -> None:
    op.drop_index('ix_sandbox_snapshots_scope_created', table_name='sandbox_snapshots')
    op.drop_index('ix_sandbox_snapshots_sandbox_created', table_name='sandbox_snapshots')
    op.drop_table('sandbox_snapshots')
    op.drop_index('ix_sandboxes_status', table_name='sandboxes')
    op.drop_index('ix_sandboxes_scope_created', table_name='sandboxes')
    op.drop_table('sandboxes')
