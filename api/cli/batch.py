"""``docklake submit DIR --dataset NAME``: a folder of documents into a dataset over the REST API,
with progress bars, as many uploads at once as asked, and a re-run that skips what is done.

Each document is uploaded once (a file whose SHA-256 the project already has is not sent again)
and parsed into the dataset with the labels ``path`` (relative to DIR) and ``sha256``; a re-run
skips documents the dataset already holds a pending, processing or successful job for, and tries
failed ones again. One bad document never stops the rest: its error is kept and reported.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from api.cli.remote import Remote, RemoteError, acall, apages

TERMINAL = ("successful", "failure")


@dataclass
class Item:
    path: Path
    rel: str
    sha256: str
    size: int
    file_id: str | None = None
    parse_id: str | None = None
    status: str = "new"  # → uploaded → pending/processing → successful | failure; "error": not submitted
    error: str | None = None
    skipped: bool = False
    created_at: str | None = None

    @property
    def done(self) -> bool:
        return self.status in TERMINAL or self.status == "error"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def find(folder: Path, pattern: str) -> list[Item]:
    items = []
    for path in sorted(p for p in folder.rglob(pattern) if p.is_file()):
        rel = path.relative_to(folder).as_posix().encode("utf-8", "replace").decode("utf-8")
        items.append(Item(path, rel, _sha256(path), path.stat().st_size))
    return items


def progress_bars() -> Progress:
    """The bars, on stderr (stdout keeps the summary)."""
    return Progress(TextColumn("{task.description:<10}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[note]}"), TimeElapsedColumn(), console=Console(stderr=True))


class Batch:
    def __init__(self, remote: Remote, items: list[Item], dataset: str, *, concurrency: int,
                 progress: Progress, poll_s: float = 1.0) -> None:
        self.remote, self.items, self.dataset_name = remote, items, dataset
        self.concurrency, self.progress, self.poll_s = max(1, concurrency), progress, poll_s
        self.dataset_id = ""
        self._uploads: dict[str, asyncio.Future[str]] = {}

    def _task(self, name: str, total: int) -> TaskID:
        return self.progress.add_task(name, total=total, note="")

    async def run(self, wait: bool) -> list[Item]:
        async with self.remote.aclient(self.concurrency + 2) as client:
            self.dataset_id = await self._dataset(client)
            await self._skip_done(client)
            todo = [i for i in self.items if not i.skipped]
            self.overall = self._task("overall", len(self.items))
            self.progress.advance(self.overall, len(self.items) - len(todo))
            upload = self._task("upload", len(todo))
            gate = asyncio.Semaphore(self.concurrency)

            async def one(item: Item) -> None:
                async with gate:
                    await self._upload_and_parse(client, item)
                self.progress.advance(upload)
                if item.status == "error" or not wait:
                    self.progress.advance(self.overall)

            await asyncio.gather(*(one(i) for i in todo))
            if wait:
                await self._wait(client, [i for i in todo if i.parse_id])
        return self.items

    async def _dataset(self, client: httpx.AsyncClient) -> str:
        found = (await acall(client, "GET", "/datasets", params={"name": self.dataset_name}))["items"]
        if found:
            return found[0]["dataset_id"]
        return (await acall(client, "POST", "/datasets", json={"name": self.dataset_name}))["dataset_id"]

    async def _skip_done(self, client: httpx.AsyncClient) -> None:
        """Reuse uploaded files (by checksum); skip documents the dataset already holds."""
        uploaded = {f["checksum_sha256"]: f["file_id"] async for f in apages(client, "/files", limit=1000)}
        held: dict[str, dict[str, Any]] = {}
        async for job in apages(client, f"/datasets/{self.dataset_id}/data", limit=1000):
            sha = (job.get("labels") or {}).get("sha256")
            if sha and job["status"] != "failure":
                held.setdefault(sha, job)
        for item in self.items:
            item.file_id = uploaded.get(item.sha256)
            if (job := held.get(item.sha256)) is not None:
                item.parse_id, item.status, item.error = job["parse_id"], job["status"], job.get("error")
                item.skipped = True

    async def _upload_and_parse(self, client: httpx.AsyncClient, item: Item) -> None:
        try:
            if item.file_id is None:
                # documents with the same bytes share one upload
                if item.sha256 not in self._uploads:
                    self._uploads[item.sha256] = asyncio.ensure_future(self._upload(client, item.path))
                item.file_id = await self._uploads[item.sha256]
            item.status = "uploaded"
            job = await acall(client, "POST", f"/datasets/{self.dataset_id}/parse", json={
                "file_id": item.file_id, "labels": {"path": item.rel, "sha256": item.sha256}})
            item.parse_id, item.created_at, item.status = job["parse_id"], job["created_at"], "pending"
        except (RemoteError, httpx.HTTPError, OSError) as exc:
            item.status, item.error = "error", getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"

    async def _upload(self, client: httpx.AsyncClient, path: Path) -> str:
        with path.open("rb") as fh:
            return (await acall(client, "PUT", "/files", files={"file": (path.name, fh)}))["file_id"]

    async def _wait(self, client: httpx.AsyncClient, waiting: list[Item]) -> None:
        """Until every job is done. Each poll reads the jobs that finished since the newest one
        seen (less ``OVERLAP_S``, for a finish committed late) and those processing, not the
        whole batch again; every ``FULL_EVERY`` polls it reads them all, in case."""
        processing = self._task("processing", len(waiting))
        by_id = {i.parse_id: i for i in waiting}
        # only this run's jobs (and any submitted since): from a second before the first one
        first = min((i.created_at for i in waiting if i.created_at), default=None)
        params: dict[str, Any] = {"limit": 1000}
        if first:
            params["created_after"] = (_when(first) - timedelta(seconds=1)).isoformat()
        newest: datetime | None = None
        polls = 0
        while any(not i.done for i in waiting):
            await asyncio.sleep(self.poll_s)
            if newest is None or polls % FULL_EVERY == 0:
                queries = [params]
            else:
                since = (newest - timedelta(seconds=OVERLAP_S)).isoformat()
                queries = [{**params, "finished_after": since}, {**params, "status": "processing"}]
            polls += 1
            busy = 0
            for query in queries:
                async for job in apages(client, f"/datasets/{self.dataset_id}/data", **query):
                    if job.get("finished_at"):
                        newest = max(newest or _when(job["finished_at"]), _when(job["finished_at"]))
                    item = by_id.get(job["parse_id"])
                    if item is None or item.done:
                        continue
                    item.status, item.error = job["status"], job.get("error")
                    busy += item.status == "processing"
                    if item.done:
                        self.progress.advance(processing)
                        self.progress.advance(self.overall)
            self.progress.update(processing, note=f"{busy} processing" if busy else "")


OVERLAP_S = 30.0
FULL_EVERY = 60


def _when(rfc3339: str) -> datetime:
    return datetime.fromisoformat(rfc3339.replace("Z", "+00:00"))


def summary(items: list[Item]) -> dict[str, int]:
    """How many documents ended how (``skipped`` counts those a re-run left alone)."""
    counts: Counter[str] = Counter()
    for i in items:
        counts["skipped" if i.skipped else i.status] += 1
    return dict(counts)


def failed(items: list[Item]) -> list[Item]:
    return [i for i in items if i.status in ("failure", "error")]
