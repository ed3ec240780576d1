"""Scanned PDFs and image files: deskew, OCR quality, engines, formats, limits."""

from __future__ import annotations

import base64
import io
import statistics

import pytest
from PIL import Image

from pipelines.core.models import ConversionStatus, DocumentInput
from pipelines.core.requests import EnrichmentOptions, ParsingOptions
from pipelines.engine.document import convert
from pipelines.stages import images, ocr, orientation
from pipelines.stages.tables import table_rows
from tests.support.docgen import (
    cell_accuracy,
    cer,
    chart_pdf,
    image_bytes,
    images_pdf,
    render_png,
    scanify,
    tables_pdf,
    text_pdf,
)


def run(data: bytes, page_range: str | None = None, enrichment: EnrichmentOptions | None = None,
        **opts: object):
    return convert(DocumentInput(data=data, page_range=page_range, parsing=ParsingOptions(**opts),
                                 enrichment=enrichment or EnrichmentOptions()))


def page_text(page) -> str:
    return "\n".join(page_text_of(f) for f in page.fragments)


def page_text_of(fragment) -> str:
    return str(fragment.content.get("content", ""))


@pytest.fixture(scope="module")
def scans():
    doc = text_pdf(seed=41, pages=2)
    skews = [2.5, -3.0]
    imgs = [scanify(render_png(doc.data, i), a, seed=i) for i, a in enumerate(skews)]
    return doc, skews, imgs


def test_scanned_pdf_ocr_cer_and_skew(scans) -> None:
    doc, skews, imgs = scans
    r = run(images_pdf(imgs), skew_detection=True)
    assert r.status == ConversionStatus.success and r.total_pages == 2
    cers = [cer(page_text(p), ref) for p, ref in zip(r.pages, doc.pages, strict=True)]
    assert statistics.median(cers) <= 0.005, cers
    for page, skew in zip(r.pages, skews):
        assert page.skew_angle == pytest.approx(skew, abs=0.3)
        assert page.width and 600 < page.width < 700  # points: the scan's page size
        kinds = [f.fragment_type for f in page.fragments]
        assert kinds[0] == "page_header" and kinds[-1] == "page_number"
    # without skew_detection the page is still deskewed, the angle is just not reported
    quiet = run(image_bytes(imgs[0]))
    assert quiet.pages[0].skew_angle is None
    assert cer(page_text(quiet.pages[0]), doc.pages[0]) <= 0.01


def test_sideways_pages_are_turned_upright_and_skew_detection_reports_the_angle(scans) -> None:
    doc, skews, imgs = scans
    sideways = imgs[0].rotate(90, expand=True, fillcolor=255)
    plain = run(image_bytes(sideways))  # default options: read all the same
    assert (plain.pages[0].width, plain.pages[0].height) == imgs[0].size
    assert cer(page_text(plain.pages[0]), doc.pages[0]) <= 0.01
    r = run(image_bytes(sideways), skew_detection=True)
    page = r.pages[0]
    assert page.skew_angle == pytest.approx(90 + skews[0], abs=0.3)
    assert (page.width, page.height) == imgs[0].size  # upright again
    assert cer(page_text(page), doc.pages[0]) <= 0.01


def test_png_page_units_are_pixels_and_words_keep_boxes(scans) -> None:
    _, _, imgs = scans
    r = run(image_bytes(imgs[0]))
    page = r.pages[0]
    assert (page.width, page.height) == imgs[0].size
    for f in page.fragments:
        assert 0 <= f.bbox["x1"] < f.bbox["x2"] <= page.width
        assert 0 <= f.bbox["y1"] < f.bbox["y2"] <= page.height
    words = ocr.tesseract_words(images.to_gray(imgs[0]))
    assert len(words) > 100 and all(w.x2 > w.x1 and w.y2 > w.y1 for w in words)
    # the output keeps them: every OCR'd text fragment lists its words, each inside the fragment
    texts = [f for f in page.fragments if f.fragment_type == "text"]
    assert texts
    for f in texts:
        ws = f.content["words"]
        assert " ".join(w["text"] for w in ws).split() == f.content["content"].split()
        for w in ws:
            b = w["bbox"]
            assert f.bbox["x1"] - 1 <= b["x1"] < b["x2"] <= f.bbox["x2"] + 1
            assert f.bbox["y1"] - 1 <= b["y1"] < b["y2"] <= f.bbox["y2"] + 1
    digital = run(text_pdf(pages=1).data)
    assert all("words" not in f.content for f in digital.pages[0].fragments)


def test_multipage_tiff_respects_page_range(scans, monkeypatch: pytest.MonkeyPatch) -> None:
    doc, _, imgs = scans
    buf = io.BytesIO()
    imgs[0].save(buf, "TIFF", save_all=True, append_images=[imgs[1], imgs[0]], compression="tiff_lzw")
    calls: list[int] = []  # each page read turns upright first, and that reading is its OCR
    real = orientation.upright
    monkeypatch.setattr(orientation, "upright", lambda gray, raw: calls.append(1) or real(gray, raw))
    r = run(buf.getvalue(), page_range="2")
    assert r.total_pages == 3 and [p.page_number for p in r.pages] == [2] and len(calls) == 1
    assert cer(page_text(r.pages[0]), doc.pages[1]) <= 0.01


@pytest.mark.parametrize("fmt", ["JPEG", "WEBP"])
def test_jpeg_and_webp(scans, fmt: str) -> None:
    doc, _, imgs = scans
    r = run(image_bytes(imgs[0].convert("RGB"), fmt, quality=90))
    assert r.status == ConversionStatus.success
    assert cer(page_text(r.pages[0]), doc.pages[0]) <= 0.02


def test_scanned_table_cells() -> None:
    doc = tables_pdf(seed=42)
    r = run(image_bytes(scanify(render_png(doc.data), 1.5, seed=3)))
    found = [f for f in r.pages[0].fragments if f.fragment_type == "table"]
    assert len(found) == 2
    for frag, ref in zip(found, doc.tables):
        assert cell_accuracy(table_rows(frag), ref) >= 0.85


def test_decompression_bomb_fails_cleanly() -> None:
    side = int((images.MAX_PIXELS * 1.2) ** 0.5)
    buf = io.BytesIO()
    Image.new("1", (side, side)).save(buf, "PNG")  # tiny file, huge image
    assert len(buf.getvalue()) < 2_000_000
    r = run(buf.getvalue())
    assert r.status == ConversionStatus.failure
    assert "pixel limit" in (r.error_message() or "")


def test_corrupt_image_fails_cleanly() -> None:
    r = run(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    assert r.status == ConversionStatus.failure and "cannot be read" in (r.error_message() or "")


def test_full_page_image_on_request(scans) -> None:
    _, _, imgs = scans
    plain = run(image_bytes(imgs[0]))
    assert plain.pages[0].page_image is None
    r = run(image_bytes(imgs[0]), enrichment=EnrichmentOptions(include_full_page_image=True))
    img = Image.open(io.BytesIO(base64.b64decode(r.pages[0].page_image)))
    assert img.format == "PNG" and max(img.size) >= 1000


def test_ocr_model_mapping() -> None:
    assert ocr.engine_for(None) == "tesseract"
    assert ocr.engine_for("model01") == "tesseract"
    assert ocr.engine_for("model02") == "rapidocr"
    assert ocr.engine_for("gemini3") == "tesseract"


def test_rapidocr_engine_reads_a_page(scans) -> None:
    doc, _, imgs = scans
    crop = imgs[0].crop((0, 0, imgs[0].width, imgs[0].height // 3))  # keep it quick
    r = run(image_bytes(crop), ocr_model="model02")
    text = page_text(r.pages[0])
    ref_words = set(doc.pages[0].split()[:20])
    assert len(ref_words & set(text.split())) >= 0.7 * len(ref_words)


def test_figures_on_scans_with_labels_and_image() -> None:
    doc = chart_pdf(seed=43)
    img = scanify(render_png(doc.data), 1.5, seed=4)
    r = run(image_bytes(img), include_images=True)
    frags = r.pages[0].fragments
    kinds = [f.fragment_type for f in frags]
    assert kinds.count("figure") == 1 and kinds.index("figure") == kinds.index("figure_caption") - 1
    fig = frags[kinds.index("figure")]
    assert fig.content["content"] == doc.extra["caption"]
    assert fig.content["text"].split() == doc.extra["labels"]
    crop = Image.open(io.BytesIO(base64.b64decode(fig.content["image_base64"])))
    assert crop.width > 500  # the chart at 200 dpi, not a sliver
    body = " ".join(f.content["content"] for f in frags if f.fragment_type == "text")
    assert " ".join(doc.extra["labels"]) not in body
    for plain in (text_pdf(seed=44, pages=1), tables_pdf(seed=45)):
        page = run(image_bytes(scanify(render_png(plain.data), -2.0, seed=5))).pages[0]
        assert "figure" not in {f.fragment_type for f in page.fragments}


def test_blank_page_is_an_empty_page_not_an_error() -> None:
    r = run(image_bytes(Image.new("RGB", (400, 400), "white")))
    assert r.status == ConversionStatus.success and r.errors == []
    assert [(p.page_number, p.fragments) for p in r.pages] == [(1, [])]


def test_a_receipt_photographed_at_an_angle_keeps_its_lines_and_rows() -> None:
    """A receipt photographed at an angle: its top lines tilt up, its bottom lines down, so no
    single deskew straightens it. Each line the OCR engine found stays one line, and each
    label meets its own amount across the gap, not the one of the row above or below."""
    import numpy as np
    from reportlab.pdfgen import canvas

    rows = [("KEDAI RUNCIT MAJU JAYA SDN BHD", ""), ("NO. 12, JALAN MERANTI 3,", ""), ("TAMAN SRI MUDA,", ""),
            ("40400 SHAH ALAM, SELANGOR", ""), ("TEL: 03-5121 3881", ""), ("CASH BILL", ""),
            ("SUGAR 1KG", "5.60"), ("COOKING OIL 2L", "12.90"), ("FLOUR 1KG", "2.75"), ("SUBTOTAL", "21.25"),
            ("GST 6%", "1.28"), ("TOTAL", "22.53"), ("CASH", "50.00"), ("CHANGE", "27.47")]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(260, 330))
    c.setFont("Courier-Bold", 10)
    for k, (label, amount) in enumerate(rows):
        c.drawString(14, 310 - 21 * k, label)
        if amount:
            c.drawRightString(246, 310 - 21 * k, amount)
    c.save()
    img = render_png(buf.getvalue()).convert("L")
    w, h = img.size
    d = 0.12 * h  # the right edge nearer the camera than the left
    src, dst = [(0, 0), (w, 0), (w, h), (0, h)], [(0, d), (w, 0), (w, h), (0, h - d)]
    eq = []
    for (x, y), (u, v) in zip(dst, src):
        eq += [[x, y, 1, 0, 0, 0, -u * x, -u * y], [0, 0, 0, x, y, 1, -v * x, -v * y]]
    coeffs = np.linalg.solve(np.array(eq, float), np.array([p for q in src for p in q], float))
    photo = img.transform((w, h), Image.PERSPECTIVE, coeffs.tolist(), Image.BICUBIC, fillcolor=255)
    lines = page_text(run(image_bytes(photo), ocr_model="model02").pages[0]).splitlines()
    for label, amount in rows:
        assert f"{label} {amount}".strip() in lines


def test_an_amount_ocr_split_at_its_point_is_one_word_again() -> None:
    """Dot-matrix printers give the decimal point a whole cell: "73." and "00" come apart."""
    def w(text: str, x1: float, x2: float, line: int = 0) -> ocr.Word:
        return ocr.Word(text, x1, 100, x2, 125, 25, line=line)

    words = [w("TOTAL", 300, 380), w("RM", 470, 505), w("73.", 517, 561), w("00", 575, 609)]
    assert [x.text for x in ocr.joined_decimals(words)] == ["TOTAL", "RM", "73.00"]
    assert ocr.joined_decimals(words)[-1].x2 == 609
    last = [w("Sub", 100, 150), w("Total", 160, 240), w("68.", 650, 688), w("87", 702, 730), w("SR", 100, 130, line=1)]
    assert [x.text for x in ocr.joined_decimals(last)] == ["Sub", "Total", "68.87", "SR"]  # last on its line
    # not across lines, not over a column gap, not a date set with spaces, not three digits
    apart = [[w("73.", 517, 561), w("00", 575, 609, line=1)], [w("73.", 517, 561), w("00", 640, 674)],
             [w("12.", 100, 125), w("03.", 135, 160), w("2024", 170, 220)],
             [w("3.", 100, 112), w("100", 122, 160)],
             [w("Lot", 40, 80), w("38.", 90, 125), w("39", 135, 160), w("Boulevard", 170, 290)]]
    for case in apart:
        assert len(ocr.joined_decimals(case)) == len(case)


def test_a_slip_photographed_on_a_dark_table_is_read_as_text_not_as_a_picture() -> None:
    """The table's wood around a photographed slip is no picture: the slip's lines stay text
    (they were read as one figure's label, or cut where the wood met the paper)."""
    import numpy as np
    from reportlab.pdfgen import canvas

    rows = [("MAIN STREET RESTAURANT", ""), ("6332 BUSINESS DRIVE", ""), ("PALO ALTO CA 94301", ""),
            ("MERCHANT ID:", "9HQJXVUFDR"), ("SUB TOTAL", "25.23"), ("TIP:", "3.78"), ("TOTAL", "29.01")]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(260, 200))
    c.setFont("Courier-Bold", 10)
    for k, (label, amount) in enumerate(rows):  # the shop's lines centred, labels and amounts apart
        if amount:
            c.drawString(14, 180 - 24 * k, label)
            c.drawRightString(246, 180 - 24 * k, amount)
        else:
            c.drawCentredString(130, 180 - 24 * k, label)
    c.save()
    slip = render_png(buf.getvalue()).convert("L")
    rng = np.random.default_rng(3)
    w, h = slip.size
    grain = 70 + 40 * np.sin(np.arange(w + 400)[None, :] / 9.0) + rng.normal(0, 18, (h + 300, w + 400))
    table = Image.fromarray(np.clip(grain, 0, 255).astype(np.uint8))
    table.paste(slip, (200, 150))
    page = run(image_bytes(table)).pages[0]
    lines = [line for f in page.fragments if f.fragment_type != "table" for line in page_text_of(f).splitlines()]
    for f in page.fragments:  # a table's rows, their cells left to right
        if f.fragment_type == "table":
            cells = sorted(f.content["cells"], key=lambda c: (c["row"], c["column"]))
            lines += [" ".join(c["text"] for c in cells if c["row"] == r) for r in range(f.content["rows"])]
    for label, amount in rows:
        assert f"{label} {amount}".strip() in lines  # each amount beside its label
    assert not [f for f in page.fragments if f.fragment_type == "figure"]


def test_full_width_punctuation_on_a_latin_line_reads_as_ascii() -> None:
    """rapidocr's Chinese-trained model reads a colon or brackets on a Latin line full width."""
    assert ocr._latin_forms("Date ：07/05/2024 （M）") == "Date :07/05/2024 (M)"
    assert ocr._latin_forms("合计：12.00") == "合计：12.00"  # a Chinese line keeps its own
