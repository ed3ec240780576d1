"""Submit latency: ``POST /documents/v2/parse`` over real HTTP vs the bare SQL INSERT of the job row.

Goal (DESIGN.md §2): submit p50 ≤ 25 ms.
"""

from __future__ import annotations

import json
import secrets

from sqlalchemy import insert

from bench.harness import ORG, PROJECT, ApiServer, ms, note, print_table, summary, timed

GOAL_P50_MS = 25.0
BODY = {"raw_text": "Invoice 42\n\nTotal due: 1,234.00 EUR\nThank you for your business.\n" * 4,
        "mime_type": "text/plain", "file_name": "invoice-42.txt", "labels": {"source": "bench"}}


def bench_api(server: ApiServer, n: int, warmup: int = 20) -> list[float]:
    samples: list[float] = []
    with server.client() as client:
        for i in range(warmup + n):
            t, r = timed(lambda: client.post("/documents/v2/parse", json=BODY))
            if r.status_code != 200:
                raise RuntimeError(f"POST /documents/v2/parse → {r.status_code}: {r.text[:300]}")
            if i >= warmup:
                samples.append(t)
    return samples


def bench_create_job(engine, n: int) -> list[float]:  # type: ignore[no-untyped-def]
    """The repository call the route makes, in-process (no HTTP, no FastAPI)."""
    from assets.catalog import jobs as jobs_repo
    from pipelines.core.records import JobKind, JobSource, Principal
    from pipelines.core.requests import ParseRequest

    p = Principal(ORG, PROJECT, "key_bench")
    req = ParseRequest.model_validate(BODY)
    out = []
    for i in range(n):
        source = JobSource.text(f"texts/{ORG}/{PROJECT}/bench_{i}.txt")
        t, _ = timed(lambda: jobs_repo.create_job(
            engine, p, kind=JobKind.parse, source=source, options=req,  # noqa: B023
            labels=req.labels or {}, file_id=None, file_name=req.file_name))
        out.append(t)
    return out


def bench_bare_insert(engine, n: int) -> list[float]:  # type: ignore[no-untyped-def]
    """The same row through the DB-API driver: one autocommit INSERT per row."""
    from assets.catalog.db import jobs, now_us
    from pipelines.core.records import Job, JobSource
    from pipelines.core.requests import ParseRequest

    req = Job.stored_request(JobSource.text(f"texts/{ORG}/{PROJECT}/bench.txt"), ParseRequest.model_validate(BODY))
    row = dict(id="", organization_id=ORG, project_id=PROJECT, kind="parse", status="pending",
               dataset_id=None, dataset_name=None, file_id=None, file_name=BODY["file_name"],
               request=req, labels=BODY["labels"], created_us=0, attempts=0, parsed_pages_count=0)
    compiled = insert(jobs).compile(dialect=engine.dialect, column_keys=list(row))
    sql = compiled.string
    raw = engine.raw_connection()
    dbapi = raw.driver_connection
    if engine.dialect.name == "sqlite":
        dbapi.isolation_level = None  # autocommit (make_engine sets it too)
    else:
        dbapi.autocommit = True
    cur = dbapi.cursor()
    out = []
    try:
        for _ in range(n):
            def one() -> None:
                vals = {**row, "id": "parse_" + secrets.token_hex(12), "created_us": now_us(),
                        "request": json.dumps(req), "labels": json.dumps(row["labels"])}
                params = compiled.construct_params(vals)
                if compiled.positiontup is not None and engine.dialect.paramstyle == "qmark":
                    cur.execute(sql, tuple(params[k] for k in compiled.positiontup))
                else:
                    cur.execute(sql, params)
            t, _ = timed(one)
            out.append(t)
    finally:
        cur.close()
        raw.close()
    return out


def run(n: int = 1000, catalog_url: str = "") -> dict:
    from assets.catalog.db import make_engine

    note(f"[submit] starting the API (catalog: {catalog_url or 'fresh SQLite'}) …")
    with ApiServer(catalog_url=catalog_url) as server:
        note(f"[submit] {n} × POST /documents/v2/parse on {server.base_url} …")
        api = bench_api(server, n)
        url = catalog_url or f"sqlite:///{server.data_dir / 'catalog.db'}"
        engine = make_engine(url)
        try:
            note(f"[submit] {n} × create_job() in-process, {n} × bare INSERT on the same catalog …")
            repo = bench_create_job(engine, n)
            bare = bench_bare_insert(engine, n)
        finally:
            engine.dispose()
    results = {"POST /documents/v2/parse (HTTP, uvicorn)": summary(api),
               "create_job() in-process (SQLAlchemy)": summary(repo),
               "bare SQL INSERT, autocommit (DB-API)": summary(bare)}
    backend = "Postgres" if catalog_url.startswith("postgres") else "SQLite WAL"
    print_table(f"Submit latency, {n} sequential requests, {backend} catalog (ms)",
                ["path", "p50", "p99", "max", "mean"],
                [[k, ms(v["p50"]), ms(v["p99"]), ms(v["max"]), ms(v["mean"])] for k, v in results.items()])
    p50 = results["POST /documents/v2/parse (HTTP, uvicorn)"]["p50"]
    verdict = "MET" if p50 <= GOAL_P50_MS else "MISSED"
    print(f"goal: submit p50 ≤ {GOAL_P50_MS:g} ms → {verdict} (p50 {ms(p50)} ms)")
    return results
