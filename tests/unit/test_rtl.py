"""Right-to-left and mixed lines come out in logical order (the order typed), words whole.

Why: the layout builds lines left to right by x, which read every Arabic and Hebrew line
backwards (word similarity 0.01–0.14 to the true text). The PDFs are drawn word by word in
visual order, as a shaping producer writes them: right-aligned, each right-to-left word's glyphs
reversed, Latin words and numbers left to right (reportlab and DejaVu Sans, which has Arabic and
Hebrew glyphs: fonts-dejavu-core); one more comes from LibreOffice when it is installed. Every
conversion runs under the coverage invariant in "raise" mode (tests/__init__.py).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

from pipelines.core.models import DocumentInput
from pipelines.engine.document import convert
from pipelines.stages import bidi
from pipelines.stages.geometry import Word

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
LINES = [
    "שלום עולם זהו מסמך בעברית לבדיקה",
    "החשבונית מספר 4521 עבור חברת Acme Corp נשלחה היום",
    "مرحبا بكم في نظام معالجة المستندات",
    "Invoice رقم 12345 بتاريخ الشهر",
]


def _draw_rtl(c: canvas.Canvas, line: str, right: float, y: float, size: float = 14) -> None:
    """One right-to-left line, right-aligned at ``right``: right-to-left words placed right to
    left with their glyphs reversed, a run of Latin words left to right as one string."""
    x = right
    space = pdfmetrics.stringWidth(" ", "DejaVu", size)
    units: list[str] = []
    for word in line.split():
        if units and not bidi.has_rtl(word) and not bidi.has_rtl(units[-1]) and bidi.strong(word):
            units[-1] += " " + word
        else:
            units.append(word)
    for word in units:
        glyphs = word[::-1] if bidi.has_rtl(word) else word  # visual order
        w = pdfmetrics.stringWidth(glyphs, "DejaVu", size)
        c.setFont("DejaVu", size)
        c.drawString(x - w, y, glyphs)
        x -= w + space


def _pdf(lines: list[str], ltr: list[str] = ()) -> bytes:
    if not FONT.exists():
        pytest.skip("DejaVu Sans (fonts-dejavu-core) is not installed")
    pdfmetrics.registerFont(TTFont("DejaVu", str(FONT)))
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    y = 720
    for line in lines:
        _draw_rtl(c, line, 560, y)
        y -= 22
    for line in ltr:
        c.setFont("DejaVu", 12)
        c.drawString(50, y, line)
        y -= 20
    c.showPage()
    c.save()
    return buf.getvalue()


def _texts(data: bytes) -> list[str]:
    result = convert(DocumentInput(data=data, file_name="rtl.pdf"))
    assert result.status.value != "failure", result.errors
    return [line for p in result.pages for f in p.fragments
            for line in str(f.content.get("content", "")).split("\n")]


def test_rtl_lines_read_in_logical_order_with_whole_words() -> None:
    lines = _texts(_pdf(LINES, ["The quick brown fox jumps over the lazy dog."]))
    got = " ".join(lines).split()
    for line in LINES:
        assert line in lines or line in " ".join(lines), (line, lines)
    assert "The quick brown fox jumps over the lazy dog." in lines  # an LTR line is unchanged
    for word in " ".join(LINES).split():
        assert word in got  # whole, letters in typed order


def test_presentation_forms_become_base_letters() -> None:
    # "سلام" drawn in its shaped forms (Arabic Presentation Forms-B), visual order
    lines = _texts(_pdf(["\ufee1\ufe8e\ufee0\ufeb3"]))
    text = " ".join(lines)
    assert not any("\ufb50" <= ch <= "\ufdff" or "\ufe70" <= ch <= "\ufeff" for ch in text)
    assert sorted(text.replace(" ", "")) == sorted("سلام")


def test_line_order_helpers() -> None:
    def row(*texts: str) -> list[Word]:
        return [Word(t, 100 - 10 * k, 0, 105 - 10 * k, 10) for k, t in enumerate(texts)]

    # words placed right to left as typed: the logical order is the typed one
    # an RTL line, placed right to left, with a Latin name shown left to right inside
    line = [Word("שלום", 90, 0, 110, 10), Word("Corp", 70, 0, 85, 10), Word("Acme", 50, 0, 65, 10),
            Word("ולכם", 20, 0, 40, 10)][::-1]
    line = [line[0], line[2], line[1], line[3]]  # by x: ולכם Acme Corp שלום
    assert bidi.line_text(line) == "שלום Acme Corp ולכם"
    ltr = [Word("one", 0, 0, 10, 10), Word("two", 20, 0, 30, 10)]
    assert bidi.line_text(ltr) == "one two"
    # an Arabic phrase inside an English line keeps its own order
    mixed = [Word("wrote", 0, 0, 20, 10), Word("بكم", 30, 0, 40, 10), Word("مرحبا", 45, 0, 60, 10),
             Word("here", 70, 0, 80, 10)]
    assert bidi.line_text(mixed) == "wrote مرحبا بكم here"


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_libreoffice_arabic_with_ligatures(tmp_path: Path) -> None:
    paras = ["تم إرسال الفاتورة إلى العميل على العنوان", "Invoice رقم 12345 بتاريخ 2024/03/12",
             "הקובץ report.pdf נשמר בתיקייה הראשית"]
    body = "".join(f"<p>{p}</p>" for p in paras)
    src = tmp_path / "ar.html"
    src.write_text(f'<html dir="rtl"><head><meta charset="utf-8"></head><body dir="rtl">{body}</body></html>',
                   encoding="utf-8")
    subprocess.run(["soffice", f"-env:UserInstallation=file://{tmp_path}/profile", "--headless",
                    "--infilter=HTML (StarWriter)", "--convert-to", "pdf:writer_pdf_Export",
                    "--outdir", str(tmp_path), str(src)], check=True, capture_output=True, timeout=180)
    lines = _texts((tmp_path / "ar.pdf").read_bytes())
    for p in paras:
        assert p in lines, (p, lines)
