"""An S3-compatible object store (moto's server) as the storage: ``AWS_ENDPOINT_URL`` points
s3fs at it, ``/readyz`` says so when the bucket is missing, and uploads land in the bucket."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
import s3fs
from fastapi.testclient import TestClient
from moto.server import ThreadedMotoServer

from api.app import create_app
from api.services import Services
from pipelines.core.settings import Settings
from tests.support.forwarder import Forwarder
from tests.support.helpers import API_KEYS, A, free_port

BUCKET = "docklake-store"


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "docklake")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "docklake")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    s3fs.S3FileSystem.clear_instance_cache()  # fsspec keeps instances, with the endpoint they read
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()
        s3fs.S3FileSystem.clear_instance_cache()


def test_a_missing_bucket_makes_readyz_fail_and_uploads_land_in_the_bucket(s3: str, prefect_api: str,
                                                                           tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, api_keys=API_KEYS, prefect={"api_url": prefect_api},
                        storage={"url": f"s3://{BUCKET}/docklake"})
    services = Services.build(settings)
    try:
        with TestClient(create_app(services=services)) as client:
            r = client.get("/readyz")
            assert r.status_code == 503
            assert r.json()["checks"]["storage"] == f"error: the bucket '{BUCKET}' does not exist: create it first"

            boto3.client("s3").create_bucket(Bucket=BUCKET)
            r = client.get("/readyz")
            assert (r.status_code, r.json()["checks"]["storage"]) == (200, "ok"), r.json()

            up = client.put("/documents/v2/files", files={"file_bytes": ("note.txt", b"kept in the bucket")},
                            headers=A)
            assert up.status_code == 200, up.text
            bucket = boto3.client("s3")
            keys = [o["Key"] for o in bucket.list_objects_v2(Bucket=BUCKET).get("Contents", [])]
            stored = [k for k in keys if k.startswith("docklake/") and up.json()["file_id"] in k]
            assert len(stored) == 1, keys
            assert bucket.get_object(Bucket=BUCKET, Key=stored[0])["Body"].read() == b"kept in the bucket"
    finally:
        services.close()


def test_an_unreachable_store_answers_503_and_keeps_nothing_half_done(s3: str, prefect_api: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The store away (not missing): /readyz says so, an upload is refused with 503 and a
    Retry-After (nothing of it recorded), and the same upload works once the store is back."""
    boto3.client("s3").create_bucket(Bucket=BUCKET)
    fw = Forwarder("127.0.0.1", int(s3.rsplit(":", 1)[1])).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{fw.port}")
    s3fs.S3FileSystem.clear_instance_cache()
    settings = Settings(data_dir=tmp_path, api_keys=API_KEYS, prefect={"api_url": prefect_api},
                        storage={"url": f"s3://{BUCKET}/docklake"})
    services = Services.build(settings)
    try:
        with TestClient(create_app(services=services)) as client:
            fw.cut()
            r = client.get("/readyz")
            assert r.status_code == 503 and "cannot be reached" in r.json()["checks"]["storage"], r.json()
            up = client.put("/documents/v2/files", files={"file_bytes": ("note.txt", b"held back")}, headers=A)
            assert up.status_code == 503, up.text
            assert up.json()["code"] == "SERVICE_UNAVAILABLE" and up.headers["retry-after"] == "5"
            assert client.get("/documents/v2/files", headers=A).json()["items"] == []

            fw.restore()
            assert client.get("/readyz").status_code == 200
            up = client.put("/documents/v2/files", files={"file_bytes": ("note.txt", b"held back")}, headers=A)
            assert up.status_code == 200, up.text
            assert [f["file_id"] for f in client.get("/documents/v2/files", headers=A).json()["items"]] == \
                [up.json()["file_id"]]
    finally:
        fw.cut()
        services.close()
