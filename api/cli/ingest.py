"""``docklake submit SOURCE --dataset X --by-reference`` (and any ``s3://…`` SOURCE): the server
takes the documents where they lie, listing SOURCE itself (``POST …/datasets/{id}/ingest``),
instead of one upload per file. SOURCE is a path or URL *as the server sees it*, within what its
operator allowed (``DOCKLAKE_INGEST__ROOTS``)."""

from __future__ import annotations

import time
from typing import Any

from rich.progress import Progress

from api.cli.remote import Remote

OPEN = ("pending", "processing")


def dataset_id(remote: Remote, name: str) -> str:
    """The dataset called ``name`` (created if missing)."""
    found = remote.dataset_by_name(name)
    if found is not None:
        return str(found["dataset_id"])
    return str(remote.call("POST", "/datasets", json={"name": name})["dataset_id"])


def ingest(remote: Remote, source: str, dataset: str, pattern: str, wait: bool, progress: Progress,
           poll_s: float = 0.5) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Start the ingestion, show it, and (``wait``) the parsing; the ingestion and, when waited
    for, the dataset's jobs it made."""
    ds = dataset_id(remote, dataset)
    ing = remote.call("POST", f"/datasets/{ds}/ingest", json={"source": source, "pattern": pattern})
    listed = progress.add_task("listed", total=None, note=source)
    made = progress.add_task("jobs made", total=None, note="")
    while ing["status"] == "running":
        time.sleep(poll_s)
        ing = remote.call("GET", f"/datasets/{ds}/ingest/{ing['ingest_id']}")
        progress.update(listed, completed=ing["listed"], total=ing["listed"] or None)
        progress.update(made, completed=ing["created"] + ing["skipped"], total=ing["listed"] or None,
                        note=f"{ing['skipped']} already in the dataset" if ing["skipped"] else "")
    progress.update(listed, completed=ing["listed"], total=ing["listed"])
    progress.update(made, completed=ing["created"] + ing["skipped"], total=ing["listed"])
    if not wait or ing["status"] != "completed" or not ing["created"]:
        return ing, []
    parsed = progress.add_task("parsed", total=ing["created"], note="")
    since = ing["created_at"]
    while True:
        jobs = [j for j in remote.pages(f"/datasets/{ds}/data", limit=1000, created_after=since)
                if (j.get("labels") or {}).get("source", "").startswith(ing["source"].rstrip("/") + "/")]
        progress.update(parsed, completed=sum(j["status"] not in OPEN for j in jobs))
        if len(jobs) >= ing["created"] and not any(j["status"] in OPEN for j in jobs):
            return ing, jobs
        time.sleep(max(poll_s, 1.0))
