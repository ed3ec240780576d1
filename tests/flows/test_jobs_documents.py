"""Real documents through the whole job path (API → worker child process → Parquet → wire), and
the wire result read back by the real SDK's models."""

from __future__ import annotations

from fastapi.testclient import TestClient
from tensorlake.documentai.models import ParseResult

from tests.support import docgen
from tests.support.helpers import A


def upload(client: TestClient, name: str, data: bytes) -> str:
    return client.put("/documents/v2/files", files={"file": (name, data)}, headers=A).json()["file_id"]


def parse(client: TestClient, file_id: str, **options: object) -> str:
    r = client.post("/documents/v2/parse", json={"file_id": file_id, "parsing_options": options}, headers=A)
    assert r.status_code == 200, r.text
    return r.json()["parse_id"]


def result(client: TestClient, parse_id: str, **params: object) -> dict:
    return client.get(f"/documents/v2/parse/{parse_id}", params=params, headers=A).json()


def test_two_column_pdf_through_the_service(client: TestClient, run_jobs) -> None:
    doc = docgen.two_column_pdf(pages=2)
    pid = parse(client, upload(client, "review.pdf", doc.data), chunking_strategy="page",
                ignore_sections=["page_header", "page_footer"])
    assert run_jobs() == 1
    res = result(client, pid)
    assert res["status"] == "successful", res["error"]
    assert res["total_pages"] == 2 and res["parsed_pages_count"] == 2
    page = res["pages"][0]
    assert page["dimensions"] == [612, 792]
    frags = page["page_fragments"]
    assert frags[0]["fragment_type"] == "section_header"
    assert {"page_header", "page_footer"}.isdisjoint(f["fragment_type"] for f in frags)
    for f in frags:
        b = f["bbox"]
        assert 0 <= b["x1"] < b["x2"] <= 612 and 0 <= b["y1"] < b["y2"] <= 792
    body = "\n".join(doc.pages[0].splitlines()[1:-1])  # without the running header and footer
    assert docgen.cer(res["chunks"][0]["content"], body) < 0.05
    sdk = ParseResult.model_validate(res)  # the SDK's own model accepts the result
    assert sdk.pages[0].page_fragments[0].fragment_type.value == "section_header"


def test_skewed_scan_with_page_image_and_merged_tables(client: TestClient, run_jobs) -> None:
    scan = docgen.scanify(docgen.render_png(docgen.text_pdf(pages=1).data), skew_deg=3)
    scan_id = parse(client, upload(client, "scan.png", docgen.image_bytes(scan)), skew_detection=True)
    split = docgen.split_table_pdf()
    table_id = parse(client, upload(client, "split.pdf", split.data), table_merging=True,
                     table_output_mode="markdown")
    img = client.post("/documents/v2/parse", headers=A, json={
        "file_id": upload(client, "t.pdf", docgen.text_pdf(pages=1).data),
        "enrichment_options": {"include_full_page_image": True}}).json()["parse_id"]
    run_jobs()

    s = result(client, scan_id)
    assert s["status"] == "successful", s["error"]
    assert abs(abs(s["pages"][0]["skew_angle"]) - 3) < 1
    t = result(client, table_id)
    assert t["status"] == "successful" and len(t["merged_tables"]) == 1
    assert t["merged_tables"][0]["start_page"] == 1 and t["merged_tables"][0]["end_page"] == 2
    i = result(client, img)
    assert i["pages"][0]["page_image"]
    import base64

    assert base64.b64decode(i["pages"][0]["page_image"])[:8] == b"\x89PNG\r\n\x1a\n"
    for res in (s, t, i):
        ParseResult.model_validate(res)


def test_broken_documents_fail_with_clear_errors(client: TestClient, run_jobs) -> None:
    enc = parse(client, upload(client, "locked.pdf", docgen.encrypted_pdf()))
    trunc = parse(client, upload(client, "cut.pdf", docgen.text_pdf().data[:400]))
    ok = parse(client, upload(client, "fine.pdf", docgen.text_pdf(pages=1).data))
    run_jobs()
    assert result(client, ok)["status"] == "successful"
    e = result(client, enc)
    assert e["status"] == "failure" and "encrypt" in e["error"].lower()
    t = result(client, trunc)
    assert t["status"] == "failure" and t["error"]
