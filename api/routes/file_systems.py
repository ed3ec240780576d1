"""``/file-systems``: a project's persistent directories that sandboxes mount (by name, the
``file_system_id`` of a mount), and their permanent snapshots (a mount's ``snapshot_id`` pin).
Error bodies are text/plain, as for sandboxes."""

from fastapi import APIRouter, Response
from fastapi.concurrency import run_in_threadpool

from api.deps import PrincipalDep, ServicesDep
from api.wire import sandbox_records as wire
from api.wire.documents import JSON
from api.wire.sandboxes import (
    FileSystemIn,
    FileSystemInfo,
    FileSystemList,
    FileSystemSnapshotInfo,
    FileSystemSnapshotList,
    sandbox_responses,
)

router = APIRouter(prefix="/file-systems", tags=["file systems"])


@router.post("", response_model=FileSystemInfo, response_class=JSON, responses=sandbox_responses(400, 409))
async def create_file_system(req: FileSystemIn, principal: PrincipalDep, services: ServicesDep) -> JSON:
    fs = await run_in_threadpool(services.sandboxes.file_systems.create, principal, req.name)
    return JSON(wire.file_system(fs))


@router.get("", response_model=FileSystemList, response_class=JSON, responses=sandbox_responses())
async def list_file_systems(principal: PrincipalDep, services: ServicesDep) -> JSON:
    found = await run_in_threadpool(services.sandboxes.file_systems.list, principal)
    return JSON({"file_systems": [wire.file_system(fs) for fs in found]})


@router.get("/{file_system_id}", response_model=FileSystemInfo, response_class=JSON,
            responses=sandbox_responses(404))
async def get_file_system(file_system_id: str, principal: PrincipalDep, services: ServicesDep) -> JSON:
    fs = await run_in_threadpool(services.sandboxes.file_systems.get, principal, file_system_id)
    return JSON(wire.file_system(fs))


@router.delete("/{file_system_id}", status_code=204, response_class=Response, responses=sandbox_responses(404, 409))
async def delete_file_system(file_system_id: str, principal: PrincipalDep, services: ServicesDep) -> Response:
    await run_in_threadpool(services.sandboxes.file_systems.delete, principal, file_system_id)
    return Response(status_code=204)


@router.post("/{file_system_id}/snapshots", response_model=FileSystemSnapshotInfo, response_class=JSON,
             responses=sandbox_responses(404))
async def snapshot_file_system(file_system_id: str, principal: PrincipalDep, services: ServicesDep) -> JSON:
    snap = await run_in_threadpool(services.sandboxes.file_systems.snapshot, principal, file_system_id)
    return JSON(wire.file_system_snapshot(snap))


@router.get("/{file_system_id}/snapshots", response_model=FileSystemSnapshotList, response_class=JSON,
            responses=sandbox_responses(404))
async def list_file_system_snapshots(file_system_id: str, principal: PrincipalDep, services: ServicesDep) -> JSON:
    snaps = await run_in_threadpool(services.sandboxes.file_systems.snapshots, principal, file_system_id)
    return JSON({"snapshots": [wire.file_system_snapshot(s) for s in snaps]})
