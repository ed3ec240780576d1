"""a sandbox's latest live resize (generation, requested resources, status)

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 17:00:00
"""
import sqlalchemy as sa
from alembic import op

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('sandboxes') as batch:
        batch.add_column(sa.Column('resource_resize', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('sandboxes') as batch:
        batch.drop_column('resource_resize')
