"""Bad input never raises out of ``convert``; PDF parsing is safe from several threads."""

from __future__ import annotations

import io
import random
import zipfile
from concurrent.futures import ThreadPoolExecutor

import pytest

from pipelines.core.models import ConversionStatus, DocumentInput
from pipelines.core.requests import ParsingOptions
from pipelines.engine.document import convert
from tests.support.docgen import structured_pdf, two_column_pdf

ALL = {"barcode_detection": True, "signature_detection": True, "remove_strikethrough_lines": True,
       "include_images": True, "table_merging": True, "skew_detection": True}


def _zip(name: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(name, b"\x00\x01junk")
    return buf.getvalue()


def junk() -> list[bytes]:
    rng = random.Random(7)
    pdf = structured_pdf(seed=71).data
    cut = [pdf[: int(len(pdf) * f)] for f in (0.1, 0.5, 0.9, 0.99)]
    flipped = bytearray(pdf)
    for _ in range(200):
        flipped[rng.randrange(200, len(flipped))] = rng.randrange(256)
    return [b"", b"%PDF-", b"%PDF-1.4\n%%EOF", *cut, bytes(flipped),
            b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(300)),
            b"\xff\xd8\xff\xe0" + b"\x00" * 100, b"II*\x00" + b"\x00" * 50,
            b"RIFF\x00\x00\x00\x00WEBPVP8 ", _zip("word/document.xml"), _zip("ppt/x.xml"),
            _zip("xl/workbook.xml")]


@pytest.mark.parametrize("data", junk())
def test_junk_never_raises(data: bytes) -> None:
    r = convert(DocumentInput(data=data, parsing=ParsingOptions(**ALL)))
    assert r.status in set(ConversionStatus) - {ConversionStatus.pending}
    if r.status == ConversionStatus.failure:
        assert r.error_message()


def test_threads_give_the_same_results_as_one_thread() -> None:
    docs = [two_column_pdf(seed=72 + i, pages=2).data for i in range(3)] + [structured_pdf(seed=75).data]

    def job(d: bytes):
        r = convert(DocumentInput(data=d, parsing=ParsingOptions(barcode_detection=True)))
        return [(f.fragment_type, f.content.get("content"), f.bbox) for p in r.pages for f in p.fragments]

    alone = [job(d) for d in docs]
    with ThreadPoolExecutor(4) as ex:
        together = list(ex.map(job, docs * 2))
    assert together == alone * 2


@pytest.mark.parametrize(("name", "says"), [("report.pdf", "not a valid PDF"), ("deck.pptx", "not a valid PPTX"),
                                            ("scan.tiff", "not a valid TIFF")])
def test_a_damaged_file_of_a_known_type_says_so(name: str, says: str) -> None:
    r = convert(DocumentInput(data=bytes(range(256)) * 8, file_name=name))
    assert r.status == ConversionStatus.failure and says in (r.error_message() or "")
    assert "unsupported" not in (r.error_message() or "")
