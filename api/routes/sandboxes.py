"""Sandbox management: ``/sandboxes…``, ``/snapshots…`` and ``/archived-sandboxes`` (``router``), and
the same under ``/v1/namespaces/{namespace}`` (``namespaced``: the paths the SDK uses when its API
URL is a loopback address; left out of the OpenAPI document, being the same operations).

Each handler reads the request into the use case's terms, calls the use case and returns the
response model (``api.wire.sandboxes``), which the OpenAPI document shows. Only the use case's
call, which blocks, goes to a worker thread: the handlers are ``async``, so the response is built
and written on the event loop with no further thread hop. Error bodies are text/plain
(``api/errors.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Body, Depends, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from sse_starlette.sse import EventSourceResponse

from api.deps import PrincipalDep, ServicesDep
from api.wire.common import JSON
from api.wire.sandbox_logs import FOLLOW_200, LogRecord, LogsPage, ProcessLogsList
from api.wire.sandboxes import (
    ArchivedSandboxInfo,
    ArchivedSandboxList,
    CopiedSandbox,
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
from pipelines.core.errors import SandboxNotFound
from pipelines.core.records import Principal
from pipelines.core.sandbox_records import Sandbox, SandboxStatus, SnapshotType
from pipelines.usecases.sandbox_logs import LogLine, LogQuery
from pipelines.usecases.sandboxes import Sandboxes

MAX_WAIT_MS = 60_000
FOLLOW_POLL_S = 0.5  # how often a followed log asks the sandbox for new lines
DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True)
class Caller:
    """Who asks, in which namespace; the use case; and the base of the URLs handed out."""

    principal: Principal
    ns: str
    sandboxes: Sandboxes
    public_url: str


async def get_caller(request: Request, principal: PrincipalDep, services: ServicesDep) -> Caller:
    """The namespace is the path's under ``/v1/namespaces/{namespace}``, else ``default``."""
    return Caller(principal, request.path_params.get("namespace", DEFAULT_NAMESPACE), services.sandboxes,
                  services.settings.sandbox_public_url)


CallerDep = Annotated[Caller, Depends(get_caller)]
Limit = Annotated[int, Query(ge=1, le=1000)]
WaitMs = Annotated[int | None, Query(ge=0)]

router = APIRouter(tags=["sandboxes"])


@router.post("/sandboxes", response_class=JSON, responses=sandbox_responses(400, 404, 409))
async def create_sandbox(req: CreateSandboxIn, c: CallerDep) -> SandboxInfo:
    sb = await run_in_threadpool(c.sandboxes.create, c.principal, c.ns, req.to_request())
    return SandboxInfo.of(sb, c.public_url)


@router.get("/sandboxes", response_class=JSON, responses=sandbox_responses(400))
async def list_sandboxes(c: CallerDep, limit: Limit = 100, cursor: str | None = None,
                         direction: Literal["next", "prev"] = "next",
                         status: Literal["running", "suspended"] | None = None) -> SandboxList:
    page = await run_in_threadpool(c.sandboxes.list, c.principal, c.ns, status, cursor=cursor,
                                   direction=direction, limit=limit)
    return SandboxList(sandboxes=[SandboxInfo.of(sb, c.public_url) for sb in page.rows],
                       next_cursor=page.next_cursor, prev_cursor=page.prev_cursor)


@router.get("/sandboxes/{sandbox_id}", response_class=JSON, responses=sandbox_responses(404))
async def get_sandbox(sandbox_id: str, c: CallerDep) -> SandboxInfo:
    return SandboxInfo.of(await run_in_threadpool(c.sandboxes.find, c.principal, c.ns, sandbox_id), c.public_url)


@router.patch("/sandboxes/{sandbox_id}", response_class=JSON, responses=sandbox_responses(400, 404, 409))
async def patch_sandbox(sandbox_id: str, req: PatchSandboxIn, c: CallerDep) -> SandboxInfo:
    sb = await run_in_threadpool(c.sandboxes.patch, c.principal, c.ns, sandbox_id, req.to_request())
    return SandboxInfo.of(sb, c.public_url)


@router.delete("/sandboxes/{sandbox_id}", response_class=JSON, responses=sandbox_responses(404))
async def delete_sandbox(sandbox_id: str, c: CallerDep) -> SandboxInfo:
    return SandboxInfo.of(await run_in_threadpool(c.sandboxes.terminate, c.principal, c.ns, sandbox_id), c.public_url)


@router.post("/sandboxes/{sandbox_id}/snapshot", status_code=202, response_class=JSON,
             responses=sandbox_responses(400, 404))
async def snapshot_sandbox(sandbox_id: str, c: CallerDep,
                           req: Annotated[SnapshotIn | None, Body()] = None) -> SnapshotCreated:
    kind = SnapshotType((req or SnapshotIn()).snapshot_type)
    snap = await run_in_threadpool(c.sandboxes.request_snapshot, c.principal, c.ns, sandbox_id, kind)
    return SnapshotCreated(snapshot_id=snap.id, status=snap.status.value)


async def _state_change(change: Callable[[Principal, str, str], tuple[Sandbox, bool]], target: SandboxStatus,
                        sandbox_id: str, c: Caller, response: Response, wait_ms: int | None) -> SandboxState:
    """A suspend or a resume: 200 once the sandbox is in ``target`` (waited for up to ``wait_ms``,
    a minute at most), else 202 and the SDK polls."""
    sb, done = await run_in_threadpool(change, c.principal, c.ns, sandbox_id)
    if not done and wait_ms:
        sb, done = await run_in_threadpool(c.sandboxes.wait_for, sb, target, min(wait_ms, MAX_WAIT_MS))
    response.status_code = 200 if done else 202
    return SandboxState(sandbox_id=sb.id, status=sb.status.value)


def _state_responses(accepted: str) -> dict[int | str, dict[str, Any]]:
    return {202: {"description": accepted, "model": SandboxState}, **sandbox_responses(400, 404)}


@router.post("/sandboxes/{sandbox_id}/suspend", response_class=JSON, responses=_state_responses("Suspending."))
async def suspend_sandbox(sandbox_id: str, c: CallerDep, response: Response, wait_ms: WaitMs = None) -> SandboxState:
    return await _state_change(c.sandboxes.suspend, SandboxStatus.suspended, sandbox_id, c, response, wait_ms)


@router.post("/sandboxes/{sandbox_id}/resume", response_class=JSON, responses=_state_responses("Resuming."))
async def resume_sandbox(sandbox_id: str, c: CallerDep, response: Response, wait_ms: WaitMs = None) -> SandboxState:
    return await _state_change(c.sandboxes.resume, SandboxStatus.running, sandbox_id, c, response, wait_ms)


@router.post("/sandboxes/{sandbox_id}/restart", status_code=202, response_class=JSON,
             responses=sandbox_responses(400, 404, 409))
async def restart_sandbox(sandbox_id: str, c: CallerDep) -> SandboxState:
    sb = await run_in_threadpool(c.sandboxes.restart, c.principal, c.ns, sandbox_id)
    return SandboxState(sandbox_id=sb.id, status=sb.status.value)


@router.post("/sandboxes/{sandbox_id}/copy", response_class=JSON, responses=sandbox_responses(400, 404, 409, copy=True))
async def copy_sandbox(sandbox_id: str, c: CallerDep, response: Response,
                       times: Annotated[int, Query(ge=1, le=100)] = 1,
                       name: Annotated[str | None, Query(max_length=255)] = None) -> CopyResponse:
    # 200 when every copy runs; 422 when one failed before it was ready, 504 when one was not ready
    # in time (the same body)
    out = await run_in_threadpool(c.sandboxes.copy, c.principal, c.ns, sandbox_id, times, name)
    response.status_code = 422 if out.failed else 504 if out.timed_out else 200
    return CopyResponse(source_sandbox_id=out.source.id,
                        sandboxes=[CopiedSandbox.of(sb, c.public_url) for sb in out.copies])


@router.post("/sandboxes/{sandbox_id}/file_systems", response_class=JSON,
             responses=sandbox_responses(400, 404, 409))
async def attach_file_system(sandbox_id: str, req: FileSystemMountIn, c: CallerDep) -> SandboxInfo:
    sb = await run_in_threadpool(c.sandboxes.attach, c.principal, c.ns, sandbox_id, req.to_mount())
    return SandboxInfo.of(sb, c.public_url)


@router.delete("/sandboxes/{sandbox_id}/file_systems", response_class=JSON,
               responses=sandbox_responses(400, 404, 409))
async def detach_file_system(sandbox_id: str, req: DetachFileSystemIn, c: CallerDep) -> SandboxInfo:
    sb = await run_in_threadpool(c.sandboxes.detach, c.principal, c.ns, sandbox_id, req.mount_path)
    return SandboxInfo.of(sb, c.public_url)


@router.get("/sandboxes/{sandbox_id}/snapshots", response_class=JSON, responses=sandbox_responses(404))
async def list_sandbox_snapshots(sandbox_id: str, c: CallerDep) -> SnapshotList:
    snaps = await run_in_threadpool(c.sandboxes.snapshots, c.principal, c.ns, sandbox_id)
    return SnapshotList(snapshots=[SnapshotInfo.of(s) for s in snaps])


@router.get("/snapshots", response_class=JSON, responses=sandbox_responses())
async def list_snapshots(c: CallerDep) -> SnapshotList:
    snaps = await run_in_threadpool(c.sandboxes.snapshots, c.principal, c.ns)
    return SnapshotList(snapshots=[SnapshotInfo.of(s) for s in snaps])


@router.get("/snapshots/{snapshot_id}", response_class=JSON, responses=sandbox_responses(404))
async def get_snapshot(snapshot_id: str, c: CallerDep) -> SnapshotInfo:
    return SnapshotInfo.of(await run_in_threadpool(c.sandboxes.snapshot, c.principal, snapshot_id))


@router.delete("/snapshots/{snapshot_id}", response_class=JSON, responses=sandbox_responses(404, 409))
async def delete_snapshot(snapshot_id: str, c: CallerDep) -> SnapshotInfo:
    return SnapshotInfo.of(await run_in_threadpool(c.sandboxes.delete_snapshot, c.principal, snapshot_id))


@router.get("/archived-sandboxes", response_class=JSON, responses=sandbox_responses(400))
async def list_archived_sandboxes(c: CallerDep, limit: Limit = 100, cursor: str | None = None,
                                  direction: Literal["next", "prev", "forward", "backward"] = "next",
                                  ) -> ArchivedSandboxList:
    # forward/backward are the SDK's words for next/prev
    page = await run_in_threadpool(c.sandboxes.archived, c.principal, c.ns, cursor=cursor, limit=limit,
                                   direction="prev" if direction in ("prev", "backward") else "next")
    return ArchivedSandboxList(sandboxes=[ArchivedSandboxInfo.of(sb, c.public_url) for sb in page.rows],
                               next_cursor=page.next_cursor, prev_cursor=page.prev_cursor)


@router.get("/archived-sandboxes/{sandbox_id}", response_class=JSON, responses=sandbox_responses(404))
async def get_archived_sandbox(sandbox_id: str, c: CallerDep) -> ArchivedSandboxInfo:
    sb = await run_in_threadpool(c.sandboxes.find, c.principal, c.ns, sandbox_id)
    if sb.status != SandboxStatus.terminated:
        raise SandboxNotFound(f"sandbox {sandbox_id!r} is not archived")
    return ArchivedSandboxInfo.of(sb, c.public_url)


@router.get("/sandboxes/{sandbox_id}/logs", response_class=JSON, response_model=LogsPage,
            responses={**sandbox_responses(400, 404), **FOLLOW_200})
async def sandbox_logs(sandbox_id: str, c: CallerDep, tail: Annotated[int | None, Query(ge=0)] = None,
                       head: Annotated[int | None, Query(ge=0)] = None,
                       level: Annotated[list[int] | None, Query(description="1 trace … 6 fatal")] = None,
                       process_id: Annotated[list[str] | None, Query(alias="processId")] = None,
                       next_token: Annotated[str | None, Query(alias="nextToken")] = None,
                       body: str | None = None, follow: bool = False) -> Any:
    """What the sandbox's processes wrote, line by line in time order (stdout at level info,
    stderr at error): the last ``tail`` lines, the first ``head``, or pages of 1000. With
    ``follow``: server-sent events, a ``log`` event per line (the ``tail`` first), new ones as
    they are written, until the sandbox stops running (``end``)."""
    q = LogQuery(levels=tuple(level or ()), process_ids=tuple(process_id or ()), body=body, head=head, tail=tail,
                 next_token=next_token)
    sb, lines, token = await run_in_threadpool(c.sandboxes.logs, c.principal, c.ns, sandbox_id, q)
    if follow:
        return EventSourceResponse(_follow(c, sandbox_id, q, sb, lines), ping=15)
    return LogsPage(logs=[LogRecord.of(sb, ln) for ln in lines], next_token=token)


async def _follow(c: Caller, sandbox_id: str, q: LogQuery, sb: Sandbox,
                  backlog: list[LogLine]) -> AsyncIterator[dict[str, str]]:
    seen = {ln.key for ln in backlog}
    after = max((ln.timestamp_ms for ln in backlog), default=0)
    new = backlog
    while True:
        for ln in new:
            seen.add(ln.key)
            after = max(after, ln.timestamp_ms)
            yield {"event": "log", "data": LogRecord.of(sb, ln).model_dump_json(by_alias=True)}
        if sb.status != SandboxStatus.running:
            yield {"event": "end", "data": orjson.dumps({"status": sb.status.value}).decode()}
            return
        await asyncio.sleep(FOLLOW_POLL_S)
        sb, fresh = await run_in_threadpool(c.sandboxes.logs_since, c.principal, c.ns, sandbox_id, q, after)
        new = [ln for ln in fresh if ln.key not in seen]


@router.get("/sandboxes/{sandbox_id}/processes", response_class=JSON, responses=sandbox_responses(404))
async def sandbox_log_processes(sandbox_id: str, c: CallerDep) -> ProcessLogsList:
    """The processes that wrote to the sandbox's logs, for filtering them."""
    _, rows = await run_in_threadpool(c.sandboxes.log_processes, c.principal, c.ns, sandbox_id)
    return ProcessLogsList.of(rows)


namespaced = APIRouter(prefix="/v1/namespaces/{namespace}")
namespaced.include_router(router, include_in_schema=False)
