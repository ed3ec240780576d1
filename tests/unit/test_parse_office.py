"""DOCX, PPTX, XLSX and CSV: pages, fragment types and tables."""

from __future__ import annotations

import base64

from pipelines.core.models import ConversionStatus, DocumentInput
from pipelines.core.requests import ParsingOptions
from pipelines.engine.document import convert
from pipelines.stages.text import table_fragment
from tests.support.docgen import cell_accuracy, docx_doc, pptx_doc, xlsx_doc


def run(data: bytes, page_range: str | None = None, **opts: object):
    return convert(DocumentInput(data=data, page_range=page_range, parsing=ParsingOptions(**opts)))


def rows_of(frag) -> list[list[str]]:
    cells = [c["text"] for c in frag.content["cells"]]
    width = frag.content["html"].split("</tr>")[0].count("<th>")
    return [cells[i:i + width] for i in range(0, len(cells), width)]


def test_docx_page_breaks_headings_lists_tables() -> None:
    doc = docx_doc(seed=61)
    r = run(doc.data)
    assert r.status == ConversionStatus.success and r.total_pages == 2
    p1, p2 = r.pages
    kinds = [f.fragment_type for f in p1.fragments]
    assert kinds == ["section_header", "text", "section_header", "list_item", "list_item", "table",
                     "figure"]
    assert [f.content["level"] for f in p1.fragments if f.fragment_type == "section_header"] == [1, 2]
    assert [f.content["content"] for f in p1.fragments if f.fragment_type == "list_item"] == doc.extra["items"]
    assert cell_accuracy(rows_of(p1.fragments[5]), doc.tables[0]) == 1.0
    assert "image_base64" not in p1.fragments[6].content
    fig = run(doc.data, include_images=True).pages[0].fragments[6].content
    assert fig["image_mime_type"] == "image/png"
    assert base64.b64decode(fig["image_base64"]).startswith(b"\x89PNG")
    assert [f.content["content"] for f in p2.fragments] == [doc.pages[1]]
    only2 = run(doc.data, page_range="2")
    assert [p.page_number for p in only2.pages] == [2]


def test_pptx_slides_are_pages_with_boxes() -> None:
    doc = pptx_doc(seed=62)
    r = run(doc.data, table_output_mode="markdown")
    assert r.total_pages == 3
    for page, title in zip(r.pages, doc.extra["titles"]):
        assert (page.width, page.height) == (720, 540)
        heads = [f.content["content"] for f in page.fragments if f.fragment_type == "section_header"]
        assert heads == [title]
        assert all(f.bbox and f.bbox["x2"] <= 720 for f in page.fragments)
    assert [f.content["content"] for p in r.pages[:2] for f in p.fragments
            if f.fragment_type == "list_item"] == doc.extra["bodies"]
    table = next(f for f in r.pages[2].fragments if f.fragment_type == "table")
    assert [f.fragment_type for f in r.pages[2].fragments][-1] == "figure"
    pic = run(doc.data, include_images=True).pages[2].fragments[-1].content
    assert base64.b64decode(pic["image_base64"]).startswith(b"\x89PNG")
    assert table.content["content"].startswith("| ")
    assert cell_accuracy(rows_of(table), doc.tables[0]) == 1.0


def test_xlsx_sheets_are_pages() -> None:
    doc = xlsx_doc(seed=63)
    r = run(doc.data)
    assert r.total_pages == 2
    for page, ref, name in zip(r.pages, doc.tables, ["Sheet1", "Sheet2"]):
        assert page.fragments[0].content == {"content": name, "level": 1}
        assert cell_accuracy(rows_of(page.fragments[1]), ref) == 1.0
    r2 = run(doc.data, page_range="2")
    assert [p.page_number for p in r2.pages] == [2] and r2.total_pages == 2


def test_csv_is_one_table() -> None:
    r = convert(DocumentInput(data=b"a,b\n1,2\n3,4\n", file_name="t.csv"))
    assert [f.fragment_type for f in r.pages[0].fragments] == ["table"]
    assert r.pages[0].fragments[0].content["html"] == table_fragment(
        [["a", "b"], ["1", "2"], ["3", "4"]], "html").content["html"]


def test_broken_office_file_fails_cleanly() -> None:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("word/document.xml", "<not-really/>")
    r = run(buf.getvalue())
    assert r.status == ConversionStatus.failure and "DOCX cannot be read" in (r.error_message() or "")
