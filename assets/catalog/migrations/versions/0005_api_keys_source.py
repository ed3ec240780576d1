"""api_keys: where a key came from, so keys dropped from DOCKLAKE_API_KEYS stop working

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 04:00:00
"""
import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('api_keys') as batch_op:
        batch_op.add_column(sa.Column('source', sa.String(length=16), nullable=False,
                                      server_default='created'))


def downgrade() -> None:
    with op.batch_alter_table('api_keys') as batch_op:
        batch_op.drop_column('source')
