"""Sandboxes through the API (``docklake serve``'s app in a child process, on the real Docker
engine) next to the bare docker-SDK calls that do the same work, in one run:

- create: cold (a container booted for the request) and from the warm pool, against
  ``containers.run`` of the same image with the same hardening until the daemon answers;
- suspend + resume of a named sandbox (``wait_ms``), against commit + remove + run;
- a filesystem snapshot until ``completed``, against ``container.commit``;
- copy (``times=1``), against commit + run;
- where memory snapshots work here (``/readyz``): a memory snapshot until ``completed``, against
  pause + ``POST /containers/{id}/checkpoints`` (leave running) + unpause; a new sandbox from it,
  against create + the checkpoint placed in the container's directory + start from it + daemon
  healthy; and the copy above (which then carries memory) against checkpoint + that restore;
- ``run`` of ``echo hi`` to its first output event through the proxy, against the daemon reached
  directly and against ``docker exec`` (its first output byte);
- an idle sandbox's memory: its container's cgroup usage plus its containerd-shim's RSS.
"""

from __future__ import annotations

import hashlib
import secrets
import shutil
import time
from pathlib import Path

import docker
import httpx
from docker.models.containers import Container

from bench.harness import ApiServer, ms, note, print_table, summary
from pipelines.docker.names import BOOT, RUNTIME_MOUNT, TOKEN_PATH
from sandbox_runtime.client import RuntimeClient
from sandbox_runtime.contract import PORT

IMAGE = "docklake/sandbox-base:2"
REPO = Path(__file__).resolve().parent.parent


def _row(label: str, samples: list[float]) -> list[object]:
    s = summary([v * 1000 for v in samples])
    return [label, s["n"], ms(s["p50"]), ms(s["p99"]), ms(s["max"])]


class Bare:
    """The docker-SDK calls a sandbox boils down to, hardened the same way."""

    def __init__(self, tmp: Path) -> None:
        self.engine = docker.from_env()
        self.token = secrets.token_hex(16)
        self.token_file = tmp / "token"
        self.token_file.write_text(self.token)
        net = "docklake-bench"
        try:
            self.engine.networks.get(net)
        except docker.errors.NotFound:
            self.engine.networks.create(net, internal=True, options={"com.docker.network.bridge.enable_icc": "false"})
        self.net = net

    def run(self, image: str = IMAGE, *, start: bool = True) -> tuple[Container, str]:
        """A sandbox's container until its daemon answers (``start=False``: created only)."""
        c = (self.engine.containers.run if start else self.engine.containers.create)(
            image, entrypoint=["python3"], command=["-c", BOOT, "--token-file", TOKEN_PATH, "--quiet", "--",
                                                    "sleep", "infinity"],
            detach=True, labels={"docklake.bench": "1"}, init=True, cap_drop=["ALL"],
            security_opt=["no-new-privileges"], mem_limit="1024m", memswap_limit="1024m", nano_cpus=10**9,
            pids_limit=512, network=self.net,
            volumes={str(REPO / "sandbox_runtime"): {"bind": f"{RUNTIME_MOUNT}/sandbox_runtime", "mode": "ro"},
                     str(self.token_file): {"bind": TOKEN_PATH, "mode": "ro"}})
        if not start:
            return c, ""
        return c, self.healthy(c)

    def healthy(self, c: Container) -> str:
        c.reload()
        ip = c.attrs["NetworkSettings"]["Networks"][self.net]["IPAddress"]
        RuntimeClient(f"http://{ip}:{PORT}", token=self.token, timeout=1).wait_healthy(timeout=30, interval=0.01)
        return f"{ip}:{PORT}"

    def checkpoint(self, c: Container, name: str) -> Path:
        """Pause, checkpoint (leave running), unpause: the checkpoint's directory."""
        api = self.engine.api
        c.pause()
        api._raise_for_status(api._post_json(api._url("/containers/{0}/checkpoints", c.id),
                                             data={"CheckpointID": name, "Exit": False}))
        c.unpause()
        return Path(self.engine.info()["DockerRootDir"]) / "containers" / c.id / "checkpoints" / name

    def restore(self, checkpoint: Path) -> Container:
        """A new container started from ``checkpoint`` until its daemon answers."""
        c, _ = self.run(start=False)
        shutil.copytree(checkpoint, Path(self.engine.info()["DockerRootDir"]) / "containers" / c.id
                        / "checkpoints" / checkpoint.name)
        api = self.engine.api
        api._raise_for_status(api._post(api._url("/containers/{0}/start", c.id),
                                        params={"checkpoint": checkpoint.name}))
        self.healthy(c)
        return c

    def cleanup(self) -> None:
        for c in self.engine.containers.list(all=True, filters={"label": "docklake.bench=1"}):
            c.remove(force=True)
        for img in self.engine.images.list(filters={"label": "docklake.bench=1"}):
            for tag in img.tags:
                self.engine.images.remove(tag, force=True)


def _memory(http: httpx.Client, bare: Bare, target: dict, n: int, made: list[dict]) -> list[list[object]]:
    """Memory snapshots (CRIU checkpoints) through the API against the bare engine calls."""
    snap, bare_snap, restore, bare_restore, bare_copy = [], [], [], [], []
    for i in range(n):
        t = time.perf_counter()
        sid = http.post(f"/sandboxes/{target['sandbox_id']}/snapshot",
                        json={"snapshot_type": "memory"}).json()["snapshot_id"]
        while (status := http.get(f"/snapshots/{sid}").json()["status"]) != "completed":
            assert status == "in_progress", status
            time.sleep(0.01)
        snap.append(time.perf_counter() - t)
        t = time.perf_counter()
        r = http.post("/sandboxes", json={"snapshot_id": sid})
        r.raise_for_status()
        restore.append(time.perf_counter() - t)
        made.append(r.json())

        c, _ = bare.run()
        t = time.perf_counter()
        checkpoint = bare.checkpoint(c, f"m{i}")
        bare_snap.append(time.perf_counter() - t)
        t = time.perf_counter()
        bare.restore(checkpoint)
        bare_restore.append(time.perf_counter() - t)
        t = time.perf_counter()
        bare.restore(bare.checkpoint(c, f"n{i}"))
        bare_copy.append(time.perf_counter() - t)
    return [_row("memory snapshot until completed (API)", snap),
            _row("baseline: pause + checkpoint (leave running) + unpause", bare_snap),
            _row("create from a memory snapshot (API)", restore),
            _row("baseline: create + place checkpoint + start from it + healthy", bare_restore),
            _row("baseline of a copy with memory: checkpoint + restore into a new container", bare_copy)]


def _shim_rss_mib(container_id: str) -> float:
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
            if b"containerd-shim" in cmd and container_id.encode() in cmd:
                status = (proc / "status").read_text()
                return int(next(x for x in status.splitlines() if x.startswith("VmRSS:")).split()[1]) / 1024
        except (OSError, StopIteration):
            continue
    return 0.0


def run(n: int = 10) -> None:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="docklake-bench-sbx-") as tmp, \
            ApiServer(extra_env={"DOCKLAKE_SANDBOX__POOL_SIZE": "1"}) as api, api.client() as http:
        bare = Bare(Path(tmp))
        headers = dict(http.headers)
        rows = []
        try:
            def create(body: dict) -> dict:
                r = http.post("/sandboxes", json=body)
                r.raise_for_status()
                return r.json()

            cold, pooled, bare_create, made = [], [], [], []
            for i in range(n):
                t = time.perf_counter()
                made.append(create({"name": f"cold-{i}"}))  # named: never from the pool
                cold.append(time.perf_counter() - t)
                time.sleep(1.0)  # the pool refills (one container) meanwhile
                t = time.perf_counter()
                made.append(create({}))
                pooled.append(time.perf_counter() - t)
                t = time.perf_counter()
                bare.run()
                bare_create.append(time.perf_counter() - t)
            rows += [_row("create, cold (API)", cold), _row("create, from the warm pool (API)", pooled),
                     _row("baseline: containers.run + daemon healthy", bare_create)]

            suspend_resume, bare_sr = [], []
            for i in range(min(n, 5)):
                name = f"cold-{i}"
                t = time.perf_counter()
                assert http.post(f"/sandboxes/{name}/suspend?wait_ms=30000").json()["status"] == "suspended"
                assert http.post(f"/sandboxes/{name}/resume?wait_ms=30000").json()["status"] == "running"
                suspend_resume.append(time.perf_counter() - t)
                c, _ = bare.run()
                t = time.perf_counter()
                img = c.commit(repository="docklake-bench", tag=f"s{i}", changes=["LABEL docklake.bench=1"])
                c.remove(force=True)
                bare.run(img.tags[0])
                bare_sr.append(time.perf_counter() - t)
            rows += [_row("suspend + resume, named (API, wait_ms)", suspend_resume),
                     _row("baseline: commit + remove + run", bare_sr)]

            snap, bare_snap, copy, bare_copy = [], [], [], []
            target = made[1]  # unnamed: its copies are unnamed too
            for i in range(min(n, 5)):
                t = time.perf_counter()
                sid = http.post(f"/sandboxes/{target['sandbox_id']}/snapshot").json()["snapshot_id"]
                while http.get(f"/snapshots/{sid}").json()["status"] != "completed":
                    time.sleep(0.01)
                snap.append(time.perf_counter() - t)
                c, _ = bare.run()
                t = time.perf_counter()
                img = c.commit(repository="docklake-bench", tag=f"c{i}", changes=["LABEL docklake.bench=1"])
                bare_snap.append(time.perf_counter() - t)
                bare.run(img.tags[0])
                bare_copy.append(time.perf_counter() - t)
                t = time.perf_counter()
                r = http.post(f"/sandboxes/{target['sandbox_id']}/copy")
                r.raise_for_status()
                copy.append(time.perf_counter() - t)
                made += r.json()["sandboxes"]
            memory = http.get("/readyz").json()["sandboxes"]["memory_snapshots"]
            rows += [_row("snapshot until completed (API)", snap), _row("baseline: commit", bare_snap),
                     _row("copy, times=1 (API)" + (": it carries memory" if memory else ""), copy),
                     _row("baseline: commit + run", bare_copy)]
            if memory:
                rows += _memory(http, bare, target, min(n, 5), made)
            else:
                note("memory snapshots are unavailable on this host: not measured")
            print_table("sandbox lifecycle (ms)", ["what", "n", "p50", "p99", "max"], rows)

            # run: first output event through the proxy, the daemon directly, docker exec
            sb = create({})
            info = http.get(f"/sandboxes/{sb['sandbox_id']}").json()
            proxy = RuntimeClient(info["sandbox_url"], headers=headers)
            c, address = bare.run()
            direct = RuntimeClient(f"http://{address}", token=bare.token)
            rows = []
            for label, client in [("run echo hi, first output: through the proxy", proxy),
                                  ("run echo hi, first output: daemon directly", direct)]:
                samples = []
                for _ in range(50):
                    t = time.perf_counter()
                    for name, _data in client.run("echo", ["hi"]):
                        if name == "output":
                            samples.append(time.perf_counter() - t)
                rows.append(_row(label, samples))
            samples = []
            api_client = docker.APIClient()
            for _ in range(50):
                t = time.perf_counter()
                ex = api_client.exec_create(c.id, ["echo", "hi"])
                for _chunk in api_client.exec_start(ex["Id"], stream=True):
                    samples.append(time.perf_counter() - t)
                    break
            rows.append(_row("baseline: docker exec echo hi, first output byte", samples))
            print_table("runtime through the proxy (ms)", ["what", "n", "p50", "p99", "max"], rows)

            probe = create({"name": "idle-probe"})  # named: its own container, labelled with its id
            time.sleep(3)
            [c] = docker.from_env().containers.list(filters={"label": f"docklake.sandbox={probe['sandbox_id']}"})
            made.append(probe)
            cg = c.stats(stream=False)["memory_stats"].get("usage", 0) / 2**20
            note(f"idle sandbox memory: cgroup {cg:.1f} MiB + containerd-shim RSS {_shim_rss_mib(c.id):.1f} MiB "
                 "(goal: 30 MiB in all)")
        finally:
            for sb in made:
                http.delete(f"/sandboxes/{sb['sandbox_id']}")
            bare.cleanup()
            owner = hashlib.sha256(f"sqlite:///{api.data_dir.resolve() / 'catalog.db'}".encode()).hexdigest()[:16]
            time.sleep(3)  # the terminations' background steps
            engine = docker.from_env()
            for c in engine.containers.list(all=True, filters={"label": f"docklake.owner={owner}"}):
                c.remove(force=True)
            for img in engine.images.list(filters={"label": f"docklake.owner={owner}"}):
                for tag in img.tags:
                    engine.images.remove(tag, force=True)


if __name__ == "__main__":
    run()
