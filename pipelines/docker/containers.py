"""Sandboxes as Docker containers: ``DockerBackend``, the ``SandboxBackend`` of
``pipelines.core.sandbox_backend`` over the docker SDK. This module starts a container hardened
with the runtime daemon injected, waits until it answers, mounts into it while it runs, removes
it, and lists what the service left on the engine (for reconciliation); capturing and restoring
is ``snapshots``'s, the memory-snapshot self-test ``self_test``'s.

Plain functions of the docker SDK; the catalog and the rules of the sandbox API are the use
cases' business. Every container and image carries ``docklake.*`` labels (``names``).

Hardening of every container: all capabilities dropped, ``no-new-privileges``, Docker's default
seccomp profile, memory (no swap beyond it), CPU and process limits from the request, docker-init
as PID 1. Networking: a sandbox that may not reach the internet sits on an internal bridge
(no route out) with inter-container traffic off; one that may, on a bridge with NAT, also with
inter-container traffic off. The service reaches the daemon at the container's bridge address.
With ``read_only_root`` (the default) the image is mounted read-only and a sandbox's writable
state is its workspace, a host directory bound at ``/workspace`` (also its ``HOME``), beside a
tmpfs ``/tmp`` (and ``/mnt``, for the mount points of file systems attached while it runs, which
only docklake writes to).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import docker
from docker.errors import APIError, DockerException, ImageNotFound, NotFound

import sandbox_runtime
from pipelines.core.sandbox_backend import ContainerError, Launch, Leftover, Started
from pipelines.core.sandbox_records import DAEMON_PORT, Bind
from pipelines.docker import mounts, self_test
from pipelines.docker.names import (
    BOOT,
    LABEL_GENERATION,
    LABEL_NAMESPACE,
    LABEL_OWNER,
    LABEL_SANDBOX,
    NET_INTERNET,
    NET_ISOLATED,
    RUNTIME_MOUNT,
    TOKEN_PATH,
    WORKSPACE,
)
from pipelines.docker.snapshots import Snapshots
from sandbox_runtime.client import RuntimeClient
from sandbox_runtime.contract import RuntimeApiError


class DockerBackend(Snapshots):
    """The ``SandboxBackend`` over one Docker engine. ``owner`` labels what this installation
    makes (several may share an engine); ``state_dir`` holds each sandbox's token and workspace,
    its siblings the snapshots' copies and checkpoints."""

    def __init__(self, docker_url: str, state_dir: Path, owner: str, *, read_only_root: bool = True,
                 tmp_mb: int = 512, memory_snapshots: bool = True, probe_image: str = "") -> None:
        self._url = docker_url
        self.owner = owner
        self.read_only_root = read_only_root
        self._tmp_mb = tmp_mb
        self._memory_wanted = memory_snapshots
        self._probe_image = probe_image
        self._data_root: Path | None = None
        self._snapshot_dir = state_dir.parent / "sandbox-snapshots"
        self._checkpoint_dir = state_dir.parent / "sandbox-checkpoints"
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

    def memory_snapshots(self) -> str | None:
        """None when memory can be checkpointed and restored here, else why not (``self_test``)."""
        return self_test.memory_snapshots(self, self._url, self._probe_image, self._memory_wanted)

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

    def launch(self, req: Launch, timeout_s: float, *, checkpoint: Path | None = None) -> Started:
        """Create and start the container, then wait until its daemon answers health checks. With
        ``checkpoint`` (a memory snapshot's, see ``checkpoint_path``) its processes are restored
        from it instead of started: the daemon then reads its new token, the sandbox's own."""
        folder = self._state_dir / req.sandbox_id
        folder.mkdir(parents=True, exist_ok=True)
        token_file = folder / "token"
        token_file.write_text(req.token)
        token_file.chmod(0o400)
        cpus = min(req.resources.cpus, float(os.cpu_count() or 1))
        volumes = {str(self._runtime_dir): {"bind": f"{RUNTIME_MOUNT}/sandbox_runtime", "mode": "ro"},
                   str(token_file): {"bind": TOKEN_PATH, "mode": "ro"}}
        rootfs: dict[str, object] = {}
        if self.read_only_root:
            volumes[str(self.workspace(req.sandbox_id))] = {"bind": WORKSPACE, "mode": "rw"}
            # /mnt: where file systems attached to a running sandbox get their mount points
            rootfs = {"read_only": True, "environment": {"HOME": WORKSPACE},
                      "tmpfs": {"/tmp": f"size={self._tmp_mb}m,mode=1777", "/mnt": "size=1m,mode=555"}}
        volumes.update({b.source: {"bind": b.target, "mode": "ro" if b.read_only else "rw"} for b in req.binds})
        command = ["-c", BOOT, "--token-file", TOKEN_PATH, "--quiet", "--"] + list(req.entrypoint or ("sleep", "infinity"))
        try:
            network = self._network(req.internet)
            container = (self.client.containers.run if checkpoint is None else self.client.containers.create)(
                req.image, command=command, entrypoint=["python3"], detach=True,
                name=f"docklake-{req.sandbox_id}-{req.generation}", hostname=req.hostname,
                labels={LABEL_SANDBOX: req.sandbox_id, LABEL_OWNER: req.owner or self.owner,
                        LABEL_NAMESPACE: req.namespace,
                        LABEL_GENERATION: str(req.generation)},
                init=True, cap_drop=["ALL"], security_opt=["no-new-privileges"],
                mem_limit=f"{req.resources.memory_mb}m", memswap_limit=f"{req.resources.memory_mb}m",
                nano_cpus=max(int(cpus * 1e9), 10_000_000), pids_limit=req.pids_limit,
                network=network, volumes=volumes, **rootfs,
            )
        except ImageNotFound as exc:
            raise ContainerError(f"image {req.image!r} is not on the Docker engine: build or load it first "
                                 "(the default image comes from scripts/build-sandbox-image.sh)") from exc
        except DockerException as exc:
            raise ContainerError(f"Docker engine error: {exc}") from exc
        try:
            if checkpoint is not None:
                self._restore(container.id, checkpoint)
            address = self._wait_healthy(container, network, req.token, timeout_s)
            self._put_back_scratch(req.sandbox_id, address, req.token, restored=checkpoint is not None)
        except ContainerError:
            self.remove(container.id)
            raise
        return Started(container.id, address)

    def _put_back_scratch(self, sandbox_id: str, address: str, token: str, *, restored: bool) -> None:
        """A sandbox started from a snapshot gets the snapshot's /tmp and /dev/shm back, through
        its daemon (inside the sandbox, where its links lead where they should). A restored
        memory snapshot needs none: CRIU brings tmpfs contents back with the processes."""
        seed = self.scratch_seed(sandbox_id)
        if restored or not seed.is_file():
            seed.unlink(missing_ok=True)
            return
        try:
            with RuntimeClient(f"http://{address}", token=token, timeout=120.0) as client:
                client.restore_scratch(seed.read_bytes())
        except (OSError, RuntimeApiError) as exc:
            raise ContainerError(f"putting back the snapshot's /tmp and /dev/shm failed: {exc}") from exc
        seed.unlink()

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

    def process_logs(self, address: str, token: str, after_ms: int = 0) -> list[dict[str, Any]]:
        try:
            with RuntimeClient(f"http://{address}", token=token, timeout=10.0) as client:
                return list(client.logs(after_ms)["processes"])
        except (OSError, RuntimeApiError, ValueError) as exc:
            raise ContainerError(f"the sandbox's runtime daemon did not give its logs: {exc}") from exc

    def address(self, container_id: str) -> str | None:
        try:
            c = self.client.containers.get(container_id)
        except NotFound:
            return None
        for net in c.attrs["NetworkSettings"]["Networks"].values():
            if net.get("IPAddress"):
                return f"{net['IPAddress']}:{DAEMON_PORT}"
        return None

    def capacity(self) -> tuple[float, int]:
        try:
            info = self.client.info()
        except DockerException as exc:
            raise ContainerError(f"Docker engine error: {exc}") from exc
        return float(info["NCPU"]), int(info["MemTotal"]) >> 20

    def memory_used_mb(self, container_id: str) -> int:
        try:
            mem = self.client.api.stats(container_id, stream=False, one_shot=True)["memory_stats"]
        except DockerException as exc:
            raise ContainerError(f"Docker engine error: {exc}") from exc
        # as `docker stats` counts it: the page cache the kernel can drop is not in use
        return max(0, int(mem.get("usage", 0)) - int((mem.get("stats") or {}).get("inactive_file", 0))) >> 20

    def resize(self, container_id: str, cpus: float, memory_mb: int) -> None:
        # docker-py's update_container has no NanoCpus, which the container was created with (a
        # CPU quota beside it is refused), so the engine's update endpoint is called directly
        api = self.client.api
        limits = {"NanoCpus": int(cpus * 1e9), "Memory": memory_mb << 20, "MemorySwap": memory_mb << 20}
        try:
            api._result(api._post_json(api._url("/containers/{0}/update", container_id), data=limits), True)
        except NotFound as exc:
            raise ContainerError("the sandbox's container is gone") from exc
        except APIError as exc:
            raise ContainerError(f"the Docker engine refused the new limits: {exc.explanation or exc}") from exc
        except DockerException as exc:
            raise ContainerError(f"Docker engine error: {exc}") from exc

    def limits(self, container_id: str) -> tuple[float, int] | None:
        try:
            host = self.client.containers.get(container_id).attrs["HostConfig"]
        except NotFound:
            return None
        except DockerException as exc:
            raise ContainerError(f"Docker engine error: {exc}") from exc
        return host["NanoCpus"] / 1e9, int(host["Memory"]) >> 20

    def is_running(self, container_id: str) -> bool:
        try:
            return self.client.containers.get(container_id).status == "running"
        except NotFound:
            return False

    def workspace(self, sandbox_id: str) -> Path:
        """The sandbox's workspace directory (made on first use; a link when it was a pool
        container's), writable by every user of the sandbox."""
        path = self._state_dir / sandbox_id / "workspace"
        if not path.exists():
            path.mkdir(parents=True)
            path.chmod(0o1777)
        return path

    def adopt_workspace(self, sandbox_id: str, pool_id: str) -> None:
        """A pool container claimed by ``sandbox_id``: its workspace becomes the sandbox's."""
        link = self._state_dir / sandbox_id / "workspace"
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(self.workspace(pool_id).resolve())

    def remove(self, container_id: str) -> None:
        try:
            self.client.containers.get(container_id).remove(force=True)
        except NotFound:
            pass
        except APIError as exc:
            if "is already in progress" not in str(exc):
                raise ContainerError(f"Docker engine error while removing: {exc}") from exc

    def forget_state(self, sandbox_id: str) -> None:
        """Remove the sandbox's token and workspace (its retention is over)."""
        folder = self._state_dir / sandbox_id
        workspace = folder / "workspace"
        if workspace.is_symlink():
            shutil.rmtree(workspace.resolve().parent, ignore_errors=True)  # the pool container's folder
        if folder.exists():
            for f in folder.rglob("*"):
                if f.is_file() and not f.is_symlink():
                    f.chmod(0o600)
            shutil.rmtree(folder, ignore_errors=True)

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
