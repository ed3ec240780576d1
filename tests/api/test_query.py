"""SQL over a tenant's own results: the tables hold exactly its jobs and results, and no query
reads another tenant's rows or any file by name."""

from __future__ import annotations

from fastapi.testclient import TestClient

from api.services import Services
from tests.support import docgen
from tests.support.helpers import A2, A, B

Q = "/documents/v2/query"


def sql(client: TestClient, text: str, headers: dict = A, **body: object):  # type: ignore[no-untyped-def]
    return client.post(Q, json={"sql": text, **body}, headers=headers)


def rows(client: TestClient, text: str, headers: dict = A, **body: object) -> list[list]:
    r = sql(client, text, headers, **body)
    assert r.status_code == 200, r.text
    return r.json()["rows"]


def test_queries_see_only_the_callers_jobs_and_results(client: TestClient, run_jobs, services: Services) -> None:
    ds = client.post("/documents/v2/datasets", json={"name": "reports"}, headers=A).json()["dataset_id"]
    doc = docgen.text_pdf(pages=3)
    pdf = doc.data
    fid = client.put("/documents/v2/files", files={"file": ("report.pdf", pdf)}, headers=A).json()["file_id"]
    mine = client.post(f"/documents/v2/datasets/{ds}/parse", json={"file_id": fid}, headers=A).json()["parse_id"]
    loose = client.post("/documents/v2/parse", json={"raw_text": "a loose note", "mime_type": "text/plain"},
                        headers=A).json()["parse_id"]
    other_fid = client.put("/documents/v2/files", files={"file": ("theirs.pdf", pdf)}, headers=B).json()["file_id"]
    theirs = client.post("/documents/v2/parse", json={"file_id": other_fid}, headers=B).json()["parse_id"]
    run_jobs()

    assert sorted(r[0] for r in rows(client, "select id from jobs")) == sorted([mine, loose])
    pages = rows(client, "select parse_id, count(*) from pages group by 1 order by 2 desc")
    assert pages == [[mine, 3], [loose, 1]]
    # the same question from the other tenant, and from another project of the same organization
    assert rows(client, "select parse_id from documents", B) == [[theirs]]
    assert rows(client, "select count(*) from fragments", A2) == [[0]]
    # one dataset only
    assert rows(client, "select distinct parse_id from fragments", dataset_id=ds) == [[mine]]
    # the words of the document are there to search
    word = doc.pages[1].split("\n")[1].split()[2]
    found = rows(client, f"select distinct page_number from fragments where parse_id = '{mine}' "
                         f"and contains(text, '{word}') order by 1")
    assert [2] in found, (word, found)
    joined = rows(client, "select j.file_name, count(c.chunk_index) from jobs j join chunks c on c.parse_id = j.id "
                          "group by 1 order by 1")
    assert [r[0] for r in joined] == ["report.pdf", None]

    # no file can be named: not another tenant's result, not the catalog, not /etc/passwd
    their_result = services.storage.path(f"results/org-b/proj-b/_/{theirs}")
    for attempt in (f"select * from read_parquet('{their_result}/1/fragments.parquet')",
                    f"select * from '{their_result}/1/document.parquet'",
                    "select * from read_csv('/etc/passwd')",
                    f"select * from glob('{services.storage.root}/*')",
                    "copy (select 1) to '/tmp/docklake-query-escape.csv'",
                    "attach '/tmp/docklake-query.db'",
                    "set enable_external_access = true",
                    "install httpfs"):
        r = sql(client, attempt)
        assert r.status_code == 400 and r.json()["code"] == "INVALID_QUERY_PARAMS", (attempt, r.text)
    assert sql(client, "select * from nope").json()["message"].startswith("the query failed: Catalog Error")
    assert sql(client, "   ").status_code == 400
    surrogate = client.post(Q, content=b'{"sql": "select \'\\ud800\'"}', headers={**A, "Content-Type": "application/json"})
    assert surrogate.status_code == 400 and "surrogate" in surrogate.json()["message"]
    assert sql(client, "select 1", dataset_id="dataset_nope").status_code == 404
    assert sql(client, "select 1", B, dataset_id=ds).status_code == 404  # not theirs


def test_large_answers_are_capped_and_long_queries_stopped(client: TestClient, services: Services) -> None:
    services.settings.api.query_max_rows = 50
    r = sql(client, "select * from range(1000)").json()
    assert r["row_count"] == 50 and r["truncated"] and r["columns"] == ["range"]
    services.settings.api.query_timeout_s = 0.5
    slow = sql(client, "select count(*) from range(100000000000) a")
    assert slow.status_code == 400 and "longer than 0.5 s" in slow.json()["message"]
