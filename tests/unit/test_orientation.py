"""Scanned pages turned a quarter turn, a half turn or three quarters are found and read
(``skew_detection``), as PNG files and as image-only PDF pages; upright pages stay as they are."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from pipelines.core.models import ConversionStatus, DocumentInput
from pipelines.core.requests import ParsingOptions
from pipelines.engine.document import convert
from pipelines.stages import ocr, orientation
from pipelines.stages.images import despeckle, to_gray
from tests.support.docgen import image_bytes, images_pdf, render_png, scanify, text_pdf
from tests.support.realworld_helpers import fragment_texts, word_recall

SKEW = 0.6  # a little skew on top of the turn, as a real scan has


def run(data: bytes, **opts: object):
    return convert(DocumentInput(data=data, parsing=ParsingOptions(**opts)))


def recall(page, reference: str) -> float:
    return word_recall(reference, fragment_texts(page.fragments))[0]


def off_by(angle: float, expected: float) -> float:
    """The difference of two angles in degrees, in (-180, 180]."""
    return (angle - expected + 180) % 360 - 180


@pytest.fixture(scope="module")
def page():
    doc = text_pdf(seed=81, pages=1)
    img = scanify(render_png(doc.data, 0), SKEW, noise=0.02, seed=81)
    return doc.pages[0], img


@pytest.mark.parametrize("turn", [90, 180, 270])
@pytest.mark.parametrize("container", ["png", "pdf"])
def test_turned_page_is_read(page, turn: int, container: str) -> None:
    ref, img = page
    scan = img.rotate(turn, expand=True, fillcolor=255)  # counter-clockwise, as a page fed turned
    data = image_bytes(scan) if container == "png" else images_pdf([scan])
    r = run(data, skew_detection=True)
    assert r.status == ConversionStatus.success
    got = r.pages[0]
    assert recall(got, ref) >= 0.95
    assert off_by(got.skew_angle, turn + SKEW) == pytest.approx(0, abs=0.3)
    assert got.width < got.height  # portrait again: boxes refer to the page turned upright
    for f in got.fragments:
        assert 0 <= f.bbox["x1"] < f.bbox["x2"] <= got.width + 1
        assert 0 <= f.bbox["y1"] < f.bbox["y2"] <= got.height + 1


def test_upright_page_is_not_turned(page, monkeypatch: pytest.MonkeyPatch) -> None:
    ref, img = page
    reads: list[int] = []
    real = ocr.tesseract_reading
    monkeypatch.setattr(ocr, "tesseract_reading", lambda im: reads.append(1) or real(im))
    r = run(image_bytes(img), skew_detection=True)
    got = r.pages[0]
    assert got.skew_angle == pytest.approx(SKEW, abs=0.3)
    assert (got.width, got.height) == img.size
    assert recall(got, ref) >= 0.95
    assert len(reads) == 1  # the page is read once: orientation's reading is the page's
    plain = run(image_bytes(img))  # without skew_detection: the same words, no angle reported
    assert plain.pages[0].skew_angle is None and recall(plain.pages[0], ref) >= 0.95


def test_orientation_found_when_osd_is_unsure_or_wrong(page, monkeypatch: pytest.MonkeyPatch) -> None:
    _, img = page
    gray = img.rotate(270, expand=True, fillcolor=255)
    for answer in (None, (90, 0.8)):  # cannot tell; unsure and wrong
        monkeypatch.setattr(ocr, "osd", lambda im, a=answer: a)
        up = orientation.upright(gray)
        assert (up.turn, up.how) == (270, "tried")
        assert orientation.reads_upright(up.reading)


def test_osd_sure_of_a_wrong_turn_loses_to_the_page_as_scanned(page, monkeypatch: pytest.MonkeyPatch) -> None:
    _, img = page
    monkeypatch.setattr(ocr, "osd", lambda im: (180, 9.0))
    assert orientation.upright(img).turn == 0


@pytest.mark.parametrize("kind", ["blank", "noise"])
def test_page_without_text_is_not_turned(kind: str) -> None:
    rng = np.random.default_rng(5)
    if kind == "blank":
        img = Image.new("L", (800, 1000), 255)
    else:  # a photo-like page: blobs, no letters
        img = Image.fromarray((rng.random((100, 80)) * 255).astype("uint8")).resize((800, 1000))
    up = orientation.upright(img)
    assert up.turn == 0
    for data in (image_bytes(img), images_pdf([img])):
        r = run(data, skew_detection=True)
        assert r.status == ConversionStatus.success and r.errors == []
        assert abs(r.pages[0].skew_angle) < 20


def test_other_engine_reads_the_page_turned_upright(page, monkeypatch: pytest.MonkeyPatch) -> None:
    _, img = page
    seen: list[tuple[int, int]] = []
    monkeypatch.setattr(ocr, "rapidocr_words", lambda im: seen.append(im.size) or [])
    r = run(image_bytes(img.rotate(90, expand=True, fillcolor=255)), skew_detection=True, ocr_model="model02")
    assert r.status == ConversionStatus.success
    assert len(seen) == 1 and seen[0][0] < seen[0][1]  # rapidocr was handed the portrait page


def test_other_engine_reads_the_scan_as_it_came_turned_and_levelled_like_tesseracts(
        page, monkeypatch: pytest.MonkeyPatch) -> None:
    """rapidocr gets the page before the speckle filter (which takes dots and thin strokes from
    its recogniser), turned and levelled exactly as the page Tesseract reads: the same boxes."""
    _, img = page
    scan = img.rotate(90, expand=True, fillcolor=255)
    seen: list[Image.Image] = []
    monkeypatch.setattr(ocr, "rapidocr_words", lambda im: seen.append(im) or [])
    run(image_bytes(scan), ocr_model="model02")
    raw = to_gray(scan)
    up = orientation.upright(despeckle(raw), raw)
    assert up.turn == 90 and abs(up.skew) > 0.3
    handed, read = np.asarray(seen[0], dtype=float), np.asarray(up.image, dtype=float)
    assert handed.shape == read.shape
    assert np.abs(handed - read).mean() < 2  # levelled the same way (the other way round: about 11)
    assert (handed != read).any()  # the specks the filter took out are still there
