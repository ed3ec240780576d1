"""``/file-systems``: a project's persistent directories that sandboxes mount (by name, the
``file_system_id`` of a mount), and their permanent snapshots (a mount's ``snapshot_id`` pin).
Error bodies are text/plain, as for sandboxes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Response
from fastapi.concurrency import run_in_threadpool

from api.deps import PrincipalDep, ServicesDep
from api.wire.common import JSON
from api.wire.sandboxes import (
    FileSystemIn,
    FileSystemInfo,
    FileSystemList,
    FileSystemSnapshotInfo,
    FileSystemSnapshotList,
    sandbox_responses,
)
from pipelines.usecases.file_systems import FileSystems


async def get_file_systems(services: ServicesDep) -> FileSystems:
    return services.sandboxes.file_systems


FileSystemsDep = Annotated[FileSystems, Depends(get_file_systems)]

router = APIRouter(prefix="/file-systems", tags=["file systems"])


@router.post("", response_class=JSON, responses=sandbox_responses(400, 409))
async def create_file_system(req: FileSystemIn, principal: PrincipalDep, fss: FileSystemsDep) -> FileSystemInfo:
    return FileSystemInfo.of(await run_in_threadpool(fss.create, principal, req.name))


@router.get("", response_class=JSON, responses=sandbox_responses())
async def list_file_systems(principal: PrincipalDep, fss: FileSystemsDep) -> FileSystemList:
    found = await run_in_threadpool(fss.list, principal)
    return FileSystemList(file_systems=[FileSystemInfo.of(fs) for fs in found])


@router.get("/{file_system_id}", response_class=JSON, responses=sandbox_responses(404))
async def get_file_system(file_system_id: str, principal: PrincipalDep, fss: FileSystemsDep) -> FileSystemInfo:
    return FileSystemInfo.of(await run_in_threadpool(fss.get, principal, file_system_id))


@router.delete("/{file_system_id}", status_code=204, response_class=Response, responses=sandbox_responses(404, 409))
async def delete_file_system(file_system_id: str, principal: PrincipalDep, fss: FileSystemsDep) -> Response:
    await run_in_threadpool(fss.delete, principal, file_system_id)
    return Response(status_code=204)


@router.post("/{file_system_id}/snapshots", response_class=JSON, responses=sandbox_responses(404))
async def snapshot_file_system(file_system_id: str, principal: PrincipalDep,
                               fss: FileSystemsDep) -> FileSystemSnapshotInfo:
    return FileSystemSnapshotInfo.of(await run_in_threadpool(fss.snapshot, principal, file_system_id))


@router.get("/{file_system_id}/snapshots", response_class=JSON, responses=sandbox_responses(404))
async def list_file_system_snapshots(file_system_id: str, principal: PrincipalDep,
                                     fss: FileSystemsDep) -> FileSystemSnapshotList:
    snaps = await run_in_threadpool(fss.snapshots, principal, file_system_id)
    return FileSystemSnapshotList(snapshots=[FileSystemSnapshotInfo.of(s) for s in snaps])
