"""Dagster code location: per-dataset Parquet tables compacted from job results.

``dagster dev -w workspace.yaml`` shows these assets, one dynamic partition per dataset
(``<organization>/<project>/<dataset>``); the sensor adds partitions and requests runs as jobs
finish. The catalog and storage come from the same ``DOCKLAKE_*`` settings as the service.
"""


from dagster import (
    AssetCheckResult,
    AssetExecutionContext,
    ConfigurableResource,
    DefaultSensorStatus,
    Definitions,
    DynamicPartitionsDefinition,
    MaterializeResult,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    asset,
    asset_check,
    define_asset_job,
    sensor,
)

from assets import tables
from assets.catalog import make_engine
from assets.storage import Storage

datasets = DynamicPartitionsDefinition(name="datasets")


class Catalog(ConfigurableResource):
    """Where the service keeps its catalog and storage (defaults: the service's settings)."""

    catalog_url: str = ""
    storage_url: str = ""

    def handles(self):  # type: ignore[no-untyped-def]
        from pipelines.settings import Settings

        s = Settings(storage={k: v for k, v in (("catalog_url", self.catalog_url),
                                                ("url", self.storage_url)) if v})
        return make_engine(s.storage.catalog_url), Storage(s.storage.url)


@asset(partitions_def=datasets, group_name="datasets",
       description="One row per finished job of the dataset, and one row per chunk.")
def dataset_tables(context: AssetExecutionContext, catalog: Catalog) -> MaterializeResult:
    engine, storage = catalog.handles()
    key = tables.DatasetKey.from_partition(context.partition_key)
    counts = tables.compact(engine, storage, key)
    engine.dispose()
    return MaterializeResult(metadata={**counts, "path": storage.path(key.table_key("documents"))})


@asset(partitions_def=datasets, group_name="datasets", deps=[dataset_tables],
       description="Job counts by status and pages parsed, computed by DuckDB over the Parquet.")
def dataset_stats(context: AssetExecutionContext, catalog: Catalog) -> MaterializeResult:
    engine, storage = catalog.handles()
    engine.dispose()
    key = tables.DatasetKey.from_partition(context.partition_key)
    rows = tables.query(storage, key, "SELECT status, count(*), coalesce(sum(parsed_pages_count), 0) "
                                      "FROM documents GROUP BY status ORDER BY status")
    return MaterializeResult(metadata={f"{s}_jobs": n for s, n, _ in rows}
                             | {"pages": int(sum(p for *_, p in rows))})


@asset_check(asset=dataset_tables, description="Every dataset's documents table holds exactly its finished "
             "jobs in the catalog (a dataset not compacted yet, or compacted before its latest jobs, fails).")
def documents_match_the_catalog(catalog: Catalog) -> AssetCheckResult:
    engine, storage = catalog.handles()
    try:
        found, _ = tables.dataset_keys_finished_since(engine, 0)
        behind: dict[str, str] = {}
        for key, _version in found:
            expected = tables.finished_count(engine, key)
            try:
                got = tables.query(storage, key, "SELECT count(*) FROM documents")[0][0]
            except Exception:  # noqa: BLE001 - not compacted yet
                got = None
            if got != expected:
                behind[key.partition] = f"{got if got is not None else 'no table'} rows, {expected} finished jobs"
    finally:
        engine.dispose()
    return AssetCheckResult(passed=not behind, metadata={"datasets": len(found),
                                                         "behind": ", ".join(f"{k}: {v}" for k, v in behind.items())
                                                         or "none"})


compact_job = define_asset_job("compact_datasets", selection=[dataset_tables, dataset_stats])


@sensor(job=compact_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Adds a partition per dataset and materialises it as jobs finish (on by default).")
def finished_jobs_sensor(context: SensorEvaluationContext, catalog: Catalog) -> SensorResult:
    engine, _ = catalog.handles()
    since = int(context.cursor or 0)
    found, newest = tables.dataset_keys_finished_since(engine, since)
    engine.dispose()
    parts = [k.partition for k, _ in found]
    known = set(context.instance.get_dynamic_partitions(datasets.name))
    # A run key per dataset version: the overlap window finds the same versions again, and
    # Dagster skips a run key it has seen.
    return SensorResult(
        run_requests=[RunRequest(partition_key=k.partition, run_key=f"{k.partition}@{version}")
                      for k, version in found],
        dynamic_partitions_requests=[datasets.build_add_request([p for p in parts if p not in known])],
        cursor=str(newest),
    )


defs = Definitions(
    assets=[dataset_tables, dataset_stats],
    asset_checks=[documents_match_the_catalog],
    jobs=[compact_job],
    sensors=[finished_jobs_sensor],
    resources={"catalog": Catalog()},
)
