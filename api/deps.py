"""``Annotated`` dependencies: routes declare only what they need.

They are ``async`` so that resolving them costs no thread hop; only a key lookup that misses the
cache goes to a worker thread.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import Engine

from api.errors import Unauthorized
from api.services import Services
from assets.keys import Principal
from assets.storage import Storage
from pipelines.settings import Settings


async def get_services(request: Request) -> Services:
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_settings(services: ServicesDep) -> Settings:
    return services.settings


async def get_engine(services: ServicesDep) -> Engine:
    return services.engine


async def get_storage(services: ServicesDep) -> Storage:
    return services.storage


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
EngineDep = Annotated[Engine, Depends(get_engine)]
StorageDep = Annotated[Storage, Depends(get_storage)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
