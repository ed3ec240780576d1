"""The FastAPI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.routing import APIRoute

from api import docs, errors
from api.middleware.limits import BodyLimitMiddleware
from api.middleware.logging import RequestContextMiddleware
from api.proxy import SandboxProxyMiddleware
from api.routes import datasets, file_systems, files, health, jobs, query, sandboxes, v1, webhooks
from api.services import Services
from pipelines.core.settings import Settings
from pipelines.usecases.sandboxes import Runner


def _operation_id(route: APIRoute) -> str:
    tag = route.tags[0] if route.tags else "default"
    return f"{tag}-{route.name}"


def create_app(settings: Settings | None = None, services: Services | None = None,
               sandbox_runner: Runner | None = None) -> FastAPI:
    """``sandbox_runner`` runs the sandboxes' background steps when the app builds its own
    services (``docklake serve`` passes Prefect's)."""
    settings = settings or (services.settings if services else Settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = services is None
        app.state.services = services or Services.build(settings, sandbox_runner)
        try:
            yield
        finally:
            if owned:
                app.state.services.close()

    app = FastAPI(title="docklake", version="0.1.0", lifespan=lifespan,
                  generate_unique_id_function=_operation_id, docs_url=None, redoc_url=None,
                  description="Self-hosted document ingestion and sandboxes, Tensorlake-compatible.")
    if services is not None:
        app.state.services = services
    app.add_middleware(BodyLimitMiddleware)
    app.add_middleware(RequestContextMiddleware)
    app.add_middleware(SandboxProxyMiddleware)
    errors.install(app)
    docs.install(app)
    app.include_router(health.router)
    app.include_router(files.router)
    app.include_router(jobs.router)
    app.include_router(datasets.router)
    app.include_router(query.router)
    app.include_router(webhooks.router)
    app.include_router(v1.router)
    app.include_router(sandboxes.router)
    app.include_router(sandboxes.namespaced)
    app.include_router(file_systems.router)
    return app
