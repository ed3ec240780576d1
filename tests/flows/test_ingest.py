"""Bulk ingestion by reference: a dataset takes a folder or a bucket prefix without uploads, once
per document, only from the roots an operator allowed, and the worker parses the documents where
they lie."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.services import Services
from pipelines.core.settings import Settings
from tests.conftest import PREFECT_API
from tests.support import docgen
from tests.support.helpers import API_KEYS, A, B

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    folder = tmp_path / "inbox"
    (folder / "2026" / "nov").mkdir(parents=True)
    (folder / "memo.pdf").write_bytes(docgen.text_pdf(seed=3, pages=2).data)
    (folder / "2026" / "notes.txt").write_text("Field notes\n\nThe pump was replaced on Monday.\n")
    (folder / "2026" / "nov" / "minutes.md").write_text("# Minutes\n\nNothing to report.\n")
    (folder / "2026" / "nov" / "photo.raw").write_bytes(b"\x00" * 64)  # not matched by "*[!w]" below
    return folder


@pytest.fixture
def settings(tmp_path: Path, inbox: Path) -> Settings:
    return Settings(data_dir=tmp_path / "docklake", api_keys=API_KEYS, prefect={"api_url": PREFECT_API},
                    worker={"lease_s": 5}, ingest={"roots": [str(inbox), "s3://inbox/allowed/"], "page_size": 2})


def dataset(client: TestClient, headers: dict[str, str] = A) -> str:
    r = client.post("/documents/v2/datasets", json={"name": "field-reports"}, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["dataset_id"]


def ingested(client: TestClient, ds: str, source: str, pattern: str = "*") -> dict:
    r = client.post(f"/documents/v2/datasets/{ds}/ingest", json={"source": source, "pattern": pattern}, headers=A)
    assert r.status_code == 202, r.text
    assert r.json()["status"] == "running"
    deadline = time.monotonic() + 60
    while (body := client.get(f"/documents/v2/datasets/{ds}/ingest/{r.json()['ingest_id']}",
                              headers=A).json())["status"] == "running":
        assert time.monotonic() < deadline, body
        time.sleep(0.05)
    return body


def data(client: TestClient, ds: str) -> dict[str, dict]:
    items = client.get(f"/documents/v2/datasets/{ds}/data?limit=100", headers=A).json()["items"]
    return {i["labels"]["source"].rsplit("/", 1)[-1]: i for i in items}  # each job says where it came from


def test_a_folder_is_taken_by_reference_once_and_parsed_where_it_lies(
        client: TestClient, run_jobs: Callable[[], int], inbox: Path) -> None:
    ds = dataset(client)
    body = ingested(client, ds, str(inbox), "*[!w]")  # .pdf, .txt, .md: not photo.raw
    assert (body["status"], body["listed"], body["created"], body["skipped"], body["error"]) == \
        ("completed", 3, 3, 0, None)
    assert run_jobs() == 3
    jobs = data(client, ds)
    assert {n: j["status"] for n, j in jobs.items()} == \
        {"memo.pdf": "successful", "notes.txt": "successful", "minutes.md": "successful"}
    memo = client.get(f"/documents/v2/parse/{jobs['memo.pdf']['parse_id']}", headers=A).json()
    assert memo["total_pages"] == 2 and "pump" in str(client.get(
        f"/documents/v2/parse/{jobs['notes.txt']['parse_id']}", headers=A).json()["pages"])
    assert (inbox / "memo.pdf").exists()  # nothing moved, nothing copied into storage

    # again, with one new document and a copy of one it holds: only the new one is taken
    (inbox / "new.txt").write_text("A new report.\n")
    shutil.copy(inbox / "memo.pdf", inbox / "2026" / "memo-copy.pdf")
    again = ingested(client, ds, f"file://{inbox}/", "*[!w]")
    assert (again["listed"], again["created"], again["skipped"]) == (5, 1, 4)
    assert run_jobs() == 1 and set(data(client, ds)) == {"memo.pdf", "notes.txt", "minutes.md", "new.txt"}

    # a document gone before its job ran ends failure, saying so
    (inbox / "late.txt").write_text("soon gone\n")
    assert ingested(client, ds, str(inbox), "late.txt")["created"] == 1
    (inbox / "late.txt").unlink()
    run_jobs()
    late = data(client, ds)["late.txt"]
    assert late["status"] == "failure" and "no longer there" in late["error"]


def test_sources_outside_the_allowed_roots_are_refused(client: TestClient, inbox: Path, tmp_path: Path) -> None:
    ds = dataset(client)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "payroll.txt").write_text("not for the dataset\n")
    (inbox / "link").symlink_to(secret)  # a way out of the allowed folder
    for source in (str(secret), f"{inbox}/../secret", str(inbox / "link"), "/etc", "s3://inbox/other/",
                   "s3://inbox/allowed-not/"):
        r = client.post(f"/documents/v2/datasets/{ds}/ingest", json={"source": source}, headers=A)
        assert r.status_code == 403 and r.json()["code"] == "FORBIDDEN_SOURCE", (source, r.text)
        assert "DOCKLAKE_INGEST__ROOTS" in r.json()["message"]
    # a link inside the allowed folder is not followed out of it
    body = ingested(client, ds, str(inbox), "*.txt")
    assert body["created"] == 1 and "payroll.txt" not in data(client, ds)
    # a folder that is not there, another tenant's dataset, a bad body
    r = client.post(f"/documents/v2/datasets/{ds}/ingest", json={"source": str(inbox / "nope")}, headers=A)
    assert r.status_code == 400 and "not a folder" in r.json()["message"]
    r = client.post(f"/documents/v2/datasets/{ds}/ingest", json={"source": str(inbox)}, headers=B)
    assert r.status_code == 404
    assert client.get(f"/documents/v2/datasets/{ds}/ingest/ingest_{'0' * 24}", headers=A).status_code == 404
    r = client.post(f"/documents/v2/datasets/{ds}/ingest", json={"source": str(inbox), "recursive": 1}, headers=A)
    assert r.status_code == 422


def test_nothing_is_taken_by_reference_unless_the_operator_allows_it(tmp_path: Path, inbox: Path) -> None:
    from api.app import create_app
    from api.services import Services

    svc = Services.build(Settings(data_dir=tmp_path / "plain", api_keys=API_KEYS, prefect={"api_url": PREFECT_API}))
    try:
        with TestClient(create_app(services=svc)) as c:
            r = c.post(f"/documents/v2/datasets/{dataset(c)}/ingest", json={"source": str(inbox)}, headers=A)
            assert r.status_code == 403 and "DOCKLAKE_INGEST__ROOTS is empty" in r.json()["message"]
    finally:
        svc.close()


def test_a_bucket_prefix_is_taken_by_reference(client: TestClient, services: Services, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch, prefect_api: str) -> None:
    """The API lists the prefix; a worker on a host that can read the bucket (its credentials in
    its environment, as an operator starts it) parses the documents there."""
    import boto3
    import s3fs
    from moto.server import ThreadedMotoServer

    from tests.support.helpers import free_port

    port = free_port()
    s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    s3.start()
    aws = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "docklake",
           "AWS_SECRET_ACCESS_KEY": "docklake", "AWS_DEFAULT_REGION": "us-east-1"}
    worker = None
    try:
        for k, v in aws.items():
            monkeypatch.setenv(k, v)
        s3fs.S3FileSystem.clear_instance_cache()
        bucket = boto3.client("s3")
        bucket.create_bucket(Bucket="inbox")
        for i in range(5):
            bucket.put_object(Bucket="inbox", Key=f"allowed/scans/r{i}.txt", Body=f"Report {i}\n".encode())
        bucket.put_object(Bucket="inbox", Key="allowed/scans/r0-again.txt", Body=b"Report 0\n")  # same bytes
        bucket.put_object(Bucket="inbox", Key="other/x.txt", Body=b"elsewhere\n")
        ds = dataset(client)
        body = ingested(client, ds, "s3://inbox/allowed/scans/", "*.txt")
        assert (body["status"], body["listed"], body["created"], body["skipped"]) == ("completed", 6, 5, 1), body

        env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "DOCKLAKE_"))}
        env.update(aws, DOCKLAKE_DATA_DIR=str(tmp_path / "worker"), DOCKLAKE_PREFECT__API_URL=PREFECT_API,
                   DOCKLAKE_STORAGE__CATALOG_URL=services.settings.storage.catalog_url,
                   DOCKLAKE_STORAGE__URL=services.settings.storage.url)
        worker = subprocess.Popen([sys.executable, "-m", "api.cli.main", "worker"], cwd=ROOT, env=env,
                                  stdout=(tmp_path / "worker.log").open("wb"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while {j["status"] for j in data(client, ds).values()} & {"pending", "processing"}:
            assert time.monotonic() < deadline and worker.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(0.2)
        jobs = data(client, ds)
        assert len(jobs) == 5 and {j["status"] for j in jobs.values()} == {"successful"}, jobs
        assert "Report 3" in str(client.get(f"/documents/v2/parse/{jobs['r3.txt']['parse_id']}", headers=A).json())
        # again: the store's checksums say nothing is new
        assert ingested(client, ds, "s3://inbox/allowed/scans")["created"] == 0
    finally:
        if worker is not None:
            worker.terminate()
            try:
                worker.wait(90)  # it finishes what it holds; the suite's Prefect server may be busy
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait(10)
        s3.stop()
        s3fs.S3FileSystem.clear_instance_cache()


def test_an_ingestion_whose_process_stopped_is_taken_up_again(client: TestClient, services: Services,
                                                              inbox: Path) -> None:
    from assets.catalog import ingests as repo
    from pipelines.core.records import Principal
    from pipelines.usecases import ingest

    ds = dataset(client)
    # recorded by an API process that stopped before it listed anything
    left = repo.create(services.engine, Principal("org-a", "proj-a"), ds, ingest.normal(str(inbox)), "*.txt")
    url = f"/documents/v2/datasets/{ds}/ingest/{left.id}"
    assert client.get(url, headers=A).json()["status"] == "running"
    assert ingest.resume(services.rt, quiet_s=3600) == 0  # not quiet for long yet: its process may live
    assert ingest.resume(services.rt, quiet_s=0) == 1  # what each API's keeper does once it went quiet
    deadline = time.monotonic() + 30
    while (body := client.get(url, headers=A).json())["status"] == "running":
        assert time.monotonic() < deadline, body
        time.sleep(0.05)
    assert (body["status"], body["listed"], body["created"]) == ("completed", 1, 1)
