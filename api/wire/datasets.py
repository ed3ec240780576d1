"""Datasets on the wire: the record (with its analytics and configuration when asked for) and
lists of them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from api.wire.common import Paginated
from pipelines.core.records import Dataset as DatasetRecord
from pipelines.core.records import Ingest as IngestRecord
from pipelines.core.records import JobStatus, rfc3339


class DatasetCreated(BaseModel):
    name: str
    dataset_id: str
    created_at: str


class DatasetAnalytics(BaseModel):
    total_processing_parse_jobs: int
    total_pending_parse_jobs: int
    total_error_parse_jobs: int
    total_successful_parse_jobs: int
    total_jobs: int


class Dataset(BaseModel):
    name: str
    dataset_id: str
    description: str | None
    status: str = Field(description="`processing` while any of its jobs is pending or processing, else `idle`.")
    created_at: str
    updated_at: str
    analytics: DatasetAnalytics | None = Field(None, description="With ?include_analytics=true.")
    configuration: dict[str, Any] | None = Field(None, description="With ?include_configuration=true: the "
                                                 "settings its next jobs get.")


class DatasetList(Paginated):
    items: list[Dataset]


def dataset(ds: DatasetRecord, *, analytics: bool = False, configuration: bool = False) -> dict[str, Any]:
    """A dataset as the wire shows it; ``analytics`` and ``configuration`` only when asked for."""
    out = Dataset(name=ds.name, dataset_id=ds.id, description=ds.description, status=ds.status.value,
                  created_at=rfc3339(ds.created_us), updated_at=rfc3339(ds.updated_us))
    if analytics:
        n = ds.job_counts or {}
        out.analytics = DatasetAnalytics(
            total_processing_parse_jobs=n.get(JobStatus.processing.value, 0),
            total_pending_parse_jobs=n.get(JobStatus.pending.value, 0),
            total_error_parse_jobs=n.get(JobStatus.failure.value, 0),
            total_successful_parse_jobs=n.get(JobStatus.successful.value, 0),
            total_jobs=sum(n.values()),
        )
    if configuration:
        out.configuration = ds.configuration.model_dump(mode="json", exclude_none=True)
    return out.model_dump(exclude_unset=True)


class IngestBody(BaseModel):
    """A bulk ingestion by reference (a docklake extension) and how far it got."""

    ingest_id: str
    dataset_id: str
    source: str
    pattern: str
    status: str = Field(description="`running`, `completed` or `failed`.")
    listed: int = Field(description="Documents found under the source that match the pattern.")
    created: int = Field(description="Parse jobs made so far.")
    skipped: int = Field(description="Documents the dataset already held (same checksum).")
    error: str | None = None
    created_at: str
    updated_at: str


def ingest_body(ing: IngestRecord) -> dict[str, Any]:
    return IngestBody(ingest_id=ing.id, dataset_id=ing.dataset_id, source=ing.source, pattern=ing.pattern,
                      status=ing.status.value, listed=ing.listed, created=ing.created, skipped=ing.skipped,
                      error=ing.error, created_at=rfc3339(ing.created_us),
                      updated_at=rfc3339(ing.updated_us)).model_dump()
