"""webhooks: endpoints per project, their deliveries (an outbox filled when a job finishes) and
every delivery attempt

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-22 20:20:00
"""
import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'webhooks',
        sa.Column('id', sa.String(length=40), nullable=False),
        sa.Column('organization_id', sa.String(length=128), nullable=False),
        sa.Column('project_id', sa.String(length=128), nullable=False),
        sa.Column('url', sa.Text(), nullable=False),
        sa.Column('secret', sa.String(length=128), nullable=False),
        sa.Column('events', sa.JSON(), nullable=False),
        sa.Column('dataset_id', sa.String(length=40), nullable=True),
        sa.Column('created_us', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_webhooks_scope_created', 'webhooks', ['organization_id', 'project_id', 'created_us', 'id'])
    op.create_table(
        'webhook_deliveries',
        sa.Column('id', sa.String(length=40), nullable=False),
        sa.Column('webhook_id', sa.String(length=40), nullable=False),
        sa.Column('organization_id', sa.String(length=128), nullable=False),
        sa.Column('project_id', sa.String(length=128), nullable=False),
        sa.Column('event', sa.String(length=32), nullable=False),
        sa.Column('job_id', sa.String(length=40), nullable=False),
        sa.Column('payload', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt_us', sa.BigInteger(), nullable=True),
        sa.Column('lease_owner', sa.String(length=64), nullable=True),
        sa.Column('last_error', sa.Text(), nullable=True),
        sa.Column('created_us', sa.BigInteger(), nullable=False),
        sa.Column('delivered_us', sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_webhook_deliveries_due', 'webhook_deliveries', ['status', 'next_attempt_us'])
    op.create_index('ix_webhook_deliveries_webhook_created', 'webhook_deliveries',
                    ['webhook_id', 'created_us', 'id'])
    op.create_table(
        'webhook_attempts',
        sa.Column('delivery_id', sa.String(length=40), nullable=False),
        sa.Column('attempt', sa.Integer(), nullable=False),
        sa.Column('at_us', sa.BigInteger(), nullable=False),
        sa.Column('status_code', sa.Integer(), nullable=True),
        sa.Column('error', sa.Text(), nullable=True),
        sa.Column('duration_ms', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('delivery_id', 'attempt'),
    )


def downgrade() -> None:
    op.drop_table('webhook_attempts')
    op.drop_index('ix_webhook_deliveries_webhook_created', table_name='webhook_deliveries')
    op.drop_index('ix_webhook_deliveries_due', table_name='webhook_deliveries')
    op.drop_table('webhook_deliveries')
    op.drop_index('ix_webhooks_scope_created', table_name='webhooks')
    op.drop_table('webhooks')
