"""Sandbox management: ``/sandboxes…``, ``/snapshots…`` and ``/archived-sandboxes``, and the same
under ``/v1/namespaces/{namespace}`` (the paths the SDK uses when its API URL is a loopback
address; left out of the OpenAPI document, being the same operations). Error bodies are
text/plain (``api/errors.py``)."""


from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Query
from fastapi.concurrency import run_in_threadpool

from api.deps import PrincipalDep, ServicesDep
from api.wire import sandbox_records as wire
from api.wire.documents import JSON
from api.wire.sandboxes import (
    ArchivedSandboxList,
    CopyResponse,
    CreateSandboxIn,
    DetachFileSystemIn,
    FileSystemMountIn,
    PatchSandboxIn,
    SandboxInfo,
    SandboxList,
    SandboxState,
    SnapshotCreated,
    SnapshotIn,
    SnapshotInfo,
    SnapshotList,
    sandbox_responses,
)
from pipelines.core.errors import SandboxInvalid, SandboxNotFound
from pipelines.core.sandbox_records import Mount, NetworkPolicy, Resources, SandboxStatus, SnapshotType
from pipelines.usecases.sandboxes import CreateRequest, PatchRequest, Sandboxes

MAX_WAIT_MS = 60_000


def _flat_namespace() -> str:
    return "default"


def _path_namespace(namespace: str) -> str:
    return namespace


def _create_request(req: CreateSandboxIn) -> CreateRequest:
    r = req.resources
    resources = None
    if r is not None:
        if r.gpus and any(g.count for g in r.gpus):
            raise SandboxInvalid("this host has no GPUs for sandboxes")
        d = Resources()
        resources = Resources(cpus=r.cpus or d.cpus, memory_mb=r.memory_mb or d.memory_mb,
                              disk_mb=r.disk_mb or r.ephemeral_disk_mb or d.disk_mb)
    network = None
    if req.network is not None:
        network = NetworkPolicy(req.network.allow_internet_access, tuple(req.network.allow_out),
                                tuple(req.network.deny_out))
    return CreateRequest(
        name=req.name, image=req.image, resources=resources,
        entrypoint=tuple(req.entrypoint) if req.entrypoint is not None else None, network=network,
        timeout_secs=req.timeout_secs, snapshot_id=req.snapshot_id,
        allow_unauthenticated_access=req.allow_unauthenticated_access, exposed_ports=tuple(req.exposed_ports),
        file_systems=tuple(Mount(m.file_system_id, m.mount_path, m.read_only, m.snapshot_id)
                           for m in req.file_systems),
        auto_resume=req.auto_resume,
    )


def build(namespace: Callable[..., str], suffix: str = "", *, prefix: str = "",
          in_schema: bool = True) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=["sandboxes"], include_in_schema=in_schema)
    Namespace = Annotated[str, Depends(namespace)]

    def svc(services: Any) -> Sandboxes:
        return services.sandboxes

    def url(services: Any) -> str:
        return services.settings.sandbox_public_url

    @router.post("/sandboxes", name=f"create_sandbox{suffix}", response_model=SandboxInfo, response_class=JSON,
                 responses=sandbox_responses(400, 404, 409))
    async def create_sandbox(req: CreateSandboxIn, principal: PrincipalDep, services: ServicesDep,
                             ns: Namespace) -> JSON:
        sb = await run_in_threadpool(svc(services).create, principal, ns, _create_request(req))
        return JSON(wire.info(sb, url(services)))

    @router.get("/sandboxes", name=f"list_sandboxes{suffix}", response_model=SandboxList, response_class=JSON,
                responses=sandbox_responses(400))
    async def list_sandboxes(principal: PrincipalDep, services: ServicesDep, ns: Namespace,
                             limit: Annotated[int, Query(ge=1, le=1000)] = 100, cursor: str | None = None,
                             direction: Literal["next", "prev"] = "next",
                             status: Literal["running", "suspended"] | None = None) -> JSON:
        page = await run_in_threadpool(svc(services).list, principal, ns, status, cursor=cursor,
                                       direction=direction, limit=limit)
        return JSON({"sandboxes": [wire.info(sb, url(services)) for sb in page.rows],
                     "next_cursor": page.next_cursor, "prev_cursor": page.prev_cursor})

    @router.get("/sandboxes/{sandbox_id}", name=f"get_sandbox{suffix}", response_model=SandboxInfo,
                response_class=JSON, responses=sandbox_responses(404))
    async def get_sandbox(sandbox_id: str, principal: PrincipalDep, services: ServicesDep, ns: Namespace) -> JSON:
        sb = await run_in_threadpool(svc(services).find, principal, ns, sandbox_id)
        return JSON(wire.info(sb, url(services)))

    @router.patch("/sandboxes/{sandbox_id}", name=f"patch_sandbox{suffix}", response_model=SandboxInfo,
                  response_class=JSON, responses=sandbox_responses(400, 404, 409))
    async def patch_sandbox(sandbox_id: str, req: PatchSandboxIn, principal: PrincipalDep,
                            services: ServicesDep, ns: Namespace) -> JSON:
        change = PatchRequest(
            name=req.name, exposed_ports=tuple(req.exposed_ports) if req.exposed_ports is not None else None,
            allow_unauthenticated_access=req.allow_unauthenticated_access, auto_resume=req.auto_resume,
            resources=req.resources.model_dump(exclude_none=True) if req.resources is not None else None,
            network_given="network" in req.model_fields_set)
        sb = await run_in_threadpool(svc(services).patch, principal, ns, sandbox_id, change)
        return JSON(wire.info(sb, url(services)))

    @router.delete("/sandboxes/{sandbox_id}", name=f"delete_sandbox{suffix}", response_model=SandboxInfo,
                   response_class=JSON, responses=sandbox_responses(404))
    async def delete_sandbox(sandbox_id: str, principal: PrincipalDep, services: ServicesDep,
                             ns: Namespace) -> JSON:
        sb = await run_in_threadpool(svc(services).terminate, principal, ns, sandbox_id)
        return JSON(wire.info(sb, url(services)))

    @router.post("/sandboxes/{sandbox_id}/snapshot", name=f"snapshot_sandbox{suffix}", status_code=202,
                 response_model=SnapshotCreated, response_class=JSON, responses=sandbox_responses(400, 404))
    async def snapshot_sandbox(sandbox_id: str, principal: PrincipalDep, services: ServicesDep, ns: Namespace,
                               req: Annotated[SnapshotIn | None, Body()] = None) -> JSON:
        kind = SnapshotType((req or SnapshotIn()).snapshot_type)
        snap = await run_in_threadpool(svc(services).request_snapshot, principal, ns, sandbox_id, kind)
        return JSON({"snapshot_id": snap.id, "status": snap.status.value}, status_code=202)

    async def _state_change(change: Callable, target: SandboxStatus, sandbox_id: str, principal: Any,
                            services: Any, ns: str, wait_ms: int | None) -> JSON:
        sb, done = await run_in_threadpool(change, principal, ns, sandbox_id)
        if not done and wait_ms:
            sb, done = await run_in_threadpool(svc(services).wait_for, sb, target, min(wait_ms, MAX_WAIT_MS))
        return JSON({"sandbox_id": sb.id, "status": sb.status.value}, status_code=200 if done else 202)

    @router.post("/sandboxes/{sandbox_id}/suspend", name=f"suspend_sandbox{suffix}", response_model=SandboxState,
                 response_class=JSON, responses={202: {"description": "Suspending.", "model": SandboxState},
                                                 **sandbox_responses(400, 404)})
    async def suspend_sandbox(sandbox_id: str, principal: PrincipalDep, services: ServicesDep, ns: Namespace,
                              wait_ms: Annotated[int | None, Query(ge=0)] = None) -> JSON:
        return await _state_change(svc(services).suspend, SandboxStatus.suspended, sandbox_id, principal,
                                   services, ns, wait_ms)

    @router.post("/sandboxes/{sandbox_id}/resume", name=f"resume_sandbox{suffix}", response_model=SandboxState,
                 response_class=JSON, responses={202: {"description": "Resuming.", "model": SandboxState},
                                                 **sandbox_responses(400, 404)})
    async def resume_sandbox(sandbox_id: str, principal: PrincipalDep, services: ServicesDep, ns: Namespace,
                             wait_ms: Annotated[int | None, Query(ge=0)] = None) -> JSON:
        return await _state_change(svc(services).resume, SandboxStatus.running, sandbox_id, principal,
                                   services, ns, wait_ms)

    @router.post("/sandboxes/{sandbox_id}/restart", name=f"restart_sandbox{suffix}", status_code=202,
                 response_model=SandboxState, response_class=JSON, responses=sandbox_responses(400, 404, 409))
    async def restart_sandbox(sandbox_id: str, principal: PrincipalDep, services: ServicesDep,
                              ns: Namespace) -> JSON:
        sb = await run_in_threadpool(svc(services).restart, principal, ns, sandbox_id)
        return JSON({"sandbox_id": sb.id, "status": sb.status.value}, status_code=202)

    @router.post("/sandboxes/{sandbox_id}/copy", name=f"copy_sandbox{suffix}", response_model=CopyResponse,
                 response_class=JSON, responses=sandbox_responses(400, 404, 409, copy=True))
    async def copy_sandbox(sandbox_id: str, principal: PrincipalDep, services: ServicesDep, ns: Namespace,
                           times: Annotated[int, Query(ge=1, le=100)] = 1,
                           name: Annotated[str | None, Query(max_length=255)] = None) -> JSON:
        out = await run_in_threadpool(svc(services).copy, principal, ns, sandbox_id, times, name)
        body = {"source_sandbox_id": out.source.id, "sandboxes": [wire.copied(c, url(services)) for c in out.copies]}
        return JSON(body, status_code=422 if out.failed else 504 if out.timed_out else 200)

    @router.post("/sandboxes/{sandbox_id}/file_systems", name=f"attach_file_system{suffix}",
                 response_model=SandboxInfo, response_class=JSON, responses=sandbox_responses(400, 404, 409))
    async def attach_file_system(sandbox_id: str, req: FileSystemMountIn, principal: PrincipalDep,
                                 services: ServicesDep, ns: Namespace) -> JSON:
        mount = Mount(req.file_system_id, req.mount_path, req.read_only, req.snapshot_id)
        sb = await run_in_threadpool(svc(services).attach, principal, ns, sandbox_id, mount)
        return JSON(wire.info(sb, url(services)))

    @router.delete("/sandboxes/{sandbox_id}/file_systems", name=f"detach_file_system{suffix}",
                   response_model=SandboxInfo, response_class=JSON, responses=sandbox_responses(400, 404, 409))
    async def detach_file_system(sandbox_id: str, req: DetachFileSystemIn, principal: PrincipalDep,
                                 services: ServicesDep, ns: Namespace) -> JSON:
        sb = await run_in_threadpool(svc(services).detach, principal, ns, sandbox_id, req.mount_path)
        return JSON(wire.info(sb, url(services)))

    @router.get("/sandboxes/{sandbox_id}/snapshots", name=f"list_sandbox_snapshots{suffix}",
                response_model=SnapshotList, response_class=JSON, responses=sandbox_responses(404))
    async def list_sandbox_snapshots(sandbox_id: str, principal: PrincipalDep, services: ServicesDep,
                                     ns: Namespace) -> JSON:
        snaps = await run_in_threadpool(svc(services).snapshots, principal, ns, sandbox_id)
        return JSON({"snapshots": [wire.snapshot(s) for s in snaps]})

    @router.get("/snapshots", name=f"list_snapshots{suffix}", response_model=SnapshotList, response_class=JSON,
                responses=sandbox_responses())
    async def list_snapshots(principal: PrincipalDep, services: ServicesDep, ns: Namespace) -> JSON:
        snaps = await run_in_threadpool(svc(services).snapshots, principal, ns)
        return JSON({"snapshots": [wire.snapshot(s) for s in snaps]})

    @router.get("/snapshots/{snapshot_id}", name=f"get_snapshot{suffix}", response_model=SnapshotInfo,
                response_class=JSON, responses=sandbox_responses(404))
    async def get_snapshot(snapshot_id: str, principal: PrincipalDep, services: ServicesDep) -> JSON:
        snap = await run_in_threadpool(svc(services).snapshot, principal, snapshot_id)
        return JSON(wire.snapshot(snap))

    @router.delete("/snapshots/{snapshot_id}", name=f"delete_snapshot{suffix}", response_model=SnapshotInfo,
                   response_class=JSON, responses=sandbox_responses(404, 409))
    async def delete_snapshot(snapshot_id: str, principal: PrincipalDep, services: ServicesDep) -> JSON:
        snap = await run_in_threadpool(svc(services).delete_snapshot, principal, snapshot_id)
        return JSON(wire.snapshot(snap))

    @router.get("/archived-sandboxes", name=f"list_archived_sandboxes{suffix}",
                response_model=ArchivedSandboxList, response_class=JSON, responses=sandbox_responses(400))
    async def list_archived_sandboxes(principal: PrincipalDep, services: ServicesDep, ns: Namespace,
                                      limit: Annotated[int, Query(ge=1, le=1000)] = 100, cursor: str | None = None,
                                      direction: Literal["next", "prev", "forward", "backward"] = "next") -> JSON:
        page = await run_in_threadpool(svc(services).archived, principal, ns, cursor=cursor,
                                       direction="prev" if direction in ("prev", "backward") else "next",
                                       limit=limit)
        return JSON({"sandboxes": [wire.archived(sb, url(services)) for sb in page.rows],
                     "next_cursor": page.next_cursor, "prev_cursor": page.prev_cursor})

    @router.get("/archived-sandboxes/{sandbox_id}", name=f"get_archived_sandbox{suffix}",
                response_model=SandboxInfo, response_class=JSON, responses=sandbox_responses(404))
    async def get_archived_sandbox(sandbox_id: str, principal: PrincipalDep, services: ServicesDep,
                                   ns: Namespace) -> JSON:
        sb = await run_in_threadpool(svc(services).find, principal, ns, sandbox_id)
        if sb.status != SandboxStatus.terminated:
            raise SandboxNotFound(f"sandbox {sandbox_id!r} is not archived")
        return JSON(wire.archived(sb, url(services)))

    return router


router = build(_flat_namespace)
namespaced = build(_path_namespace, "_in_namespace", prefix="/v1/namespaces/{namespace}", in_schema=False)
