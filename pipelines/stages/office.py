"""Office documents → pages of fragments (python-docx, python-pptx, openpyxl).

How each format maps onto pages:

* **DOCX** has no fixed pages (they depend on the renderer), so a page ends only at an explicit
  page break (``w:br w:type="page"``) or before a paragraph with ``pageBreakBefore``. Headings
  (``Heading N`` styles) become section headers of level N, ``Title`` a title, list styles and
  numbered paragraphs list items, tables table fragments. No bounding boxes.
* **PPTX**: one slide = one page, width/height = the slide size in points. Shapes are read top
  to bottom, left to right; the title placeholder is a section header, other paragraphs are
  text (list items when indented or bulleted), tables and pictures become table and figure
  fragments, each with its box in points. Pictures (DOCX and PPTX) carry their alt text, and with
  ``include_images`` the embedded file itself (base64, with its MIME type).
* **XLSX**: one worksheet = one page holding the sheet's used range as one table (values as
  shown, formulas by their cached value). Only the sheets inside ``page_range`` are read.
"""

from __future__ import annotations

import base64
import io
from typing import Any

from pipelines.core.errors import CorruptDocument, EmptyDocument, describe
from pipelines.core.models import DocumentResult, Fragment, PageResult
from pipelines.stages.pagerange import selected_pages
from pipelines.stages.text import table_fragment

EMU_PER_PT = 12700
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _frag(kind: str, text: str, **extra: Any) -> Fragment:
    return Fragment(fragment_type=kind, content={"content": text, **extra})  # type: ignore[arg-type]


def _selected(result: DocumentResult, total: int) -> list[int]:
    return list(selected_pages(result.input.page_range, total))


def _finish(result: DocumentResult, pages: list[PageResult], total: int) -> None:
    if total == 0:
        raise EmptyDocument("the document has no pages")
    for p in pages:
        for order, f in enumerate(p.fragments):
            f.reading_order = order
    result.total_pages = total
    result.pages = pages


# ---------------------------------------------------------------- DOCX


def load_docx(result: DocumentResult) -> None:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        d = docx.Document(io.BytesIO(result.input.data))
    except Exception as exc:  # noqa: BLE001 - python-docx raises many kinds
        raise CorruptDocument(f"the DOCX cannot be read: {describe(exc)}") from exc
    mode = result.input.parsing.table_output_mode
    pages: list[list[Fragment]] = [[]]
    for el in d.element.body.iterchildren():
        if el.tag == _W + "p":
            p = Paragraph(el, d)
            ppr = el.find(_W + "pPr")
            if ppr is not None and ppr.find(_W + "pageBreakBefore") is not None and pages[-1]:
                pages.append([])
            f = _docx_paragraph(p)
            if f is not None:
                pages[-1].append(f)
            pages[-1] += _docx_images(el, d, result.input.parsing.include_images)
            if any(br.get(_W + "type") == "page" for br in el.iter(_W + "br")):
                pages.append([])
        elif el.tag == _W + "tbl":
            t = Table(el, d)
            rows = [[c.text for c in r.cells] for r in t.rows]
            if rows:
                pages[-1].append(table_fragment(rows, mode))
    if len(pages) > 1 and not pages[-1]:
        pages.pop()
    total = len(pages)
    out = [PageResult(page_number=n, fragments=pages[n - 1]) for n in _selected(result, total)]
    _finish(result, out, total)


_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_WP = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}"


def _docx_images(el, d, include: bool) -> list[Fragment]:
    """Pictures anchored in a paragraph → figure fragments (alt text as content)."""
    out = []
    for drawing in el.iter(_W + "drawing"):
        doc_pr = next(drawing.iter(_WP + "docPr"), None)
        alt = (doc_pr.get("descr") or doc_pr.get("title") or "") if doc_pr is not None else ""
        f = _frag("figure", alt)
        blip = next(drawing.iter(_A + "blip"), None)
        rid = blip.get(_R + "embed") if blip is not None else None
        part = d.part.related_parts.get(rid) if rid else None
        if include and part is not None:
            _embed(f, part.blob, getattr(part, "content_type", "application/octet-stream"))
        out.append(f)
    return out


def _embed(f: Fragment, blob: bytes, mime: str) -> None:
    f.content["image_base64"] = base64.b64encode(blob).decode("ascii")
    f.content["image_mime_type"] = mime


def _docx_paragraph(p) -> Fragment | None:
    text = p.text.strip()
    if not text:
        return None
    style = (p.style.name if p.style is not None else "") or ""
    low = style.lower()
    if low == "title":
        return _frag("title", text, level=0)
    if low.startswith("heading"):
        digits = "".join(ch for ch in style if ch.isdigit())
        return _frag("section_header", text, level=int(digits or 1))
    ppr = p._p.pPr
    numbered = ppr is not None and ppr.numPr is not None
    if "list" in low or numbered:
        return _frag("list_item", text)
    if low.startswith("caption"):
        return _frag("table_caption" if text.lower().startswith("table") else "figure_caption", text)
    return _frag("text", text)


# ---------------------------------------------------------------- PPTX


def load_pptx(result: DocumentResult) -> None:
    from pptx import Presentation

    try:
        prs = Presentation(io.BytesIO(result.input.data))
    except Exception as exc:  # noqa: BLE001
        raise CorruptDocument(f"the PPTX cannot be read: {describe(exc)}") from exc
    mode = result.input.parsing.table_output_mode
    slides = list(prs.slides)
    w = round((prs.slide_width or 0) / EMU_PER_PT) or None
    h = round((prs.slide_height or 0) / EMU_PER_PT) or None
    pages = []
    for n in _selected(result, len(slides)):
        frags: list[Fragment] = []
        shapes = sorted(slides[n - 1].shapes, key=lambda s: ((s.top or 0), (s.left or 0)))
        for shape in shapes:
            frags += _pptx_shape(shape, mode, result.input.parsing.include_images)
        pages.append(PageResult(page_number=n, width=w, height=h, fragments=frags))
    _finish(result, pages, len(slides))


def _shape_box(shape) -> dict[str, float] | None:
    if shape.left is None or shape.top is None or shape.width is None or shape.height is None:
        return None
    x1, y1 = shape.left / EMU_PER_PT, shape.top / EMU_PER_PT
    return {"x1": x1, "y1": y1, "x2": x1 + shape.width / EMU_PER_PT, "y2": y1 + shape.height / EMU_PER_PT}


def _pptx_shape(shape, mode: str, include_images: bool = False) -> list[Fragment]:
    box = _shape_box(shape)
    out: list[Fragment] = []
    if shape.has_text_frame if hasattr(shape, "has_text_frame") else False:
        ph = str(shape.placeholder_format.type).lower() if shape.is_placeholder else ""
        is_title = "title" in ph
        bulleted = "body" in ph or "object" in ph  # content placeholders are bullet lists
        for para in shape.text_frame.paragraphs:
            text = "".join(r.text for r in para.runs).strip()
            if not text:
                continue
            if is_title:
                out.append(_frag("section_header", text, level=1))
            elif para.level > 0 or bulleted:
                out.append(_frag("list_item", text))
            else:
                out.append(_frag("text", text))
    elif getattr(shape, "has_table", False) and shape.has_table:
        rows = [[c.text for c in r.cells] for r in shape.table.rows]
        out.append(table_fragment(rows, mode))
    elif shape.shape_type is not None and "PICTURE" in str(shape.shape_type):
        f = _frag("figure", _pptx_alt(shape))
        if include_images:
            try:
                _embed(f, shape.image.blob, shape.image.content_type)
            except (AttributeError, ValueError, KeyError):  # linked, not embedded
                pass
        out.append(f)
    elif hasattr(shape, "shapes"):  # group
        for sub in sorted(shape.shapes, key=lambda s: ((s.top or 0), (s.left or 0))):
            out += _pptx_shape(sub, mode, include_images)
        return out
    for f in out:
        f.bbox = box
    return out


def _pptx_alt(shape) -> str:
    try:
        pr = shape._element.nvPicPr.cNvPr
        return pr.get("descr") or pr.get("title") or ""
    except AttributeError:
        return ""


# ---------------------------------------------------------------- XLSX


def load_xlsx(result: DocumentResult) -> None:
    import openpyxl

    try:
        wb = openpyxl.load_workbook(io.BytesIO(result.input.data), read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001
        raise CorruptDocument(f"the XLSX cannot be read: {describe(exc)}") from exc
    try:
        mode = result.input.parsing.table_output_mode
        sheets = wb.worksheets
        pages = []
        for n in _selected(result, len(sheets)):
            ws = sheets[n - 1]
            rows = [["" if v is None else _cell(v) for v in row]
                    for row in ws.iter_rows(values_only=True)]
            rows = [r for r in rows if any(c.strip() for c in r)]
            width = max((max((i + 1 for i, c in enumerate(r) if c.strip()), default=0) for r in rows),
                        default=0)
            rows = [r[:width] for r in rows]
            frags = [_frag("section_header", ws.title, level=1)]
            if rows:
                frags.append(table_fragment(rows, mode))
            pages.append(PageResult(page_number=n, fragments=frags))
        _finish(result, pages, len(sheets))
    finally:
        wb.close()


def _cell(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
