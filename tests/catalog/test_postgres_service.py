"""The whole job path with the catalog on PostgreSQL: upload, submit, run, read, list."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.services import Services
from pipelines.core.settings import Settings
from tests.support.helpers import API_KEYS, A, B
from tests.support.postgres import admin_execute

pytestmark = pytest.mark.postgres


def test_job_path_on_postgres(postgres_url: str, prefect_api: str, tmp_path: Path) -> None:
    from pipelines.flows.dispatcher import Dispatcher
    from pipelines.usecases.runtime import Runtime, install

    db = "svc_" + secrets.token_hex(6)
    admin_execute(postgres_url, f"CREATE DATABASE {db}")
    settings = Settings(data_dir=tmp_path / "dl", api_keys=API_KEYS, prefect={"api_url": prefect_api},
                        storage={"catalog_url": postgres_url.rsplit("/", 1)[0] + "/" + db})
    services = Services.build(settings)
    try:
        with TestClient(create_app(services=services)) as client:
            fid = client.put("/documents/v2/files", files={"file": ("Notes.md", b"# Notes\n\nbody")},
                             headers=A).json()["file_id"]
            pid = client.post("/documents/v2/parse", json={"file_id": fid}, headers=A).json()["parse_id"]
            rt = Runtime(settings, services.engine, services.storage)
            install(rt)
            assert asyncio.run(Dispatcher(rt).run_once()) == 1
            res = client.get(f"/documents/v2/parse/{pid}", headers=A).json()
            assert res["status"] == "successful"
            assert res["chunks"][0]["content"] == "# Notes\n\nbody"
            assert [i["parse_id"] for i in client.get("/documents/v2/parse", params={"filename": "Notes"},
                                                      headers=A).json()["items"]] == [pid]
            assert client.get("/documents/v2/parse", params={"filename": "notes"},
                              headers=A).json()["items"] == []
            assert client.get("/documents/v2/files", headers=B).json()["items"] == []
    finally:
        services.close()
        admin_execute(postgres_url, f"DROP DATABASE {db} WITH (FORCE)")


def test_datasets_webhooks_and_queries_on_postgres(postgres_url: str, prefect_api: str, tmp_path: Path) -> None:
    """The dataset rules (unique names → 409, status from the jobs), the webhook outbox written
    with the job's end, and SQL over results, with the catalog on PostgreSQL."""
    from pipelines.flows.dispatcher import Dispatcher
    from pipelines.usecases.runtime import Runtime, install

    db = "ds_" + secrets.token_hex(6)
    admin_execute(postgres_url, f"CREATE DATABASE {db}")
    settings = Settings(data_dir=tmp_path / "dl", api_keys=API_KEYS, prefect={"api_url": prefect_api},
                        storage={"catalog_url": postgres_url.rsplit("/", 1)[0] + "/" + db},
                        limits={"allow_private_urls": True})
    services = Services.build(settings)
    try:
        with TestClient(create_app(services=services)) as client:
            ds = client.post("/documents/v2/datasets", json={"name": "pg-set"}, headers=A).json()["dataset_id"]
            assert client.post("/documents/v2/datasets", json={"name": "pg-set"}, headers=A).status_code == 409
            assert client.post("/documents/v2/datasets", json={"name": "pg-set"}, headers=B).status_code == 200
            hook = client.post("/documents/v2/webhooks", json={"url": "http://127.0.0.1:9/hook"}, headers=A).json()
            pid = client.post(f"/documents/v2/datasets/{ds}/parse", json={"raw_text": "pg words",
                                                                          "mime_type": "text/plain"},
                              headers=A).json()["parse_id"]
            busy = client.get("/documents/v2/datasets", params={"status": "processing"}, headers=A).json()
            assert [d["dataset_id"] for d in busy["items"]] == [ds]
            rt = Runtime(settings, services.engine, services.storage)
            install(rt)
            assert asyncio.run(Dispatcher(rt).run_once()) == 1
            got = client.get(f"/documents/v2/datasets/{ds}", params={"include_analytics": True}, headers=A).json()
            assert got["status"] == "idle" and got["analytics"]["total_successful_parse_jobs"] == 1
            # the event was queued with the job's end and tried once (nothing listens on port 9)
            (delivery,) = client.get(f"/documents/v2/webhooks/{hook['webhook_id']}/deliveries",
                                     headers=A).json()["items"]
            assert delivery["parse_id"] == pid and delivery["attempts"] == 1 and delivery["status"] == "pending"
            rows = client.post("/documents/v2/query", json={"sql": "select text from fragments"}, headers=A).json()
            assert rows["rows"] == [["pg words"]]
            assert client.post("/documents/v2/query", json={"sql": "select count(*) from jobs"},
                               headers=B).json()["rows"] == [[0]]
            assert client.delete(f"/documents/v2/datasets/{ds}", headers=A).status_code == 204
            assert client.get(f"/documents/v2/parse/{pid}", headers=A).status_code == 404
    finally:
        services.close()
        admin_execute(postgres_url, f"DROP DATABASE {db} WITH (FORCE)")
