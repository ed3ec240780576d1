"""Barcodes, signatures, strike-through and embedded images, on digital and scanned pages."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

from pipelines.core.models import DocumentInput
from pipelines.core.requests import ParsingOptions
from pipelines.engine.document import convert
from tests.support.docgen import (
    image_bytes,
    render_png,
    scanify,
    structured_pdf,
    tables_pdf,
    text_pdf,
    two_column_pdf,
)

MARKS = {"barcode_detection": True, "signature_detection": True, "remove_strikethrough_lines": True}


def run(data: bytes, **opts: object):
    return convert(DocumentInput(data=data, parsing=ParsingOptions(**opts)))


def of_type(result, kind: str) -> list:
    return [f for p in result.pages for f in p.fragments if f.fragment_type == kind]


@pytest.fixture(scope="module")
def agreement():
    doc = structured_pdf(seed=51)
    scan = image_bytes(scanify(render_png(doc.data, 0), 1.8, seed=7))
    return doc, {"digital": run(doc.data, **MARKS), "scan": run(scan, **MARKS)}


@pytest.mark.parametrize("source", ["digital", "scan"])
def test_barcodes_values_formats_boxes(agreement, source: str) -> None:
    doc, results = agreement
    codes = {f.content["value"]: f for f in of_type(results[source], "barcode")}
    assert set(codes) == {doc.extra["qr"], doc.extra["code128"]}
    assert codes[doc.extra["qr"]].content["format"] == "QR Code"
    assert codes[doc.extra["code128"]].content["format"] == "Code 128"
    qr = codes[doc.extra["qr"]].bbox
    page = results[source].pages[0]
    assert qr["x1"] > page.width / 2 and qr["y1"] > page.height / 2  # bottom right of the page


@pytest.mark.parametrize("source", ["digital", "scan"])
def test_signature_found_where_it_is(agreement, source: str) -> None:
    _, results = agreement
    sigs = of_type(results[source], "signature")
    assert len(sigs) == 1
    page = results[source].pages[0]
    b = sigs[0].bbox
    assert b["x2"] < page.width / 2 and b["y1"] > page.height * 0.75  # bottom left


@pytest.mark.parametrize("source", ["digital", "scan"])
def test_strikethrough_reported_not_in_body(agreement, source: str) -> None:
    doc, results = agreement
    struck = of_type(results[source], "strikethrough")
    assert len(struck) == 1
    words = doc.extra["struck"].split()
    got = struck[0].content["content"].split()
    assert sum(a == b for a, b in zip(got, words)) >= len(words) - 2
    body = " ".join(f.content["content"] for p in results[source].pages for f in p.fragments
                    if f.fragment_type in ("text", "section_header", "list_item"))
    assert "withdrawn" not in body


def test_no_marks_on_plain_pages() -> None:
    for doc in (text_pdf(seed=52, pages=1), two_column_pdf(seed=53, pages=1), tables_pdf(seed=54)):
        for data in (doc.data, image_bytes(scanify(render_png(doc.data, 0), -2.0, seed=1))):
            r = run(data, **MARKS)
            kinds = {f.fragment_type for p in r.pages for f in p.fragments}
            assert not kinds & {"barcode", "signature", "strikethrough"}


def test_options_off_means_no_marks() -> None:
    r = run(structured_pdf(seed=55).data)
    kinds = {f.fragment_type for p in r.pages for f in p.fragments}
    assert not kinds & {"barcode", "signature", "strikethrough"}


def test_include_images_embeds_figure_png() -> None:
    doc = structured_pdf(seed=56)
    plain = of_type(run(doc.data), "figure")
    assert len(plain) == 1 and "image_base64" not in plain[0].content
    fig = of_type(run(doc.data, include_images=True), "figure")[0]
    assert fig.content["content"] == "Figure 1: Monthly volume by region"
    img = Image.open(io.BytesIO(base64.b64decode(fig.content["image_base64"]))).convert("RGB")
    w = fig.bbox["x2"] - fig.bbox["x1"]
    assert img.width == pytest.approx(w * 200 / 72, rel=0.05)
    # the chart's blue bars are in the crop
    px = np.asarray(img)
    assert ((px[..., 2] > 150) & (px[..., 0] < 100)).any()


def test_full_page_image_for_digital_pages() -> None:
    from pipelines.core.requests import EnrichmentOptions

    doc = structured_pdf(seed=57)
    r = convert(DocumentInput(data=doc.data, page_range="2",
                              enrichment=EnrichmentOptions(include_full_page_image=True)))
    assert [p.page_number for p in r.pages] == [2]
    img = Image.open(io.BytesIO(base64.b64decode(r.pages[0].page_image)))
    assert img.format == "PNG"
    assert img.width / img.height == pytest.approx(612 / 792, rel=0.01)
    assert run(doc.data).pages[0].page_image is None


def test_oversized_pages_render_at_a_lower_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    from pipelines.stages import images

    doc = structured_pdf(seed=58)
    full = {f.content["value"]: f.bbox for f in of_type(run(doc.data, barcode_detection=True), "barcode")}
    monkeypatch.setattr(images, "MAX_RENDER_PIXELS", 2_500_000)  # 200 dpi letter is 3.7 MP
    small = {f.content["value"]: f.bbox for f in of_type(run(doc.data, barcode_detection=True), "barcode")}
    assert doc.extra["qr"] in small
    a, b = full[doc.extra["qr"]], small[doc.extra["qr"]]
    assert all(abs(a[k] - b[k]) < 3 for k in a)  # boxes stay in page units
