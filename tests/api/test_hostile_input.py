"""Requests an attacker (or a careless client) sends: each gets a clear 4xx, nothing is stored
that could later break a read, and the connection stays usable."""

from __future__ import annotations

import base64
import json

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from api.services import Services
from assets.catalog.db import files as files_table
from assets.catalog.db import jobs as jobs_table
from tests.support.helpers import A

TEXT = {"raw_text": "x", "mime_type": "text/plain"}
JSON_HEADERS = {**A, "content-type": "application/json"}


def post_raw(client: TestClient, body: str | bytes, path: str = "/documents/v2/parse") -> httpx.Response:
    return client.post(path, content=body.encode() if isinstance(body, str) else body, headers=JSON_HEADERS)


def nothing_stored(client: TestClient) -> bool:
    return client.get("/documents/v2/parse", headers=A).json()["items"] == []


@pytest.mark.parametrize("field", ["raw_text", "file_name", "mime_type", "file_id", "page_range", "file_url"])
@pytest.mark.parametrize("path", ["/documents/v2/parse", "/documents/v2/read"])
def test_a_lone_surrogate_in_a_string_is_422(client: TestClient, field: str, path: str) -> None:
    body = json.dumps({**TEXT, field: "ok\ud800"})  # json.dumps writes the escape "\ud800"
    r = post_raw(client, body, path)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("text/plain") and field in r.text and "surrogate" in r.text
    assert nothing_stored(client)


@pytest.mark.parametrize(("labels", "says"), [
    ({"k": "\ud800"}, "surrogate"),
    ({"\udfff": "v"}, "surrogate"),
    ({"k": {"nested": ["\ud800"]}}, "surrogate"),
    ({"k": float("nan")}, "finite"),
    ({"k": float("inf")}, "finite"),
    ({f"k{i}": "v" for i in range(101)}, "at most 100"),
    ({"k": "x" * 70_000}, "KiB"),
])
def test_labels_that_could_not_be_stored_are_refused(client: TestClient, labels: dict, says: str) -> None:
    r = post_raw(client, json.dumps({**TEXT, "labels": labels}))
    assert r.status_code == 422 and says in r.text, r.text
    assert nothing_stored(client)


@pytest.mark.parametrize("depth", [9, 255, 256, 900])
def test_deeply_nested_labels_are_refused(client: TestClient, depth: int) -> None:
    r = post_raw(client, '{"raw_text":"x","mime_type":"text/plain","labels":{"a":' + "[" * depth + "]" * depth + "}}")
    assert r.status_code == 422 and ("nested" in r.text), r.text
    assert nothing_stored(client)


def test_labels_at_the_limits_are_accepted(client: TestClient) -> None:
    labels = {f"k{i}": {"a": [[[[[["deep"]]]]]]} for i in range(100)}
    r = post_raw(client, json.dumps({**TEXT, "labels": labels}))
    assert r.status_code == 200, r.text
    got = client.get(f"/documents/v2/parse/{r.json()['parse_id']}", headers=A).json()
    assert got["labels"] == labels


@pytest.mark.parametrize("body", [
    b'{"raw_text": "\xff\xfe", "mime_type": "text/plain"}',  # not UTF-8
    b"[" * 100_000,  # deeper than the JSON parser goes
    b'{"raw_text": "x", "mime_type": ',  # cut short
])
def test_bodies_that_are_not_json_are_422_text(client: TestClient, body: bytes) -> None:
    r = post_raw(client, body)
    assert r.status_code == 422 and r.headers["content-type"].startswith("text/plain"), r.text
    assert r.text.startswith("Invalid request body")


def test_rows_stored_before_the_checks_never_break_reads(client: TestClient, services: Services) -> None:
    """A row written by an older version (or straight into the catalog) with a lone surrogate and
    deep nesting in its labels: the job, the file and every listing still answer."""
    pid = post_raw(client, json.dumps(TEXT)).json()["parse_id"]
    fid = client.put("/documents/v2/files", files={"file": ("a.txt", b"hello")}, headers=A).json()["file_id"]
    deep: object = "bottom"
    for _ in range(300):
        deep = [deep]
    poison = {"bad": "x\ud800y", "deep": deep}
    with services.engine.begin() as conn:
        conn.execute(update(jobs_table).where(jobs_table.c.id == pid).values(labels=poison))
        conn.execute(update(files_table).where(files_table.c.id == fid).values(labels=poison))
    for url in (f"/documents/v2/parse/{pid}", "/documents/v2/parse", f"/documents/v2/files/{fid}/metadata",
                "/documents/v2/files"):
        r = client.get(url, headers=A)
        assert r.status_code == 200, (url, r.text[:200])
        assert "\\ud800" in r.text  # escaped, as JSON allows
        json.loads(r.text)


@pytest.mark.parametrize("raw", [b"99999999999999999999999:parse_x", b"-5:parse_x", b"1:" + b"x" * 200,
                                 b"1:a b", b"\xff\xfe:parse_x"])
@pytest.mark.parametrize("path", ["/documents/v2/parse", "/documents/v2/files"])
def test_forged_cursors_are_422(client: TestClient, raw: bytes, path: str) -> None:
    r = client.get(path, params={"cursor": base64.urlsafe_b64encode(raw).decode()}, headers=A)
    assert r.status_code == 422 and r.json()["code"] == "INVALID_QUERY_PARAMS", r.text


@pytest.mark.parametrize("name", ["报告.txt", "résumé.pdf", "naïve café – notes.md", "Ünïcödé 😀.txt"])
def test_utf8_file_names_round_trip_exactly(client: TestClient, name: str) -> None:
    # what httpx (and so the real SDK) sends: the name as UTF-8 bytes in filename="…"
    fid = client.put("/documents/v2/files", files={"file": (name, b"hello")}, headers=A).json()["file_id"]
    assert client.get(f"/documents/v2/files/{fid}/metadata", headers=A).json()["file_name"] == name
    listed = client.get("/documents/v2/files", headers=A).json()["items"]
    assert [i["file_name"] for i in listed if i["file_id"] == fid] == [name]


def _multipart(disposition: bytes) -> tuple[bytes, dict[str, str]]:
    body = (b"--B\r\nContent-Disposition: form-data; name=\"file\"; " + disposition + b"\r\n\r\nhello\r\n--B--\r\n")
    return body, {**A, "content-type": "multipart/form-data; boundary=B"}


@pytest.mark.parametrize(("disposition", "name"), [
    (b"filename*=UTF-8''%E6%8A%A5%E5%91%8A.txt", "报告.txt"),
    (b"filename=\"fallback.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf", "résumé.pdf"),
    (b"filename=\"r\xe9sum\xe9.pdf\"", "résumé.pdf"),  # a Latin-1 client
    (b"filename=\"C:\\\\Users\\\\me\\\\report.pdf\"", "report.pdf"),  # an old browser's full path
])
def test_multipart_file_name_forms(client: TestClient, disposition: bytes, name: str) -> None:
    body, headers = _multipart(disposition)
    r = client.put("/documents/v2/files", content=body, headers=headers)
    assert r.status_code == 200, r.text
    assert client.get(f"/documents/v2/files/{r.json()['file_id']}/metadata", headers=A).json()["file_name"] == name


def test_multipart_labels_follow_the_same_rules(client: TestClient) -> None:
    body = (b"--B\r\nContent-Disposition: form-data; name=\"labels\"\r\n\r\n{\"k\": \"\\ud800\"}\r\n"
            b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhi\r\n--B--\r\n")
    r = client.put("/documents/v2/files", content=body, headers={**A, "content-type": "multipart/form-data; boundary=B"})
    assert r.status_code == 400 and "surrogate" in r.json()["message"]
    assert client.get("/documents/v2/files", headers=A).json()["items"] == []


@pytest.mark.parametrize("url", ["http://224.0.0.1/a.pdf", "http://239.255.255.250/a.pdf", "http://[ff02::1]/a.pdf",
                                 "http://[ff0e::1]/a.pdf", "http://[::ffff:224.0.0.1]/a.pdf"])
def test_multicast_file_urls_are_refused(client: TestClient, url: str) -> None:
    r = post_raw(client, json.dumps({"file_url": url}))
    assert r.status_code == 400 and "non-public" in r.json()["message"], r.text


def test_an_unexpected_error_is_500_and_the_connection_stays_usable(services: Services,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """After a 500 the same keep-alive connection serves the next request (through a real server:
    the in-process client cannot show a dropped connection)."""
    import threading
    import time

    import uvicorn

    from api.app import create_app
    from pipelines.usecases import files
    from tests.support.helpers import free_port

    def broken(*_a: object, **_k: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(files, "list_files", broken)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(services=services), host="127.0.0.1", port=port,
                                           log_config=None, access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=A, timeout=60) as http:
            deadline = time.monotonic() + 20
            while True:
                try:
                    http.get("/healthz")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline
                    time.sleep(0.1)
            seen: set[object] = set()

            def track(response: httpx.Response) -> None:
                seen.add(id(response.extensions.get("network_stream")))

            http.event_hooks["response"] = [track]
            r = http.get("/documents/v2/files")
            assert r.status_code == 500 and r.json()["code"] == "INTERNAL_ERROR" and r.json()["trace_id"]
            assert http.get("/documents/v2/parse").status_code == 200
            assert len(seen) == 1, "the second request had to open a new connection"
    finally:
        server.should_exit = True
        thread.join(10)


def test_an_upload_whose_zip_claims_an_unknown_version_is_stored_not_a_500(client: TestClient) -> None:
    """Seen once in the hostile corpus: a damaged XLSX whose central directory claims ZIP version
    23.5 made type detection (in the API process) raise NotImplementedError."""
    from tests.support import docgen

    data = bytearray(docgen.xlsx_doc().data)
    at = data.find(b"PK\x01\x02")
    assert at >= 0
    data[at + 6:at + 8] = (235).to_bytes(2, "little")  # "version needed to extract": 23.5
    r = client.put("/documents/v2/files", files={"file": ("odd.xlsx", bytes(data))}, headers=A)
    assert r.status_code == 200, r.text
    meta = client.get(f"/documents/v2/files/{r.json()['file_id']}/metadata", headers=A).json()
    assert meta["mime_type"] == "application/zip"  # a zip, but not one it can read as a workbook
