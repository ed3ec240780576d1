"""``enrichment_options.key_value_extraction`` as a user meets it: a generated PDF with labelled
values inline, beside, below, in a two-column table and in AcroForm fields, parsed through the
engine with and without the option, the same page scanned (through OCR), a document without boxes,
and the option over HTTP (accepted now, the pairs in the result the SDK reads)."""

from __future__ import annotations

import io

from fastapi.testclient import TestClient
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from api.wire.documents import page_json
from pipelines.core.models import DocumentInput, PageResult
from pipelines.core.requests import EnrichmentOptions, ParsingOptions
from pipelines.engine.document import convert
from pipelines.stages.key_values import union
from tests.support import docgen
from tests.support.helpers import A

W, H = 612, 792
FONT, SIZE = "Helvetica", 10
KV = EnrichmentOptions(key_value_extraction=True)

# what a reader of the page pairs up: (page, key) -> value
PAIRS = {
    (1, "Invoice Number"): "INV-48213",  # inline
    (1, "Order Date"): "12 March 2025",  # inline, the line below
    (1, "Customer ID"): "CU-7731",  # the value beside its label
    (1, "Shipping Address"): "14 Harbour Road, Leeds",  # the value below its label
    (1, "Subtotal"): "1,250.00",  # a two-column key/value table
    (1, "Tax"): "250.00",
    (1, "Total Due"): "1,500.00",
    (1, "Approved By"): "Dana Whitfield",  # an AcroForm text field, its label printed beside it
    (1, "I agree"): "checked",  # an AcroForm checkbox
    (2, "Contract Ref"): "CR-2291",
}
SOURCES = {"Invoice Number": "inline", "Order Date": "inline", "Customer ID": "beside",
           "Shipping Address": "below", "Subtotal": "table", "Tax": "table", "Total Due": "table",
           "Approved By": "form_field", "I agree": "form_field", "Contract Ref": "inline"}


def _text_box(x: float, baseline: float, text: str) -> dict[str, float]:
    """Where ``text`` drawn at ``(x, baseline)`` prints, top-left origin."""
    return {"x1": x, "y1": H - baseline - 0.75 * SIZE, "x2": x + stringWidth(text, FONT, SIZE),
            "y2": H - baseline + 0.2 * SIZE}


def kv_pdf() -> tuple[bytes, dict[str, dict[str, float]]]:
    """The document, and the box of each value's printed text (the form fields': the widget)."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(W, H))
    truth: dict[str, dict[str, float]] = {}

    def say(x: float, baseline: float, text: str, value: str | None = None, key: str | None = None) -> None:
        c.drawString(x, baseline, text)
        if value is not None and key is not None:
            truth[key] = _text_box(x + stringWidth(text[:len(text) - len(value)], FONT, SIZE), baseline, value)

    c.setFont("Helvetica-Bold", 18)
    c.drawString(54, H - 60, "Acme Supplies Ltd")  # a letterhead: no pair
    c.setFont(FONT, SIZE)
    say(54, H - 110, "Invoice Number: INV-48213", "INV-48213", "Invoice Number")
    say(54, H - 126, "Order Date: 12 March 2025", "12 March 2025", "Order Date")
    say(54, H - 170, "Customer ID")
    say(220, H - 170, "CU-7731", "CU-7731", "Customer ID")
    say(54, H - 214, "Shipping Address")
    say(54, H - 228, "14 Harbour Road, Leeds", "14 Harbour Road, Leeds", "Shipping Address")
    x, y, w1, w2, h = 54, H - 280, 140, 120, 20  # a ruled key/value table
    for i, (k, v) in enumerate((("Subtotal", "1,250.00"), ("Tax", "250.00"), ("Total Due", "1,500.00"))):
        say(x + 4, y - h * (i + 1) + 6, k)
        say(x + w1 + 4, y - h * (i + 1) + 6, v, v, k)
    for i in range(4):
        c.line(x, y - h * i, x + w1 + w2, y - h * i)
    for xx in (x, x + w1, x + w1 + w2):
        c.line(xx, y, xx, y - 3 * h)
    say(54, H - 394, "Approved By:")
    c.acroForm.textfield(name="approved_by", value="Dana Whitfield", x=174, y=H - 400, width=200, height=20)
    truth["Approved By"] = {"x1": 174, "y1": 380, "x2": 374, "y2": 400}
    say(54, H - 436, "I agree:")
    c.acroForm.checkbox(name="agree", checked=True, x=174, y=H - 440, size=14)
    truth["I agree"] = {"x1": 174, "y1": 426, "x2": 188, "y2": 440}
    say(54, H - 480, "Signature: ____________________")  # a blank: no pair
    c.setFont("Helvetica-Bold", 13)
    c.drawString(54, H - 520, "Terms")  # a heading over a paragraph: no pair
    c.setFont(FONT, SIZE)
    say(54, H - 538, "Goods remain our property until paid in full. Claims must be made within")
    say(54, H - 551, "seven days of delivery, in writing, quoting the invoice number above.")
    for i, row in enumerate((("Item", "Qty", "Price"), ("Paper A4", "10", "45.00"), ("Toner", "2", "120.00"))):
        for j, cell in enumerate(row):  # a data table: its columns are no pairs
            c.setFont("Helvetica-Bold" if i == 0 else FONT, SIZE)
            c.drawString(54 + 150 * j, H - 590 - 16 * i, cell)
    c.setFont(FONT, SIZE)
    say(54, 60, "Thank you for your business. Payment is expected within thirty days.")
    c.showPage()
    c.setFont(FONT, SIZE)
    say(54, H - 80, "Contract Ref: CR-2291", "CR-2291", "Contract Ref")
    say(54, H - 110, "Please keep this page with your records.")
    c.showPage()
    c.save()
    return buf.getvalue(), truth


def pairs_of(pages: list[PageResult]) -> list[tuple[int, dict]]:
    return [(p.page_number, f.content) for p in pages for f in p.fragments if f.fragment_type == "key_value_region"]


def kv_of(pages: list[PageResult]) -> dict[tuple[int, str], dict]:
    out: dict[tuple[int, str], dict] = {}
    for n, content in pairs_of(pages):
        assert (n, content["key"]) not in out, f"{content['key']!r} twice on page {n}"
        out[(n, content["key"])] = content
    return out


def _inside(box: dict[str, float], page: PageResult) -> bool:
    return 0 <= box["x1"] < box["x2"] <= page.width and 0 <= box["y1"] < box["y2"] <= page.height  # type: ignore[operator]


def test_every_pair_once_with_the_boxes_of_its_key_and_value() -> None:
    data, truth = kv_pdf()
    result = convert(DocumentInput(data=data, enrichment=KV))
    assert result.status == "success", result.errors
    got = kv_of(result.pages)
    assert {k: c["value"] for k, c in got.items()} == PAIRS  # and nothing else: no letterhead, blank,
    assert {k: c["source"] for (_, k), c in got.items()} == SOURCES  # heading or table column
    pages = {p.page_number: p for p in result.pages}
    for (n, key), c in got.items():
        page, want = pages[n], truth[key]
        vb, kb = c["value_bbox"], c["key_bbox"]
        assert c["content"] == f"{key}: {c['value']}"
        assert _inside(vb, page) and _inside(kb, page), key
        # the value's box is around the value's text (a part of a digital line is measured from
        # the line by the characters' widths: within a few points; a table value has its cell's)
        if c["source"] == "table":
            assert vb["x1"] - 2 <= want["x1"] < want["x2"] <= vb["x2"] + 2 <= want["x1"] + 130, (key, vb, want)
        else:
            assert abs(vb["x1"] - want["x1"]) <= 3 and abs(vb["x2"] - want["x2"]) <= 3, (key, vb, want)
        assert vb["y1"] - 2 <= (want["y1"] + want["y2"]) / 2 <= vb["y2"] + 2, (key, vb, want)
        # the key's box is the label's, before (or above) the value
        assert kb["x2"] <= vb["x1"] + 1 or kb["y2"] <= vb["y1"] + 1, (key, kb, vb)
    # a printed pair's region is its key and value; a form field keeps its widget's box
    frags = {(p.page_number, f.content["key"]): f for p in result.pages for f in p.fragments
             if f.fragment_type == "key_value_region"}
    for key in ("Invoice Number", "Customer ID", "Shipping Address", "Subtotal"):
        c = got[(1, key)]
        assert frags[(1, key)].bbox == union(c["key_bbox"], c["value_bbox"])
    assert frags[(1, "Approved By")].bbox == truth["Approved By"]
    assert frags[(1, "Approved By")].content["field_name"] == "approved_by"
    # the new fragments come after the page's own, numbered on
    for p in result.pages:
        assert [f.reading_order for f in p.fragments] == list(range(len(p.fragments)))
    first = result.pages[0].fragments
    added = [f for f in first if f.fragment_type == "key_value_region" and f.content["source"] != "form_field"]
    assert first[-len(added):] == added and [f.content["key"] for f in added] == [
        "Invoice Number", "Order Date", "Customer ID", "Shipping Address", "Subtotal", "Tax", "Total Due"]


def test_the_sdk_reads_the_pairs() -> None:
    from tensorlake.documentai.models import Page

    data, _ = kv_pdf()
    page = convert(DocumentInput(data=data, enrichment=KV)).pages[0]
    sdk = Page.model_validate(page_json(page))
    kv = [f for f in sdk.page_fragments or [] if f.fragment_type.value == "key_value_region"]
    assert [f.content.content for f in kv][-1] == "Total Due: 1,500.00"
    assert all(set(f.bbox or {}) == {"x1", "y1", "x2", "y2"} for f in kv)


def test_without_the_option_nothing_is_added() -> None:
    data, _ = kv_pdf()
    plain = convert(DocumentInput(data=data))
    rich = convert(DocumentInput(data=data, enrichment=KV))
    for p, q in zip(plain.pages, rich.pages, strict=True):
        # the option only adds fragments after the page's own, and labels the form fields
        assert [f.fragment_type for f in q.fragments[:len(p.fragments)]] == [f.fragment_type for f in p.fragments]
        for f, g in zip(p.fragments, q.fragments, strict=False):
            if f.fragment_type != "key_value_region":
                assert f == g
    fields = [f.content for f in plain.pages[0].fragments if f.fragment_type == "key_value_region"]
    assert fields == [{"content": "approved_by: Dana Whitfield", "key": "approved_by", "value": "Dana Whitfield"},
                      {"content": "agree: checked", "key": "agree", "value": "checked"}]
    assert not [f for p in plain.pages[1:] for f in p.fragments if f.fragment_type == "key_value_region"]
    # chunks hold each printed word once either way
    assert [c.content for c in plain.chunks] == [c.content for c in rich.chunks]
    # ignore_sections wins over the option
    none = convert(DocumentInput(data=data, enrichment=KV, parsing=ParsingOptions(ignore_sections=["key_value_region"])))
    assert not pairs_of(none.pages)


def test_a_scanned_page_gives_its_pairs_through_ocr() -> None:
    data, truth = kv_pdf()
    png = docgen.image_bytes(docgen.render_png(data, dpi=200))
    result = convert(DocumentInput(data=png, enrichment=KV))
    page = result.pages[0]
    got = {key: c for (_, key), c in kv_of(result.pages).items()}
    values = {k: c["value"] for k, c in got.items()}
    print(values)
    for key in ("Invoice Number", "Order Date", "Customer ID", "Shipping Address", "Subtotal", "Tax"):
        assert values.get(key) == PAIRS[(1, key)], key
    assert values.get("Total Due", "").endswith("00")  # OCR may misread a digit of it
    assert not {"Terms", "Item", "Acme Supplies Ltd"} & set(values)
    scale = 200 / 72  # page units are the scan's pixels
    for key in ("Invoice Number", "Customer ID", "Subtotal"):
        vb, kb, want = got[key]["value_bbox"], got[key]["key_bbox"], truth[key]
        assert _inside(vb, page) and _inside(kb, page)
        # OCR knows each word's box: the value's box is its words'
        assert abs(vb["x1"] - want["x1"] * scale) <= 12 and abs(vb["x2"] - want["x2"] * scale) <= 12, (key, vb)
        assert vb["y1"] <= (want["y1"] + want["y2"]) / 2 * scale <= vb["y2"], (key, vb)
        assert kb["x2"] < vb["x1"]


def test_a_document_without_boxes_gets_its_pairs_without_boxes() -> None:
    text = b"Delivery note\n\nName: Ada Lovelace\nAccount No: 7731\n\nThe parcel was left at the door.\n"
    result = convert(DocumentInput(data=text, declared_mime_type="text/plain", enrichment=KV))
    got = kv_of(result.pages)
    assert {k: c["value"] for k, c in got.items()} == {(1, "Name"): "Ada Lovelace", (1, "Account No"): "7731"}
    assert all(c["value_bbox"] is None and c["key_bbox"] is None for c in got.values())


def test_the_api_serves_the_option(client: TestClient, run_jobs) -> None:
    data, _ = kv_pdf()
    fid = client.put("/documents/v2/files", files={"file": ("kv.pdf", data)}, headers=A).json()["file_id"]
    r = client.post("/documents/v2/parse", headers=A, json={
        "file_id": fid, "enrichment_options": {"key_value_extraction": True}})
    assert r.status_code == 200, r.text  # refused with a 400 before
    run_jobs()
    res = client.get(f"/documents/v2/parse/{r.json()['parse_id']}", headers=A).json()
    assert res["status"] == "successful", res["error"]
    kv = {(p["page_number"], f["content"]["key"]): f for p in res["pages"] for f in p["page_fragments"]
          if f["fragment_type"] == "key_value_region"}
    assert {k: f["content"]["value"] for k, f in kv.items()} == PAIRS
    inv = kv[(1, "Invoice Number")]
    assert inv["content"]["source"] == "inline" and set(inv["content"]["value_bbox"]) == {"x1", "y1", "x2", "y2"}
    assert inv["bbox"]["x1"] == inv["content"]["key_bbox"]["x1"]
