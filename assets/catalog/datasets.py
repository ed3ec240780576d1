"""The catalog's datasets: named settings, unique by name within an organization and project.
A dataset's status and analytics are counted from its jobs, never stored."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import Engine, and_, delete, exists, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from assets.catalog.db import datasets, jobs, now_us, write_txn
from assets.catalog.pagination import paginate
from pipelines.core.errors import AlreadyExists
from pipelines.core.records import Dataset, DatasetStatus, Job, JobStatus, Page, Principal
from pipelines.core.requests import ParseConfiguration

BUSY = (JobStatus.pending.value, JobStatus.processing.value)


def new_dataset_id() -> str:
    return "dataset_" + secrets.token_hex(12)


def _scoped(p: Principal) -> Any:
    return and_(datasets.c.organization_id == p.organization_id, datasets.c.project_id == p.project_id)


def _taken(name: str) -> AlreadyExists:
    return AlreadyExists(f"a dataset named {name!r} already exists in this project")


def create(engine: Engine, p: Principal, name: str, description: str | None,
           configuration: ParseConfiguration) -> Dataset:
    now = now_us()
    ds = Dataset(id=new_dataset_id(), organization_id=p.organization_id, project_id=p.project_id, name=name,
                 created_us=now, updated_us=now, description=description, configuration=configuration,
                 job_counts={})
    try:
        with write_txn(engine) as conn:
            conn.execute(insert(datasets).values(
                id=ds.id, organization_id=ds.organization_id, project_id=ds.project_id, name=name,
                description=description, configuration=configuration.model_dump(mode="json", exclude_none=True),
                created_us=now, updated_us=now))
    except IntegrityError:
        raise _taken(name) from None
    return ds


def job_counts(engine: Engine, dataset_ids: list[str]) -> dict[str, dict[str, int]]:
    """Jobs by status for each dataset (one query; served by ix_jobs_dataset_status)."""
    if not dataset_ids:
        return {}
    out: dict[str, dict[str, int]] = {i: {} for i in dataset_ids}
    with engine.connect() as conn:
        rows = conn.execute(select(jobs.c.dataset_id, jobs.c.status, func.count())
                            .where(jobs.c.dataset_id.in_(dataset_ids))
                            .group_by(jobs.c.dataset_id, jobs.c.status))
        for dataset_id, status, n in rows:
            out[dataset_id][status] = n
    return out


def get(engine: Engine, p: Principal, dataset_id: str) -> Dataset | None:
    with engine.connect() as conn:
        row = conn.execute(select(datasets).where(_scoped(p), datasets.c.id == dataset_id)).mappings().first()
    if row is None:
        return None
    return Dataset.from_row(row, job_counts(engine, [row["id"]])[row["id"]])


def get_by_name(engine: Engine, p: Principal, name: str) -> Dataset | None:
    with engine.connect() as conn:
        row = conn.execute(select(datasets).where(_scoped(p), datasets.c.name == name)).mappings().first()
    if row is None:
        return None
    return Dataset.from_row(row, job_counts(engine, [row["id"]])[row["id"]])


def list_datasets(engine: Engine, p: Principal, *, name: str | None, status: DatasetStatus | None,
                  cursor: str | None, direction: str, limit: int) -> Page:
    """A page of ``Dataset`` records (with their job counts), newest first."""
    q = select(datasets).where(_scoped(p))
    if name is not None:
        q = q.where(datasets.c.name == name)
    if status is not None:
        busy = exists().where(jobs.c.dataset_id == datasets.c.id, jobs.c.status.in_(BUSY))
        q = q.where(busy if status == DatasetStatus.processing else ~busy)
    with engine.connect() as conn:
        page = paginate(conn, q, datasets.c.created_us, datasets.c.id, cursor=cursor,
                        direction=direction, limit=limit)  # type: ignore[arg-type]
    counts = job_counts(engine, [r["id"] for r in page.rows])
    page.rows = [Dataset.from_row(r, counts[r["id"]]) for r in page.rows]
    return page


def update_dataset(engine: Engine, p: Principal, dataset_id: str, *, description: str | None | bool,
                   configuration: ParseConfiguration | None, name: str | None = None) -> Dataset | None:
    """Replace the description (``False``: keep it), the configuration and the name (``None``:
    keep them). Jobs keep the name they were submitted under."""
    values: dict[str, Any] = {"updated_us": now_us()}
    if name is not None:
        values["name"] = name
    if description is not False:
        values["description"] = description
    if configuration is not None:
        values["configuration"] = configuration.model_dump(mode="json", exclude_none=True)
    try:
        with write_txn(engine) as conn:
            done = conn.execute(update(datasets).where(_scoped(p), datasets.c.id == dataset_id).values(**values))
    except IntegrityError:
        raise _taken(name or "") from None
    return get(engine, p, dataset_id) if done.rowcount else None


def delete_dataset(engine: Engine, p: Principal, dataset_id: str) -> tuple[Dataset, list[Job]] | None:
    """Delete the dataset and its jobs (one transaction); the dataset and the jobs deleted, whose
    results and stored texts the caller removes. A worker still converting one of them finds
    its job gone and keeps nothing."""
    with write_txn(engine) as conn:
        row = conn.execute(select(datasets).where(_scoped(p), datasets.c.id == dataset_id)).mappings().first()
        if row is None:
            return None
        gone = [Job.from_row(r) for r in conn.execute(
            select(jobs).where(jobs.c.dataset_id == dataset_id)).mappings()]
        conn.execute(delete(jobs).where(jobs.c.dataset_id == dataset_id))
        conn.execute(delete(datasets).where(datasets.c.id == dataset_id))
    return Dataset.from_row(row), gone
