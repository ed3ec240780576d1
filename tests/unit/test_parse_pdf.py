"""Digital PDFs: reading order, block types, headers/footers, page ranges, broken files."""

from __future__ import annotations

import io
import shutil

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from pipelines.core.models import ConversionStatus, DocumentInput
from pipelines.core.requests import ParsingOptions
from pipelines.engine.document import convert
from pipelines.stages import pdf_text
from tests.support.docgen import (
    cer,
    chart_pdf,
    encrypted_pdf,
    form_pdf,
    justified_pdf,
    searchable_scan_pdf,
    structured_pdf,
    text_pdf,
    toc_and_list_pdf,
    two_column_pdf,
    zero_page_pdf,
)
from tests.support.realworld_helpers import fragment_texts


def run(data: bytes, page_range: str | None = None, **opts: object):
    return convert(DocumentInput(data=data, page_range=page_range, parsing=ParsingOptions(**opts)))


def page_text(page) -> str:
    return "\n".join(str(f.content.get("content", "")) for f in page.fragments)


def test_two_column_reading_order_cer() -> None:
    doc = two_column_pdf(seed=11, pages=2)
    r = run(doc.data)
    assert r.status == ConversionStatus.success
    for page, ref in zip(r.pages, doc.pages, strict=True):
        assert cer(page_text(page), ref) <= 0.03
        # the metric does see order: the same fragments in reverse are far off
        backwards = "\n".join(str(f.content["content"]) for f in reversed(page.fragments))
        assert cer(backwards, ref) > 0.3
    # the generator interleaves the columns in the content stream: stream order is far off
    fast = run(doc.data, disable_layout_detection=True)
    assert all(cer(page_text(p), ref) > 0.3 for p, ref in zip(fast.pages, doc.pages))


def test_column_order_is_left_then_right() -> None:
    doc = two_column_pdf(seed=12, pages=1)
    page = run(doc.data).pages[0]
    body = [f for f in page.fragments if f.fragment_type == "text"]
    xs = [f.bbox["x1"] for f in body]
    switch = next(i for i, x in enumerate(xs) if x > 300)
    assert all(x < 300 for x in xs[:switch]) and all(x > 300 for x in xs[switch:])
    ys = [f.bbox["y1"] for f in body[:switch]]
    assert ys == sorted(ys)


def test_headers_footers_page_numbers_moved_out_of_body() -> None:
    doc = text_pdf(seed=13, pages=3)
    r = run(doc.data)
    for page in r.pages:
        kinds = [f.fragment_type for f in page.fragments]
        assert kinds[0] == "page_header" and page.fragments[0].content == {"content": "Field Notes"}
        assert kinds[-1] == "page_number"
        assert page.fragments[-1].content["content"] == f"Page {page.page_number}"
        assert set(kinds[1:-1]) == {"text"}
        assert [f.reading_order for f in page.fragments] == list(range(len(kinds)))
    ignored = run(doc.data, ignore_sections=["page_header", "page_number"])
    assert all(f.fragment_type == "text" for p in ignored.pages for f in p.fragments)


def test_running_header_below_the_margin_found_by_repetition() -> None:
    doc = text_pdf(seed=19, pages=3, header_top=75)  # inside the body band
    r = run(doc.data)
    for page in r.pages:
        assert page.fragments[0].fragment_type == "page_header"
        assert page.fragments[0].content["content"] == "Field Notes"
    single = run(text_pdf(seed=19, pages=1, header_top=75).data)  # nothing to repeat
    assert single.pages[0].fragments[0].fragment_type != "page_header"


def test_rotated_page_boxes_follow_the_display() -> None:
    import io

    import pypdfium2 as pdfium

    src = pdfium.PdfDocument(text_pdf(seed=20, pages=1).data)
    src[0].set_rotation(90)
    buf = io.BytesIO()
    src.save(buf)
    page = run(buf.getvalue()).pages[0]
    assert (page.width, page.height) == (792, 612)
    for f in page.fragments:
        assert 0 <= f.bbox["x1"] < f.bbox["x2"] <= 792 and 0 <= f.bbox["y1"] < f.bbox["y2"] <= 612


def test_geometry_boxes_and_page_size() -> None:
    r = run(structured_pdf().data)
    for page in r.pages:
        assert (page.width, page.height) == (612, 792)
        for f in page.fragments:
            b = f.bbox
            assert b is not None and 0 <= b["x1"] < b["x2"] <= 612 and 0 <= b["y1"] < b["y2"] <= 792
    header = next(f for f in r.pages[0].fragments if f.fragment_type == "page_header")
    assert header.bbox["y1"] < 40  # top-left origin: the running header is near y = 0


def test_section_headers_levels_lists_and_captions() -> None:
    doc = structured_pdf(seed=14)
    r = run(doc.data)
    p1, p2 = r.pages
    heads = [(f.content["content"], f.content["level"]) for f in p1.fragments
             if f.fragment_type == "section_header"]
    assert heads == [("Service Agreement Terms", 1), ("1. Scope of work", 2), ("1.1 Payment terms", 3)]
    items = [f.content["content"] for f in p1.fragments if f.fragment_type == "list_item"]
    assert items == doc.extra["items"]
    caption = next(f for f in p1.fragments if f.fragment_type == "figure_caption")
    assert caption.content["content"] == "Figure 1: Monthly volume by region"
    kinds = [f.fragment_type for f in p1.fragments]
    assert kinds.index("figure") == kinds.index("figure_caption") - 1
    # page 2 holds only a level-3 style header: alone it ranks first, across pages it is third
    assert [f.content["level"] for f in p2.fragments if f.fragment_type == "section_header"] == [1]
    r2 = run(doc.data, cross_page_header_detection=True)
    assert [f.content["level"] for f in r2.pages[1].fragments if f.fragment_type == "section_header"] == [3]


def test_page_range_reads_only_selected_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = pdf_text.read_page

    def spy(doc, index, graphics=True):
        seen.append(index)
        return real(doc, index, graphics)

    monkeypatch.setattr(pdf_text, "read_page", spy)
    doc = text_pdf(seed=15, pages=3)
    r = run(doc.data, page_range="2-1000000000")
    assert [p.page_number for p in r.pages] == [2, 3]
    assert r.total_pages == 3 and seen == [1, 2]
    assert cer(page_text(r.pages[0]), doc.pages[1]) < 0.01


def test_a_failing_page_makes_partial_success(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pdf_text.read_page

    def flaky(doc, index, graphics=True):
        if index == 1:
            raise RuntimeError("boom")
        return real(doc, index, graphics)

    monkeypatch.setattr(pdf_text, "read_page", flaky)
    r = run(text_pdf(seed=16, pages=3).data)
    assert r.status == ConversionStatus.partial_success
    assert [e.page_number for e in r.errors] == [2]
    assert r.parsed_pages_count == 2 and [p.page_number for p in r.pages] == [1, 2, 3]


@pytest.mark.parametrize(("data", "needle"), [
    (encrypted_pdf(), "encrypted"),
    (zero_page_pdf(), "no pages"),
    (text_pdf(pages=2).data[:1500], "damaged or truncated"),
    (b"%PDF-1.7\n" + b"\x00garbage" * 50, "damaged or truncated"),
])
def test_broken_pdfs_fail_with_clear_messages(data: bytes, needle: str) -> None:
    r = run(data)
    assert r.status == ConversionStatus.failure
    assert needle in (r.error_message() or "")


def test_disable_layout_detection_is_plain_text() -> None:
    doc = structured_pdf(seed=17)
    fast = run(doc.data, disable_layout_detection=True)
    kinds = {f.fragment_type for p in fast.pages for f in p.fragments}
    assert kinds == {"text"}
    assert "Service Agreement Terms" in page_text(fast.pages[0])
    assert len(fast.pages[0].fragments) == 1


def test_strikethrough_removed_and_reported() -> None:
    doc = structured_pdf(seed=18)
    kept = run(doc.data)
    assert doc.extra["struck"] in page_text(kept.pages[0])
    assert "strikethrough" not in {f.fragment_type for f in kept.pages[0].fragments}
    r = run(doc.data, remove_strikethrough_lines=True)
    frags = r.pages[0].fragments
    struck = [f for f in frags if f.fragment_type == "strikethrough"]
    assert [f.content["content"] for f in struck] == [doc.extra["struck"]]
    kinds = [f.fragment_type for f in frags]
    assert kinds.index("strikethrough") == kinds.index("figure") - 1  # where it was drawn
    body = "\n".join(f.content["content"] for f in frags if f.fragment_type != "strikethrough")
    assert "withdrawn" not in body


def test_vector_chart_is_one_figure_with_its_labels() -> None:
    doc = chart_pdf(seed=25)
    page = run(doc.data).pages[0]
    kinds = [f.fragment_type for f in page.fragments]
    assert kinds == ["text", "figure", "figure_caption", "text"]
    fig = page.fragments[1]
    assert fig.content["content"] == doc.extra["caption"]
    assert fig.content["text"].split() == doc.extra["labels"]
    x1, y1, x2, y2 = doc.extra["box"]
    b = fig.bbox
    assert abs(b["x1"] - x1) < 3 and abs(b["x2"] - x2) < 3 and abs(b["y1"] - y1) < 3
    assert abs(b["y2"] - y2) < 12  # the axis labels hang below the axis
    body = " ".join(f.content["content"] for f in page.fragments if f.fragment_type == "text")
    assert " ".join(doc.extra["labels"]) not in " ".join(body.split())


@pytest.mark.parametrize("gutter", [8, 10, 14])
def test_narrow_gutters_still_split_columns(gutter: float) -> None:
    doc = two_column_pdf(seed=26, pages=1, gutter=gutter)
    assert cer(page_text(run(doc.data).pages[0]), doc.pages[0]) <= 0.03


@pytest.mark.parametrize("seed", range(4))
def test_justified_text_is_not_cut_into_columns(seed: int) -> None:
    doc = justified_pdf(seed=30 + seed, width=220)
    page = run(doc.data).pages[0]
    assert cer(page_text(page), doc.pages[0]) <= 0.01
    assert len({f.bbox["x1"] for f in page.fragments}) == 1  # every block starts at the margin


def test_hanging_bullets_and_table_of_contents() -> None:
    doc = toc_and_list_pdf(seed=27)
    frags = run(doc.data).pages[0].fragments
    toc = [f for f in frags if f.fragment_type == "document_index"]
    assert toc and all(title in " ".join(f.content["content"] for f in toc)
                       for title, _ in doc.extra["entries"])
    items = [" ".join(f.content["content"].split()) for f in frags if f.fragment_type == "list_item"]
    assert items == doc.extra["items"]


def test_searchable_scan_uses_its_text_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    from pipelines.stages import ocr

    monkeypatch.setattr(ocr, "read_words", lambda *a: pytest.fail("OCR ran on a page with text"))
    doc = searchable_scan_pdf(seed=28)
    page = run(doc.data).pages[0]
    kinds = [f.fragment_type for f in page.fragments]
    assert "figure" not in kinds  # the page-sized scan is a background, not a figure
    body = "\n".join(f.content["content"] for f in page.fragments if f.fragment_type == "text")
    assert cer(body, doc.pages[0]) <= 0.01


def test_unmapped_text_is_garbled() -> None:
    from pipelines.stages.geometry import Word
    from pipelines.stages.pdf import garbled

    def words(text: str) -> list:
        return [Word(t, 0, 0, 1, 1) for t in text.split()]

    assert garbled(words("\ue001\ue002\ue003 \ue004\ue005 \ufffd\ufffd\ufffd \ue010\ue011 ab cd ef gh ij"))
    assert not garbled(words("plain readable words in a line of text, nothing odd here"))
    assert not garbled(words("Ünïcödé façade — “quotes” ½ ﬁne"))


def test_page_range_past_the_end_is_a_clear_failure() -> None:
    r = run(text_pdf(seed=29, pages=2).data, page_range="5-9")
    assert r.status == ConversionStatus.failure
    assert "selects no page of this 2-page document" in (r.error_message() or "")


def test_form_field_values_as_key_value_regions() -> None:
    doc = form_pdf(seed=30)
    frags = run(doc.data).pages[0].fragments
    kv = {f.content["key"]: f.content["value"] for f in frags if f.fragment_type == "key_value_region"}
    assert kv == doc.extra["values"]
    kinds = [f.fragment_type for f in frags]
    # each field follows its label in reading order
    assert kinds == ["text", "key_value_region"] * 3


def test_loose_leading_keeps_paragraphs_whole() -> None:
    doc = justified_pdf(seed=35, width=300, leading=18)  # 6 pt between the lines of a paragraph
    page = run(doc.data).pages[0]
    assert [f.content["content"].replace("\n", " ") for f in page.fragments] == doc.pages[0].split("\n")


def _canvas_pdf(draw) -> bytes:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    draw(c)
    c.save()
    return buf.getvalue()


def test_text_in_drawn_cell_boxes_is_read_not_taken_for_a_figure() -> None:
    """A key/value table drawn as rounded cell boxes (how a browser engine prints an HTML table
    with styled cells) is text and cells, not a picture with its words run together."""
    rows = [("Name:", "Taxiunternehmen TX GmbH"), ("Anschrift:", "Lieferantenstraße 20"),
            ("Währung:", "EUR"), ("Bruttosumme", "18,08")]

    def draw(c):  # type: ignore[no-untyped-def]
        for i, (key, value) in enumerate(rows):
            y = 700 - 26 * i
            c.roundRect(60, y - 8, 200, 24, 3)
            c.roundRect(262, y - 8, 240, 24, 3)
            c.setFont("Helvetica", 8)
            c.drawString(64, y, key)
            c.drawString(266, y, value)

    page = run(_canvas_pdf(draw)).pages[0]
    assert "figure" not in [f.fragment_type for f in page.fragments]
    text = "\n".join(fragment_texts(page.fragments))
    for key, value in rows:
        assert key in text and value in text


def test_a_word_drawn_twice_over_itself_is_read_once() -> None:
    """A box's content drawn twice in the same place (a form XObject placed twice, as some LaTeX
    boxes do; PDFium keeps both copies in its text). A reader sees each word once; the coverage
    invariant does not ask for the double."""

    def draw(c):  # type: ignore[no-untyped-def]
        c.beginForm("box")
        c.setFont("Helvetica", 11)
        c.drawString(60, 700, "Datos del cliente")
        c.endForm()
        c.doForm("box")
        c.setFont("Helvetica", 11)
        c.drawString(60, 680, "Razón social: Talleres Ruiz")
        c.doForm("box")

    page = run(_canvas_pdf(draw)).pages[0]
    assert " ".join(" ".join(fragment_texts(page.fragments)).split()) == "Datos del cliente Razón social: Talleres Ruiz"
    assert not page.warnings


@pytest.mark.skipif(not shutil.which("chromium"), reason="Chromium is not installed")
def test_a_letter_drawn_twice_over_itself_is_read_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Chromium prints a CSS text shadow (Doxygen's member names) as each glyph drawn again a
    fraction of a point below; PDFium keeps both ("ddoouubbllee"). A reader sees "double";
    letters really doubled ("bookkeeper") stay as they are."""
    import subprocess

    html = tmp_path / "shadow.html"
    html.write_text('<html><body style="font-family: sans-serif; font-size: 14px"><p><b style="text-shadow: '
                    '0px 1px 1px rgba(255,255,255,0.9)">double Xapian::termcount bookkeeper</b></p>'
                    "<p>Plain text under the bold line.</p></body></html>")
    subprocess.run(["/usr/bin/chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                    f"--print-to-pdf={tmp_path / 'shadow.pdf'}", str(html)], check=True, capture_output=True, timeout=120)
    page = run((tmp_path / "shadow.pdf").read_bytes()).pages[0]
    assert " ".join(" ".join(fragment_texts(page.fragments)).split()) == \
        "double Xapian::termcount bookkeeper Plain text under the bold line."
    assert not page.warnings


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_the_letters_of_a_ligature_are_not_taken_for_a_doubled_letter(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """LibreOffice sets "ff" as one ligature glyph; PDFium gives each of its letters the
    ligature's box, the same box twice. Both letters stay."""
    import subprocess

    html = tmp_path / "ligatures.html"
    html.write_text('<html><body style="font-family: serif; font-size: 14px">'
                    "<p>The effect of offline office files.</p></body></html>")
    subprocess.run(["soffice", f"-env:UserInstallation=file://{tmp_path / 'profile'}", "--headless",
                    "--infilter=HTML (StarWriter)", "--convert-to", "pdf:writer_pdf_Export", "--outdir", str(tmp_path),
                    str(html)], check=True, capture_output=True, timeout=300)
    page = run((tmp_path / "ligatures.pdf").read_bytes()).pages[0]
    assert " ".join(" ".join(fragment_texts(page.fragments)).split()) == "The effect of offline office files."


def test_double_letters_of_a_line_set_upright_stay() -> None:
    """A line set upright (a table's side heading) gives its letters boxes at one x, each a
    letter higher: "Schools" keeps both o's."""

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 9)
        c.saveState()
        c.translate(40, 300)
        c.rotate(90)
        c.drawString(0, 0, "Vote Yes for Strong Schools")
        c.restoreState()
        c.drawString(80, 300, "Major Contribution Report")

    page = run(_canvas_pdf(draw)).pages[0]
    assert "Schools" in " ".join(fragment_texts(page.fragments)).split()
