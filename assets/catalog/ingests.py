"""Bulk ingestions by reference: their progress, and the jobs they make, a page at a time.

Why a table of checksums (``ingested``): a dataset takes a document once. Ingesting the same
folder again, or a folder holding copies, must skip what the dataset already holds; the
checksums of what it took by reference and of the files uploaded into it are the record of that.
Jobs are written many per transaction (one per page of a listing), since one transaction per
document is what made uploading a large collection slow.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from sqlalchemy import Engine, insert, select, update

from assets.catalog.db import files, ingested, ingests, jobs, now_us, write_txn
from assets.catalog.jobs import new_job_id
from pipelines.core.records import Ingest, IngestStatus, Job, JobKind, JobSource, JobStatus, Principal
from pipelines.core.requests import ParseRequest


def new_ingest_id() -> str:
    return f"ingest_{secrets.token_hex(12)}"


def create(engine: Engine, p: Principal, dataset_id: str, source: str, pattern: str) -> Ingest:
    now = now_us()
    ing = Ingest(new_ingest_id(), p.organization_id, p.project_id, dataset_id, source, pattern,
                 IngestStatus.running, now, now)
    with write_txn(engine) as conn:
        conn.execute(insert(ingests).values(
            id=ing.id, organization_id=ing.organization_id, project_id=ing.project_id, dataset_id=dataset_id,
            source=source, pattern=pattern, status=ing.status.value, listed=0, created=0, skipped=0,
            created_us=now, updated_us=now))
    return ing


def get(engine: Engine, p: Principal, dataset_id: str, ingest_id: str) -> Ingest | None:
    with engine.connect() as conn:
        row = conn.execute(select(ingests).where(
            ingests.c.id == ingest_id, ingests.c.dataset_id == dataset_id,
            ingests.c.organization_id == p.organization_id, ingests.c.project_id == p.project_id)).mappings().first()
    return Ingest.from_row(row) if row else None


def unfinished(engine: Engine, quiet_s: float) -> list[Ingest]:
    """Ingestions left running and not updated for ``quiet_s`` (their API process stopped; a
    running one writes after every page): taken up again at start."""
    with engine.connect() as conn:
        rows = conn.execute(select(ingests).where(
            ingests.c.status == IngestStatus.running.value,
            ingests.c.updated_us < now_us() - int(quiet_s * 1e6))).mappings().all()
    return [Ingest.from_row(r) for r in rows]


def progress(engine: Engine, ingest_id: str, *, listed: int | None = None, status: IngestStatus | None = None,
             error: str | None = None) -> None:
    values: dict[str, object] = {"updated_us": now_us()}
    if listed is not None:
        values["listed"] = listed
    if status is not None:
        values["status"] = status.value
    if error is not None:
        values["error"] = error
    with write_txn(engine) as conn:
        conn.execute(update(ingests).where(ingests.c.id == ingest_id).values(**values))


def held(engine: Engine, dataset_id: str, checksums: Iterable[str]) -> set[str]:
    """Those of ``checksums`` the dataset already holds: taken by reference, or uploaded into it
    (a file's ``sha256:`` checksum)."""
    wanted = list(set(checksums))
    found: set[str] = set()
    uploaded = [c.removeprefix("sha256:") for c in wanted if c.startswith("sha256:")]
    with engine.connect() as conn:
        for i in range(0, len(wanted), 500):
            part = wanted[i:i + 500]
            found.update(conn.execute(select(ingested.c.checksum).where(
                ingested.c.dataset_id == dataset_id, ingested.c.checksum.in_(part))).scalars())
        for i in range(0, len(uploaded), 500):
            part = uploaded[i:i + 500]
            found.update("sha256:" + c for c in conn.execute(
                select(files.c.checksum_sha256).join(jobs, jobs.c.file_id == files.c.id)
                .where(jobs.c.dataset_id == dataset_id, files.c.checksum_sha256.in_(part))).scalars())
    return found


def add_jobs(engine: Engine, ing: Ingest, dataset_name: str, options: ParseRequest,
             docs: list[tuple[str, str, int, str]], skipped: int) -> list[str]:
    """One transaction: a pending parse job per ``(url, file name, size, checksum)`` in ``docs``
    (labelled with its ``source``, so a caller sees which document each job is) and its checksum
    in ``ingested``, and the ingestion's counts; the new jobs' ids."""
    now = now_us()
    rows, taken, ids = [], [], []
    for url, name, size, checksum in docs:
        job_id = new_job_id()
        source = JobSource.ref(url, size, checksum)
        rows.append(dict(id=job_id, organization_id=ing.organization_id, project_id=ing.project_id,
                         kind=JobKind.parse.value, status=JobStatus.pending.value, dataset_id=ing.dataset_id,
                         dataset_name=dataset_name, file_id=None, file_name=name,
                         request=Job.stored_request(source, options), labels={"source": url},
                         created_us=now, attempts=0,
                         parsed_pages_count=0))
        taken.append(dict(dataset_id=ing.dataset_id, checksum=checksum, job_id=job_id))
        ids.append(job_id)
    with write_txn(engine) as conn:
        if rows:
            conn.execute(insert(jobs), rows)
            conn.execute(insert(ingested), taken)
        conn.execute(update(ingests).where(ingests.c.id == ing.id).values(
            created=ingests.c.created + len(rows), skipped=ingests.c.skipped + skipped, updated_us=now))
    return ids
