"""Dagster assets compact job results into per-dataset Parquet that DuckDB queries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dagster import DagsterInstance, build_sensor_context, materialize
from fastapi.testclient import TestClient

from api.services import Services
from assets import tables
from assets.definitions import Catalog, dataset_stats, dataset_tables, datasets, finished_jobs_sensor
from tests.support.helpers import A, B


def test_materialize_dataset_tables_and_query(client: TestClient, run_jobs, services: Services,
                                              tmp_path: Path) -> None:
    for text in ("alpha one\fsecond page", "beta", "   "):
        client.post("/documents/v2/parse", json={"raw_text": text, "mime_type": "text/plain",
                                                 "parsing_options": {"chunking_strategy": "page"}},
                    headers=A)
    client.post("/documents/v2/parse", json={"raw_text": "other tenant", "mime_type": "text/plain"}, headers=B)
    run_jobs()
    s = services.settings
    resource = Catalog(catalog_url=s.storage.catalog_url, storage_url=s.storage.url)

    instance = DagsterInstance.ephemeral(tempdir=str(tmp_path / "dagster"))
    ctx = build_sensor_context(instance=instance, resources={"catalog": resource})
    result = finished_jobs_sensor(ctx)
    parts = sorted(r.partition_key for r in result.run_requests)
    assert parts == ["org-a/proj-a/_", "org-b/proj-b/_"]
    instance.add_dynamic_partitions(datasets.name, parts)

    out = materialize([dataset_tables, dataset_stats], partition_key="org-a/proj-a/_",
                      instance=instance, resources={"catalog": resource})
    assert out.success
    key = tables.DatasetKey("org-a", "proj-a")
    rows = tables.query(services.storage, key,
                        "SELECT status, count(*) FROM documents GROUP BY status ORDER BY status")
    assert rows == [("failure", 1), ("successful", 2)]
    chunks = tables.query(services.storage, key,
                          "SELECT page_number, content FROM chunks ORDER BY content")
    assert chunks == [(1, "alpha one"), (1, "beta"), (2, "second page")]
    # pages and fragments are typed tables too: real columns, one row per page and per fragment
    pages = tables.query(services.storage, key, "SELECT count(*), count(DISTINCT parse_id) FROM pages")
    assert pages == [(3, 2)]
    frags = tables.query(services.storage, key,
                         "SELECT page_number, fragment_type, text FROM fragments ORDER BY text")
    assert frags == [(1, "text", "alpha one"), (1, "text", "beta"), (2, "text", "second page")]
    kinds = dict(tables.query(services.storage, key,
                              "SELECT column_name, column_type FROM (DESCRIBE fragments)"))
    assert kinds["reading_order"] == "INTEGER" and kinds["x1"] == "DOUBLE" and kinds["text"] == "VARCHAR"
    stats = instance.get_latest_materialization_event(dataset_stats.key).asset_materialization.metadata
    assert {k: stats[k].value for k in ("successful_jobs", "failed_jobs", "pages", "chunks")} == \
        {"successful_jobs": 2, "failed_jobs": 1, "pages": 3, "chunks": 3}
    assert "| parse | 3 | 1 | 3 |" in stats["jobs_by_kind"].value
    made = instance.get_latest_materialization_event(dataset_tables.key).asset_materialization.metadata
    assert made["dataset"].value == "jobs submitted without a dataset"
    assert {k: made[k].value for k in ("dagster/row_count", "documents", "chunks", "pages", "fragments",
                                       "failed_jobs", "successful_jobs", "pages_parsed")} == \
        {"dagster/row_count": 3, "documents": 3, "chunks": 3, "pages": 3, "fragments": 3, "failed_jobs": 1,
         "successful_jobs": 2, "pages_parsed": 3}
    (error,) = [e for (e,) in tables.query(services.storage, key,
                                           "SELECT error FROM documents WHERE status = 'failure'")]
    assert error and error.split("\n")[0][:40] in made["failed_documents"].value

    # nothing new: the same run keys again, which Dagster skips; a newly finished job changes
    # its dataset's run key
    def sensor_keys(cursor: str | None) -> dict[str, str]:
        out = finished_jobs_sensor(build_sensor_context(instance=instance, cursor=cursor,
                                                        resources={"catalog": resource}))
        return {r.partition_key: r.run_key for r in out.run_requests}

    first = {r.partition_key: r.run_key for r in result.run_requests}
    assert sensor_keys(result.cursor) == first
    client.post("/documents/v2/parse", json={"raw_text": "late", "mime_type": "text/plain"}, headers=B)
    run_jobs()
    later = sensor_keys(result.cursor)
    assert later["org-a/proj-a/_"] == first["org-a/proj-a/_"]
    assert later["org-b/proj-b/_"] != first["org-b/proj-b/_"]


def test_workspace_loads_in_dagster() -> None:
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-m", "dagster", "definitions", "validate", "-w", "workspace.yaml"],
                       cwd=root, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_sensor_says_why_it_skips_a_catalog_the_service_has_not_created(tmp_path: Path) -> None:
    from dagster import SkipReason

    resource = Catalog(catalog_url=f"sqlite:///{tmp_path / 'catalog.db'}", storage_url=f"file://{tmp_path}")
    instance = DagsterInstance.ephemeral(tempdir=str(tmp_path / "dagster"))
    out = finished_jobs_sensor(build_sensor_context(instance=instance, resources={"catalog": resource}))
    assert isinstance(out, SkipReason) and "has no jobs table yet" in out.skip_message
    assert "docklake serve" in out.skip_message


def test_the_sensor_runs_without_anyone_turning_it_on() -> None:
    from dagster import DefaultSensorStatus

    from assets.definitions import finished_jobs_sensor

    assert finished_jobs_sensor.default_status == DefaultSensorStatus.RUNNING


def test_the_asset_check_compares_the_tables_with_the_catalog(client: TestClient, run_jobs, services: Services,
                                                              tmp_path: Path) -> None:
    from dagster import build_asset_check_context

    from assets.definitions import documents_match_the_catalog

    client.post("/documents/v2/parse", json={"raw_text": "one", "mime_type": "text/plain"}, headers=A)
    run_jobs()
    s = services.settings
    resource = Catalog(catalog_url=s.storage.catalog_url, storage_url=s.storage.url)
    before = documents_match_the_catalog(build_asset_check_context(), catalog=resource)
    assert not before.passed and "org-a/proj-a/_: no table" in before.metadata["behind"].value
    tables.compact(services.engine, services.storage, tables.DatasetKey("org-a", "proj-a"))
    after = documents_match_the_catalog(build_asset_check_context(), catalog=resource)
    assert after.passed, after.metadata
    client.post("/documents/v2/parse", json={"raw_text": "two", "mime_type": "text/plain"}, headers=A)
    run_jobs()
    stale = documents_match_the_catalog(build_asset_check_context(), catalog=resource)
    assert not stale.passed and "1 rows, 2 finished jobs" in stale.metadata["behind"].value
