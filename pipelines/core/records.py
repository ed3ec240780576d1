"""The typed records of the catalog: who is asking (``Principal``), files (``FileRecord``) and
jobs (``JobSummary`` in listings, ``Job`` with its source and options).

The catalog (``assets``) builds them from rows; the use cases (``pipelines.usecases``) and the
API's wire layer (``api.wire.documents``) only ever see these, never a row or a dict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel

from pipelines.core.requests import ParseConfiguration, ParseRequest


@dataclass(frozen=True)
class Principal:
    """The organization and project an API key acts for."""

    organization_id: str
    project_id: str
    key_id: str = ""


class JobStatus(str, Enum):
    pending = "pending"
    processing = "processing"
    successful = "successful"
    failure = "failure"

    @property
    def terminal(self) -> bool:
        return self in (JobStatus.successful, JobStatus.failure)


TERMINAL = (JobStatus.successful, JobStatus.failure)


class JobKind(str, Enum):
    parse = "parse"
    read = "read"
    extract = "extract"
    classify = "classify"
    edit = "edit"


class JobSource(BaseModel):
    """Where a job's document comes from, decided once when the job is submitted: a stored file,
    a URL fetched by the worker, text the API put in storage (never in the catalog row), or a
    reference to a document left in a source an operator allowed (bulk ingestion)."""

    kind: Literal["file", "url", "text", "ref"]
    file_id: str | None = None
    url: str | None = None
    text_key: str | None = None
    size: int | None = None  # bytes, when known at submission: how much work the job may be
    checksum: str | None = None  # a reference's, at ingestion: ``sha256:…`` or the store's ``etag:…``

    @classmethod
    def file(cls, file_id: str, size: int | None = None) -> JobSource:
        return cls(kind="file", file_id=file_id, size=size)

    @classmethod
    def from_url(cls, url: str) -> JobSource:
        return cls(kind="url", url=url)

    @classmethod
    def ref(cls, url: str, size: int | None, checksum: str | None) -> JobSource:
        """A document left where it is (bulk ingestion): read from ``url`` by the worker."""
        return cls(kind="ref", url=url, size=size, checksum=checksum)

    @classmethod
    def text(cls, key: str, size: int | None = None) -> JobSource:
        return cls(kind="text", text_key=key, size=size)


# The request fields that name the source; the rest of a ParseRequest is the job's options.
SOURCE_FIELDS = frozenset({"file_id", "file_url", "raw_text"})


@dataclass
class FileRecord:
    id: str
    file_name: str | None
    mime_type: str
    file_size: int
    checksum_sha256: str
    created_us: int
    storage_key: str
    labels: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, r: Any) -> FileRecord:
        return cls(r["id"], r["file_name"], r["mime_type"], r["file_size"], r["checksum_sha256"],
                   r["created_us"], r["storage_key"], r["labels"] or {})


@dataclass
class JobSummary:
    """A job as listings show it: everything but its source and options."""

    id: str
    organization_id: str
    project_id: str
    kind: JobKind
    status: JobStatus
    created_us: int
    labels: dict[str, Any] = field(default_factory=dict)
    dataset_id: str | None = None
    dataset_name: str | None = None
    file_id: str | None = None
    file_name: str | None = None
    started_us: int | None = None
    finished_us: int | None = None
    lease_owner: str | None = None
    lease_expires_us: int | None = None
    attempts: int = 0
    error: str | None = None
    result_key: str | None = None
    total_pages: int | None = None
    parsed_pages_count: int = 0
    flow_run_id: str | None = None
    # Set by a claim that took the job over from a worker whose lease expired: that worker.
    reclaimed_from: str | None = None

    @property
    def principal(self) -> Principal:
        return Principal(self.organization_id, self.project_id)

    @classmethod
    def _fields(cls, r: Any) -> dict[str, Any]:
        return dict(
            id=r["id"], organization_id=r["organization_id"], project_id=r["project_id"],
            kind=JobKind(r["kind"]), status=JobStatus(r["status"]), created_us=r["created_us"],
            labels=r["labels"] or {}, dataset_id=r["dataset_id"], dataset_name=r["dataset_name"],
            file_id=r["file_id"], file_name=r["file_name"], started_us=r["started_us"],
            finished_us=r["finished_us"], lease_owner=r["lease_owner"],
            lease_expires_us=r["lease_expires_us"], attempts=r["attempts"] or 0, error=r["error"],
            result_key=r["result_key"], total_pages=r["total_pages"],
            parsed_pages_count=r["parsed_pages_count"] or 0, flow_run_id=r["flow_run_id"],
        )

    @classmethod
    def from_row(cls, r: Any) -> JobSummary:
        return cls(**cls._fields(r))


@dataclass
class Job(JobSummary):
    """A whole job: where its document comes from and how to process it."""

    source: JobSource = field(default_factory=lambda: JobSource(kind="text"))
    options: ParseRequest = field(default_factory=ParseRequest)

    @staticmethod
    def stored_request(source: JobSource, options: ParseRequest) -> dict[str, Any]:
        """What the catalog's ``request`` column holds: the source and the options, apart."""
        return {"source": source.model_dump(exclude_none=True),
                "options": options.model_dump(mode="json", exclude_none=True, exclude=set(SOURCE_FIELDS))}

    @classmethod
    def from_row(cls, r: Any) -> Job:
        stored = r["request"] or {}
        return cls(**cls._fields(r), source=JobSource.model_validate(stored["source"]),
                   options=ParseRequest.model_validate(stored.get("options") or {}))


class DatasetStatus(str, Enum):
    idle = "idle"
    processing = "processing"  # some of its jobs are pending or processing


@dataclass
class Dataset:
    """A named collection's settings: every document parsed into it is processed the same way."""

    id: str
    organization_id: str
    project_id: str
    name: str
    created_us: int
    updated_us: int
    description: str | None = None
    configuration: ParseConfiguration = field(default_factory=ParseConfiguration)
    # Jobs by status (``JobStatus`` value → count), when asked for.
    job_counts: dict[str, int] | None = None

    @property
    def status(self) -> DatasetStatus:
        counts = self.job_counts or {}
        busy = counts.get(JobStatus.pending.value, 0) + counts.get(JobStatus.processing.value, 0)
        return DatasetStatus.processing if busy else DatasetStatus.idle

    @classmethod
    def from_row(cls, r: Any, job_counts: dict[str, int] | None = None) -> Dataset:
        return cls(id=r["id"], organization_id=r["organization_id"], project_id=r["project_id"],
                   name=r["name"], created_us=r["created_us"], updated_us=r["updated_us"],
                   description=r["description"],
                   configuration=ParseConfiguration.model_validate(r["configuration"] or {}),
                   job_counts=job_counts)


WEBHOOK_EVENTS = ("parse.completed", "parse.failed")


@dataclass
class Webhook:
    """Where a project's job events are sent, signed with ``secret`` (Standard Webhooks)."""

    id: str
    organization_id: str
    project_id: str
    url: str
    secret: str
    events: list[str]
    created_us: int
    dataset_id: str | None = None  # only this dataset's jobs

    @classmethod
    def from_row(cls, r: Any) -> Webhook:
        return cls(id=r["id"], organization_id=r["organization_id"], project_id=r["project_id"], url=r["url"],
                   secret=r["secret"], events=list(r["events"]), created_us=r["created_us"],
                   dataset_id=r["dataset_id"])


class DeliveryStatus(str, Enum):
    pending = "pending"  # waiting for its next attempt
    delivered = "delivered"  # the receiver answered 2xx
    failed = "failed"  # every attempt failed


@dataclass
class Delivery:
    id: str
    webhook_id: str
    event: str
    job_id: str
    payload: str
    status: DeliveryStatus
    attempts: int
    created_us: int
    next_attempt_us: int | None = None
    last_error: str | None = None
    delivered_us: int | None = None
    url: str = ""
    secret: str = ""
    # every attempt so far: {attempt, at_us, status_code, error, duration_ms}
    history: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_row(cls, r: Any) -> Delivery:
        return cls(id=r["id"], webhook_id=r["webhook_id"], event=r["event"], job_id=r["job_id"],
                   payload=r["payload"], status=DeliveryStatus(r["status"]), attempts=r["attempts"],
                   created_us=r["created_us"], next_attempt_us=r["next_attempt_us"], last_error=r["last_error"],
                   delivered_us=r["delivered_us"])


def rfc3339(us: int | None) -> str | None:
    """Microseconds since the epoch as an RFC 3339 UTC time (``…Z``), as the wire shows times."""
    if us is None:
        return None
    return datetime.fromtimestamp(us / 1_000_000, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


# ---------------------------------------------------------------- listings

MAX_LIMIT = 1000  # the most rows one page of a listing holds


@dataclass
class Page:
    """One page of a listing, newest first: its rows and the opaque cursors to the neighbours."""

    rows: list[Any]
    has_more: bool
    next_cursor: str | None
    prev_cursor: str | None


@dataclass
class JobFilter:
    """What a job listing is narrowed to (times in microseconds since the epoch)."""

    status: JobStatus | str | None = None
    dataset_name: str | None = None
    dataset_id: str | None = None
    file_name: str | None = None
    job_id: str | None = None
    file_id: str | None = None
    created_after: int | None = None
    created_before: int | None = None
    finished_after: int | None = None
    finished_before: int | None = None


class IngestStatus(str, Enum):
    running = "running"
    completed = "completed"
    failed = "failed"


@dataclass
class Ingest:
    """A bulk ingestion into a dataset, and how far it got."""

    id: str
    organization_id: str
    project_id: str
    dataset_id: str
    source: str
    pattern: str
    status: IngestStatus
    created_us: int
    updated_us: int
    listed: int = 0  # documents found under the source that match the pattern
    created: int = 0  # jobs made
    skipped: int = 0  # already in the dataset (same checksum)
    error: str | None = None

    @classmethod
    def from_row(cls, r: Any) -> Ingest:
        return cls(r["id"], r["organization_id"], r["project_id"], r["dataset_id"], r["source"], r["pattern"],
                   IngestStatus(r["status"]), r["created_us"], r["updated_us"], r["listed"], r["created"],
                   r["skipped"], r["error"])
