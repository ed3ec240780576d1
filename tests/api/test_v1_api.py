"""The legacy /documents/v1 API: every operation, over the same use cases as v2."""

from __future__ import annotations

import hashlib

from fastapi.testclient import TestClient

from tests.support import docgen
from tests.support.helpers import A, B

V1 = "/documents/v1"


def test_v1_datasets_by_name_with_camel_case_settings(client: TestClient, run_jobs) -> None:
    made = client.post(f"{V1}/datasets", json={"name": "letters", "description": "inbox", "settings": {
        "chunkStrategy": "page", "tableOutputMode": "html", "skewCorrection": True, "deliverWebhook": True}},
        headers=A)
    assert made.status_code == 200 and made.json()["id"].startswith("dataset_")
    assert client.post(f"{V1}/datasets", json={"name": "letters", "settings": {}}, headers=A).status_code == 409
    refused = client.post(f"{V1}/datasets", json={"name": "x", "settings": {"tableSummarization": True}}, headers=A)
    assert refused.status_code == 400 and "table_summarization" in refused.json()["message"]

    found = client.get(f"{V1}/datasets/letters", headers=A).json()
    assert found["id"] == made.json()["id"] and found["status"] == "idle"
    assert found["settings"]["chunkStrategy"] == "page" and found["settings"]["skewCorrection"] is True
    assert found["analytics"] == {"totalJobs": 0, "totalProcessingJobs": 0, "totalPendingJobs": 0,
                                  "totalErrorJobs": 0, "totalSuccessfulJobs": 0}
    assert client.get(f"{V1}/datasets/letters", headers=B).status_code == 404

    # add a file by upload (multipart) and one by id
    pdf = docgen.text_pdf(pages=2).data
    up = client.post(f"{V1}/datasets/letters", files={"file": ("memo.pdf", pdf)}, data={"labels": "team=ops"},
                     headers=A)
    assert up.status_code == 200, up.text
    dispatched = up.json()
    assert dispatched["jobId"].startswith("parse_") and dispatched["fileId"].startswith("file_")
    assert dispatched["status"] == "pending"
    again = client.post(f"{V1}/datasets/letters", data={"file_id": dispatched["fileId"], "pages": "2"}, headers=A)
    assert again.status_code == 200, again.text
    assert client.post(f"{V1}/datasets/letters", data={"pages": "1"}, headers=A).status_code == 400
    run_jobs()

    jobs = client.get(f"{V1}/datasets/letters/jobs", headers=A).json()
    assert not jobs["hasMore"] and len(jobs["items"]) == 2
    first = next(j for j in jobs["items"] if j["id"] == dispatched["jobId"])
    assert first["status"] == "successful" and first["datasetId"] == made.json()["id"]
    assert first["fileName"] == "memo.pdf" and first["outputsUrl"].endswith(f"/documents/v1/jobs/{first['id']}")
    job = client.get(f"{V1}/jobs/{first['id']}", headers=A).json()
    assert job["status"] == "successful" and job["settings"]["chunkStrategy"] == "page"
    assert job["outputs"]["num_pages"] == 2 and len(job["outputs"]["chunks"]) == 2  # chunked by page
    second = client.get(f"{V1}/jobs/{again.json()['jobId']}", headers=A).json()
    assert second["pageRange"] == "2" and [p["page_number"] for p in second["outputs"]["pages"]] == [2]

    listed = client.get(f"{V1}/datasets", headers=A).json()
    assert [(d["name"], d["job_count"], d["status"]) for d in listed["items"]] == [("letters", 2, "idle")]
    renamed = client.put(f"{V1}/datasets/letters", json={"name": "letters-2026", "settings": {"chunkStrategy": None}},
                         headers=A)
    assert renamed.status_code == 200 and renamed.json()["name"] == "letters-2026"
    assert renamed.json()["settings"]["chunkStrategy"] is None
    assert client.put(f"{V1}/datasets/letters-2026", json={"name": "no spaces allowed"}, headers=A).status_code == 400
    assert client.delete(f"{V1}/datasets/letters-2026", headers=A).status_code == 204
    assert client.get(f"{V1}/datasets/letters-2026", headers=A).status_code == 404


def test_v1_files_download_and_the_large_file_pair(client: TestClient) -> None:
    up = client.post(f"{V1}/files", files={"file": ("notes.txt", b"some notes")}, data={"labels": "a=1"}, headers=A)
    assert up.status_code == 200
    fid = up.json()["id"]
    listed = client.get(f"{V1}/files", headers=A).json()
    assert [(f["id"], f["name"], f["fileSize"], f["mimeType"]) for f in listed["items"]] == [
        (fid, "notes.txt", 10, "text/plain")]
    assert client.get(f"{V1}/files", headers=B).json()["items"] == []
    info = client.get(f"{V1}/files/{fid}", headers=A).json()
    assert info["filename"] == "notes.txt" and info["fileSize"] == 10 and info["pageCount"] == 0
    got = client.get(info["location"].replace("http://testserver", ""), headers=A)
    assert got.status_code == 200 and got.content == b"some notes"
    assert client.get(info["location"].replace("http://testserver", ""), headers=B).status_code in (400, 404)

    data = docgen.text_pdf(pages=1).data
    init = client.post(f"{V1}/files_large", json={"filename": "big.pdf", "file_size": len(data),
                                                  "sha256_checksum": hashlib.sha256(data).hexdigest()}, headers=A)
    assert init.status_code == 200, init.text
    upload_id, url = init.json()["id"], init.json()["presigned_url"].replace("http://testserver", "")
    early = client.post(f"{V1}/files_large/{upload_id}", headers=A)
    assert early.status_code == 400 and "PUT the bytes" in early.json()["message"]
    assert client.put(url, content=data[:-10] + b"corrupted!", headers=A).status_code == 200
    wrong = client.post(f"{V1}/files_large/{upload_id}", headers=A)
    assert wrong.status_code == 400 and "upload them again" in wrong.json()["message"]
    assert client.put(url, content=data + b"x", headers=A).status_code == 413  # more than announced
    assert client.put(url, content=data, headers=A).status_code == 200
    assert client.post(f"{V1}/files_large/{upload_id}", headers=B).status_code == 404  # not theirs
    done = client.post(f"{V1}/files_large/{upload_id}", headers=A)
    assert done.status_code == 200
    big = client.get(f"{V1}/files/{done.json()['id']}", headers=A).json()
    assert big["mimeType"] == "application/pdf" and big["fileSize"] == len(data)
    assert client.post(f"{V1}/files_large/{upload_id}", headers=A).status_code == 404  # used up
    bad = client.post(f"{V1}/files_large", json={"filename": "x", "file_size": 1, "sha256_checksum": "zz"}, headers=A)
    assert bad.status_code == 400

    assert client.delete(f"{V1}/files/{fid}", headers=A).status_code == 200
    assert client.get(f"{V1}/files/{fid}", headers=A).status_code == 400


def test_v1_parse_jobs_and_webhooks(client: TestClient, run_jobs, services) -> None:  # type: ignore[no-untyped-def]
    text = client.post(f"{V1}/parse", json={"content": "# Title\n\nbody", "mimeType": "text/markdown",
                                            "labels": {"k": "v"}, "settings": {"chunkStrategy": "section"}},
                       headers=A)
    assert text.status_code == 200 and text.json()["status"] == "pending"
    fid = client.post(f"{V1}/files", files={"file": ("memo.md", b"# Memo\n\nhello")}, headers=A).json()["id"]
    by_id = client.post(f"{V1}/parse", json={"file": fid}, headers=A).json()
    assert by_id["fileId"] == fid
    url = client.post(f"{V1}/parse", json={"file": "http://127.0.0.1:9/x.pdf"}, headers=A)
    assert url.status_code == 400 and "ALLOW_PRIVATE_URLS" in url.json()["message"]
    run_jobs()
    items = client.get(f"{V1}/jobs", headers=A).json()["items"]
    assert {i["id"] for i in items} == {text.json()["jobId"], by_id["jobId"]}
    assert all(i["status"] == "successful" and i["pagesParsed"] == 1 for i in items)
    assert [i["id"] for i in client.get(f"{V1}/jobs", params={"filename": "memo"}, headers=A).json()["items"]] == [
        by_id["jobId"]]
    job = client.get(f"{V1}/jobs/{text.json()['jobId']}", headers=A).json()
    assert job["labels"] == {"k": "v"} and job["outputs"]["chunks"][0]["content"].startswith("# Title")
    assert client.get(f"{V1}/jobs/{text.json()['jobId']}", headers=B).status_code == 404
    assert client.delete(f"{V1}/jobs/{text.json()['jobId']}", headers=A).status_code == 204
    assert client.get(f"{V1}/jobs/{text.json()['jobId']}", headers=A).status_code == 404

    refused = client.post(f"{V1}/webhooks", json={"url": "http://127.0.0.1:9/hook"}, headers=A)
    assert refused.status_code == 400
    services.settings.limits.allow_private_urls = True
    hook = client.post(f"{V1}/webhooks", json={"url": "http://127.0.0.1:9/hook"}, headers=A)
    assert hook.status_code == 200 and hook.json()["url"] == "http://127.0.0.1:9/hook"
    assert [h["url"] for h in client.get("/documents/v2/webhooks", headers=A).json()["items"]] == [
        "http://127.0.0.1:9/hook"]


def test_v1_settings_with_values_v2_does_not_know_are_400(client: TestClient) -> None:
    r = client.post(f"{V1}/datasets", json={"name": "odd", "settings": {"tableOutputMode": "latex"}}, headers=A)
    assert r.status_code == 400 and "table_output_mode" in r.json()["message"]
    r = client.post(f"{V1}/parse", json={"content": "x", "settings": {"chunkStrategy": "sentence"}}, headers=A)
    assert r.status_code == 400 and "chunking_strategy" in r.json()["message"]
