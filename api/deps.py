"""``Annotated`` dependencies: routes declare only what they need.

They are ``async`` so that resolving them costs no thread hop; only a key lookup that misses the
cache goes to a worker thread.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool

from api.errors import Unauthorized
from api.services import Services
from api.wire.common import parse_rfc3339
from pipelines.core.records import JobFilter, JobStatus, Principal
from pipelines.core.settings import Settings
from pipelines.usecases.runtime import Runtime


async def get_services(request: Request) -> Services:
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_settings(services: ServicesDep) -> Settings:
    return services.settings


async def get_runtime(services: ServicesDep) -> Runtime:
    return services.rt


async def get_principal(request: Request, services: ServicesDep) -> Principal:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("missing bearer token: send 'Authorization: Bearer <API key>'")
    token = token.strip()
    principal = services.cached_principal(token)
    if principal is None:
        principal = await run_in_threadpool(services.authenticate, token)
    if principal is None:
        raise Unauthorized("invalid API key")
    request.state.principal = principal
    return principal


SettingsDep = Annotated[Settings, Depends(get_settings)]
RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]


def job_filter(
    status: JobStatus | None = None,
    created_after: str | None = None,
    created_before: str | None = None,
    finished_after: str | None = None,
    finished_before: str | None = None,
) -> JobFilter:
    """The query parameters every listing of jobs takes (RFC 3339 times)."""
    return JobFilter(
        status=status,
        created_after=parse_rfc3339(created_after, "created_after"),
        created_before=parse_rfc3339(created_before, "created_before"),
        finished_after=parse_rfc3339(finished_after, "finished_after"),
        finished_before=parse_rfc3339(finished_before, "finished_before"),
    )


JobFilterDep = Annotated[JobFilter, Depends(job_filter)]
