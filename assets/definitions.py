"""Dagster code location: per-dataset Parquet tables compacted from job results.

``dagster dev -w workspace.yaml`` shows these assets, one dynamic partition per dataset
(``<organization>/<project>/<dataset>``, ``_`` for jobs without a dataset); the sensor (on by
default) adds partitions and requests runs as jobs finish. Each materialisation records what a
person monitoring the dataset looks at: row counts, pages, failed jobs and which documents failed.
The catalog and storage come from the same ``DOCKLAKE_*`` settings as the service.
"""


from dagster import (
    AssetCheckResult,
    AssetExecutionContext,
    ConfigurableResource,
    DefaultSensorStatus,
    Definitions,
    DynamicPartitionsDefinition,
    MaterializeResult,
    MetadataValue,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    asset,
    asset_check,
    define_asset_job,
    in_process_executor,
    sensor,
)

from assets import tables
from assets.catalog.db import make_engine
from assets.storage import Storage

datasets = DynamicPartitionsDefinition(name="datasets")


class Catalog(ConfigurableResource):
    """Where the service keeps its catalog and storage (defaults: the service's settings)."""

    catalog_url: str = ""
    storage_url: str = ""

    def handles(self):  # type: ignore[no-untyped-def]
        from pipelines.core.settings import Settings

        s = Settings(storage={k: v for k, v in (("catalog_url", self.catalog_url),
                                                ("url", self.storage_url)) if v})
        return make_engine(s.storage.catalog_url), Storage(s.storage.url)


LAYOUT = ("datasets/<org>/<project>/<dataset>/{documents,pages,fragments,chunks,structured_data,page_classes}"
          ".parquet in the service's storage")
SHOWN_FAILURES = 20


def _cell(text: str, limit: int = 160) -> str:
    """One markdown table cell: no pipes or line breaks, and not a whole traceback."""
    text = " ".join(text.replace("|", "/").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def failures_table(failures: list[tuple[str, str]]) -> str:
    """The dataset's failed documents and their errors, as a person reads them in the UI
    (the first ``SHOWN_FAILURES``; the documents table has them all)."""
    if not failures:
        return "No failed documents."
    rows = [f"| {_cell(name, 80)} | {_cell(error)} |" for name, error in failures[:SHOWN_FAILURES]]
    more = len(failures) - SHOWN_FAILURES
    tail = [f"\n…and {more} more: `SELECT file_name, error FROM documents WHERE status = 'failure'`"] if more > 0 else []
    return "\n".join(["| document | error |", "| --- | --- |", *rows, *tail])


@asset(partitions_def=datasets, group_name="datasets", kinds={"parquet"},
       metadata={"layout": LAYOUT},
       description="The dataset's parsed documents as six typed Parquet tables, rebuilt from the catalog "
                   "and the stored results whenever a job of the dataset finishes: `documents` (one row per "
                   "finished job: file name, status, pages, error), `pages` (size, skew), `fragments` (type, "
                   "reading order, text and box as columns), `chunks`, `structured_data` (one row per "
                   "extraction answer: schema name, pages, data as JSON, citations) and `page_classes` (one "
                   "row per page class: name, pages). "
                   "A partition is one dataset, `<org>/<project>/<dataset id>` (`_` for jobs without "
                   "one); its materialisation names the dataset.")
def dataset_tables(context: AssetExecutionContext, catalog: Catalog) -> MaterializeResult:
    engine, storage = catalog.handles()
    key = tables.DatasetKey.from_partition(context.partition_key)
    try:
        done = tables.compact(engine, storage, key)
    finally:
        engine.dispose()
    context.log.info(f"{key.partition}: {done.documents} documents ({done.failed_jobs} failed), "
                     f"{done.chunks} chunks, {done.pages_parsed} pages")
    return MaterializeResult(metadata={
        "dataset": MetadataValue.text(done.dataset_name or ("jobs submitted without a dataset"
                                                           if key.dataset == tables.NO_DATASET else key.dataset)),
        "dagster/row_count": MetadataValue.int(done.documents),
        "documents": MetadataValue.int(done.documents),
        "pages": MetadataValue.int(done.pages),
        "fragments": MetadataValue.int(done.fragments),
        "chunks": MetadataValue.int(done.chunks),
        "structured_data": MetadataValue.int(done.structured_data),
        "page_classes": MetadataValue.int(done.page_classes),
        "successful_jobs": MetadataValue.int(done.successful_jobs),
        "failed_jobs": MetadataValue.int(done.failed_jobs),
        "pages_parsed": MetadataValue.int(done.pages_parsed),
        "pages_in_documents": MetadataValue.int(done.pages_total),
        "failed_documents": MetadataValue.md(failures_table(done.failures)),
        "path": MetadataValue.path(storage.path(key.table_key("documents"))),
    })


@asset(partitions_def=datasets, group_name="datasets", deps=[dataset_tables], kinds={"duckdb"},
       description="The dataset's figures computed by DuckDB over its Parquet tables (not the catalog): "
                   "jobs by status, pages parsed, chunks, and jobs by kind.")
def dataset_stats(context: AssetExecutionContext, catalog: Catalog) -> MaterializeResult:
    engine, storage = catalog.handles()
    engine.dispose()
    key = tables.DatasetKey.from_partition(context.partition_key)
    by_kind = tables.query(storage, key, """
        SELECT kind, count(*), count(*) FILTER (WHERE status = 'failure'),
               coalesce(sum(parsed_pages_count), 0)
        FROM documents GROUP BY kind ORDER BY kind""")
    chunks = tables.query(storage, key, "SELECT count(*) FROM chunks")[0][0]
    jobs_n = sum(n for _, n, _, _ in by_kind)
    failed = sum(f for _, _, f, _ in by_kind)
    pages = int(sum(p for *_, p in by_kind))
    table = "\n".join(["| kind | jobs | failed | pages |", "| --- | --- | --- | --- |",
                       *(f"| {k} | {n} | {f} | {p} |" for k, n, f, p in by_kind)])
    return MaterializeResult(metadata={
        "successful_jobs": MetadataValue.int(jobs_n - failed),
        "failed_jobs": MetadataValue.int(failed),
        "failure_rate": MetadataValue.float(round(failed / jobs_n, 4) if jobs_n else 0.0),
        "pages": MetadataValue.int(pages),
        "chunks": MetadataValue.int(int(chunks)),
        "jobs_by_kind": MetadataValue.md(table),
    })


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


# The steps are small (one dataset's Parquet): running them in the run's own process saves a
# Python start-up per step, which is most of a run's time with the default multiprocess executor.
compact_job = define_asset_job("compact_datasets", selection=[dataset_tables, dataset_stats],
                               executor_def=in_process_executor)


@sensor(job=compact_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Adds a partition per dataset and materialises it as jobs finish (on by default).")
def finished_jobs_sensor(context: SensorEvaluationContext, catalog: Catalog) -> SensorResult | SkipReason:
    engine, _ = catalog.handles()
    try:
        if not tables.catalog_ready(engine):
            # a tick that says why, rather than an error every 30 s
            return SkipReason(f"the catalog ({engine.url.render_as_string(hide_password=True)}) has no jobs "
                              "table yet: start `docklake serve` with the same DOCKLAKE_* settings")
        since = int(context.cursor or 0)
        found, newest = tables.dataset_keys_finished_since(engine, since)
    finally:
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
