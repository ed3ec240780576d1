"""Datasets v2 over HTTP: named settings that every document parsed into them gets, their status
and analytics counted from their jobs, their data (jobs) listed and filtered, and deletion."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from api.services import Services
from tests.support import docgen
from tests.support.helpers import A2, A, B

RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
DS = "/documents/v2/datasets"


def create(client: TestClient, name: str, headers: dict = A, **body: object):  # type: ignore[no-untyped-def]
    return client.post(DS, json={"name": name, **body}, headers=headers)


def test_create_get_and_the_name_rules(client: TestClient) -> None:
    r = create(client, "invoices_2026-Q1", description="Q1 invoices",
               parsing_options={"chunking_strategy": "page"})
    assert r.status_code == 200
    made = r.json()
    assert made["name"] == "invoices_2026-Q1" and made["dataset_id"].startswith("dataset_")
    assert RFC3339.fullmatch(made["created_at"])
    got = client.get(f"{DS}/{made['dataset_id']}", headers=A).json()
    assert got == {"name": "invoices_2026-Q1", "dataset_id": made["dataset_id"], "description": "Q1 invoices",
                   "status": "idle", "created_at": made["created_at"], "updated_at": made["created_at"]}
    conf = client.get(f"{DS}/{made['dataset_id']}", params={"include_configuration": True}, headers=A).json()
    assert conf["configuration"]["parsing_options"]["chunking_strategy"] == "page"

    taken = create(client, "invoices_2026-Q1")
    assert taken.status_code == 409 and taken.json()["code"] == "ENTITY_ALREADY_EXISTS"
    # unique within an organization and project: another project or organization may use it
    assert create(client, "invoices_2026-Q1", headers=A2).status_code == 200
    assert create(client, "invoices_2026-Q1", headers=B).status_code == 200
    for bad in ("invoices 2026", "", "a/b", "résumé", "x" * 256, "semi;colon"):
        r = create(client, bad)
        assert r.status_code == 400 and r.json()["code"] == "INVALID_DATASET_NAME", bad
    assert client.post(DS, json={"description": "no name"}, headers=A).status_code == 422
    no_fields = create(client, "extracting", structured_extraction_options=[
        {"schema_name": "x", "json_schema": {"type": "object"}}])
    assert no_fields.status_code == 400 and no_fields.json()["code"] == "INVALID_JSON_SCHEMA"
    assert "json_schema must be a JSON schema object with properties" in no_fields.json()["message"]
    assert client.get(f"{DS}/dataset_nope", headers=A).status_code == 404
    assert client.get(f"{DS}/{made['dataset_id']}", headers=B).status_code == 404  # another tenant's


def test_documents_parsed_into_a_dataset_get_its_settings_and_updates_apply_to_later_jobs(
        client: TestClient, run_jobs) -> None:
    ds = create(client, "memos", parsing_options={"chunking_strategy": "page"}).json()["dataset_id"]
    pdf = docgen.text_pdf(pages=3).data
    fid = client.put("/documents/v2/files", files={"file": ("memo.pdf", pdf)}, headers=A).json()["file_id"]
    first = client.post(f"{DS}/{ds}/parse", json={"file_id": fid, "labels": {"batch": 1}}, headers=A)
    assert first.status_code == 200 and RFC3339.fullmatch(first.json()["created_at"])
    first_id = first.json()["parse_id"]
    assert client.get(f"{DS}/{ds}", headers=A).json()["status"] == "processing"

    # the update changes later jobs only
    updated = client.put(f"{DS}/{ds}", json={"parsing_options": {"chunking_strategy": "none"},
                                             "description": "all memos"}, headers=A)
    assert updated.status_code == 200 and updated.json()["description"] == "all memos"
    assert updated.json()["updated_at"] >= updated.json()["created_at"]
    # the SDK sends a file id as raw_text (wire notes): it is still that file
    second_id = client.post(f"{DS}/{ds}/parse", json={"raw_text": fid}, headers=A).json()["parse_id"]
    assert run_jobs() == 2

    one = client.get(f"/documents/v2/parse/{first_id}", headers=A).json()
    two = client.get(f"/documents/v2/parse/{second_id}", headers=A).json()
    assert one["status"] == two["status"] == "successful"
    assert one["dataset_id"] == two["dataset_id"] == ds and one["labels"] == {"batch": 1}
    assert len(one["chunks"]) == 3  # chunked by page, as the dataset said when it was submitted
    assert len(two["chunks"]) == 1  # not chunked, as it said later
    assert two["total_pages"] == 3  # the file, not the text "file_…"

    got = client.get(f"{DS}/{ds}", params={"include_analytics": True}, headers=A).json()
    assert got["status"] == "idle"
    assert got["analytics"] == {"total_processing_parse_jobs": 0, "total_pending_parse_jobs": 0,
                                "total_error_parse_jobs": 0, "total_successful_parse_jobs": 2, "total_jobs": 2}
    # the jobs are also found by dataset name in the parse listing
    listed = client.get("/documents/v2/parse", params={"dataset_name": "memos"}, headers=A).json()["items"]
    assert {j["parse_id"] for j in listed} == {first_id, second_id}

    assert client.post(f"{DS}/dataset_nope/parse", json={"file_id": fid}, headers=A).status_code == 404
    assert client.post(f"{DS}/{ds}/parse", json={"file_id": fid}, headers=B).status_code == 404
    assert client.put(f"{DS}/{ds}", json={"description": "x"}, headers=B).status_code == 404


def test_dataset_data_lists_its_jobs_with_every_filter(client: TestClient, run_jobs) -> None:
    ds = create(client, "notes").json()["dataset_id"]
    other = create(client, "elsewhere").json()["dataset_id"]

    def parse(into: str, text: str, name: str) -> str:
        return client.post(f"{DS}/{into}/parse", json={"raw_text": text, "mime_type": "text/plain",
                                                       "file_name": name}, headers=A).json()["parse_id"]

    ok = parse(ds, "fine words", "alpha.txt")
    bad = parse(ds, "   ", "beta.txt")  # nothing to parse: a failure
    parse(other, "not mine", "alpha.txt")
    run_jobs()
    pending = parse(ds, "later", "gamma.txt")

    def ids(**params: object) -> list[str]:
        r = client.get(f"{DS}/{ds}/data", params=params, headers=A)
        assert r.status_code == 200, r.text
        return [j["parse_id"] for j in r.json()["items"]]

    assert ids() == [pending, bad, ok]
    assert ids(status="successful") == [ok] and ids(status="failure") == [bad] and ids(status="pending") == [pending]
    assert ids(parse_id=bad) == [bad]
    assert ids(file_name="alpha") == [ok]
    first = client.get(f"{DS}/{ds}/data", params={"limit": 2}, headers=A).json()
    assert first["has_more"] and len(first["items"]) == 2
    rest = client.get(f"{DS}/{ds}/data", params={"limit": 2, "cursor": first["next_cursor"]}, headers=A).json()
    assert [j["parse_id"] for j in rest["items"]] == [ok] and not rest["has_more"]
    created = client.get(f"/documents/v2/parse/{ok}", headers=A).json()["created_at"]
    assert ids(created_before=created) == [] and ok in ids(created_after="2000-01-01T00:00:00Z")
    assert client.get(f"{DS}/{ds}/data", params={"created_after": "yesterday"}, headers=A).status_code == 422
    assert client.get(f"{DS}/dataset_nope/data", headers=A).status_code == 404
    assert client.get(f"{DS}/{ds}/data", headers=B).status_code == 404


def test_list_datasets_pages_and_filters_by_name_and_status(client: TestClient, run_jobs) -> None:
    made = [create(client, f"set-{i}").json()["dataset_id"] for i in range(30)]
    create(client, "theirs", headers=B)
    page = client.get(DS, headers=A).json()
    assert len(page["items"]) == 25 and page["has_more"]  # default limit 25
    assert [d["dataset_id"] for d in page["items"]] == made[::-1][:25]
    rest = client.get(DS, params={"cursor": page["next_cursor"]}, headers=A).json()
    assert [d["dataset_id"] for d in rest["items"]] == made[::-1][25:] and not rest["has_more"]
    back = client.get(DS, params={"cursor": rest["prev_cursor"], "direction": "prev"}, headers=A).json()
    assert [d["dataset_id"] for d in back["items"]] == made[::-1][:25]
    assert [d["name"] for d in client.get(DS, params={"name": "set-7"}, headers=A).json()["items"]] == ["set-7"]
    assert client.get(DS, params={"name": "theirs"}, headers=A).json()["items"] == []

    client.post(f"{DS}/{made[3]}/parse", json={"raw_text": "x", "mime_type": "text/plain"}, headers=A)
    busy = client.get(DS, params={"status": "processing"}, headers=A).json()["items"]
    assert [d["dataset_id"] for d in busy] == [made[3]] and busy[0]["status"] == "processing"
    idle = client.get(DS, params={"status": "idle", "limit": 100}, headers=A).json()["items"]
    assert len(idle) == 29 and made[3] not in {d["dataset_id"] for d in idle}
    run_jobs()
    assert client.get(DS, params={"status": "processing"}, headers=A).json()["items"] == []
    assert client.get(DS, params={"status": "stuck"}, headers=A).status_code == 422


def test_delete_removes_the_dataset_its_jobs_and_results_but_not_the_files(
        client: TestClient, run_jobs, services: Services) -> None:
    ds = create(client, "to-delete").json()["dataset_id"]
    keep = create(client, "to-keep").json()["dataset_id"]
    fid = client.put("/documents/v2/files", files={"file": ("memo.md", b"# Memo\n\nhello")},
                     headers=A).json()["file_id"]
    gone = client.post(f"{DS}/{ds}/parse", json={"file_id": fid}, headers=A).json()["parse_id"]
    text = client.post(f"{DS}/{ds}/parse", json={"raw_text": "x", "mime_type": "text/plain"},
                       headers=A).json()["parse_id"]
    kept = client.post(f"{DS}/{keep}/parse", json={"file_id": fid}, headers=A).json()["parse_id"]
    run_jobs()
    assert services.storage.list_keys(f"results/org-a/proj-a/{ds}")
    assert client.delete(f"{DS}/{ds}", headers=B).status_code == 404  # not theirs
    assert client.delete(f"{DS}/{ds}", headers=A).status_code == 204
    assert client.get(f"{DS}/{ds}", headers=A).status_code == 404
    assert client.delete(f"{DS}/{ds}", headers=A).status_code == 404
    assert client.get(f"/documents/v2/parse/{gone}", headers=A).status_code == 404
    assert client.get(f"/documents/v2/parse/{text}", headers=A).status_code == 404
    assert services.storage.list_keys(f"results/org-a/proj-a/{ds}") == []
    assert services.storage.list_keys("texts/org-a/proj-a") == []
    # the file and the other dataset's job are untouched; the name is free again
    assert client.get(f"/documents/v2/files/{fid}/metadata", headers=A).status_code == 200
    assert client.get(f"/documents/v2/parse/{kept}", headers=A).json()["status"] == "successful"
    assert create(client, "to-delete").status_code == 200
