"""Reading order keeps the text layer's own order unless the geometry proves columns it interleaves.

Generated PDFs (reportlab): (a) one column of staggered blocks the XY-cut would split into two
"columns", written top to bottom: kept; (b) two columns drawn line by line across both: read left
column then right; (c) two columns written column by column: kept.
"""

from __future__ import annotations

import io

from reportlab.pdfgen import canvas

from pipelines.core.models import DocumentInput
from pipelines.engine.document import convert

W, H = 612, 792


def _pdf(draw) -> bytes:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(W, H))
    c.setFont("Helvetica", 10)
    draw(c)
    c.showPage()
    c.save()
    return buf.getvalue()


def _text(data: bytes) -> str:
    r = convert(DocumentInput(data=data))
    return " ".join(str(f.content.get("content", "")) for p in r.pages for f in p.fragments)


def _order(text: str, markers: list[str]) -> list[str]:
    return sorted(markers, key=text.index)


def test_single_column_staggered_blocks_keep_stream_order() -> None:
    # blocks alternately at the left and at the right, close together: the XY-cut finds a gutter
    # between the left and right blocks and would read all left blocks first
    blocks = [(72, f"Block{k} " + "word " * 5) for k in range(6)]
    y = 700

    def draw(c):  # type: ignore[no-untyped-def]
        nonlocal y
        for k, (_, text) in enumerate(blocks):
            x = 72 if k % 2 == 0 else 330
            for line in range(2):
                c.drawString(x, y, f"{text}line{line}")
                y -= 13
            y -= 4
    text = _text(_pdf(draw))
    names = [f"Block{k}" for k in range(6)]
    assert _order(text, names) == names


def _two_columns(interleave: bool) -> bytes:
    left = [f"Left{k:02d} " + "alpha beta gamma delta epsilon" for k in range(20)]
    right = [f"Right{k:02d} " + "alpha beta gamma delta epsilon" for k in range(20)]

    def draw(c):  # type: ignore[no-untyped-def]
        if interleave:
            for k in range(20):
                c.drawString(72, 700 - 13 * k, left[k])
                c.drawString(330, 700 - 13 * k, right[k])
        else:
            for k in range(20):
                c.drawString(72, 700 - 13 * k, left[k])
            for k in range(20):
                c.drawString(330, 700 - 13 * k, right[k])
    return _pdf(draw)


def test_interleaved_two_columns_read_column_by_column() -> None:
    text = _text(_two_columns(interleave=True))
    names = [f"Left{k:02d}" for k in range(20)] + [f"Right{k:02d}" for k in range(20)]
    assert _order(text, names) == names


def test_two_columns_written_in_order_kept() -> None:
    text = _text(_two_columns(interleave=False))
    names = [f"Left{k:02d}" for k in range(20)] + [f"Right{k:02d}" for k in range(20)]
    assert _order(text, names) == names


def test_a_heading_in_large_type_over_narrow_code_stays_one_line() -> None:
    # a justified heading in 12 pt bold whose word spaces (6 pt) are wider than the gutter the
    # small code above it allows: the words right of the code's edge are not columns of their own
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Courier", 7)
        for k in range(6):
            c.drawString(72, 700 - 9 * k, f"\\code{{line{k}}} & value{k} \\\\")
        c.setFont("Helvetica-Bold", 12)
        x = 72.0
        for word in ("Listings", "with", "a", "background", "colour", "and", "escaped", "formulas"):
            c.drawString(x, 630, word)
            x += c.stringWidth(word, "Helvetica-Bold", 12) + 6
        c.drawString(72, 615, "in frames")
        c.setFont("Helvetica", 10)
        for k in range(4):
            c.drawString(72, 590 - 12 * k, "Body text of the section goes on here for a while.")
    r = convert(DocumentInput(data=_pdf(draw)))
    texts = [str(f.content.get("content", "")) for f in r.pages[0].fragments]
    assert any("colour and escaped formulas" in t.replace("\n", " ") for t in texts), texts


def test_a_contents_list_beside_running_text_is_read_apart_from_it() -> None:
    # a paper's first page: its contents (entries and page numbers, lines 17 pt apart) in the left
    # column, the abstract's running text (11 pt apart) in the right one, written line by line
    # across both as some producers do: three parts that line up now and then are no one table
    entries = [f"{k} Section{k:02d} title" for k in range(1, 15)]
    prose = [f"Prose{chr(65 + k)} this package implements the layout rules for" for k in range(22)]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 9)
        ys = {round(700 - 17 * k): ("entry", k) for k in range(len(entries))}
        ys.update({round(700 - 11 * k) + 0.1: ("prose", k) for k in range(len(prose))})
        for y in sorted(ys, reverse=True):
            kind, k = ys[y]
            if kind == "entry":
                c.drawString(72, y, entries[k])
                c.drawRightString(250, y, str(k // 3 + 1))
            else:
                c.drawString(300, y, prose[k])
    r = convert(DocumentInput(data=_pdf(draw)))
    texts = [str(f.content.get("content", "")).replace("\n", " ") for f in r.pages[0].fragments]
    names = [f"Prose{chr(65 + k)}" for k in range(22)]
    # the running text whole and in order, no entry of the contents inside it
    body = " ".join(t for t in texts if "Prose" in t)
    assert _order(body, names) == names and "Section" not in body, texts
