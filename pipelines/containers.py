"""Sandboxes as Docker containers: start one hardened with the runtime daemon injected, commit its
filesystem, remove it, and list what the service left on the engine (for reconciliation).

Plain functions of the docker SDK; the catalog and the rules of the sandbox API are the use
cases' business. Every container and image carries ``docklake.*`` labels.

Hardening of every container: all capabilities dropped, ``no-new-privileges``, Docker's default
seccomp profile, memory (no swap beyond it), CPU and process limits from the request, docker-init
as PID 1. Networking: a sandbox that may not reach the internet sits on an internal bridge
(no route out) with inter-container traffic off; one that may, on a bridge with NAT, also with
inter-container traffic off. The service reaches the daemon at the container's bridge address.
The root filesystem stays writable: it is what a filesystem snapshot (``docker commit``) keeps.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import docker
from docker.errors import APIError, DockerException, ImageNotFound, NotFound

import sandbox_runtime
from pipelines import mounts
from pipelines.sandbox_records import DAEMON_PORT, Bind, Resources
from sandbox_runtime.client import RuntimeClient
from sandbox_runtime.contract import RuntimeApiError

LABEL_SANDBOX = "docklake.sandbox"
LABEL_OWNER = "docklake.owner"  # which installation (catalog) made it: several may share an engine
LABEL_NAMESPACE = "docklake.namespace"
LABEL_GENERATION = "docklake.generation"
LABEL_SNAPSHOT = "docklake.snapshot"
SNAPSHOT_REPO = "docklake/snapshot"
NET_ISOLATED = "docklake-sandboxes"
NET_INTERNET = "docklake-sandboxes-internet"
RUNTIME_MOUNT = "/opt/docklake"
TOKEN_PATH = "/run/docklake/token"
# python3 -c … runs the daemon from the read-only mount without putting it on the user's path
BOOT = (f"import sys, runpy; sys.path.insert(0, {RUNTIME_MOUNT!r}); "
        "runpy.run_module('sandbox_runtime', run_name='__main__', alter_sys=True)")


class ContainerError(Exception):
    """The engine refused or failed; the message says what to do when it can."""


@dataclass(frozen=True)
class Launch:
    sandbox_id: str
    namespace: str
    generation: int
    image: str
    entrypoint: tuple[str, ...] | None
    resources: Resources
    internet: bool
    token: str
    hostname: str
    pids_limit: int
    binds: tuple[Bind, ...] = ()


@dataclass(frozen=True)
class Started:
    container_id: str
    address: str  # host:port of the runtime daemon


@dataclass(frozen=True)
class Leftover:
    container_id: str
    sandbox_id: str
    running: bool


class Containers:
    def __init__(self, docker_url: str, state_dir: Path, owner: str) -> None:
        self._url = docker_url
        self.owner = owner
        self._state_dir = state_dir
        self._client: docker.DockerClient | None = None
        self._runtime_dir = Path(sandbox_runtime.__file__).resolve().parent

    @property
    def client(self) -> docker.DockerClient:
        if self._client is None:
            try:
                self._client = (docker.DockerClient(base_url=self._url, timeout=120) if self._url
                                else docker.from_env(timeout=120))
            except DockerException as exc:
                raise ContainerError(f"no Docker engine answers ({exc}); start dockerd "
                                     "(`scripts/bootstrap.sh` does) or set DOCKLAKE_SANDBOX__DOCKER_URL") from exc
        return self._client

    def available(self) -> bool:
        try:
            return bool(self.client.ping())
        except (ContainerError, DockerException):
            return False

    def memory_snapshots(self) -> bool:
        """Checkpointing memory needs an experimental engine with CRIU ≥ 4.1 on its path; Docker's
        ``checkpoint`` API is only there when the engine is experimental."""
        try:
            return bool(self.client.info().get("ExperimentalBuild"))
        except (ContainerError, DockerException):
            return False

    def image_exists(self, ref: str) -> bool:
        try:
            self.client.images.get(ref)
            return True
        except ImageNotFound:
            return False
        except DockerException as exc:
            raise ContainerError(f"Docker engine error: {exc}") from exc

    def _network(self, internet: bool) -> str:
        name = NET_INTERNET if internet else NET_ISOLATED
        try:
            self.client.networks.get(name)
        except NotFound:
            try:
                self.client.networks.create(
                    name, driver="bridge", internal=not internet, labels={"docklake.network": "1"},
                    options={"com.docker.network.bridge.enable_icc": "false"})
            except APIError as exc:
                if "already exists" not in str(exc):
                    raise
        return name

    def launch(self, req: Launch, timeout_s: float) -> Started:
        """Create and start the container, then wait until its daemon answers health checks."""
        folder = self._state_dir / req.sandbox_id
        folder.mkdir(parents=True, exist_ok=True)
        token_file = folder / "token"
        token_file.write_text(req.token)
        token_file.chmod(0o400)
        cpus = min(req.resources.cpus, float(os.cpu_count() or 1))
        command = ["-c", BOOT, "--token-file", TOKEN_PATH, "--quiet", "--"] + list(req.entrypoint or ("sleep", "infinity"))
        try:
            network = self._network(req.internet)
            container = self.client.containers.run(
                req.image, command=command, entrypoint=["python3"], detach=True,
                name=f"docklake-{req.sandbox_id}-{req.generation}", hostname=req.hostname,
                labels={LABEL_SANDBOX: req.sandbox_id, LABEL_OWNER: self.owner, LABEL_NAMESPACE: req.namespace,
                        LABEL_GENERATION: str(req.generation)},
                init=True, cap_drop=["ALL"], security_opt=["no-new-privileges"],
                mem_limit=f"{req.resources.memory_mb}m", memswap_limit=f"{req.resources.memory_mb}m",
                nano_cpus=max(int(cpus * 1e9), 10_000_000), pids_limit=req.pids_limit,
                network=network,
                volumes={str(self._runtime_dir): {"bind": f"{RUNTIME_MOUNT}/sandbox_runtime", "mode": "ro"},
                         str(token_file): {"bind": TOKEN_PATH, "mode": "ro"},
                         **{b.source: {"bind": b.target, "mode": "ro" if b.read_only else "rw"} for b in req.binds}},
            )
        except ImageNotFound as exc:
            raise ContainerError(f"image {req.image!r} is not on the Docker engine: build or load it first "
                                 "(the default image comes from scripts/build-sandbox-image.sh)") from exc
        except DockerException as exc:
            raise ContainerError(f"Docker engine error: {exc}") from exc
        try:
            address = self._wait_healthy(container, network, req.token, timeout_s)
        except ContainerError:
            self.remove(container.id)
            raise
        return Started(container.id, address)

    def _wait_healthy(self, container: object, network: str, token: str, timeout_s: float) -> str:
        deadline = time.monotonic() + timeout_s
        client: RuntimeClient | None = None
        try:
            while time.monotonic() < deadline:
                container.reload()  # type: ignore[attr-defined]
                attrs = container.attrs  # type: ignore[attr-defined]
                if attrs["State"]["Status"] in ("exited", "dead"):
                    logs = container.logs(tail=20).decode(errors="replace")  # type: ignore[attr-defined]
                    raise ContainerError(f"the sandbox's container stopped at start (exit code "
                                         f"{attrs['State'].get('ExitCode')}; does the image have python3?): "
                                         f"{logs.strip()[-800:]}")
                ip = (attrs["NetworkSettings"]["Networks"].get(network) or {}).get("IPAddress")
                if ip and client is None:
                    client = RuntimeClient(f"http://{ip}:{DAEMON_PORT}", token=token, timeout=1.0)
                if client is not None:
                    try:
                        if client.health().get("healthy"):
                            return f"{ip}:{DAEMON_PORT}"
                    except (OSError, RuntimeApiError):
                        client.close()
                time.sleep(0.02)
        finally:
            if client is not None:
                client.close()
        raise ContainerError(f"the sandbox's runtime daemon did not answer within {timeout_s:.0f}s")

    def _pid(self, container_id: str) -> int:
        try:
            pid = int(self.client.containers.get(container_id).attrs["State"]["Pid"])
        except NotFound as exc:
            raise ContainerError("the sandbox's container is gone") from exc
        if pid <= 0:
            raise ContainerError("the sandbox's container is not running")
        return pid

    def mount(self, container_id: str, bind: Bind) -> None:
        """Bind a host directory into the running container (no restart)."""
        try:
            mounts.attach(self._pid(container_id), bind.source, bind.target, bind.read_only)
        except mounts.MountError as exc:
            raise ContainerError(f"mounting at {bind.target} failed: {exc}") from exc

    def unmount(self, container_id: str, target: str) -> None:
        try:
            mounts.detach(self._pid(container_id), target)
        except mounts.MountError as exc:
            raise ContainerError(f"unmounting {target} failed: {exc}") from exc

    def healthy(self, address: str, token: str) -> bool:
        try:
            with RuntimeClient(f"http://{address}", token=token, timeout=2.0) as client:
                return bool(client.health().get("healthy"))
        except (OSError, RuntimeApiError):
            return False

    def address(self, container_id: str) -> str | None:
        try:
            c = self.client.containers.get(container_id)
        except NotFound:
            return None
        for net in c.attrs["NetworkSettings"]["Networks"].values():
            if net.get("IPAddress"):
                return f"{net['IPAddress']}:{DAEMON_PORT}"
        return None

    def is_running(self, container_id: str) -> bool:
        try:
            return self.client.containers.get(container_id).status == "running"
        except NotFound:
            return False

    def commit(self, container_id: str, snapshot_id: str) -> tuple[str, int]:
        """The container's filesystem as an image (taken paused, so it is consistent): its
        reference and size in bytes."""
        try:
            c = self.client.containers.get(container_id)
            image = c.commit(repository=SNAPSHOT_REPO, tag=snapshot_id, pause=True,
                             changes=[f"LABEL {LABEL_SNAPSHOT}={snapshot_id}",
                                      f"LABEL {LABEL_OWNER}={self.owner}"])
        except NotFound as exc:
            raise ContainerError("the sandbox's container is gone") from exc
        except DockerException as exc:
            raise ContainerError(f"Docker engine error while committing: {exc}") from exc
        return f"{SNAPSHOT_REPO}:{snapshot_id}", int(image.attrs.get("Size") or 0)

    def remove(self, container_id: str) -> None:
        try:
            self.client.containers.get(container_id).remove(force=True)
        except NotFound:
            pass
        except APIError as exc:
            if "is already in progress" not in str(exc):
                raise ContainerError(f"Docker engine error while removing: {exc}") from exc

    def forget_state(self, sandbox_id: str) -> None:
        folder = self._state_dir / sandbox_id
        token = folder / "token"
        if token.exists():
            token.chmod(0o600)
            token.unlink()
        if folder.is_dir():
            folder.rmdir()

    def remove_image(self, ref: str) -> None:
        try:
            self.client.images.remove(ref, force=True)
        except ImageNotFound:
            pass
        except APIError as exc:
            raise ContainerError(f"Docker engine error while removing an image: {exc}") from exc

    def leftovers(self) -> list[Leftover]:
        """Every container the service made (running or not)."""
        return [Leftover(c.id, c.labels.get(LABEL_SANDBOX, ""), c.status == "running")
                for c in self.client.containers.list(all=True, filters={"label": f"{LABEL_OWNER}={self.owner}"})]

    def snapshot_images(self) -> list[str]:
        return [t for img in self.client.images.list(filters={"label": LABEL_SNAPSHOT}) for t in img.tags]
