"""Sandboxes as Docker containers: start one hardened with the runtime daemon injected, commit its
filesystem, remove it, and list what the service left on the engine (for reconciliation).

Plain functions of the docker SDK; the catalog and the rules of the sandbox API are the use
cases' business. Every container and image carries ``docklake.*`` labels.

Hardening of every container: all capabilities dropped, ``no-new-privileges``, Docker's default
seccomp profile, memory (no swap beyond it), CPU and process limits from the request, docker-init
as PID 1. Networking: a sandbox that may not reach the internet sits on an internal bridge
(no route out) with inter-container traffic off; one that may, on a bridge with NAT, also with
inter-container traffic off. The service reaches the daemon at the container's bridge address.
With ``read_only_root`` (the default) the image is mounted read-only and a sandbox's writable
state is its workspace, a host directory bound at ``/workspace`` (also its ``HOME``), beside a
tmpfs ``/tmp``: a filesystem snapshot is a copy of that directory, taken with the container
paused. Without it the root filesystem is writable and a snapshot is ``docker commit``.

Memory snapshots: the engine checkpoints the container's processes with CRIU (the experimental
``/containers/{id}/checkpoints`` endpoint, ``--leave-running``) under the same pause as the
filesystem copy, and the checkpoint moves into docklake's snapshot store. A container restored
from it is created with the same configuration, the checkpoint placed in its own checkpoint
directory under the engine's data root (``docker start --checkpoint-dir`` is not supported by
the engine), then started with ``checkpoint=<name>``. Whether this works here is a self-test (a
probe sandbox checkpointed and restored into another), run once per process.
"""

from __future__ import annotations

import calendar
import os
import secrets
import shutil
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

import docker
import structlog
from docker.errors import APIError, DockerException, ImageNotFound, NotFound
from docker.models.containers import Container

import sandbox_runtime
from pipelines.core.sandbox_records import DAEMON_PORT, Bind, Resources
from pipelines.docker import mounts
from sandbox_runtime.client import RuntimeClient
from sandbox_runtime.contract import RuntimeApiError

log = structlog.get_logger("docklake.containers")

LABEL_SANDBOX = "docklake.sandbox"
LABEL_OWNER = "docklake.owner"  # which installation (catalog) made it: several may share an engine
LABEL_NAMESPACE = "docklake.namespace"
LABEL_GENERATION = "docklake.generation"
LABEL_SNAPSHOT = "docklake.snapshot"
SNAPSHOT_REPO = "docklake/snapshot"
NET_ISOLATED = "docklake-sandboxes"
NET_INTERNET = "docklake-sandboxes-internet"
RUNTIME_MOUNT = "/opt/docklake"
WORKSPACE = "/workspace"
# where a file system attached to a running sandbox may go when its root is read-only (a mount
# point must be made, and only these are writable)
LIVE_MOUNT_ROOTS = ("/mnt/", "/workspace/", "/tmp/")
TOKEN_PATH = "/run/docklake/token"
CHECKPOINT = "docklake"  # a checkpoint's name inside the container it is restored into
# the self-test's process: a random key and a counter, kept in memory and written to /tmp (a
# cold boot would draw a new key)
PROBE = ("import os, time\nk, i = os.urandom(6).hex(), 0\nwhile True:\n    i += 1\n"
         "    open('/tmp/n.t', 'w').write(f'{k} {i}')\n    os.replace('/tmp/n.t', '/tmp/n')\n    time.sleep(0.02)\n")
# the probes' containers belong to no installation: no reconciliation or clean-up of one removes
# them while the self-test runs (it removes them itself)
PROBE_OWNER = "docklake-self-test"
_NO_ENGINE = "no Docker engine answers"
# the self-test's answers, once per process and engine
_PROBE_LOCK = threading.Lock()
_PROBED: dict[tuple[str, str, bool, bool], str | None] = {}
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
    owner: str | None = None  # the label's, when not the installation's (the self-test's probes)


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
        """None when memory can be checkpointed and restored here, else why not: the engine must
        be experimental with a working CRIU (4.2 or later on this kernel; ``scripts/bootstrap.sh``
        builds one),
        its data root on this host, and the self-test must pass. Decided once per process, when
        first asked (not while no engine answers); a memory snapshot is refused, never taken as a
        filesystem one."""
        key = (self._url, self._probe_image, self._memory_wanted, self.read_only_root)
        with _PROBE_LOCK:
            if key not in _PROBED:
                reason = self._probe_memory()
                if reason == _NO_ENGINE:
                    return reason
                _PROBED[key] = reason
                log.info("memory_snapshots", available=reason is None, reason=reason)
            return _PROBED[key]

    def _probe_memory(self) -> str | None:
        if not self._memory_wanted:
            return "they are turned off here (DOCKLAKE_SANDBOX__MEMORY_SNAPSHOTS)"
        try:
            info = self.client.info()
        except (ContainerError, DockerException):
            return _NO_ENGINE
        if not info.get("ExperimentalBuild"):
            return ("this host's Docker engine is not experimental (checkpoints need `dockerd --experimental` "
                    "and CRIU 4.2 or later; scripts/bootstrap.sh sets both up for the engine it starts)")
        if not (Path(info.get("DockerRootDir") or "/nonexistent") / "containers").is_dir():
            return "the Docker engine's data root is not on this host (a checkpoint is restored through it)"
        if not self._probe_image or not self.image_exists(self._probe_image):
            return f"the sandbox image {self._probe_image!r} is missing, so the self-test cannot run"
        self._remove_stale_probes()
        probe = f"probe-{secrets.token_hex(4)}"
        copy = f"{probe}-copy"
        resources = Resources(cpus=0.5, memory_mb=128)
        launch = Launch(sandbox_id=probe, namespace="", generation=1, image=self._probe_image,
                        entrypoint=("python3", "-c", PROBE), resources=resources, internet=False,
                        token=secrets.token_hex(16), hostname=probe, pids_limit=64, owner=PROBE_OWNER)
        started: list[str] = []
        image = None
        try:
            first = self.launch(launch, 30)
            started.append(first.container_id)
            deadline = time.monotonic() + 10
            while (before := self._probe_count(first.container_id))[1] < 3:
                if time.monotonic() > deadline:
                    return "the self-test's process did not start counting"
                time.sleep(0.05)
            # a connection to the daemon stays open meanwhile, as the service's keep-alive ones may
            with RuntimeClient(f"http://{first.address}", token=launch.token, timeout=5) as held:
                held.health()
                image = self.snapshot(first.container_id, probe, probe, self._probe_image, memory=True)[0]
            self.remove(first.container_id)
            self.seed(copy, probe)
            restored = self.launch(replace(launch, sandbox_id=copy, token=secrets.token_hex(16), image=image), 30,
                                   checkpoint=self.checkpoint_path(probe))
            started.append(restored.container_id)
            after = self._probe_count(restored.container_id)
            if after[0] != before[0] or after[1] < before[1]:
                return f"the self-test's process restarted instead of resuming ({after} after {before})"
            return None
        except (ContainerError, DockerException, OSError, ValueError, RuntimeApiError) as exc:
            return f"the checkpoint/restore self-test failed: {str(exc)[:600]}"
        finally:
            for container_id in started:
                self.remove(container_id)
            self.drop_snapshot(probe, image)
            for sandbox_id in (probe, copy):
                self.forget_state(sandbox_id)

    def _remove_stale_probes(self) -> None:
        """Probes a process left when it died mid-test (a test takes seconds: older is stale)."""
        now = time.time()
        for c in self.client.containers.list(all=True, filters={"label": f"{LABEL_OWNER}={PROBE_OWNER}"}):
            created = c.attrs.get("Created", "")[:19]
            if created and now - calendar.timegm(time.strptime(created, "%Y-%m-%dT%H:%M:%S")) > 120:
                self.remove(c.id)

    def _probe_count(self, container_id: str) -> tuple[str, int]:
        code, out = self.client.containers.get(container_id).exec_run(["cat", "/tmp/n"])
        key, _, count = out.decode(errors="replace").partition(" ")
        return (key, int(count)) if code == 0 and count.strip().isdigit() else ("", 0)

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
                      "tmpfs": {"/tmp": f"size={self._tmp_mb}m,mode=1777", "/mnt": "size=1m,mode=755"}}
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
        except ContainerError:
            self.remove(container.id)
            raise
        return Started(container.id, address)

    def _checkpoints(self, container_id: str) -> Path:
        """The engine's checkpoint directory of a container (under its data root)."""
        if self._data_root is None:
            self._data_root = Path(self.client.info()["DockerRootDir"])
        return self._data_root / "containers" / container_id / "checkpoints"

    def _restore(self, container_id: str, checkpoint: Path) -> None:
        """Start the created container from ``checkpoint``: copied into the container's own
        checkpoint directory, then ``POST /containers/{id}/start?checkpoint=…``."""
        if not checkpoint.is_dir():
            raise ContainerError("the memory snapshot's checkpoint is gone")
        target = self._checkpoints(container_id) / CHECKPOINT
        api = self.client.api
        for attempt in range(1, 6):
            try:
                shutil.copytree(checkpoint, target)
                # the engine uploads the checkpoint into containerd's content store by digest, and
                # fails on a blob it already holds (one a killed engine left, or another restore
                # of the same snapshot): a file of its own makes every upload unique (CRIU reads
                # only its image files)
                (target / "docklake-restore").write_text(secrets.token_hex(16))
                res = api._post(api._url("/containers/{0}/start", container_id), params={"checkpoint": CHECKPOINT})
                api._raise_for_status(res)
                return
            except (OSError, DockerException) as exc:
                # should the content store still answer "commit failed: content sha256:…: already
                # exists" (moby#42900), the blob is gone once the other restore has started
                if "already exists" in str(exc) and attempt < 5:
                    log.warning("checkpoint_restore_retry", container_id=container_id, attempt=attempt)
                    time.sleep(0.5 * attempt)
                    continue
                raise ContainerError(f"restoring the processes from the memory snapshot failed: {exc}") from exc
            finally:
                shutil.rmtree(target, ignore_errors=True)

    def checkpoint_path(self, snapshot_id: str) -> Path:
        """Where a memory snapshot's checkpoint (CRIU images) is kept."""
        return self._checkpoint_dir / snapshot_id

    def _checkpoint(self, container_id: str, snapshot_id: str) -> int:
        """Checkpoint the container's processes (it keeps running, or paused if it was) into the
        snapshot store; the checkpoint's size in bytes."""
        api = self.client.api
        name = f"{CHECKPOINT}-{snapshot_id}"
        source = self._checkpoints(container_id) / name
        target = self.checkpoint_path(snapshot_id)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            res = api._post_json(api._url("/containers/{0}/checkpoints", container_id),
                                 data={"CheckpointID": name, "Exit": False})
            api._raise_for_status(res)
            shutil.move(source, target)
        except (OSError, DockerException) as exc:
            shutil.rmtree(source, ignore_errors=True)
            shutil.rmtree(target, ignore_errors=True)
            raise ContainerError(f"checkpointing the sandbox's processes failed: {exc}") from exc
        return sum(f.stat().st_size for f in target.rglob("*") if f.is_file())

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

    def snapshot(self, container_id: str, sandbox_id: str, snapshot_id: str, base_image: str, *,
                 memory: bool = False) -> tuple[str, int]:
        """The sandbox's filesystem, consistent (taken with the container paused): with a
        read-only root a copy of its workspace (the image is the base image), else the whole
        container committed. With ``memory`` its processes are checkpointed under the same pause
        (see ``checkpoint_path``). The image to start from and the size in bytes."""
        try:
            container = self.client.containers.get(container_id)
        except NotFound as exc:
            raise ContainerError("the sandbox's container is gone") from exc
        target = self._snapshot_dir / snapshot_id
        paused = False
        try:
            if container.status == "running":
                container.pause()
                paused = True
            if self.read_only_root:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copytree(self.workspace(sandbox_id), target, symlinks=True)
                image = base_image
                size = sum(f.stat().st_size for f in target.rglob("*") if f.is_file() and not f.is_symlink())
            else:
                image, size = self._commit(container, snapshot_id)
            if memory:
                size += self._checkpoint(container.id, snapshot_id)
        except (OSError, DockerException, ContainerError) as exc:
            self.drop_snapshot(snapshot_id, None if self.read_only_root else f"{SNAPSHOT_REPO}:{snapshot_id}")
            if isinstance(exc, ContainerError):
                raise
            raise ContainerError(f"copying the workspace failed: {exc}") from exc
        finally:
            if paused:
                try:
                    container.unpause()
                except DockerException:
                    pass
        return image, size

    def seed(self, sandbox_id: str, snapshot_id: str) -> None:
        """Start a sandbox that has no workspace yet from a snapshot's copy of one (a new
        sandbox from a snapshot, a copy). A sandbox that has one (resumed, restarted) keeps it:
        it is newer than any snapshot of it."""
        if not self.read_only_root or (self._state_dir / sandbox_id / "workspace").exists():
            return
        source = self._snapshot_dir / snapshot_id
        if source.is_dir():
            target = self._state_dir / sandbox_id / "workspace"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(source, target, symlinks=True)

    def drop_snapshot(self, snapshot_id: str, image: str | None) -> None:
        """Remove what a snapshot holds: its workspace copy, or its committed image, and its
        checkpoint (a memory snapshot's)."""
        shutil.rmtree(self._snapshot_dir / snapshot_id, ignore_errors=True)
        shutil.rmtree(self.checkpoint_path(snapshot_id), ignore_errors=True)
        if image and image.startswith(f"{SNAPSHOT_REPO}:"):
            self.remove_image(image)

    def _commit(self, container: Container, snapshot_id: str) -> tuple[str, int]:
        """Commit the (paused) container's filesystem as an image."""
        try:
            image = container.commit(repository=SNAPSHOT_REPO, tag=snapshot_id, pause=False,
                                     changes=[f"LABEL {LABEL_SNAPSHOT}={snapshot_id}",
                                              f"LABEL {LABEL_OWNER}={self.owner}"])
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

    def snapshot_images(self) -> list[str]:
        return [t for img in self.client.images.list(filters={"label": LABEL_SNAPSHOT}) for t in img.tags]
