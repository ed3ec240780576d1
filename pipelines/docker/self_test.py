"""Whether memory snapshots work on this host: the engine must be experimental with a working CRIU
(4.2 or later on this kernel; ``scripts/bootstrap.sh`` builds one), its data root on this host,
and a self-test must pass: a probe sandbox counting in memory is checkpointed and restored into
another, which must go on counting from where the first was.

Apart from launching and snapshots because it is a client of both, run once per process and
engine (not while no engine answers), and its probes are nobody's sandboxes.
"""

from __future__ import annotations

import calendar
import secrets
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import structlog
from docker.errors import DockerException

from pipelines.core.sandbox_backend import ContainerError, Launch
from pipelines.core.sandbox_records import Resources
from pipelines.docker.names import LABEL_OWNER
from sandbox_runtime.client import RuntimeClient
from sandbox_runtime.contract import RuntimeApiError

if TYPE_CHECKING:
    from pipelines.docker.containers import DockerBackend

log = structlog.get_logger("docklake.containers")

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


def memory_snapshots(backend: DockerBackend, docker_url: str, probe_image: str, wanted: bool) -> str | None:
    """None when memory can be checkpointed and restored here, else why not. Decided once per
    process, when first asked (not while no engine answers); a memory snapshot is refused, never
    taken as a filesystem one."""
    key = (docker_url, probe_image, wanted, backend.read_only_root)
    with _PROBE_LOCK:
        if key not in _PROBED:
            reason = _probe_memory(backend, probe_image, wanted)
            if reason == _NO_ENGINE:
                return reason
            _PROBED[key] = reason
            log.info("memory_snapshots", available=reason is None, reason=reason)
        return _PROBED[key]


def _probe_memory(backend: DockerBackend, probe_image: str, wanted: bool) -> str | None:
    if not wanted:
        return "they are turned off here (DOCKLAKE_SANDBOX__MEMORY_SNAPSHOTS)"
    try:
        info = backend.client.info()
    except (ContainerError, DockerException):
        return _NO_ENGINE
    if not info.get("ExperimentalBuild"):
        return ("this host's Docker engine is not experimental (checkpoints need `dockerd --experimental` "
                "and CRIU 4.2 or later; scripts/bootstrap.sh sets both up for the engine it starts)")
    if not (Path(info.get("DockerRootDir") or "/nonexistent") / "containers").is_dir():
        return "the Docker engine's data root is not on this host (a checkpoint is restored through it)"
    if not probe_image or not backend.image_exists(probe_image):
        return f"the sandbox image {probe_image!r} is missing, so the self-test cannot run"
    _remove_stale_probes(backend)
    probe = f"probe-{secrets.token_hex(4)}"
    copy = f"{probe}-copy"
    resources = Resources(cpus=0.5, memory_mb=128)
    launch = Launch(sandbox_id=probe, namespace="", generation=1, image=probe_image,
                    entrypoint=("python3", "-c", PROBE), resources=resources, internet=False,
                    token=secrets.token_hex(16), hostname=probe, pids_limit=64, owner=PROBE_OWNER)
    started: list[str] = []
    image = None
    try:
        first = backend.launch(launch, 30)
        started.append(first.container_id)
        deadline = time.monotonic() + 10
        while (before := _probe_count(backend, first.container_id))[1] < 3:
            if time.monotonic() > deadline:
                return "the self-test's process did not start counting"
            time.sleep(0.05)
        # a connection to the daemon stays open meanwhile, as the service's keep-alive ones may
        with RuntimeClient(f"http://{first.address}", token=launch.token, timeout=5) as held:
            held.health()
            image = backend.snapshot(first.container_id, probe, probe, probe_image, memory=True)[0]
        backend.remove(first.container_id)
        backend.seed(copy, probe)
        restored = backend.launch(replace(launch, sandbox_id=copy, token=secrets.token_hex(16), image=image), 30,
                                  checkpoint=backend.checkpoint_path(probe))
        started.append(restored.container_id)
        after = _probe_count(backend, restored.container_id)
        if after[0] != before[0] or after[1] < before[1]:
            return f"the self-test's process restarted instead of resuming ({after} after {before})"
        return None
    except (ContainerError, DockerException, OSError, ValueError, RuntimeApiError) as exc:
        return f"the checkpoint/restore self-test failed: {str(exc)[:600]}"
    finally:
        for container_id in started:
            backend.remove(container_id)
        backend.drop_snapshot(probe, image)
        for sandbox_id in (probe, copy):
            backend.forget_state(sandbox_id)


def _remove_stale_probes(backend: DockerBackend) -> None:
    """Probes a process left when it died mid-test (a test takes seconds: older is stale)."""
    now = time.time()
    for c in backend.client.containers.list(all=True, filters={"label": f"{LABEL_OWNER}={PROBE_OWNER}"}):
        created = c.attrs.get("Created", "")[:19]
        if created and now - calendar.timegm(time.strptime(created, "%Y-%m-%dT%H:%M:%S")) > 120:
            backend.remove(c.id)


def _probe_count(backend: DockerBackend, container_id: str) -> tuple[str, int]:
    code, out = backend.client.containers.get(container_id).exec_run(["cat", "/tmp/n"])
    key, _, count = out.decode(errors="replace").partition(" ")
    return (key, int(count)) if code == 0 and count.strip().isdigit() else ("", 0)
