"""The service around the sandboxes, on the real Docker engine: it reconciles with the engine
after a restart, runs lifecycle steps as Prefect task runs, and keeps a warm pool. Each test builds
services of its own with the settings it needs, instead of the module's shared live API."""

from __future__ import annotations

import time
from pathlib import Path

import docker
import pytest

from api.app import create_app
from api.services import Services
from pipelines.core.records import Principal
from pipelines.core.sandbox_backend import Launch
from pipelines.core.sandbox_records import Resources
from pipelines.docker.containers import DockerBackend
from pipelines.docker.names import LABEL_OWNER, LABEL_SANDBOX
from sandbox_runtime.client import RuntimeClient
from tests.support.helpers import A, remove_sandboxes_of
from tests.support.live_sandboxes import container_of, engine, settings_for

pytestmark = pytest.mark.docker


def test_a_restarted_service_reconciles_with_the_engine(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "docklake")
    first = Services.build(settings)
    from pipelines.usecases.sandboxes import CreateRequest

    me = Principal("org-a", "proj-a")
    kept = first.sandboxes.create(me, "default", CreateRequest())
    lost = first.sandboxes.create(me, "default", CreateRequest(name="lost"))
    first.close()
    engine().containers.get(lost.container_id).remove(force=True)
    # a container of this installation the catalog knows nothing of (a crash between the two)
    containers = DockerBackend("", tmp_path / "docklake" / "sandboxes", first.sandboxes.containers.owner)
    orphan = containers.launch(Launch("sborphan", "default", 1, settings.sandbox.image, None, Resources(),
                                      False, "t" * 48, "orphan", 64), 60)

    second = Services.build(settings)  # reconciles at start
    try:
        assert second.sandboxes.reload(kept).status.value == "running"
        assert RuntimeClient(f"http://{second.sandboxes.reload(kept).address}", token=kept.token).health()
        after = second.sandboxes.reload(lost)
        assert after.status.value == "terminated" and after.termination_reason == "lost"
        with pytest.raises(docker.errors.NotFound):
            engine().containers.get(orphan.container_id)
    finally:
        second.close()
        remove_sandboxes_of(containers.owner)


def test_lifecycle_steps_are_prefect_task_runs(tmp_path: Path, prefect_api: str) -> None:
    import asyncio

    from fastapi.testclient import TestClient
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterName

    from pipelines.flows.sandboxes import prefect_runner

    services = Services.build(settings_for(tmp_path / "docklake"), prefect_runner())
    try:
        with TestClient(create_app(services=services)) as c:
            sb = c.post("/sandboxes", json={"name": "tracked"}, headers=A).json()
            r = c.post("/sandboxes/tracked/suspend?wait_ms=30000", headers=A)
            assert (r.status_code, r.json()["status"]) == (200, "suspended")
            c.delete("/sandboxes/tracked", headers=A)

        async def runs() -> list:
            async with get_client() as client:
                return await client.read_task_runs(task_run_filter=TaskRunFilter(
                    name=TaskRunFilterName(any_=[f"suspend-{sb['sandbox_id']}"])))

        deadline = time.monotonic() + 30
        while not ((found := asyncio.run(runs())) and found[0].state and found[0].state.is_completed()):
            assert time.monotonic() < deadline, f"no completed task run for the suspend: {found}"
            time.sleep(0.5)
        assert found[0].task_key and "sandbox" in found[0].tags
    finally:
        services.close()
        remove_sandboxes_of(services.sandboxes.containers.owner)


def test_unnamed_default_sandboxes_come_from_a_warm_pool(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    services = Services.build(settings_for(tmp_path / "docklake", pool_size=1))
    owner = services.sandboxes.containers.owner

    def pooled() -> list:
        return [c for c in engine().containers.list(filters={"label": f"{LABEL_OWNER}={owner}"})
                if c.labels[LABEL_SANDBOX].startswith("pool")]

    def wait_pooled(but_not: str | None = None) -> str:
        deadline = time.monotonic() + 60
        while not ((ids := [c.id for c in pooled() if c.id != but_not]) and services.sandboxes.pool.count()):
            assert time.monotonic() < deadline, "the pool was not filled"
            time.sleep(0.1)
        return ids[0]

    try:
        with TestClient(create_app(services=services)) as c:
            assert pooled() == []  # nothing is started before anyone asks for a sandbox
            first = c.post("/sandboxes", json={}, headers=A).json()
            warm = wait_pooled()
            second = c.post("/sandboxes", json={}, headers=A).json()
            assert services.sandboxes.reload(services.sandboxes.find(
                Principal("org-a", "proj-a"), "default", second["sandbox_id"])).container_id == warm
            sb2 = services.sandboxes.find(Principal("org-a", "proj-a"), "default", second["sandbox_id"])
            assert RuntimeClient(f"http://{sb2.address}", token=sb2.token).health() == {"healthy": True}
            assert wait_pooled(but_not=warm) != warm  # and it is filled again
            named = c.post("/sandboxes", json={"name": "own-box"}, headers=A).json()
            assert container_of(named["sandbox_id"]) is not None  # a named sandbox boots its own
            for sb in (first, second, named):
                c.delete(f"/sandboxes/{sb['sandbox_id']}", headers=A)
    finally:
        services.close()
        remove_sandboxes_of(owner)
