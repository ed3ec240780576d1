"""Liveness, readiness and metrics (no authentication)."""

from __future__ import annotations

import httpx
from fastapi import APIRouter, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, PlainTextResponse
from sqlalchemy import text

from api.deps import ServicesDep
from api.middleware.metrics import render
from api.wire.health import Health, Ready

router = APIRouter(tags=["operations"])


@router.get("/healthz", response_model=Health)
def healthz() -> dict:
    return {"status": "ok"}


@router.get("/readyz", response_model=Ready, responses={503: {"description": "Not ready: a check failed.",
                                                               "model": Ready}})
async def readyz(services: ServicesDep) -> Response:
    checks: dict[str, str] = {}

    def catalog() -> None:
        with services.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    for name, fn in (("catalog", catalog), ("storage", services.storage.ping)):
        try:
            await run_in_threadpool(fn)
            checks[name] = "ok"
        except Exception as exc:  # noqa: BLE001
            checks[name] = f"error: {exc}"
    url = services.settings.effective_prefect_api_url.rstrip("/") + "/health"
    try:
        async with httpx.AsyncClient(timeout=2.0) as client:
            r = await client.get(url)
        checks["prefect"] = "ok" if r.status_code == 200 else f"error: HTTP {r.status_code}"
    except httpx.HTTPError as exc:
        checks["prefect"] = f"error: {exc!r}"
    ready = all(v == "ok" for v in checks.values())
    sandboxes = await run_in_threadpool(services.sandboxes.capabilities)
    return JSONResponse({"ready": ready, "checks": checks, "sandboxes": sandboxes},
                        status_code=200 if ready else 503)


@router.get("/metrics", response_class=PlainTextResponse,
            responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                             "description": "Prometheus metrics."}})
def metrics() -> Response:
    body, ctype = render()
    return Response(body, media_type=ctype)
