"""jobs: an index to claim the oldest pending job of each organization in turn

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-22 18:30:00
"""
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('jobs') as batch_op:
        batch_op.create_index('ix_jobs_claim_org', ['status', 'organization_id', 'created_us'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('jobs') as batch_op:
        batch_op.drop_index('ix_jobs_claim_org')
