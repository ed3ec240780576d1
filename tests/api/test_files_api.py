"""The files API as the SDK and the spec use it: upload, list, metadata, delete, bad input."""

from __future__ import annotations

import hashlib
import json

import pytest
from fastapi.testclient import TestClient

from api.services import Services
from tests.support.helpers import A2, A, B


def upload(client: TestClient, name: str, data: bytes, part: str = "file_bytes", labels=None, headers=A):
    form = {"labels": labels} if labels is not None else None
    return client.put("/documents/v2/files", files={part: (name, data)}, data=form, headers=headers)


def stored_objects(services: Services) -> list[str]:
    return [k for k in services.storage.list_keys("files")]


def test_upload_then_metadata_with_checksum_and_detected_type(client: TestClient) -> None:
    data = b"%PDF-1.4\n%fake but starts like a pdf\n"
    r = upload(client, "report.bin", data)
    assert r.status_code == 200
    body = r.json()
    assert body["file_id"].startswith("file_") and body["created_at"].endswith("Z")
    meta = client.get(f"/documents/v2/files/{body['file_id']}/metadata", headers=A).json()
    assert meta["file_id"] == body["file_id"]
    assert meta["file_name"] == "report.bin"
    assert meta["mime_type"] == "application/pdf"  # from the content, not the name
    assert meta["file_size"] == len(data)
    assert meta["checksum_sha256"] == hashlib.sha256(data).hexdigest()
    assert meta["created_at"] == body["created_at"]


def test_sdk_part_name_and_both_label_forms(client: TestClient) -> None:
    r = client.put(
        "/documents/v2/files",
        files=[("file", ("a.txt", b"hello")), ("labels", (None, "owner=JohnDoe")),
               ("labels", (None, json.dumps({"project": "Tensorlake", "n": 3})))],
        headers=A,
    )
    assert r.status_code == 200, r.text
    meta = client.get(f"/documents/v2/files/{r.json()['file_id']}/metadata", headers=A).json()
    assert meta["labels"] == {"owner": "JohnDoe", "project": "Tensorlake", "n": "3"}
    assert meta["mime_type"] == "text/plain"


def test_list_has_both_spellings_filters_and_pages(client: TestClient) -> None:
    ids = [upload(client, name, name.encode() * 3).json()["file_id"]
           for name in ("Report-1.txt", "report-2.txt", "Report-3.txt", "notes.md", "Report-5.txt")]
    r = client.get("/documents/v2/files", params={"limit": 2}, headers=A).json()
    assert r["has_more"] is True and r["hasMore"] is True
    item = r["items"][0]
    for key in ("file_id", "file_name", "mime_type", "file_size", "checksum_sha256", "created_at",
                "labels", "id", "name", "fileSize", "mimeType", "createdAt", "updatedAt"):
        assert key in item
    assert [i["file_id"] for i in r["items"]] == ids[::-1][:2]  # newest first

    seen, cursor = [], None
    while True:
        params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        page = client.get("/documents/v2/files", params=params, headers=A).json()
        seen += [i["id"] for i in page["items"]]
        cursor = page["next_cursor"]
        assert page["nextCursor"] == cursor
        if not cursor:
            assert page["has_more"] is False
            break
    assert seen == ids[::-1]

    back = client.get("/documents/v2/files",
                      params={"limit": 2, "cursor": page["prev_cursor"], "direction": "prev"},
                      headers=A).json()
    assert [i["id"] for i in back["items"]] == ids[::-1][2:4]

    case = client.get("/documents/v2/files", params={"file_name": "Report"}, headers=A).json()
    assert sorted(i["file_name"] for i in case["items"]) == ["Report-1.txt", "Report-3.txt", "Report-5.txt"]
    sdk = client.get("/documents/v2/files", params={"filename": "notes"}, headers=A).json()
    assert [i["name"] for i in sdk["items"]] == ["notes.md"]
    created = case["items"][1]["created_at"]
    after = client.get("/documents/v2/files", params={"created_after": created, "file_name": "Report"},
                       headers=A).json()
    assert [i["file_name"] for i in after["items"]] == ["Report-5.txt"]
    zero = client.get("/documents/v2/files", params={"limit": 0}, headers=A).json()
    assert zero["items"] == [] and zero["has_more"] is False and zero["next_cursor"] is None


def test_delete_then_gone_and_bad_ids(client: TestClient, services: Services) -> None:
    fid = upload(client, "x.txt", b"bye").json()["file_id"]
    assert len(stored_objects(services)) == 1
    assert client.delete(f"/documents/v2/files/{fid}", headers=A).status_code == 204
    assert stored_objects(services) == []
    for path in (f"/documents/v2/files/{fid}/metadata", "/documents/v2/files/not-an-id/metadata"):
        r = client.get(path, headers=A)
        assert r.status_code == 400
        assert r.json()["code"] == "INVALID_FILE" and r.json()["message"]
    assert client.delete(f"/documents/v2/files/{fid}", headers=A).status_code == 400


def test_tenants_never_see_each_other(client: TestClient) -> None:
    fid = upload(client, "secret.txt", b"a's data").json()["file_id"]
    for other in (B, A2):  # another organization; same organization, another project
        assert client.get(f"/documents/v2/files/{fid}/metadata", headers=other).status_code == 400
        assert client.get("/documents/v2/files", headers=other).json()["items"] == []
        assert client.delete(f"/documents/v2/files/{fid}", headers=other).status_code == 400
    assert client.get(f"/documents/v2/files/{fid}/metadata", headers=A).status_code == 200


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic a2V5LWE="}])
def test_every_endpoint_needs_a_valid_bearer(client: TestClient, headers: dict) -> None:
    for method, path in (("GET", "/documents/v2/files"), ("PUT", "/documents/v2/files"),
                         ("GET", "/documents/v2/files/file_abc/metadata"),
                         ("DELETE", "/documents/v2/files/file_abc"), ("GET", "/documents/v2/parse"),
                         ("POST", "/documents/v2/parse"), ("GET", "/documents/v2/parse/parse_x")):
        r = client.request(method, path, headers=headers)
        assert r.status_code == 401, (method, path)
        assert r.headers["www-authenticate"] == "Bearer"
    assert client.get("/healthz").status_code == 200
    assert client.get("/metrics").status_code == 200
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/documents/v2/files", "/documents/v2/parse", "/documents/v2/parse/{parse_id}"} <= set(paths)


def test_missing_part_broken_body_and_oversize_leave_nothing(client: TestClient, services: Services) -> None:
    r = client.put("/documents/v2/files", data={"labels": "a=b"}, headers=A)
    assert r.status_code == 400 and r.json()["code"] in ("INVALID_MULTIPART",)
    r = client.put("/documents/v2/files", content=b"not multipart", headers={**A, "content-type": "text/plain"})
    assert r.status_code == 400
    truncated = (b"--XyZ\r\nContent-Disposition: form-data; name=\"file_bytes\"; filename=\"a.txt\"\r\n\r\n"
                 b"partial data without the closing boundary")
    r = client.put("/documents/v2/files", content=truncated,
                   headers={**A, "content-type": "multipart/form-data; boundary=XyZ"})
    assert r.status_code == 400 and r.json()["code"] == "MULTIPART_STREAM_END"

    services.settings.limits.max_upload_bytes = 1000
    r = upload(client, "big.txt", b"x" * 5000)
    assert r.status_code == 413 and "upload limit" in r.json()["message"]
    assert stored_objects(services) == []
    assert client.get("/documents/v2/files", headers=A).json()["items"] == []
    spool = services.settings.data_dir / "spool"
    assert not spool.exists() or list(spool.iterdir()) == []


def test_form_fields_are_bounded_in_size_and_number(client: TestClient, services: Services) -> None:
    many = [("labels", (None, f"k{i}=" + "v" * 1000)) for i in range(100)]
    r = client.put("/documents/v2/files", files=[("file", ("a.txt", b"x")), *many], headers=A)
    assert r.status_code == 400 and "64 KiB" in r.json()["message"]
    too_many = [("labels", (None, f"k{i}=v")) for i in range(101)]
    r = client.put("/documents/v2/files", files=[("file", ("a.txt", b"x")), *too_many], headers=A)
    assert r.status_code == 400 and "100 labels" in r.json()["message"]
    services.settings.limits.max_upload_bytes = 1000

    def chunked():  # no Content-Length: only the bytes received count
        yield b'--B\r\nContent-Disposition: form-data; name="file_bytes"; filename="a"\r\n\r\n'
        for _ in range(100):
            yield b"y" * 100_000

    r = client.put("/documents/v2/files", content=chunked(),
                   headers={**A, "content-type": "multipart/form-data; boundary=B"})
    assert r.status_code == 413
    assert client.get("/documents/v2/files", headers=A).json()["items"] == []


def test_leftovers_of_a_crash_are_swept_at_start(settings) -> None:  # type: ignore[no-untyped-def]
    import os
    import time

    from api.services import Services
    from assets.storage import Storage

    spool = settings.data_dir / "spool"
    spool.mkdir(parents=True)
    old, fresh = spool / "upload-old", spool / "upload-new"
    old.write_bytes(b"x")
    fresh.write_bytes(b"y")
    storage = Storage(settings.storage.url)
    storage.put_bytes("tmp/dead-writer", b"z")
    long_ago = time.time() - 7200
    os.utime(old, (long_ago, long_ago))
    os.utime(storage.path("tmp/dead-writer"), (long_ago, long_ago))
    Services.build(settings).close()
    assert not old.exists() and fresh.exists()  # an upload still in flight is left alone
    assert not storage.exists("tmp/dead-writer")


@pytest.mark.parametrize(("page", "assets"), [
    ("/docs", ["/docs-assets/swagger-ui-bundle.js", "/docs-assets/swagger-ui.css"]),
    ("/redoc", ["/docs-assets/redoc.standalone.js"]),
])
def test_api_docs_work_without_internet(client: TestClient, page: str, assets: list[str]) -> None:
    """/docs and /redoc name no outside address: their scripts and styles come from docklake."""
    html = client.get(page).text
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html
    for asset in assets:
        assert asset in html
        r = client.get(asset)
        assert r.status_code == 200 and len(r.content) > 100_000
    assert client.get("/openapi.json").json()["paths"]["/documents/v2/parse"]
