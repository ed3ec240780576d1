"""A worker holds neither a document's bytes nor its result: the limited child process that
converts it reads the input from storage and writes the result there, and the parts of a split
document are joined by a limited process too. The worker's own memory stays small whatever the
size of the document."""

from __future__ import annotations

import tracemalloc

from fastapi.testclient import TestClient

from api.services import Services
from tests.support import docgen
from tests.support.helpers import A


def _peak_while(run) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        n = run()
        return n, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_large_upload_is_read_and_written_by_the_child_not_the_worker(
        client: TestClient, run_jobs, services: Services) -> None:
    line = "The quarterly figures were checked twice by the auditors and found in order.\n"
    data = (line * (24 * 2**20 // len(line))).encode()  # 24 MiB of text
    fid = client.put("/documents/v2/files", files={"file": ("big.txt", data, "text/plain")},
                     headers=A).json()["file_id"]
    pid = client.post("/documents/v2/parse", json={"file_id": fid}, headers=A).json()["parse_id"]
    del data
    ran, peak = _peak_while(run_jobs)
    assert ran == 1
    job = client.get(f"/documents/v2/parse/{pid}?pages=1", headers=A).json()
    assert job["status"] == "successful", job["error"]
    # Before, the worker read the 24 MiB file and received the whole result back (several
    # times the input); now it sees neither.
    assert peak < 8 * 2**20, f"the worker's Python heap peaked at {peak / 2**20:.1f} MiB"


def test_a_split_document_is_joined_outside_the_worker_and_leaves_no_parts_behind(
        client: TestClient, run_jobs, services: Services) -> None:
    services.settings.worker.split_pages = 3
    pdf = docgen.text_pdf(pages=9).data
    fid = client.put("/documents/v2/files", files={"file": ("long.pdf", pdf)}, headers=A).json()["file_id"]
    pid = client.post("/documents/v2/parse", json={"file_id": fid}, headers=A).json()["parse_id"]
    assert run_jobs() == 1
    res = client.get(f"/documents/v2/parse/{pid}", headers=A).json()
    assert res["status"] == "successful", res["error"]
    assert [p["page_number"] for p in res["pages"]] == list(range(1, 10))
    assert all(p["page_fragments"] for p in res["pages"])
    assert res["chunks"] and res["parsed_pages_count"] == 9
    # only the final result is kept: the parts (and any downloaded input) are gone
    left = services.storage.list_keys("results")
    assert left and all("/work-" not in k for k in left), left


def test_a_downloaded_input_is_removed_when_the_job_fails(
        client: TestClient, run_jobs, services: Services) -> None:
    import http.server
    import threading

    class Corrupt(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = b"%PDF-1.7\n" + b"\x00garbage" * 1000
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Corrupt)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        services.settings.limits.allow_private_urls = True
        url = f"http://127.0.0.1:{server.server_address[1]}/broken.pdf"
        pid = client.post("/documents/v2/parse", json={"file_url": url}, headers=A).json()["parse_id"]
        assert run_jobs() == 1
    finally:
        server.shutdown()
    res = client.get(f"/documents/v2/parse/{pid}", headers=A).json()
    assert res["status"] == "failure" and "PDF is damaged" in res["error"], res["error"]
    assert services.storage.list_keys("results") == []
