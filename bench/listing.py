"""List latency over 1,000,000 job rows: ``GET /documents/v2/parse`` over real HTTP vs the bare SQL
the endpoint runs (captured from ``assets.catalog.jobs.list_jobs`` and replayed through the DB-API driver).

Goal (DESIGN.md §2): list p99 ≤ 50 ms.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event, text

from bench.harness import ORG, PROJECT, ApiServer, ms, note, print_table, summary, timed

GOAL_P99_MS = 50.0
DAY_US = 86_400 * 1_000_000
SPAN_DAYS = 180
# (organization, project, share of rows): the benchmark's API key is the first tenant.
TENANTS = [(ORG, PROJECT, 0.6), ("acme", "prod", 0.25), ("acme", "staging", 0.15)]
STATUSES = [("successful", 0.80), ("failure", 0.08), ("pending", 0.08), ("processing", 0.04)]
DATASETS = [f"ds{i:02d}" for i in range(30)]
COLUMNS = ["id", "organization_id", "project_id", "kind", "status", "dataset_id", "dataset_name",
           "file_id", "file_name", "request", "labels", "created_us", "started_us", "finished_us",
           "lease_owner", "lease_expires_us", "attempts", "error", "result_key", "total_pages",
           "parsed_pages_count", "flow_run_id"]


# ---------------------------------------------------------------- synthetic rows


def _file_name(rng: random.Random, k: int) -> str:
    kind = rng.random()
    if kind < 0.25:
        return f"invoice_{k:06d}.pdf"
    if kind < 0.45:
        return f"contract-{k}.docx"
    if kind < 0.65:
        return f"scan_{rng.randint(2024, 2026)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}_{k}.png"
    if kind < 0.80:
        return f"Report Q{rng.randint(1, 4)} {rng.randint(2019, 2026)} ({k}).xlsx"
    return f"notes-{k:x}.txt"


def generate(n: int, now_us: int, seed: int = 42):  # type: ignore[no-untyped-def]
    """Yield ``n`` job rows (tuples in COLUMNS order), oldest first, spread over SPAN_DAYS."""
    rng = random.Random(seed)
    tenant_w = [t[2] for t in TENANTS]
    status_names = [s[0] for s in STATUSES]
    status_w = [s[1] for s in STATUSES]
    ds_w = [1 / (i + 1) for i in range(len(DATASETS))]  # zipf-ish popularity
    start = now_us - SPAN_DAYS * DAY_US
    step = SPAN_DAYS * DAY_US / n
    for i in range(n):
        org, project, _ = rng.choices(TENANTS, tenant_w)[0]
        created = int(start + i * step + rng.random() * step)
        status = rng.choices(status_names, status_w)[0]
        ds = rng.choices(DATASETS, ds_w)[0] if rng.random() < 0.6 else None
        k = rng.randrange(1_000_000)
        fname = _file_name(rng, k)
        file_id = f"file_{rng.getrandbits(96):024x}"
        pages = rng.randint(1, 40)
        request = {"source": {"kind": "file", "file_id": file_id},
                   "options": {"file_name": fname, "mime_type": "application/pdf",
                               "parsing_options": {"chunking_strategy": rng.choice(["page", "section", "none"])}}}
        labels = {"team": rng.choice(["finance", "legal", "ops"])} if rng.random() < 0.5 else {}
        started = finished = error = result_key = lease_owner = lease_exp = flow = None
        total = None
        parsed = 0
        if status != "pending":
            started = created + rng.randint(50_000, 5_000_000)
            flow = f"{rng.getrandbits(128):032x}"
        if status == "processing":
            lease_owner, lease_exp = f"worker-{rng.randint(0, 7)}", started + 30_000_000
        if status in ("successful", "failure"):
            finished = started + rng.randint(200_000, 60_000_000)  # type: ignore[operator]
        if status == "successful":
            total = parsed = pages
            result_key = f"results/{org}/{project}/_/parse_{i}/1"
        if status == "failure":
            error = rng.choice(["the document could not be opened", "page_range 3-9 is out of range",
                                "the job timed out after 600 s"])
        yield (f"parse_{rng.getrandbits(96):024x}", org, project, "parse", status,
               f"dataset_{ds}" if ds else None, ds, file_id, fname, json.dumps(request),
               json.dumps(labels), created, started, finished, lease_owner, lease_exp,
               1 if started else 0, error, result_key, total, parsed, flow)


def _batches(it, size: int):  # type: ignore[no-untyped-def]
    batch = []
    for row in it:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def load(engine, n: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Bulk-load ``n`` rows into ``jobs``: drop the secondary indexes, insert in big
    transactions, rebuild the indexes. Returns timings in seconds."""
    now = time.time_ns() // 1000
    raw = engine.raw_connection()
    con = raw.driver_connection
    t0 = time.perf_counter()
    if engine.dialect.name == "sqlite":
        con.isolation_level = None
        cur = con.cursor()
        idx = [r[0] for r in cur.execute(
            "SELECT sql FROM sqlite_master WHERE type='index' AND tbl_name='jobs' AND sql IS NOT NULL")]
        for name, in cur.execute("SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='jobs' "
                                 "AND sql IS NOT NULL").fetchall():
            cur.execute(f'DROP INDEX "{name}"')
        cur.execute("PRAGMA synchronous=OFF")
        sql = f"INSERT INTO jobs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
        for batch in _batches(generate(n, now), 100_000):
            cur.execute("BEGIN")
            cur.executemany(sql, batch)
            cur.execute("COMMIT")
        t1 = time.perf_counter()
        for ddl in idx:
            cur.execute(ddl)
        cur.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        cur.execute("PRAGMA synchronous=NORMAL")
    else:  # postgres: COPY, then rebuild the indexes and ANALYZE (autovacuum would, too)
        con.autocommit = True
        cur = con.cursor()
        cur.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename='jobs' "
                    "AND indexname NOT LIKE '%%pkey'")
        idx = cur.fetchall()
        for name, _ in idx:
            cur.execute(f'DROP INDEX "{name}"')
        with cur.copy(f"COPY jobs ({', '.join(COLUMNS)}) FROM STDIN") as copy:
            for row in generate(n, now):
                copy.write_row(row)
        t1 = time.perf_counter()
        for _, ddl in idx:
            cur.execute(ddl)
        cur.execute("ANALYZE jobs")
    t2 = time.perf_counter()
    cur.close()
    raw.close()
    return {"insert_s": t1 - t0, "index_s": t2 - t1, "total_s": t2 - t0}


# ---------------------------------------------------------------- queries


def _iso(us: int) -> str:
    return datetime.fromtimestamp(us / 1e6, UTC).isoformat().replace("+00:00", "Z")


def _walk(client, params: dict[str, Any], pages: int) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    """The request parameters of ``pages`` consecutive pages, following ``next_cursor``."""
    out, p = [], dict(params)
    for _ in range(pages):
        out.append(dict(p))
        body = client.get("/documents/v2/parse", params=p).raise_for_status().json()
        if not body["next_cursor"]:
            break
        p = {**params, "cursor": body["next_cursor"]}
    return out


def cases(client, engine) -> list[tuple[str, list[dict[str, Any]]]]:  # type: ignore[no-untyped-def]
    from assets.catalog.pagination import encode_cursor

    with engine.connect() as conn:
        n_tenant = conn.execute(text("SELECT count(*) FROM jobs WHERE organization_id=:o AND project_id=:p"),
                                {"o": ORG, "p": PROJECT}).scalar()
        deep = conn.execute(text(
            "SELECT created_us, id FROM jobs WHERE organization_id=:o AND project_id=:p "
            "ORDER BY created_us DESC, id DESC LIMIT 1 OFFSET :off"),
            {"o": ORG, "p": PROJECT, "off": int(n_tenant * 0.9)}).one()
        newest = conn.execute(text("SELECT max(created_us) FROM jobs")).scalar()
    deep_cursor = encode_cursor(deep.created_us, deep.id)
    week_ago = _iso(newest - 7 * DAY_US)
    return [
        ("first page", [{}]),
        ("next pages 2–50 (next_cursor)", _walk(client, {}, 50)[1:]),
        ("deep pages at 90% (next_cursor)", _walk(client, {"cursor": deep_cursor}, 20)),
        ("status=failure, pages 1–20", _walk(client, {"status": "failure"}, 20)),
        ("status=pending, pages 1–20", _walk(client, {"status": "pending"}, 20)),
        ("dataset_name=ds07, pages 1–20", _walk(client, {"dataset_name": "ds07"}, 20)),
        ("dataset_name + status, pages 1–10", _walk(client, {"dataset_name": "ds07", "status": "failure"}, 10)),
        ("filename='.pdf' (common), pages 1–20", _walk(client, {"filename": ".pdf"}, 20)),
        ("filename='invoice_0042' (rare)", _walk(client, {"filename": "invoice_0042"}, 2)),
        ("created_after=7 days ago, pages 1–20", _walk(client, {"created_after": week_ago}, 20)),
        ("created_after + status=failure, pages 1–10",
         _walk(client, {"created_after": week_ago, "status": "failure"}, 10)),
    ]


def capture_sql(engine, params: dict[str, Any]) -> list[tuple[str, Any]]:  # type: ignore[no-untyped-def]
    """The statements and parameters ``list_jobs`` sends for these request parameters (a
    file-name filter on SQLite sends a probe first, then the page query)."""
    from api.wire.common import parse_rfc3339
    from assets.catalog import jobs as jobs_repo
    from pipelines.core.records import JobFilter, Principal

    seen: list[tuple[str, Any]] = []

    def grab(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        seen.append((statement, parameters))

    f = JobFilter(status=params.get("status"), dataset_name=params.get("dataset_name"),
                            file_name=params.get("filename"),
                            created_after=parse_rfc3339(params.get("created_after"), "created_after"))
    event.listen(engine, "before_cursor_execute", grab)
    try:
        jobs_repo.list_jobs(engine, Principal(ORG, PROJECT, "key_bench"), f,
                            cursor=params.get("cursor"), direction="next", limit=100)
    finally:
        event.remove(engine, "before_cursor_execute", grab)
    return [s for s in seen if "FROM jobs" in s[0]]


def _sample(fn, samples: int, budget_s: float, items: list[Any]) -> tuple[list[float], float]:  # type: ignore[no-untyped-def]
    """Time ``fn`` over ``items`` round-robin; return the samples and the mean of its results."""
    out: list[float] = []
    got: list[int] = []
    fn(items[0])  # warm
    deadline = time.monotonic() + budget_s
    i = 0
    while len(out) < samples and (len(out) < 10 or time.monotonic() < deadline):
        t, n = timed(lambda: fn(items[i % len(items)]))  # noqa: B023 - called at once
        out.append(t)
        got.append(n)
        i += 1
    return out, sum(got) / len(got)


def explain(engine, stmt: str, args: Any) -> str:  # type: ignore[no-untyped-def]
    raw = engine.raw_connection()
    try:
        cur = raw.driver_connection.cursor()
        if engine.dialect.name == "sqlite":
            cur.execute("EXPLAIN QUERY PLAN " + stmt, args)
            return " | ".join(r[3] for r in cur.fetchall())
        cur.execute("EXPLAIN " + stmt, args)
        return " | ".join(r[0].strip().removeprefix("->  ").split("  (cost")[0]
                          for r in cur.fetchall() if "Scan" in r[0])
    finally:
        raw.close()


def run(rows: int = 1_000_000, samples: int = 200, catalog_url: str = "", keep: bool = False,
        truncate: bool = False, budget_s: float = 15.0, show_plans: bool = True) -> dict:
    from assets.catalog.db import make_engine, migrate

    tmp = None if catalog_url else Path(tempfile.mkdtemp(prefix="docklake-bench-list-", dir="/tmp"))
    url = catalog_url or f"sqlite:///{tmp / 'catalog.db'}"
    engine = make_engine(url)
    try:
        migrate(engine)
        with engine.begin() as conn:
            existing = conn.execute(text("SELECT count(*) FROM jobs")).scalar()
            if existing and not truncate:
                raise SystemExit(f"{url}: the jobs table has {existing} rows; pass --truncate to empty it")
            if existing:
                conn.execute(text("DELETE FROM jobs"))
        note(f"[list] loading {rows:,} job rows into {url} …")
        loaded = load(engine, rows)
        note(f"[list] loaded in {loaded['total_s']:.1f} s "
             f"(insert {loaded['insert_s']:.1f} s + indexes {loaded['index_s']:.1f} s)")
        results: list[list[str]] = []
        plans: list[tuple[str, str]] = []
        with ApiServer(data_dir=tmp / "api" if tmp else None, catalog_url=url) as server, \
                server.client() as client:
            for name, items in cases(client, engine):
                note(f"[list] {name} …")

                def api_call(p: dict[str, Any]) -> int:
                    return len(client.get("/documents/v2/parse", params=p).raise_for_status().json()["items"])

                api, got = _sample(api_call, samples, budget_s, items)
                sqls = [capture_sql(engine, p) for p in items]
                raw = engine.raw_connection()
                try:
                    cur = raw.driver_connection.cursor()

                    def sql_call(stmts: list[tuple[str, Any]]) -> int:
                        for s in stmts:
                            cur.execute(*s)  # noqa: B023 - called within this iteration
                            rows = cur.fetchall()  # noqa: B023
                        return len(rows)

                    bare, _ = _sample(sql_call, samples, budget_s, sqls)
                finally:
                    raw.close()
                a, b = summary(api), summary(bare)
                results.append([name, ms(a["p50"]), ms(a["p99"]), ms(b["p50"]), ms(b["p99"]),
                                f"{a['n']}/{b['n']}", f"{got:.0f}"])
                plans.append((name, explain(engine, *sqls[0][-1])))
        backend = "Postgres" if url.startswith("postgres") else "SQLite WAL"
        print(f"\nloaded {rows:,} job rows in {loaded['total_s']:.1f} s "
              f"(insert {loaded['insert_s']:.1f} s + index build {loaded['index_s']:.1f} s), {backend}")
        print_table(f"GET /documents/v2/parse, {rows:,} jobs ({int(rows * TENANTS[0][2]):,} in the caller's "
                    f"project), limit 100, {backend} catalog (ms)",
                    ["query", "API p50", "API p99", "bare SQL p50", "bare SQL p99", "samples", "rows/page"],
                    results)
        if show_plans:
            print("query plans (first request of each query):")
            for name, plan in plans:
                print(f"  {name}: {plan}")
        worst = max(float(r[2]) for r in results)
        print(f"goal: list p99 ≤ {GOAL_P99_MS:g} ms → {'MET' if worst <= GOAL_P99_MS else 'MISSED'} "
              f"(worst API p99 {ms(worst)} ms)")
        return {"load": loaded, "rows": results}
    finally:
        engine.dispose()
        if tmp is not None and not keep:
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp is not None:
            note(f"[list] kept {tmp}")
