"""The whole job path with the catalog on PostgreSQL: upload, submit, run, read, list."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.services import Services
from pipelines.settings import Settings
from tests.helpers import API_KEYS, A, B
from tests.postgres import admin_execute

pytestmark = pytest.mark.postgres


def test_job_path_on_postgres(postgres_url: str, prefect_api: str, tmp_path: Path) -> None:
    from pipelines.dispatcher import Dispatcher
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
