"""Datasets: named settings for a collection. Every document parsed into a dataset is processed
with the dataset's settings as they were when it was submitted (an update applies to later jobs
only). Deleting a dataset deletes its jobs and their results; the files they were parsed from
are the caller's own and stay."""

from __future__ import annotations

import re

from assets.catalog import datasets as datasets_repo
from assets.catalog import files as files_repo
from assets.results import job_results_prefix
from pipelines.core.errors import InvalidDatasetName, NotFound
from pipelines.core.records import Dataset, DatasetStatus, Job, JobFilter, JobKind, Page, Principal
from pipelines.core.requests import (
    DATASET_NAME,
    DatasetCreate,
    DatasetParseRequest,
    DatasetUpdate,
    ParseConfiguration,
    ParseRequest,
)
from pipelines.usecases import checks, documents
from pipelines.usecases.runtime import Runtime

# The SDK's parse_dataset_file sends a v2 file id as raw_text (see the wire notes).
FILE_ID_AS_TEXT = re.compile(r"file_[A-Za-z0-9]+")


def _check(rt: Runtime, configuration: ParseConfiguration) -> None:
    """A configuration every job could run with (what a parse request would refuse, refused now)."""
    checks.refuse_unsupported(ParseRequest.model_validate(configuration.model_dump()), rt.settings.llm.provider())


def _check_name(name: str) -> None:
    if not DATASET_NAME.fullmatch(name):
        raise InvalidDatasetName("a dataset name is 1 to 255 letters, digits, hyphens and underscores, "
                                 f"not {name[:80]!r}")


def create(rt: Runtime, p: Principal, req: DatasetCreate) -> Dataset:
    _check_name(req.name)
    configuration = req.configuration()
    _check(rt, configuration)
    return datasets_repo.create(rt.engine, p, req.name, req.description, configuration)


def get(rt: Runtime, p: Principal, dataset_id: str) -> Dataset:
    ds = datasets_repo.get(rt.engine, p, dataset_id)
    if ds is None:
        raise NotFound(f"dataset {dataset_id} not found")
    return ds


def by_name(rt: Runtime, p: Principal, name: str) -> Dataset:
    ds = datasets_repo.get_by_name(rt.engine, p, name)
    if ds is None:
        raise NotFound(f"dataset {name!r} not found")
    return ds


def list_datasets(rt: Runtime, p: Principal, *, name: str | None, status: DatasetStatus | None,
                  cursor: str | None, direction: str, limit: int) -> Page:
    return datasets_repo.list_datasets(rt.engine, p, name=name, status=status, cursor=cursor,
                                       direction=direction, limit=limit)


def update(rt: Runtime, p: Principal, dataset_id: str, req: DatasetUpdate, *, name: str | None = None) -> Dataset:
    """Replace the settings given (only those keys), and the name if given; jobs already
    submitted keep theirs."""
    if name is not None:
        _check_name(name)
    current = get(rt, p, dataset_id)
    given = req.model_fields_set
    changed = {k: getattr(req, k) for k in ParseConfiguration.model_fields if k in given}
    configuration = current.configuration.model_copy(update=changed) if changed else None
    if configuration is not None:
        configuration = ParseConfiguration.model_validate(configuration.model_dump())
        _check(rt, configuration)
    ds = datasets_repo.update_dataset(rt.engine, p, dataset_id,
                                      description=req.description if "description" in given else False,
                                      configuration=configuration, name=name)
    if ds is None:
        raise NotFound(f"dataset {dataset_id} not found")
    return ds


def delete(rt: Runtime, p: Principal, dataset_id: str) -> int:
    """Delete the dataset, its jobs and their results; how many jobs went with it."""
    deleted = datasets_repo.delete_dataset(rt.engine, p, dataset_id)
    if deleted is None:
        raise NotFound(f"dataset {dataset_id} not found")
    _, jobs = deleted
    for job in jobs:
        for key in rt.storage.list_keys(job_results_prefix(job.organization_id, job.project_id,
                                                           job.dataset_id, job.id)):
            rt.storage.delete(key)
        if job.source.text_key:
            rt.storage.delete(job.source.text_key)
    return len(jobs)


def parse(rt: Runtime, p: Principal, dataset_id: str, req: DatasetParseRequest) -> Job:
    """A parse job for one document, with the dataset's settings."""
    ds = get(rt, p, dataset_id)
    source = req.model_dump(exclude_unset=True)
    text = req.raw_text
    if (req.file_id is None and req.file_url is None and text is not None and FILE_ID_AS_TEXT.fullmatch(text)
            and files_repo.get_file(rt.engine, p, text) is not None):
        source["file_id"], source["raw_text"] = text, None
    request = ParseRequest.model_validate({**source, **ds.configuration.model_dump(exclude_none=True)})
    return documents.submit(rt, p, JobKind.parse, request, dataset=ds)


def data(rt: Runtime, p: Principal, dataset_id: str, f: JobFilter, *, cursor: str | None, direction: str,
         limit: int) -> Page:
    """A page of the dataset's jobs (``JobSummary``), newest first."""
    get(rt, p, dataset_id)
    f.dataset_id = dataset_id
    return documents.list_jobs(rt, p, f, cursor=cursor, direction=direction, limit=limit)
