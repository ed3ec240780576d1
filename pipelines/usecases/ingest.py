"""Bulk ingestion by reference: a dataset takes every document under a folder or bucket prefix
without one upload per file (a docklake extension: ``POST /documents/v2/datasets/{id}/ingest``).

Why: taking a document in through an upload costs the API and its client 10–15 ms of CPU, more
than the engine spends converting a small one, and a collection of 100,000 files is mostly
uploads. Here the server lists the source through fsspec and writes the jobs a page at a time
(``assets.catalog.ingests``); the worker reads each document where it lies. Only sources under
the roots an operator allowed (``DOCKLAKE_INGEST__ROOTS``) are read, local folders included only
when listed there, and a symlink may not lead out of its root. A document the dataset already
holds (same checksum: the bytes' SHA-256 for local files, the store's ETag for object stores) is
skipped, so ingesting a folder again takes only what is new. The ingestion runs in the API
process in the background; its progress is a record (``GET …/ingest/{id}``), written at least
every ``BEAT_S``; one whose record goes quiet (its process stopped) is taken up again by an API
process (``Keeper``), which its checksums make safe.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import threading

import structlog
from fsspec.core import url_to_fs
from fsspec.implementations.local import LocalFileSystem
from sqlalchemy.exc import IntegrityError

from assets.catalog import ingests as repo
from pipelines.core.errors import ForbiddenSource, InvalidRequest, NotFound, describe
from pipelines.core.records import Ingest, IngestStatus, Principal
from pipelines.core.requests import IngestRequest, ParseRequest
from pipelines.core.settings import Settings
from pipelines.usecases import datasets
from pipelines.usecases.runtime import Runtime

log = structlog.get_logger("docklake.ingest")


def normal(source: str) -> str:
    """``source`` as a URL: a local path or ``file://`` URL made absolute with its links resolved."""
    if "://" not in source:
        return "file://" + os.path.realpath(source)
    if source.startswith("file://"):
        return "file://" + os.path.realpath(source.removeprefix("file://"))
    return source


def _within(url: str, root: str) -> bool:
    root = root.rstrip("/")
    return url == root or url.startswith(root + "/")


def allowed(settings: Settings, source: str) -> str:
    """The source's URL, when it lies under a root the operator allowed; else ``ForbiddenSource``."""
    url = normal(source).rstrip("/")
    if any(_within(url, normal(root)) for root in settings.ingest.roots):
        return url
    raise ForbiddenSource(f"{source} is not under a source this server allows "
                          "(DOCKLAKE_INGEST__ROOTS)" if settings.ingest.roots else
                          f"{source}: this server takes no documents by reference (DOCKLAKE_INGEST__ROOTS is empty)")


def start(rt: Runtime, p: Principal, dataset_id: str, req: IngestRequest) -> Ingest:
    """Check the request, record the ingestion and start it in the background."""
    datasets.get(rt, p, dataset_id)  # 404 for another tenant's dataset, before anything is read
    url = allowed(rt.settings, req.source)
    if url.startswith("file://") and not os.path.isdir(url.removeprefix("file://")):
        # (an object store's prefix is not checked here: that would list it all before answering;
        # one that holds nothing ends ``completed`` with nothing listed)
        raise InvalidRequest(f"{req.source} is not a folder that exists")
    ing = repo.create(rt.engine, p, dataset_id, url, req.pattern)
    _background(rt, ing)
    return ing


def get(rt: Runtime, p: Principal, dataset_id: str, ingest_id: str) -> Ingest:
    ing = repo.get(rt.engine, p, dataset_id, ingest_id)
    if ing is None:
        raise NotFound(f"ingestion {ingest_id} not found")
    return ing


BEAT_S = 10.0  # a running ingestion writes its record at least this often
QUIET_S = 60.0  # one not written for this long has lost its process: another takes it up


def resume(rt: Runtime, quiet_s: float = QUIET_S) -> int:
    """Take up the ingestions whose process stopped (their record quiet for ``quiet_s``); how many."""
    left = repo.unfinished(rt.engine, quiet_s)
    for ing in left:
        _background(rt, ing)
    return len(left)


class Keeper(threading.Thread):
    """In each API process: takes up, every ``BEAT_S``, the ingestions another process left."""

    def __init__(self, rt: Runtime) -> None:
        super().__init__(name="docklake-ingest-keeper", daemon=True)
        self.rt, self.stopping = rt, threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(BEAT_S):
            try:
                resume(self.rt)
            except Exception as exc:  # noqa: BLE001 - the catalog away: try again later
                log.warning("ingest_resume_failed", error=describe(exc))

    def stop(self) -> None:
        self.stopping.set()


def _background(rt: Runtime, ing: Ingest) -> None:
    threading.Thread(target=run, args=(rt, ing), name=f"docklake-{ing.id}", daemon=True).start()


def _beating(rt: Runtime, ing: Ingest, done: threading.Event) -> None:
    while not done.wait(BEAT_S):
        try:
            repo.progress(rt.engine, ing.id)
        except Exception:  # noqa: BLE001 - the next beat tries again
            pass


def run(rt: Runtime, ing: Ingest) -> None:
    """List the source and make the jobs, a page at a time; the ingestion ends ``completed`` or
    ``failed`` with its error."""
    done = threading.Event()  # while it runs (listing included), its record says it is alive
    threading.Thread(target=_beating, args=(rt, ing, done), daemon=True).start()
    try:
        p = Principal(ing.organization_id, ing.project_id)
        ds = datasets.get(rt, p, ing.dataset_id)
        options = ParseRequest.model_validate(ds.configuration.model_dump(exclude_none=True))
        fs, root = url_to_fs(ing.source)
        local = isinstance(fs, LocalFileSystem)
        top = os.path.realpath(root) if local else root
        fs.invalidate_cache()  # what the store holds now, not what an earlier listing saw
        found = sorted((path, info) for path, info in fs.find(root, detail=True).items()
                       if info.get("type") == "file" and fnmatch.fnmatch(path.rsplit("/", 1)[-1], ing.pattern))
        repo.progress(rt.engine, ing.id, listed=len(found))
        size = max(1, rt.settings.ingest.page_size)
        for i in range(0, len(found), size):
            docs, outside = [], 0
            for path, info in found[i:i + size]:
                if local and not _within(os.path.realpath(path), top):
                    outside += 1  # a link out of the allowed folder: counted as skipped
                    continue
                docs.append((fs.unstrip_protocol(path), path.rsplit("/", 1)[-1], int(info.get("size") or 0),
                             _checksum(fs, path, info, local)))
            _add(rt, ing, ds.name, options, docs, outside)
        fs.invalidate_cache()
        repo.progress(rt.engine, ing.id, status=IngestStatus.completed)
        log.info("ingest_completed", ingest_id=ing.id, listed=len(found))
    except Exception as exc:  # noqa: BLE001 - the record says what stopped it
        log.exception("ingest_failed", ingest_id=ing.id)
        repo.progress(rt.engine, ing.id, status=IngestStatus.failed, error=describe(exc))
    finally:
        done.set()


def _checksum(fs: object, path: str, info: dict, local: bool) -> str:
    etag = info.get("ETag") or info.get("etag")
    if not local and etag:
        return "etag:" + str(etag).strip('"')
    digest = hashlib.sha256()
    with fs.open(path, "rb") as fh:  # type: ignore[attr-defined]
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return "sha256:" + digest.hexdigest()


def _add(rt: Runtime, ing: Ingest, dataset_name: str, options: ParseRequest,
         docs: list[tuple[str, str, int, str]], outside: int = 0) -> None:
    """One page's new documents as jobs; another ingestion into the same dataset taking one of
    them at the same moment makes the page be checked again."""
    for _ in range(3):
        have = repo.held(rt.engine, ing.dataset_id, [d[3] for d in docs])
        fresh, seen = [], set()
        for d in docs:
            if d[3] not in have and d[3] not in seen:
                seen.add(d[3])
                fresh.append(d)
        try:
            repo.add_jobs(rt.engine, ing, dataset_name, options, fresh, skipped=len(docs) - len(fresh) + outside)
            return
        except IntegrityError:
            continue
    raise RuntimeError("the dataset kept changing under this ingestion; run it again")
