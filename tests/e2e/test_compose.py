"""compose.yaml, the production stack: its files are valid and name only real settings and
commands (always), and the whole stack works as a user starts it (``-m compose``, `make
compose-check`: it builds every image from Debian's packages and PyPI, so it runs apart from the
suite). The bring-up uses ``deploy/offline/compose.yaml``, which swaps the registry's PostgreSQL
and MinIO images for ones built from Debian's postgresql package and moto's S3 server; everything
else runs as compose.yaml says."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import yaml
from typer.testing import CliRunner

from api.cli.main import app as cli
from pipelines.core.settings import Settings
from pipelines.flows.prefect_server import SERVER_TUNING
from tests.support.docgen import text_pdf
from tests.support.helpers import free_port

ROOT = Path(__file__).resolve().parents[2]
FILES = ["-f", str(ROOT / "compose.yaml")]
OFFLINE = [*FILES, "-f", str(ROOT / "deploy/offline/compose.yaml")]
COMPOSE = shutil.which("docker-compose")
needs_compose = pytest.mark.skipif(COMPOSE is None and not os.environ.get("CI"),
                                   reason="docker-compose is installed by scripts/bootstrap.sh test")


def compose(*args: str, env: dict[str, str] | None = None, timeout: float = 120,
            check: bool = True) -> subprocess.CompletedProcess[str]:
    assert COMPOSE, "docker-compose is missing: scripts/bootstrap.sh test installs it"
    res = subprocess.run([COMPOSE, *args], cwd=ROOT, env={**os.environ, **(env or {})}, text=True,
                         capture_output=True, timeout=timeout)
    if check:
        assert res.returncode == 0, f"docker-compose {' '.join(args)}:\n{res.stdout[-3000:]}\n{res.stderr[-5000:]}"
    return res


def resolved(*files: str, env: dict[str, str] | None = None) -> dict:
    """The stack as compose reads it: anchors merged, variables filled in."""
    return yaml.safe_load(compose(*files, "config", env=env).stdout)


@needs_compose
def test_the_compose_files_are_valid_and_the_offline_one_only_swaps_images() -> None:
    stack = resolved(*FILES)
    assert set(stack["services"]) == {"api", "worker", "prefect", "dagster-webserver", "dagster-daemon",
                                      "catalog-db", "prefect-db", "objectstore", "bucket"}
    offline = resolved(*OFFLINE)
    for name, svc in stack["services"].items():
        changed = {k for k in set(svc) | set(offline["services"][name]) if svc.get(k) != offline["services"][name].get(k)}
        assert changed <= {"image", "build", "command", "entrypoint"}, (name, changed)
    # one image for every docklake role, built from the checkout
    roles = {n: s for n, s in stack["services"].items() if s.get("build", {}).get("dockerfile") == "deploy/Dockerfile"}
    assert set(roles) == {"api", "worker", "prefect", "dagster-webserver", "dagster-daemon"}
    assert len({s["image"] for s in roles.values()}) == 1
    assert stack["services"]["worker"]["deploy"]["replicas"] == 2
    assert resolved(*FILES, env={"DOCKLAKE_WORKERS": "5"})["services"]["worker"]["deploy"]["replicas"] == 5


@needs_compose
def test_every_docklake_variable_in_compose_is_a_setting_and_every_command_exists() -> None:
    stack = resolved(*FILES, env={"DOCKLAKE_API_KEYS": "t0ken=acme/p1"})
    for name, svc in stack["services"].items():
        env = {k: v for k, v in (svc.get("environment") or {}).items() if k.startswith("DOCKLAKE_")}
        for key in env:  # a misspelt variable would be ignored without a word
            model: type = Settings
            for part in key.removeprefix("DOCKLAKE_").lower().split("__"):
                assert part in model.model_fields, f"{name}: {key} is not a docklake setting"
                model = model.model_fields[part].annotation
        if env:  # and the values parse
            settings = _settings_from(env)
            assert settings.storage.catalog_url.startswith("postgresql+psycopg://")
            assert settings.worker.delivery == "prefect" and settings.prefect.api_url == "http://prefect:4200/api"
        command = svc.get("command") or []
        if command[:3] == ["prefect", "server", "start"]:  # tuned as the managed server is
            assert SERVER_TUNING.items() <= (svc.get("environment") or {}).items(), name
        if command[:1] == ["docklake"]:
            res = CliRunner().invoke(cli, [*command[1:], "--help"])
            assert res.exit_code == 0, (name, command, res.output)


def _settings_from(env: dict[str, str]) -> Settings:
    saved = {k: os.environ.get(k) for k in env}
    try:
        os.environ.update(env)
        return Settings()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# --- the whole stack, as a user brings it up ------------------------------------------------

@dataclass
class Stack:
    project: str
    env: dict[str, str]
    api: str
    prefect: str
    dagster: str
    key_a: str
    key_b: str

    def compose(self, *args: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess[str]:
        return compose("-p", self.project, *OFFLINE, *args, env=self.env, timeout=timeout, check=check)

    def containers(self, service: str) -> list[str]:
        return self.compose("ps", "-q", service).stdout.split()


def _wait(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"{url} did not answer in {timeout:.0f} s"
        time.sleep(1)


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    subprocess.run(["bash", str(ROOT / "deploy/offline/base-image.sh")], check=True, timeout=900)
    ports = {k: str(free_port()) for k in ("DOCKLAKE_PORT", "PREFECT_PORT", "DAGSTER_PORT")}
    key_a, key_b = f"ck-{uuid.uuid4().hex}", f"ck-{uuid.uuid4().hex}"
    env = {**ports, "DOCKLAKE_BASE_IMAGE": "docklake/debian:bookworm",
           "DOCKLAKE_API_KEYS": f"{key_a}=acme/p1,{key_b}=other/p2",
           "PREFECT_PUBLIC_URL": f"http://127.0.0.1:{ports['PREFECT_PORT']}"}
    s = Stack(f"dlcheck{uuid.uuid4().hex[:8]}", env, f"http://127.0.0.1:{ports['DOCKLAKE_PORT']}",
              f"http://127.0.0.1:{ports['PREFECT_PORT']}/api", f"http://127.0.0.1:{ports['DAGSTER_PORT']}",
              key_a, key_b)
    started = time.monotonic()
    s.compose("build", timeout=1800)
    built = time.monotonic()
    try:
        s.compose("up", "-d", "--scale", "worker=2", timeout=600)
        _wait(f"{s.api}/readyz", 300)
        print(f"\ncompose: images built in {built - started:.0f} s, stack ready in {time.monotonic() - built:.0f} s")
        yield s
    finally:
        logs = s.compose("logs", "--no-color", "--tail", "60", timeout=120, check=False).stdout
        (ROOT / "test-artifacts").mkdir(exist_ok=True)
        (ROOT / "test-artifacts" / "compose-stack.log").write_text(logs)
        s.compose("down", "-v", "--remove-orphans", timeout=300, check=False)


@pytest.mark.compose
@pytest.mark.timeout(2700)  # the images are built first: 5-10 minutes without a cache
def test_the_sdk_against_the_compose_stack_through_a_lost_worker(stack: Stack, tmp_path: Path) -> None:
    from tensorlake.documentai import DocumentAI
    from tensorlake.documentai.models import DatasetDataFilter

    ai = DocumentAI(api_key=stack.key_a, server_url=stack.api)
    ds = ai.create_dataset(name="compose-memos")
    first = tmp_path / "memo.md"
    first.write_text("# Memo\n\nShip the compose stack on Friday.\n")
    result = ai.parse_dataset_file(ds, ai.upload(first), wait_for_completion=True)
    assert result.status.value == "successful", result
    assert "Ship the compose stack on Friday." in "\n".join(c.content for c in result.chunks)
    assert [r.parse_id for r in ai.get_dataset_data(ds, DatasetDataFilter()).items] == [result.parse_id]
    # another tenant sees none of it
    other = httpx.get(f"{stack.api}/documents/v2/files", headers={"Authorization": f"Bearer {stack.key_b}"})
    assert other.status_code == 200 and other.json()["items"] == []

    # a batch while one of the workers is lost (its container killed): every job ends successful
    ids = []
    for i in range(24):
        doc = tmp_path / f"report-{i}.pdf"
        doc.write_bytes(text_pdf(seed=i, pages=8).data)
        ids.append(ai.parse(file_id=ai.upload(doc)))
    workers = stack.containers("worker")
    assert len(workers) == 2
    time.sleep(1)
    subprocess.run(["docker", "kill", workers[0]], check=True, capture_output=True, timeout=60)
    deadline = time.monotonic() + 300
    while True:
        states = {i: ai.get_parsed_result(i).status.value for i in ids}
        if all(s in ("successful", "failure") for s in states.values()):
            break
        assert time.monotonic() < deadline, states
        time.sleep(2)
    assert set(states.values()) == {"successful"}, states

    # Prefect shows each job as a named task run, Dagster compacts the dataset
    runs = httpx.post(f"{stack.prefect}/task_runs/filter", timeout=30, json={
        "task_runs": {"tags": {"all_": [f"job:{result.parse_id}"]}}}).json()
    assert any(r["name"] == "parse memo.md" and r["state"]["type"] == "COMPLETED" for r in runs), runs
    query = """{ assetOrError(assetKey: {path: ["dataset_tables"]}) {
        ... on Asset { assetMaterializations(limit: 5) { partition } } } }"""
    partition = f"acme/p1/{ds.dataset_id}"
    deadline = time.monotonic() + 180
    while True:
        try:
            got = httpx.post(f"{stack.dagster}/graphql", json={"query": query}, timeout=30).json()
            made = {m["partition"] for m in got["data"]["assetOrError"].get("assetMaterializations", [])}
        except (httpx.HTTPError, KeyError, TypeError):
            made = set()
        if partition in made:
            break
        assert time.monotonic() < deadline, f"Dagster never materialised {partition}: {made}"
        time.sleep(3)
