"""Document stages on text-like formats: fragments, pages, chunking, filters, page ranges."""

from __future__ import annotations

import pytest

from pipelines.core.errors import InvalidPageRange
from pipelines.core.models import ConversionStatus, DocumentInput
from pipelines.core.requests import ParsingOptions
from pipelines.engine.document import convert
from pipelines.stages.detect import detect_mime
from pipelines.stages.pagerange import PageRange, selected_pages

MD = b"""# Annual report

Intro paragraph
spanning two lines.

## Results

- first item
- second item

| name | value |
|------|-------|
| a    | 1     |
| b    | 2     |
\f# Appendix

Closing words.
"""


def run(data: bytes, mime: str | None = None, **opts: object):
    return convert(DocumentInput(data=data, declared_mime_type=mime, parsing=ParsingOptions(**opts)))


def test_markdown_fragments_pages_and_levels() -> None:
    r = run(MD, "text/markdown")
    assert r.status == ConversionStatus.success
    assert r.total_pages == 2
    p1 = r.pages[0]
    assert [f.fragment_type for f in p1.fragments] == [
        "section_header", "text", "section_header", "list_item", "list_item", "table"]
    assert p1.fragments[0].content == {"content": "Annual report", "level": 1}
    assert p1.fragments[2].content["level"] == 2
    assert p1.fragments[1].content["content"] == "Intro paragraph\nspanning two lines."
    assert [f.reading_order for f in p1.fragments] == list(range(6))
    table = p1.fragments[5].content
    assert "<td>b</td><td>2</td>" in table["html"]
    assert table["content"] == table["html"]  # html is the default table_output_mode
    assert [c["text"] for c in table["cells"]] == ["name", "value", "a", "1", "b", "2"]


def test_table_output_mode_markdown() -> None:
    table = run(MD, "text/markdown", table_output_mode="markdown").pages[0].fragments[5].content
    assert table["content"].splitlines()[0] == "| name | value |"
    assert "| b | 2 |" in table["content"]


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("none", [1]),
        ("page", [1, 2]),
        ("section", [1, 1, 2]),
        ("fragment", [1] * 6 + [2, 2]),
    ],
)
def test_chunking_strategies(strategy: str, expected: list[int]) -> None:
    r = run(MD, "text/markdown", chunking_strategy=strategy)
    assert [c.page_number for c in r.chunks] == expected
    assert "Closing words." in r.chunks[-1].content
    if strategy == "section":
        assert r.chunks[1].content.startswith("## Results")
        assert "- first item" in r.chunks[1].content


def test_ignore_sections_drops_types_and_renumbers() -> None:
    r = run(MD, "text/markdown", ignore_sections=["list_item", "table"])
    types = [f.fragment_type for f in r.pages[0].fragments]
    assert "list_item" not in types and "table" not in types
    assert [f.reading_order for f in r.pages[0].fragments] == list(range(len(types)))


def test_html_structure() -> None:
    html = b"""<!doctype html><html><head><title>T</title><style>p{}</style></head><body>
    <header>Site header</header><h2>Section</h2><p>Para <b>bold</b> text.</p>
    <ul><li>one</li><li>two</li></ul><table><caption>Prices</caption><tr><th>k</th><th>v</th></tr>
    <tr><td>x</td><td>1</td></tr></table><script>alert(1)</script><footer>foot</footer></body></html>"""
    r = run(html)
    frags = r.pages[0].fragments
    assert [f.fragment_type for f in frags] == [
        "page_header", "section_header", "text", "list_item", "list_item", "table_caption", "table",
        "page_footer"]
    assert frags[2].content["content"] == "Para bold text."
    assert all("alert" not in str(f.content) for f in frags)


def test_plain_text_paragraphs_and_form_feed_pages() -> None:
    r = run(b"first para\n\nsecond para\fthird", "text/plain")
    assert [[f.content["content"] for f in p.fragments] for p in r.pages] == [
        ["first para", "second para"], ["third"]]


def test_page_range_selects_pages() -> None:
    r = run(b"one\ftwo\fthree\ffour", "text/plain", chunking_strategy="page")
    assert r.total_pages == 4
    r2 = convert(DocumentInput(data=b"one\ftwo\fthree\ffour", declared_mime_type="text/plain",
                               page_range="2,4", parsing=ParsingOptions(chunking_strategy="page")))
    assert [p.page_number for p in r2.pages] == [2, 4]
    assert [c.content for c in r2.chunks] == ["two", "four"]
    assert r2.parsed_pages_count == 2 and r2.total_pages == 4


def test_page_range_parsing_never_expands() -> None:
    pr = PageRange.parse("1-5, 8,10-")
    assert pr is not None
    assert pr.spans == ((1, 5), (8, 8), (10, 1_000_000_000))
    assert 999_999_999 in pr and 7 not in pr
    assert list(selected_pages("2-1000000000", 3)) == [2, 3]
    for bad in ("0", "5-3", "a-b", "1,,2", "-3"):
        with pytest.raises(InvalidPageRange):
            PageRange.parse(bad)


def test_empty_and_unsupported_documents_fail_cleanly() -> None:
    empty = run(b"   \n", "text/plain")
    assert empty.status == ConversionStatus.failure
    assert "empty" in (empty.error_message() or "")
    binary = run(bytes(range(256)) * 10)
    assert binary.status == ConversionStatus.failure
    assert "unsupported" in (binary.error_message() or "")


def test_detect_mime_from_content() -> None:
    assert detect_mime(b"%PDF-1.7\n...") == "application/pdf"
    assert detect_mime(b"\x89PNG\r\n\x1a\n" + b"\0" * 32) == "image/png"
    assert detect_mime(b"<!DOCTYPE html><html>") == "text/html"
    assert detect_mime(b"# title", "notes.md") == "text/markdown"
    assert detect_mime(b"a,b\n1,2", "t.csv") == "text/csv"
    assert detect_mime(b"just words") == "text/plain"
    assert detect_mime(b"\x00\x01\x02\x03garbage") == "application/octet-stream"


def test_a_zip_with_a_huge_directory_is_not_inspected(tmp_path) -> None:
    import io
    import time
    import zipfile

    from pipelines.stages.detect import DOCX, detect_file

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("word/document.xml", "<w/>")
        for i in range(20_000):
            zf.writestr(f"junk/{i}", b"")
    path = tmp_path / "bomb.docx"
    path.write_bytes(buf.getvalue())
    t0 = time.monotonic()
    assert detect_file(str(path), "bomb.docx") == "application/zip"
    assert time.monotonic() - t0 < 0.5
    small = io.BytesIO()
    with zipfile.ZipFile(small, "w") as zf:
        zf.writestr("word/document.xml", "<w/>")
    (tmp_path / "ok.docx").write_bytes(small.getvalue())
    assert detect_file(str(tmp_path / "ok.docx")) == DOCX
    assert detect_mime(small.getvalue()) == DOCX
