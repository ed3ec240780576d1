"""Organizations in turn: the round-robin by which claims and deliveries share workers between
tenants, so that one tenant's backlog never holds another's jobs back. Apart from ``jobs``
because both the claims there and the delivery marks of ``deliveries`` take their rows by it."""

from __future__ import annotations

from collections.abc import Callable, Sized
from typing import Any

from sqlalchemy import and_, select, text

from assets.catalog.db import jobs
from pipelines.core.records import JobStatus

PENDING = JobStatus.pending.value


def in_turn(conn: Any, runnable: Any, columns: tuple[Any, ...], take: Callable[[list[Any], Any], bool], *,
            after_org: str, limit: int, taken: Sized, busy: dict[str, int], per_org: int | None) -> None:
    """The round-robin between organizations that ``claim`` and delivery marking share: the
    organizations with pending jobs in name order starting after ``after_org``, each offering
    its oldest ``runnable`` rows (``columns`` of them, locked with SKIP LOCKED on PostgreSQL) to
    ``take(rows, where)`` (``where``: ``runnable`` and of that organization; ``take`` says whether
    it made progress), round after round until ``taken`` holds ``limit``, no organization has
    any left, or a round made no progress. A round offers each organization an equal share of
    the room left (at least one row): one organization's backlog is one query and one update,
    not one per job. An organization whose ``busy`` count (kept up to date by ``take``) reached
    ``per_org`` is passed over from then on."""
    lock = conn.dialect.name == "postgresql"
    orgs = pending_orgs(conn, after_org, limit)
    while len(taken) < limit and orgs:
        progressed = False
        share = max(1, (limit - len(taken)) // len(orgs))
        for org in list(orgs):
            if len(taken) >= limit:
                break
            want = min(share, limit - len(taken))
            if per_org is not None:
                want = min(want, per_org - busy.get(org, 0))
            if want <= 0:
                orgs.remove(org)
                continue
            of_org = and_(runnable, jobs.c.organization_id == org)
            q = select(*columns).where(of_org).order_by(jobs.c.created_us).limit(want)
            rows = list(conn.execute(q.with_for_update(skip_locked=True) if lock else q))
            if len(rows) < want:  # (what it has left is here)
                orgs.remove(org)
            if rows:
                progressed = take(rows, of_org) or progressed
        if not progressed:
            break


def pending_orgs(conn: Any, after: str, limit: int) -> list[str]:
    """Up to ``limit`` organizations with pending jobs, in name order starting after ``after``
    and wrapping around. A loose index scan (one index probe per organization, whatever the
    backlog), written as a recursive query both SQLite and PostgreSQL run."""
    def scan(start: str, n: int) -> list[str]:
        sql = text(
            "WITH RECURSIVE orgs(o, k) AS ("
            " SELECT (SELECT min(organization_id) FROM jobs WHERE status = :p AND organization_id > :start), 1"
            " UNION ALL"
            " SELECT (SELECT min(organization_id) FROM jobs WHERE status = :p AND organization_id > orgs.o), k + 1"
            " FROM orgs WHERE orgs.o IS NOT NULL AND k < :n)"
            " SELECT o FROM orgs WHERE o IS NOT NULL")
        return [r[0] for r in conn.execute(sql, {"p": PENDING, "start": start, "n": n})]

    found = scan(after, limit)
    if len(found) < limit and after:
        found += [o for o in scan("", limit - len(found)) if o <= after and o not in found]
    return found
