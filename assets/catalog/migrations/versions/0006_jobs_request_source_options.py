"""jobs.request: the job's source and its options kept apart

Rows written before this revision hold a ParseRequest dump in which ``raw_text`` was replaced by
an undeclared ``raw_text_key``. They become ``{"source": {...}, "options": {...}}``.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22 18:00:00
"""
import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

jobs = sa.table('jobs', sa.column('id', sa.String), sa.column('request', sa.JSON))
SOURCE_FIELDS = ('file_id', 'file_url', 'raw_text', 'raw_text_key')
BATCH = 1000


def _source(old: dict) -> dict:
    if old.get('raw_text_key'):
        return {'kind': 'text', 'text_key': old['raw_text_key']}
    if old.get('file_url'):
        return {'kind': 'url', 'url': old['file_url']}
    if old.get('file_id'):
        return {'kind': 'file', 'file_id': old['file_id']}
    return {'kind': 'text'}  # no source at all: the worker fails the job saying so


def upgrade() -> None:
    conn = op.get_bind()
    last = ''
    while True:
        rows = conn.execute(sa.select(jobs.c.id, jobs.c.request).where(jobs.c.id > last)
                            .order_by(jobs.c.id).limit(BATCH)).all()
        if not rows:
            return
        for job_id, old in rows:
            if isinstance(old, dict) and 'source' not in old:
                new = {'source': _source(old),
                       'options': {k: v for k, v in old.items() if k not in SOURCE_FIELDS}}
                conn.execute(sa.update(jobs).where(jobs.c.id == job_id).values(request=new))
        last = rows[-1][0]


def downgrade() -> None:
    conn = op.get_bind()
    for job_id, new in conn.execute(sa.select(jobs.c.id, jobs.c.request)).all():
        if isinstance(new, dict) and 'source' in new:
            src, old = new['source'], dict(new.get('options') or {})
            key = {'file': 'file_id', 'url': 'file_url', 'text': 'raw_text_key'}[src['kind']]
            value = src.get({'file': 'file_id', 'url': 'url', 'text': 'text_key'}[src['kind']])
            if value:
                old[key] = value
            conn.execute(sa.update(jobs).where(jobs.c.id == job_id).values(request=old))
