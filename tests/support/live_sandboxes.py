"""A docklake API served over real HTTP for the sandbox tests, the client they drive it with, and
the look-ups they check the Docker engine with. Shared by tests/sandbox/test_sandboxes*.py,
test_memory_snapshots.py and test_newest_sdk.py, which each serve one API per module."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import docker
import httpx
import uvicorn

from api.app import create_app
from api.services import Services
from pipelines.core.settings import Settings
from pipelines.docker.names import LABEL_SANDBOX
from sandbox_runtime.client import RuntimeClient
from tests.support.helpers import API_KEYS, A, free_port, remove_sandboxes_of


@dataclass
class Live:
    url: str
    services: Services
    http: httpx.Client  # as organization a

    def create(self, **body: object) -> dict:
        r = self.http.post("/sandboxes", json=body)
        assert r.status_code == 200, r.text
        return r.json()

    def get(self, ref: str) -> dict:
        r = self.http.get(f"/sandboxes/{ref}")
        assert r.status_code == 200, r.text
        return r.json()

    def wait_status(self, ref: str, status: str, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            sb = self.get(ref)
            if sb["status"] == status:
                return sb
            assert time.monotonic() < deadline, f"{ref} is {sb['status']}, not {status}: {sb}"
            time.sleep(0.1)

    def runtime(self, sb: dict, **kw: object) -> RuntimeClient:
        return RuntimeClient(sb["sandbox_url"], headers=dict(A), **kw)

    def run(self, sb: dict, script: str) -> tuple[int, str]:
        out, code = [], None
        for event, data in self.runtime(sb).run("sh", ["-c", script]):
            if event == "output":
                out.append(data["line"])
            elif event == "exit":
                code = data["exit_code"]
        return code, "\n".join(out)


def engine() -> docker.DockerClient:
    return docker.from_env()


def settings_for(data_dir: Path, **sandbox: object) -> Settings:
    """Memory snapshots are off here: these tests hold on a host without CRIU (copies carry the
    filesystem only); tests/sandbox/test_memory_snapshots.py has them on."""
    return Settings(data_dir=data_dir, api_keys=API_KEYS, api={"port": free_port()},
                    sandbox={"reaper_s": 0.3, "start_timeout_s": 60, "pool_size": 0, "memory_snapshots": False,
                             **sandbox})


def serve(settings: Settings, services: Services) -> Iterator[Live]:
    """The API of ``services`` served over HTTP until the generator is closed; then every
    sandbox of it is gone."""
    server = uvicorn.Server(uvicorn.Config(create_app(services=services), host="127.0.0.1",
                                           port=settings.api.port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    url = f"http://127.0.0.1:{settings.api.port}"
    with httpx.Client(base_url=url, headers=A, timeout=120) as http:
        yield Live(url, services, http)
        for sb in http.get("/sandboxes").json()["sandboxes"]:
            http.delete(f"/sandboxes/{sb['sandbox_id']}")
    server.should_exit = True
    thread.join(10)
    services.close()
    remove_sandboxes_of(services.sandboxes.containers.owner)


def container_of(sandbox_id: str) -> docker.models.containers.Container | None:
    """The sandbox's container, or None; one removed between the listing and its inspection (the
    engine's listing inspects each container it finds) is gone, not an error."""
    for c in engine().containers.list(all=True, sparse=True, filters={"label": f"{LABEL_SANDBOX}={sandbox_id}"}):
        try:
            return engine().containers.get(c.id)
        except docker.errors.NotFound:
            continue
    return None


def wait_for(what: str, check: object, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"not within {timeout:.0f}s: {what}"
        time.sleep(0.1)
