"""``/documents/v2/datasets``: create, list, get, update, delete, parse into, the data (jobs) of
a dataset, and bulk ingestion by reference into it (a docklake extension)."""

from __future__ import annotations

from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends, Response
from fastapi.concurrency import run_in_threadpool

from api.deps import JobFilterDep, PrincipalDep, RuntimeDep
from api.middleware.metrics import JOBS_SUBMITTED
from api.routes.paging import Paging, PagingDep, listing, paging
from api.wire.common import JSON, responses
from api.wire.datasets import Dataset, DatasetCreated, DatasetList, IngestBody, dataset, ingest_body
from api.wire.documents import ParseCreated, ParseList, parse_result
from pipelines.core.records import DatasetStatus, JobKind, rfc3339
from pipelines.core.requests import DatasetCreate, DatasetParseRequest, DatasetUpdate, IngestRequest
from pipelines.usecases import datasets, ingest

router = APIRouter(prefix="/documents/v2/datasets", tags=["datasets"])


@router.post("", response_model=DatasetCreated, response_class=JSON, responses=responses(400, 409, body=True))
async def create_dataset(req: DatasetCreate, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    ds = await run_in_threadpool(datasets.create, rt, principal, req)
    return JSON({"name": ds.name, "dataset_id": ds.id, "created_at": rfc3339(ds.created_us)})


@router.get("", response_model=DatasetList, response_class=JSON, responses=responses(query=True))
async def list_datasets(
    principal: PrincipalDep,
    rt: RuntimeDep,
    page: Annotated[Paging, Depends(paging(25))],
    status: DatasetStatus | None = None,
    name: str | None = None,
) -> JSON:
    return await listing(partial(datasets.list_datasets, rt, principal, name=name, status=status), page,
                         dataset)


@router.get("/{dataset_id}", response_model=Dataset, response_class=JSON, responses=responses(404, query=True))
async def get_dataset(dataset_id: str, principal: PrincipalDep, rt: RuntimeDep,
                      include_analytics: bool = False, include_configuration: bool = False) -> JSON:
    ds = await run_in_threadpool(datasets.get, rt, principal, dataset_id)
    return JSON(dataset(ds, analytics=include_analytics, configuration=include_configuration))


@router.put("/{dataset_id}", response_model=Dataset, response_class=JSON, responses=responses(400, 404, body=True))
async def update_dataset(dataset_id: str, req: DatasetUpdate, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    ds = await run_in_threadpool(datasets.update, rt, principal, dataset_id, req)
    return JSON(dataset(ds))


@router.delete("/{dataset_id}", status_code=204, response_class=Response, responses=responses(404))
async def delete_dataset(dataset_id: str, principal: PrincipalDep, rt: RuntimeDep) -> Response:
    await run_in_threadpool(datasets.delete, rt, principal, dataset_id)
    return Response(status_code=204)


@router.post("/{dataset_id}/parse", response_model=ParseCreated, response_class=JSON,
             responses=responses(400, 404, 413, body=True))
async def parse_into_dataset(dataset_id: str, req: DatasetParseRequest, principal: PrincipalDep,
                             rt: RuntimeDep) -> JSON:
    job = await run_in_threadpool(datasets.parse, rt, principal, dataset_id, req)
    JOBS_SUBMITTED.labels(kind=JobKind.parse.value).inc()
    return JSON({"parse_id": job.id, "created_at": rfc3339(job.created_us)})


@router.get("/{dataset_id}/data", response_model=ParseList, response_class=JSON,
            responses=responses(404, query=True))
async def dataset_data(
    dataset_id: str,
    principal: PrincipalDep,
    rt: RuntimeDep,
    f: JobFilterDep,
    page: PagingDep,
    parse_id: str | None = None,
    file_name: str | None = None,
) -> JSON:
    f.file_name, f.job_id = file_name, parse_id
    return await listing(partial(datasets.data, rt, principal, dataset_id, f), page, parse_result)


@router.post("/{dataset_id}/ingest", status_code=202, response_model=IngestBody, response_class=JSON,
             responses=responses(400, 403, 404, body=True))
async def ingest_into_dataset(dataset_id: str, req: IngestRequest, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """Take every document under ``source`` whose file name matches ``pattern`` by reference, in
    the background (a docklake extension): the answer is the ingestion, ``running``."""
    ing = await run_in_threadpool(ingest.start, rt, principal, dataset_id, req)
    return JSON(ingest_body(ing), status_code=202)


@router.get("/{dataset_id}/ingest/{ingest_id}", response_model=IngestBody, response_class=JSON,
            responses=responses(404))
async def get_ingest(dataset_id: str, ingest_id: str, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    return JSON(ingest_body(await run_in_threadpool(ingest.get, rt, principal, dataset_id, ingest_id)))
