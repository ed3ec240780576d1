"""Document jobs end to end in process: submit → dispatcher → Prefect flow run → Parquet → GET."""

from __future__ import annotations

import json
import time

import duckdb
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from api.services import Services
from assets.catalog import jobs as jobs_repo
from assets.catalog.db import jobs as jobs_table
from assets.results import table_key
from tests.support.helpers import A2, A, B, sse_events

MD = "# Title\n\nFirst paragraph.\n\n- a list item\n\fSecond page text."


def submit(client: TestClient, body: dict, path: str = "/documents/v2/parse", headers=A):
    return client.post(path, json=body, headers=headers)


def test_submit_returns_pending_job_at_once(client: TestClient) -> None:
    r = submit(client, {"raw_text": "hello", "mime_type": "text/plain", "labels": {"src": "t"}})
    assert r.status_code == 200
    body = r.json()
    assert body["parse_id"].startswith("parse_") and body["created_at"].endswith("Z")
    got = client.get(f"/documents/v2/parse/{body['parse_id']}", headers=A).json()
    assert got["status"] == "pending"
    assert got["labels"] == {"src": "t"} and got["parsed_pages_count"] == 0 and got["finished_at"] is None


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 400, "INVALID_CONFIGURATION"),
        ({"raw_text": "x", "file_id": "file_abc", "mime_type": "text/plain"}, 400, "INVALID_CONFIGURATION"),
        ({"raw_text": "x"}, 400, "INVALID_MIME_TYPE"),
        ({"raw_text": "x", "mime_type": "application/pdf"}, 400, "INVALID_MIME_TYPE"),
        ({"raw_text": "x", "mime_type": "text/plain", "page_range": "3-1"}, 400, "INVALID_PAGE_RANGE"),
        ({"file_id": "file_doesnotexist"}, 404, "ENTITY_NOT_FOUND"),
        ({"file_url": "ftp://example.com/a.pdf"}, 400, "INVALID_FILE"),
        ({"file_url": "http://127.0.0.1:9/a.pdf"}, 400, "INVALID_FILE"),
        ({"file_url": "http://10.1.2.3/a.pdf"}, 400, "INVALID_FILE"),
        ({"raw_text": "x", "mime_type": "text/plain", "parsing_options": {"table_parsing_format": "vlm"}},
         400, "INVALID_CONFIGURATION"),
    ],
)
def test_bad_requests_get_api_errors(client: TestClient, body: dict, status: int, code: str) -> None:
    r = submit(client, body)
    assert r.status_code == status, r.text
    err = r.json()
    assert err["code"] == code and err["message"] and isinstance(err["timestamp"], int)
    assert client.get("/documents/v2/parse", headers=A).json()["items"] == []  # nothing was created


TEXT = {"raw_text": "x", "mime_type": "text/plain"}


@pytest.mark.parametrize(("extra", "named"), [
    ({"enrichment_options": {"table_summarization": True}}, "enrichment_options.table_summarization"),
    ({"enrichment_options": {"chart_extraction": True, "key_value_extraction": True}},
     "enrichment_options.chart_extraction"),
    ({"form_filling": {"fill_prompt": "fill it"}}, "form_filling"),
])
def test_options_not_supported_yet_are_refused_not_dropped(client: TestClient, extra: dict, named: str) -> None:
    r = submit(client, {**TEXT, **extra})
    assert r.status_code == 400, r.text
    assert r.json()["message"].startswith("not supported by this server yet: ") and named in r.json()["message"]
    assert client.get("/documents/v2/parse", headers=A).json()["items"] == []


def test_supported_and_empty_options_are_accepted(client: TestClient) -> None:
    ok = submit(client, {**TEXT, "structured_extraction_options": [], "page_classifications": [],
                         "enrichment_options": {"include_full_page_image": True, "table_summarization": False}})
    assert ok.status_code == 200, ok.text


def test_raw_text_over_the_upload_limit_is_refused(client: TestClient, services: Services) -> None:
    services.settings.limits.max_upload_bytes = 1000
    r = submit(client, {"raw_text": "é" * 600, "mime_type": "text/plain"})  # 1200 bytes in UTF-8
    assert r.status_code == 413 and "DOCKLAKE_LIMITS__MAX_UPLOAD_BYTES" in r.json()["message"]
    assert submit(client, {"raw_text": "e" * 600, "mime_type": "text/plain"}).status_code == 200
    huge = b'{"raw_text": "' + b"x" * 3_000_000 + b'", "mime_type": "text/plain"}'
    r = client.post("/documents/v2/parse", content=huge, headers={**A, "content-type": "application/json"})
    assert r.status_code == 413  # refused by its size, before it is parsed

    def chunks():  # the same without a Content-Length: counted as it arrives
        yield huge[:1000]
        for i in range(1000, len(huge), 100_000):
            yield huge[i:i + 100_000]

    r = client.post("/documents/v2/parse", content=chunks(), headers={**A, "content-type": "application/json"})
    assert r.status_code == 413


def test_invalid_bodies_are_422_text_plain(client: TestClient) -> None:
    for body in ('{"raw_text": 5}', '{"parsing_options": {"chunking_strategy": "diagonal"}}', "{not json"):
        r = client.post("/documents/v2/parse", content=body,
                        headers={**A, "content-type": "application/json"})
        assert r.status_code == 422
        assert r.headers["content-type"].startswith("text/plain")
    r = client.get("/documents/v2/parse", params={"status": "done", "limit": -1}, headers=A)
    assert r.status_code == 422 and r.headers["content-type"] == "application/json"
    assert r.json()["code"] == "INVALID_QUERY_PARAMS"
    for bad in ({"created_after": "yesterday"}, {"cursor": "!!!"}):
        r = client.get("/documents/v2/parse", params=bad, headers=A)
        assert r.status_code == 422 and r.json()["code"] == "INVALID_QUERY_PARAMS", bad


def test_parse_file_end_to_end(client: TestClient, run_jobs, services: Services) -> None:
    fid = client.put("/documents/v2/files", files={"file": ("doc.md", MD.encode())}, headers=A).json()["file_id"]
    pid = submit(client, {"file_id": fid, "labels": {"k": "v"},
                          "parsing_options": {"chunking_strategy": "page", "ignore_sections": ["list_item"]}}
                 ).json()["parse_id"]
    rid = submit(client, {"file_id": fid}, "/documents/v2/read").json()["parse_id"]
    assert run_jobs() == 2
    res = client.get(f"/documents/v2/parse/{pid}", params={"with_options": "true"}, headers=A).json()
    assert res["status"] == "successful", res
    assert res["error"] is None and res["finished_at"]
    assert res["total_pages"] == 2 and res["parsed_pages_count"] == 2
    assert res["labels"] == {"k": "v"}
    assert [c["page_number"] for c in res["chunks"]] == [1, 2]
    assert res["chunks"][0]["content"] == "# Title\n\nFirst paragraph."
    page1 = res["pages"][0]
    assert page1["page_number"] == 1
    assert [f["fragment_type"] for f in page1["page_fragments"]] == ["section_header", "text"]
    assert page1["page_fragments"][0]["content"] == {"content": "Title", "level": 1}
    assert res["options"]["parsing_options"]["chunking_strategy"] == "page"
    read = client.get(f"/documents/v2/parse/{rid}", headers=A).json()
    assert read["status"] == "successful" and "options" not in read
    assert len(read["chunks"]) == 1 and "- a list item" in read["chunks"][0]["content"]

    # the result is real, typed Parquet tables in storage that DuckDB reads without JSON parsing
    job = jobs_repo.get_job_by_id(services.engine, pid)
    assert job.result_key and job.flow_run_id  # ran inside a Prefect flow run
    paths = {t: services.storage.path(table_key(job.result_key, t)) for t in ("fragments", "chunks")}
    con = duckdb.connect()
    texts = con.execute(f"SELECT fragment_type, text FROM read_parquet('{paths['fragments']}') "
                        "WHERE page_number = 1 ORDER BY reading_order").fetchall()
    assert texts == [("section_header", "Title"), ("text", "First paragraph.")]
    assert con.execute(f"SELECT count(*) FROM read_parquet('{paths['chunks']}')").fetchone()[0] >= 1


def test_bad_documents_fail_without_harming_others(client: TestClient, run_jobs) -> None:
    good = submit(client, {"raw_text": "fine", "mime_type": "text/plain"}).json()["parse_id"]
    empty = submit(client, {"raw_text": "   ", "mime_type": "text/plain"}).json()["parse_id"]
    binary = client.put("/documents/v2/files", files={"file": ("x.bin", bytes(range(256)) * 4)},
                        headers=A).json()["file_id"]
    unsupported = submit(client, {"file_id": binary}).json()["parse_id"]
    gone_file = client.put("/documents/v2/files", files={"file": ("g.txt", b"soon gone")},
                           headers=A).json()["file_id"]
    gone = submit(client, {"file_id": gone_file}).json()["parse_id"]
    client.delete(f"/documents/v2/files/{gone_file}", headers=A)
    run_jobs()
    status = {p: client.get(f"/documents/v2/parse/{p}", headers=A).json() for p in (good, empty, unsupported, gone)}
    assert status[good]["status"] == "successful"
    assert status[empty]["status"] == "failure" and "empty" in status[empty]["error"]
    assert status[unsupported]["status"] == "failure" and "unsupported" in status[unsupported]["error"]
    assert status[gone]["status"] == "failure" and "no longer exists" in status[gone]["error"]


def test_sse_streams_until_done_then_closes(client: TestClient, run_jobs) -> None:
    pid = submit(client, {"raw_text": MD, "mime_type": "text/markdown"}).json()["parse_id"]
    sse = {**A, "Accept": "text/event-stream"}
    import threading

    worker = threading.Timer(0.5, run_jobs)
    worker.start()
    try:
        with client.stream("GET", f"/documents/v2/parse/{pid}", headers=sse) as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            text = "".join(resp.iter_text())  # returns only because the server closes the stream
    finally:
        worker.join()
    events = sse_events(text)
    names = [name for name, _ in events]
    assert names[0] == "parse_queued" and names[-1] == "parse_done"
    done = json.loads(events[-1][1])
    assert done["status"] == "successful" and done["parse_id"] == pid and done["pages"]
    assert done == client.get(f"/documents/v2/parse/{pid}", headers=A).json()

    # a finished job answers parse_done at once
    with client.stream("GET", f"/documents/v2/parse/{pid}", headers=sse) as resp:
        again = "".join(resp.iter_text())
    assert again.startswith("event: parse_done")


def test_list_filters_and_delete(client: TestClient, run_jobs, services: Services) -> None:
    ok = submit(client, {"raw_text": "a", "mime_type": "text/plain", "file_name": "Alpha.txt"}).json()["parse_id"]
    bad = submit(client, {"raw_text": " ", "mime_type": "text/plain", "file_name": "alpha-2.txt"}).json()["parse_id"]
    run_jobs()
    pending = submit(client, {"raw_text": "b", "mime_type": "text/plain"}).json()["parse_id"]

    def ids(**params: object) -> list[str]:
        r = client.get("/documents/v2/parse", params=params, headers=A)
        assert r.status_code == 200, r.text
        return [i["parse_id"] for i in r.json()["items"]]

    assert ids() == [pending, bad, ok]
    assert ids(status="successful") == [ok]
    assert ids(status="failure") == [bad]
    assert ids(status="pending") == [pending]
    assert ids(filename="Alpha") == [ok]  # case-sensitive
    assert ids(id=bad) == [bad]
    first = client.get(f"/documents/v2/parse/{ok}", headers=A).json()
    assert ids(finished_after=first["finished_at"]) in ([bad], [])
    assert pending not in ids(finished_before="2999-01-01T00:00:00Z")
    assert ids(created_after=first["created_at"]) == [pending, bad]
    assert ids(dataset_name="nope") == []
    page = client.get("/documents/v2/parse", params={"limit": 1}, headers=A).json()
    assert page["has_more"] and page["next_cursor"]
    nxt = client.get("/documents/v2/parse", params={"limit": 5, "cursor": page["next_cursor"]}, headers=A).json()
    assert [i["parse_id"] for i in nxt["items"]] == [bad, ok]

    assert ids() and client.get("/documents/v2/parse", headers=B).json()["items"] == []
    assert client.get(f"/documents/v2/parse/{ok}", headers=A2).status_code == 404
    assert client.delete(f"/documents/v2/parse/{ok}", headers=B).status_code == 404

    key = jobs_repo.get_job_by_id(services.engine, ok).result_key
    assert key and services.storage.list_keys(key)
    assert client.delete(f"/documents/v2/parse/{ok}", headers=A).status_code == 204
    assert services.storage.list_keys(key) == []
    r = client.get(f"/documents/v2/parse/{ok}", headers=A)
    assert r.status_code == 404 and r.json()["code"] == "ENTITY_NOT_FOUND"
    assert client.delete(f"/documents/v2/parse/{ok}", headers=A).status_code == 404


def test_job_of_a_dead_worker_is_reclaimed_and_finished_once(client: TestClient, run_jobs,
                                                             services: Services) -> None:
    pid = submit(client, {"raw_text": "survives a crash", "mime_type": "text/plain"}).json()["parse_id"]
    # A worker claims the job, writes its result and dies without closing the job.
    claimed = jobs_repo.claim(services.engine, "dead-worker", 10, lease_s=0.2)
    assert [j.id for j in claimed] == [pid]
    from assets.results import result_key

    stale = table_key(result_key("org-a", "proj-a", None, pid, 1), "document")
    services.storage.put_bytes(stale, b"half a result")
    assert client.get(f"/documents/v2/parse/{pid}", headers=A).json()["status"] == "processing"
    time.sleep(0.3)
    assert run_jobs() == 1
    res = client.get(f"/documents/v2/parse/{pid}", headers=A).json()
    assert res["status"] == "successful" and res["chunks"][0]["content"] == "survives a crash"
    # the dead worker coming back cannot finish it a second time
    assert not jobs_repo.finish(services.engine, "dead-worker", pid, 1, status="failure", error="late",
                                result_key=None, total_pages=None, parsed_pages_count=0)
    with services.engine.connect() as conn:
        row = conn.execute(select(jobs_table).where(jobs_table.c.id == pid)).mappings().one()
    assert row["status"] == "successful" and row["attempts"] == 2 and row["error"] is None
    assert not services.storage.exists(stale)
    assert services.storage.exists(table_key(row["result_key"], "document"))


def test_a_job_that_keeps_killing_workers_ends_in_failure(client: TestClient, run_jobs,
                                                         services: Services) -> None:
    services.settings.worker.max_attempts = 2  # DOCKLAKE_WORKER__MAX_ATTEMPTS
    pid = submit(client, {"raw_text": "poison", "mime_type": "text/plain"}).json()["parse_id"]
    spared = submit(client, {"raw_text": "once", "mime_type": "text/plain"}).json()["parse_id"]
    with services.engine.begin() as conn:
        conn.execute(update(jobs_table).where(jobs_table.c.id == pid).values(
            status="processing", attempts=2, lease_owner="x", lease_expires_us=1))
        conn.execute(update(jobs_table).where(jobs_table.c.id == spared).values(
            status="processing", attempts=1, lease_owner="x", lease_expires_us=1))
    run_jobs()
    assert client.get(f"/documents/v2/parse/{spared}", headers=A).json()["status"] == "successful"
    res = client.get(f"/documents/v2/parse/{pid}", headers=A).json()
    assert res["status"] == "failure" and "giving up" in res["error"]


def test_an_unexpected_error_fails_its_own_job_only(client: TestClient, run_jobs,
                                                   services: Services) -> None:
    fid = client.put("/documents/v2/files", files={"file": ("lost.txt", b"bytes lost")},
                     headers=A).json()["file_id"]
    lost = submit(client, {"file_id": fid}).json()["parse_id"]
    good = submit(client, {"raw_text": "fine", "mime_type": "text/plain"}).json()["parse_id"]
    # the catalog still names the file, but its bytes are gone from storage
    from assets.catalog import files as files_repo
    from pipelines.core.records import Principal

    rec = files_repo.get_file(services.engine, Principal("org-a", "proj-a", ""), fid)
    services.storage.delete(rec.storage_key)
    assert run_jobs() == 2
    bad = client.get(f"/documents/v2/parse/{lost}", headers=A).json()
    assert bad["status"] == "failure" and "FileNotFoundError" in bad["error"]
    assert client.get(f"/documents/v2/parse/{good}", headers=A).json()["status"] == "successful"
    assert jobs_repo.get_job_by_id(services.engine, good).attempts == 1  # its batch was not lost


def test_raw_text_lives_in_storage_not_in_the_catalog(client: TestClient, run_jobs,
                                                      services: Services) -> None:
    text = "a long text " * 1000
    pid = submit(client, {"raw_text": text, "mime_type": "text/plain"}).json()["parse_id"]
    job = jobs_repo.get_job_by_id(services.engine, pid)
    with services.engine.connect() as conn:
        stored = conn.execute(select(jobs_table.c.request).where(jobs_table.c.id == pid)).scalar_one()
    assert "a long text" not in str(stored) and job.source.kind == "text"
    key = job.source.text_key
    assert services.storage.read_bytes(key) == text.encode()
    run_jobs()
    assert client.get(f"/documents/v2/parse/{pid}", headers=A).json()["chunks"][0]["content"] == text.strip()
    assert client.delete(f"/documents/v2/parse/{pid}", headers=A).status_code == 204
    assert not services.storage.exists(key)


def test_big_results_stream_and_can_be_asked_for_in_parts(client: TestClient, run_jobs,
                                                          services: Services) -> None:
    text = "\f".join(f"page {n} " + "word " * 200 for n in range(1, 301))
    pid = submit(client, {"raw_text": text, "mime_type": "text/plain",
                          "parsing_options": {"chunking_strategy": "page"}}).json()["parse_id"]
    run_jobs()
    r = client.get(f"/documents/v2/parse/{pid}", headers=A)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    res = r.json()
    assert res["status"] == "successful" and res["total_pages"] == 300 and res["parsed_pages_count"] == 300
    assert [p["page_number"] for p in res["pages"]] == list(range(1, 301))
    assert res["pages"][41]["page_fragments"][0]["content"]["content"].startswith("page 42 word")
    assert [c["page_number"] for c in res["chunks"]] == list(range(1, 301))
    part = client.get(f"/documents/v2/parse/{pid}", params={"pages": "2-3,300"}, headers=A).json()
    assert [p["page_number"] for p in part["pages"]] == [2, 3, 300]
    assert [c["page_number"] for c in part["chunks"]] == [2, 3, 300]
    assert part["total_pages"] == 300  # the job's own counts are not cut
    # the SSE answer streams the same result a page at a time, as one parse_done event
    sse = {**A, "Accept": "text/event-stream"}
    with client.stream("GET", f"/documents/v2/parse/{pid}", headers=sse) as resp:
        (name, data), = sse_events("".join(resp.iter_text()))
    assert name == "parse_done" and json.loads(data) == res
    services.settings.api.max_response_bytes = 10_000  # DOCKLAKE_API__MAX_RESPONSE_BYTES
    too_big = client.get(f"/documents/v2/parse/{pid}", headers=A)
    assert too_big.status_code == 400 and "?pages=" in too_big.json()["message"]
    # over the cap, parse_done still ends the wait, without the pages, saying how to get them
    with client.stream("GET", f"/documents/v2/parse/{pid}", headers=sse) as resp:
        (name, data), = sse_events("".join(resp.iter_text()))
    summary = json.loads(data)
    assert name == "parse_done" and summary["status"] == "successful" and summary["pages"] is None
    assert summary["total_pages"] == 300 and "?pages=" in summary["message_update"]
    assert client.get(f"/documents/v2/parse/{pid}", params={"pages": "1"}, headers=A).status_code == 200
    bad = client.get(f"/documents/v2/parse/{pid}", params={"pages": "3-1"}, headers=A)
    assert bad.status_code == 400 and bad.json()["code"] == "INVALID_PAGE_RANGE"
