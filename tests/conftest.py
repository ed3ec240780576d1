"""Shared fixtures: real catalog (SQLite, and PostgreSQL where marked), real storage, a real
Prefect server for the session, and the app over ASGI."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.helpers import free_port  # noqa: E402

# Prefect reads its settings on first import, so the session's server address is fixed here,
# before any test module imports the flows.
PREFECT_PORT = free_port()
PREFECT_DIR = Path(tempfile.mkdtemp(prefix="docklake-test-prefect-"))
PREFECT_API = f"http://127.0.0.1:{PREFECT_PORT}/api"
for _k in [k for k in os.environ if k.startswith("DOCKLAKE_")]:
    del os.environ[_k]
from pipelines.core.settings import Settings  # noqa: E402
from pipelines.flows.prefect_server import prefect_env  # noqa: E402  (imports no Prefect)

PREFECT_SETTINGS = Settings(data_dir=PREFECT_DIR, prefect={"port": PREFECT_PORT})
os.environ.update(prefect_env(PREFECT_SETTINGS))
# a task run over a tag concurrency limit retries after this long (Prefect's default is 30 s)
os.environ["PREFECT_SERVER_TASKS_TAG_CONCURRENCY_SLOT_WAIT_SECONDS"] = "1"

# The document children's fork server, started as `docklake worker` starts it: before any thread,
# with what the children use preloaded (otherwise each child imports pyarrow and fsspec itself),
# and `tests`, which holds the children's conversions to the "no word dropped" invariant too.
from pipelines.engine import isolation  # noqa: E402

isolation.start(preload=["assets.results", "pipelines.engine.fetch", "tests"])

from fastapi.testclient import TestClient  # noqa: E402

from api.app import create_app  # noqa: E402
from api.services import Services  # noqa: E402
from tests.support.helpers import API_KEYS, no_docker_engine  # noqa: E402
from tests.support.postgres import postgres_url  # noqa: E402, F401  (session fixture)


@pytest.fixture(autouse=True)
def _fresh_chunk_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chunk planner learns the engine's rate from the jobs it runs; each test starts from its
    default, not from what earlier tests' documents taught it (which could split a batch a test
    expects in one chunk)."""
    from pipelines.usecases import chunking

    monkeypatch.setattr(chunking, "rate", chunking._Rate())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the tests marked ``docker`` with the reason where no Docker engine answers, so
    ``pytest -m "not docker"`` (or the whole suite) runs on a machine without one."""
    needing = [item for item in items if item.get_closest_marker("docker")]
    if needing and (reason := no_docker_engine()):
        for item in needing:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def prefect_api() -> Iterator[str]:
    from pipelines.flows.prefect_server import ManagedPrefectServer

    server = ManagedPrefectServer(PREFECT_SETTINGS)
    server.start(timeout_s=180)
    yield PREFECT_API
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all(timeout=10)  # the job logs still queued, before their server goes
    server.stop()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "docklake", api_keys=API_KEYS, prefect={"api_url": PREFECT_API},
                    worker={"lease_s": 5})


@pytest.fixture
def services(settings: Settings) -> Iterator[Services]:
    svc = Services.build(settings)
    yield svc
    svc.close()


@pytest.fixture
def client(services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(services=services)) as c:
        yield c


@pytest.fixture
def run_jobs(services: Services, prefect_api: str) -> Callable[[], int]:
    """Run the dispatcher (real Prefect flow runs) until no job is runnable; returns jobs run."""
    from pipelines.flows.dispatcher import Dispatcher
    from pipelines.usecases.runtime import Runtime, install

    rt = Runtime(services.settings, services.engine, services.storage)
    install(rt)

    def run() -> int:
        async def loop() -> int:
            d = Dispatcher(rt)
            total = 0
            while n := await d.run_once():
                total += n
            return total

        return asyncio.run(loop())

    return run


@pytest.fixture
def worker(services: Services, prefect_api: str) -> Iterator[object]:
    """``Dispatcher.run_forever`` on its own event loop and thread, as ``docklake worker`` runs it;
    the test sees the running ``Dispatcher``."""
    import threading

    from pipelines.flows.dispatcher import Dispatcher
    from pipelines.usecases.runtime import Runtime, install

    rt = Runtime(services.settings, services.engine, services.storage)
    install(rt)
    d = Dispatcher(rt)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(d.run_forever(),), daemon=True)
    thread.start()
    d.thread = thread  # type: ignore[attr-defined]
    yield d
    loop.call_soon_threadsafe(d.stop)
    thread.join(60)
