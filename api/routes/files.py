"""``/documents/v2/files``: upload, list, metadata, delete."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Request, Response

from api.deps import PrincipalDep, RuntimeDep
from api.routes.paging import PagingDep, listing
from api.upload import receive_file
from api.wire.common import JSON, parse_rfc3339, responses
from api.wire.files import UPLOAD_BODY, FileCreated, FileList, FileMetadata, file_metadata
from pipelines.core.records import rfc3339
from pipelines.usecases import files

router = APIRouter(prefix="/documents/v2/files", tags=["files"])


@router.put("", response_model=FileCreated, response_class=JSON, responses=responses(400, 413, 499),
            openapi_extra=UPLOAD_BODY)
async def upload_file(request: Request, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    rec = await receive_file(request, rt, principal)
    return JSON({"file_id": rec.id, "created_at": rfc3339(rec.created_us)})


@router.get("", response_model=FileList, response_class=JSON, responses=responses(query=True))
async def list_files(
    principal: PrincipalDep,
    rt: RuntimeDep,
    page: PagingDep,
    file_name: str | None = None,
    filename: str | None = None,
    created_after: str | None = None,
    created_before: str | None = None,
) -> JSON:
    after = parse_rfc3339(created_after, "created_after")
    before = parse_rfc3339(created_before, "created_before")
    return await listing(partial(files.list_files, rt, principal, file_name=file_name or filename,
                                 created_after=after, created_before=before), page, file_metadata)


@router.get("/{file_id}/metadata", response_model=FileMetadata, response_class=JSON, responses=responses(400))
def file_meta(file_id: str, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    return JSON(file_metadata(files.get(rt, principal, file_id)))


@router.delete("/{file_id}", status_code=204, response_class=Response, responses=responses(400))
def delete_file(file_id: str, principal: PrincipalDep, rt: RuntimeDep) -> Response:
    files.delete(rt, principal, file_id)
    return Response(status_code=204)
