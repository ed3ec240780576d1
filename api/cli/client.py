"""The client commands of ``docklake``: ``submit`` (a folder into a dataset), ``datasets …`` and
``jobs …``. They talk to a running docklake over its REST API, with the SDK's variables:
``TENSORLAKE_API_URL`` (default http://127.0.0.1:8900) and ``TENSORLAKE_API_KEY``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from api.cli import ingest
from api.cli.batch import Batch, failed, find, progress_bars, summary
from api.cli.remote import Remote, RemoteError

out = Console()
err = Console(stderr=True)

Url = Annotated[str, typer.Option("--url", envvar="TENSORLAKE_API_URL", help="The docklake API.")]
Key = Annotated[str, typer.Option("--api-key", envvar="TENSORLAKE_API_KEY", help="An API key.",
                                  show_default=False)]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
DEFAULT_URL = "http://127.0.0.1:8900"

datasets_app = typer.Typer(help="Datasets of the key's project.", no_args_is_help=True)
jobs_app = typer.Typer(help="Parse jobs of the key's project.", no_args_is_help=True)


def _remote(url: str, key: str) -> Remote:
    if not key:
        err.print("[red]no API key:[/] pass --api-key or set TENSORLAKE_API_KEY")
        raise typer.Exit(2)
    return Remote(url, key)


def _run(fn: Any, *args: Any, **kw: Any) -> Any:
    try:
        return fn(*args, **kw)
    except RemoteError as exc:
        err.print(f"[red]{exc.message}[/]")
        raise typer.Exit(1) from None


def _table(title: str, rows: list[dict[str, Any]], columns: list[str]) -> Table:
    t = Table(title=title)
    for c in columns:
        t.add_column(c)
    for r in rows:
        t.add_row(*("" if r.get(c) is None else str(r.get(c)) for c in columns))
    return t


def submit(
    folder: Annotated[str, typer.Argument(help="The documents' folder, or with --by-reference a folder or "
                                          "s3://… prefix as the server sees it.")],
    dataset: Annotated[str, typer.Option("--dataset", help="The dataset (created if missing).")],
    pattern: Annotated[str, typer.Option("--pattern", help="Which files, e.g. '*.pdf' (searched recursively).")] = "*",
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Uploads at once.")] = 4,
    wait: Annotated[bool, typer.Option("--wait", help="Wait until every document is parsed.")] = False,
    by_reference: Annotated[bool, typer.Option(
        "--by-reference", help="No uploads: the server lists FOLDER itself and reads the documents where "
        "they lie (within its DOCKLAKE_INGEST__ROOTS); implied by a URL such as s3://bucket/prefix/.")] = False,
    url: Url = DEFAULT_URL,
    api_key: Key = "",
) -> None:
    """Upload FOLDER's documents and parse them into DATASET; a re-run skips what is done.

    Shows progress bars (upload, processing, overall) and a summary; exits 1 if any failed."""
    remote = _remote(url, api_key)
    if by_reference or "://" in folder:
        _submit_by_reference(remote, folder, dataset, pattern, wait)
        return
    root = Path(folder)
    if not root.is_dir():
        err.print(f"{folder} is not a folder")
        raise typer.Exit(2)
    items = find(root, pattern)
    if not items:
        err.print(f"no file in {folder} matches {pattern!r}")
        raise typer.Exit(1)
    with progress_bars() as progress:
        batch = Batch(remote, items, dataset, concurrency=concurrency, progress=progress)
        try:
            asyncio.run(batch.run(wait))
        except RemoteError as exc:
            err.print(f"[red]{exc.message}[/]")
            raise typer.Exit(1) from None
    counts = summary(items)
    t = Table(title=f"dataset {dataset}: {len(items)} documents")
    t.add_column("outcome")
    t.add_column("documents", justify="right")
    for outcome, n in sorted(counts.items()):
        t.add_row(outcome, str(n))
    out.print(t)
    bad = failed(items)
    if bad:
        out.print(_table("failed", [{"path": i.rel, "error": i.error, "parse_id": i.parse_id} for i in bad],
                         ["path", "error", "parse_id"]))
        raise typer.Exit(1)


def _submit_by_reference(remote: Remote, source: str, dataset: str, pattern: str, wait: bool) -> None:
    if "://" not in source and Path(source).exists():
        source = str(Path(source).resolve())  # the server resolves relative paths from elsewhere
    with progress_bars() as progress:
        ing, jobs = _run(ingest.ingest, remote, source, dataset, pattern, wait, progress)
    if ing["status"] == "failed":
        err.print(f"[red]the ingestion failed: {ing['error']}[/]")
        raise typer.Exit(1)
    t = Table(title=f"dataset {dataset}: {ing['listed']} documents under {ing['source']}")
    t.add_column("outcome")
    t.add_column("documents", justify="right")
    rows = {"jobs made": ing["created"], "already in the dataset": ing["skipped"]}
    for j in jobs:
        rows[j["status"]] = rows.get(j["status"], 0) + 1
    for outcome, n in rows.items():
        t.add_row(outcome, str(n))
    out.print(t)
    bad = [j for j in jobs if j["status"] == "failure"]
    if bad:
        out.print(_table("failed", [{"path": j["labels"]["source"].removeprefix(ing["source"]).lstrip("/"),
                                     "error": j["error"], "parse_id": j["parse_id"]} for j in bad],
                         ["path", "error", "parse_id"]))
        raise typer.Exit(1)


@datasets_app.command("create")
def datasets_create(
    name: str,
    description: Annotated[str | None, typer.Option(help="Free text.")] = None,
    settings: Annotated[str | None, typer.Option(help="JSON: parsing_options, enrichment_options, …")] = None,
    url: Url = DEFAULT_URL, api_key: Key = "",
) -> None:
    """Create a dataset."""
    body = {"name": name, "description": description, **(json.loads(settings) if settings else {})}
    made = _run(_remote(url, api_key).call, "POST", "/datasets", json=body)
    out.print(made["dataset_id"])


@datasets_app.command("list")
def datasets_list(url: Url = DEFAULT_URL, api_key: Key = "", as_json: AsJson = False) -> None:
    """Every dataset, newest first."""
    rows = _run(lambda: list(_remote(url, api_key).pages("/datasets", limit=1000)))
    if as_json:
        out.print_json(data=rows)
        return
    out.print(_table("datasets", rows, ["name", "dataset_id", "status", "created_at", "description"]))


def _dataset(remote: Remote, name_or_id: str) -> dict[str, Any]:
    if name_or_id.startswith("dataset_"):
        return _run(remote.call, "GET", f"/datasets/{name_or_id}", params={"include_analytics": True})
    found = _run(remote.dataset_by_name, name_or_id)
    if found is None:
        err.print(f"[red]no dataset named {name_or_id!r}[/]")
        raise typer.Exit(1)
    return _run(remote.call, "GET", f"/datasets/{found['dataset_id']}", params={"include_analytics": True})


@datasets_app.command("show")
def datasets_show(name: Annotated[str, typer.Argument(help="Name or dataset_… id.")],
                  url: Url = DEFAULT_URL, api_key: Key = "") -> None:
    """A dataset with its job counts."""
    out.print_json(data=_dataset(_remote(url, api_key), name))


@datasets_app.command("delete")
def datasets_delete(name: Annotated[str, typer.Argument(help="Name or dataset_… id.")],
                    url: Url = DEFAULT_URL, api_key: Key = "") -> None:
    """Delete a dataset, its jobs and their results (the uploaded files stay)."""
    remote = _remote(url, api_key)
    ds = _dataset(remote, name)
    _run(remote.call, "DELETE", f"/datasets/{ds['dataset_id']}")
    out.print(f"deleted {ds['name']} ({ds['analytics']['total_jobs']} jobs)")


@jobs_app.command("list")
def jobs_list(
    dataset: Annotated[str | None, typer.Option(help="Only this dataset's jobs.")] = None,
    status: Annotated[str | None, typer.Option(help="pending, processing, successful or failure.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 50,
    url: Url = DEFAULT_URL, api_key: Key = "", as_json: AsJson = False,
) -> None:
    """The newest jobs."""
    params = {k: v for k, v in {"dataset_name": dataset, "status": status, "limit": limit}.items() if v}
    rows = _run(_remote(url, api_key).call, "GET", "/parse", params=params)["items"]
    if as_json:
        out.print_json(data=rows)
        return
    for r in rows:
        r["pages"] = r["parsed_pages_count"]
        r["file"] = (r.get("labels") or {}).get("path")
    out.print(_table("jobs", rows, ["parse_id", "status", "dataset_id", "file", "pages", "created_at", "error"]))


@jobs_app.command("show")
def jobs_show(parse_id: str, url: Url = DEFAULT_URL, api_key: Key = "") -> None:
    """A job and its result (JSON)."""
    out.print_json(data=_run(_remote(url, api_key).call, "GET", f"/parse/{parse_id}"))


@jobs_app.command("watch")
def jobs_watch(parse_id: str, url: Url = DEFAULT_URL, api_key: Key = "") -> None:
    """Follow a job's progress (server-sent events) until it ends; exits 1 if it failed."""
    import httpx

    remote = _remote(url, api_key)
    last = "failure"
    try:
        with httpx.Client(timeout=None) as c, c.stream(
                "GET", f"{url.rstrip('/')}/documents/v2/parse/{parse_id}",
                headers={**remote.headers, "Accept": "text/event-stream"}) as resp:
            if resp.status_code >= 400:
                resp.read()
                err.print(f"[red]{resp.status_code} {resp.text}[/]")
                raise typer.Exit(1)
            event, data = "", []
            for line in resp.iter_lines():
                if line.startswith("event:"):
                    event = line.partition(":")[2].strip()
                elif line.startswith("data:"):
                    data.append(line.partition(":")[2].removeprefix(" "))
                elif line == "" and event:
                    body = json.loads("\n".join(data)) if data else {}
                    last = body.get("status", last)
                    note = f" — {body['error']}" if body.get("error") else ""
                    err.print(f"{event}: {body.get('status')}{note}")
                    event, data = "", []
    except httpx.HTTPError as exc:
        err.print(f"[red]cannot reach docklake at {url}: {exc}[/]")
        raise typer.Exit(1) from None
    raise typer.Exit(0 if last == "successful" else 1)


def query(
    sql: Annotated[str, typer.Argument(help="DuckDB SQL over jobs, documents, pages, fragments, chunks.")],
    dataset: Annotated[str | None, typer.Option(help="Only this dataset (name or dataset_… id).")] = None,
    as_json: AsJson = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")] = False,
    url: Url = DEFAULT_URL, api_key: Key = "",
) -> None:
    """SQL over your own results: a table (or --json / --csv). Only your project's rows are there."""
    import csv
    import sys

    remote = _remote(url, api_key)
    body: dict[str, Any] = {"sql": sql}
    if dataset:
        body["dataset_id"] = _dataset(remote, dataset)["dataset_id"]
    answer = _run(remote.call, "POST", "/query", json=body)
    if as_json:
        out.print_json(data=[dict(zip(answer["columns"], r, strict=True)) for r in answer["rows"]])
    elif as_csv:
        w = csv.writer(sys.stdout)
        w.writerow(answer["columns"])
        w.writerows(answer["rows"])
    else:
        out.print(_table(f"{answer['row_count']} rows", [dict(zip(answer["columns"], r, strict=True))
                                                         for r in answer["rows"]], answer["columns"]))
    if answer["truncated"]:
        err.print(f"[yellow]only the first {answer['row_count']} rows (DOCKLAKE_API__QUERY_MAX_ROWS)[/]")
