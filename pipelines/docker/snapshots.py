"""Capturing and restoring sandbox containers: filesystem snapshots, CRIU checkpoints of their
processes, and seeding a new sandbox's workspace from a snapshot.

Apart from launching (``containers``) because it is its own set of engine calls and folders:
with ``read_only_root`` (the default) a sandbox's writable state is its workspace, so a
filesystem snapshot is a copy of that directory, taken with the container paused; without it the
root filesystem is writable and a snapshot is ``docker commit``.

Memory snapshots: the engine checkpoints the container's processes with CRIU (the experimental
``/containers/{id}/checkpoints`` endpoint, ``--leave-running``) under the same pause as the
filesystem copy, and the checkpoint moves into docklake's snapshot store. A container restored
from it is created with the same configuration, the checkpoint placed in its own checkpoint
directory under the engine's data root (``docker start --checkpoint-dir`` is not supported by
the engine), then started with ``checkpoint=<name>``. Whether this works here is the self-test's
question (``self_test``).

``Snapshots`` is a mixin of ``DockerBackend``: it works on the backend's client, folders,
``workspace`` and ``remove_image``.
"""

from __future__ import annotations

import secrets
import shutil
import tarfile
import time
from pathlib import Path

import docker
import structlog
from docker.errors import DockerException, NotFound
from docker.models.containers import Container

from pipelines.core.sandbox_backend import ContainerError
from pipelines.docker.names import CHECKPOINT, LABEL_OWNER, LABEL_SNAPSHOT, SCRATCH, SNAPSHOT_REPO

log = structlog.get_logger("docklake.containers")


class Snapshots:
    # the backend's, set by DockerBackend
    client: docker.DockerClient
    owner: str
    read_only_root: bool
    _state_dir: Path
    _snapshot_dir: Path
    _checkpoint_dir: Path
    _data_root: Path | None

    def workspace(self, sandbox_id: str) -> Path:
        raise NotImplementedError

    def remove_image(self, ref: str) -> None:
        raise NotImplementedError

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
            # the tmpfs places a commit or the workspace copy leaves out (a writable root has /tmp)
            size += self._keep_scratch(int(container.attrs["State"]["Pid"]), self._scratch(snapshot_id),
                                       SCRATCH if self.read_only_root else ("dev/shm",))
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

    def _scratch(self, snapshot_id: str) -> Path:
        """A snapshot's tar of /tmp and /dev/shm (tmpfs in the container, outside the workspace)."""
        return self._snapshot_dir / f"{snapshot_id}.scratch.tar"

    def scratch_seed(self, sandbox_id: str) -> Path:
        """The tar a sandbox's next start puts back into /tmp and /dev/shm (``seed`` leaves it)."""
        return self._state_dir / sandbox_id / "scratch.tar"

    def _keep_scratch(self, pid: int, target: Path, places: tuple[str, ...]) -> int:
        """Tar the paused container's ``places`` (/tmp, /dev/shm), read through its root in /proc
        (links are kept as links, never followed; nothing runs in it meanwhile); the size in bytes."""
        root = Path(f"/proc/{pid}/root")
        target.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(target, "w") as tar:
            for place in places:
                if (root / place).is_dir():
                    tar.add(root / place, arcname=place)
        return target.stat().st_size

    def seed(self, sandbox_id: str, snapshot_id: str) -> None:
        """Start a sandbox that has no workspace yet from a snapshot's copy of one (a new
        sandbox from a snapshot, a copy). A sandbox that has one (resumed, restarted) keeps it:
        it is newer than any snapshot of it. Either way the snapshot's /tmp and /dev/shm come
        back (``scratch_seed``): nothing else keeps them."""
        if self._scratch(snapshot_id).is_file():
            self.scratch_seed(sandbox_id).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self._scratch(snapshot_id), self.scratch_seed(sandbox_id))
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
        self._scratch(snapshot_id).unlink(missing_ok=True)
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

    def snapshot_images(self) -> list[str]:
        return [t for img in self.client.images.list(filters={"label": LABEL_SNAPSHOT}) for t in img.tags]
