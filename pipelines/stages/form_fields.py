"""What a PDF form offers to fill, read once for ``form_fill``: its AcroForm fields (name, tooltip,
type, options, current value, widgets and the words printed beside each widget) and, for flat
forms, the blank lines a person would write on (a run of underscores in the text, or a drawn
horizontal line with a label to its left, above or below it).

Kept apart from ``form_fill`` (which matches a prompt to these and writes the values) because
reading is geometry over pypdf's field tree and PDFium's words, and writing is PDF editing; each
is tested on its own. Boxes are in points with a top-left origin relative to the crop box,
unrotated, as ``pdf_text.read_words`` gives words, so words and widgets compare directly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pypdf.generic import NameObject

from pipelines.stages import pdf_text
from pipelines.stages.geometry import Box, Rule, Word, overlap

# field flags (PDF 32000-1, 12.7.4)
FF_RADIO, FF_PUSHBUTTON = 1 << 15, 1 << 16
FF_COMBO, FF_EDIT = 1 << 17, 1 << 18

_INDEX = re.compile(r"\[\d+\]")
# name segments that say nothing a prompt could match: tool-made containers and numbered codes
_GENERIC = re.compile(r"^(topmostsubform|subform\d*|page\d+|form\d*|#subform|f\d+[_ ]\d+|c\d+[_ ]\d+|"
                      r"text\d+|textfield\d*|field\d+|check ?box\d+|cb\d+|tf\d+|untitled\d*)$", re.I)
_UNDERSCORES = re.compile(r"_{3,}")


@dataclass
class Widget:
    """One place a field shows on a page; ``on_state`` is a button's appearance name for "on"."""

    page: int  # 0-based
    box: Box
    on_state: str | None = None
    label: str = ""  # words printed beside this widget (a radio button's option)
    ref: Any = None  # pypdf's annotation dictionary


@dataclass
class FormField:
    """An AcroForm field: ``kind`` is text, checkbox, radio or choice; ``value`` is what it holds
    now ("" when empty or off; a button's state name otherwise)."""

    name: str
    kind: str
    tooltip: str = ""
    value: str = ""
    default: str = ""  # the form's own default (``/DV``): a value equal to it was not filled in
    options: list[tuple[str, str]] = field(default_factory=list)  # (export value, shown text)
    flags: int = 0
    max_len: int | None = None
    widgets: list[Widget] = field(default_factory=list)
    label: str = ""
    ref: Any = None  # pypdf's field dictionary

    @property
    def page(self) -> int:
        return self.widgets[0].page if self.widgets else 0

    def texts(self) -> list[str]:
        """What a prompt key is compared with: the printed label, the tooltip, the readable part
        of the name (``topmostSubform[0].Page1[0].f1_01[0]`` has none)."""
        out = [t for t in (self.label, self.tooltip, readable_name(self.name)) if t]
        return list(dict.fromkeys(out))


@dataclass
class Blank:
    """A blank line of a flat form: where a value goes (``box``), the words that say what goes
    there (``label``), the baseline to write on and the font size that fits."""

    page: int
    box: Box
    label: str
    baseline: float
    size: float
    source: str  # "underscores", "line" or "box"

    def texts(self) -> list[str]:
        return [self.label]


@dataclass
class PageWords:
    """One page's words and rules, and where its crop box starts (to place PDF coordinates)."""

    words: list[Word]
    rules: list[Rule]
    left: float
    top: float


def readable_name(name: str) -> str:
    """``applicant.firstName[0]`` → "applicant first name"; tool-made codes dropped
    (``topmostSubform[0].Page1[0].f1_01[0]`` → "")."""
    parts = []
    for seg in _INDEX.sub("", name).split("."):
        seg = seg.strip()
        if not seg or _GENERIC.match(seg.replace("_", " ").strip()) or _GENERIC.match(seg):
            continue
        parts.append(seg)
    text = " ".join(parts[-2:])
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    text = re.sub(r"[_\-/]+", " ", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def clean_label(text: str) -> str:
    """A printed label without its trailing colon, asterisk or underscores."""
    text = _UNDERSCORES.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip(" :*.\t").strip()


# ---------------------------------------------------------------- page words


def read_pages(data: bytes) -> list[PageWords]:
    """Every page's words and ruling lines (PDFium), in the unrotated top-left space."""
    doc = pdf_text.open_pdf(data)
    out = []
    try:
        for i in range(len(doc)):
            with pdf_text.PDFIUM_LOCK:
                left, _bottom, _right, top = doc[i].get_cropbox()
            pc = pdf_text.read_page(doc, i, graphics=True, turn=False)
            out.append(PageWords(pc.words, pc.rules, left, top))
    finally:
        with pdf_text.PDFIUM_LOCK:
            doc.close()
    return out


def _same_line(w: Word, box: Box) -> bool:
    mid = (box[1] + box[3]) / 2
    return w.y1 - 2 <= mid <= w.y2 + 2 or box[1] - 1 <= w.cy <= box[3] + 1


def _phrase(words: list[Word], backwards: bool) -> str:
    """The nearest run of words (sorted outward from the box), stopping at a wide gap."""
    run = words[:1]
    for w in words[1:]:
        prev = run[-1]
        if _UNDERSCORES.search(w.text):  # another blank: the label ends there
            break
        gap = (prev.x1 - w.x2) if backwards else (w.x1 - prev.x2)
        if gap > 1.6 * max(prev.size, 6) or len(run) >= 10:
            break
        if backwards and prev.text.endswith(":") and prev is not run[0]:
            break
        run.append(w)
    if backwards:
        run.reverse()
        # a previous label's value or colon ends this label: keep what follows the last colon
        texts = [w.text for w in run]
        for k in range(len(texts) - 2, -1, -1):
            if texts[k].endswith(":"):
                texts = texts[k + 1:]
                break
        return " ".join(texts)
    return " ".join(w.text for w in run)


def label_left(words: list[Word], box: Box, reach: float = 180) -> str:
    near = [w for w in words if _same_line(w, box) and w.x2 <= box[0] + 3 and box[0] - w.x2 <= reach]
    near.sort(key=lambda w: -w.x2)
    return clean_label(_phrase(near, backwards=True)) if near else ""


def label_right(words: list[Word], box: Box, reach: float = 24) -> str:
    near = [w for w in words if _same_line(w, box) and w.x1 >= box[2] - 3 and w.x1 - box[2] <= reach]
    if not near:
        return ""
    near.sort(key=lambda w: w.x1)
    line = [w for w in words if _same_line(w, box) and w.x1 >= near[0].x1]
    line.sort(key=lambda w: w.x1)
    return clean_label(_phrase(line, backwards=False))


def label_above(words: list[Word], box: Box, near: float = 2.0, far: float = 18.0) -> str:
    """The line of words whose bottom is just above the box, starting over its left part."""
    width = box[2] - box[0]
    cand = [w for w in words if box[1] - far <= w.y2 <= box[1] + near
            and box[0] - 8 <= w.x1 <= box[0] + max(0.6 * width, 20)]
    if not cand:
        return ""
    bottom = max(w.y2 for w in cand)
    line = sorted((w for w in words if abs(w.y2 - bottom) < 3 and box[0] - 8 <= w.x1 <= box[2]),
                  key=lambda w: w.x1)
    return clean_label(_phrase(line, backwards=False))


def label_below(words: list[Word], box: Box, far: float = 14.0) -> str:
    """A caption printed under a line ("Signature", "Date")."""
    cand = sorted((w for w in words if box[3] - 1 <= w.y1 <= box[3] + far and box[0] - 8 <= w.x1 <= box[2]),
                  key=lambda w: (round(w.y1), w.x1))
    if not cand:
        return ""
    first = cand[0]
    line = [w for w in cand if abs(w.y1 - first.y1) < 3]
    return clean_label(_phrase(line, backwards=False))


# ---------------------------------------------------------------- AcroForm fields


def _lineage(node: Any) -> list[Any]:
    """The field and its parents, nearest first (at most 32: a loop of parents ends there)."""
    out = []
    while node is not None and len(out) < 32:
        out.append(node)
        parent = node.get("/Parent")
        node = parent.get_object() if parent is not None else None
    return out


def _inherited(node: Any, key: str) -> Any:
    return next((n[key] for n in _lineage(node) if key in n), None)


def _qualified(node: Any) -> str:
    return ".".join(reversed([str(n["/T"]) for n in _lineage(node) if "/T" in n]))


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return str(value)[1:] if isinstance(value, NameObject) else str(value)


def _options(raw: Any) -> list[tuple[str, str]]:
    out = []
    for item in raw or []:
        item = item.get_object() if hasattr(item, "get_object") else item
        if isinstance(item, list) and len(item) >= 2:
            out.append((_text(item[0].get_object() if hasattr(item[0], "get_object") else item[0]),
                        _text(item[1].get_object() if hasattr(item[1], "get_object") else item[1])))
        else:
            out.append((_text(item), _text(item)))
    return out


def _on_state(annot: Any) -> str | None:
    ap = annot.get("/AP")
    normal = ap.get_object().get("/N") if ap is not None else None
    normal = normal.get_object() if normal is not None else None
    if not hasattr(normal, "keys"):
        return None
    states = [str(k)[1:] for k in normal.keys() if str(k) != "/Off"]
    return states[0] if states else None


def read_fields(reader: Any, pages: list[PageWords]) -> list[FormField]:
    """The fillable fields of the form, in page order, each with its widgets and label.
    Push buttons and signature fields are left out (nothing to type into them)."""
    fields: dict[int, FormField] = {}
    for index, page in enumerate(reader.pages):
        geo = pages[index] if index < len(pages) else PageWords([], [], 0.0, 0.0)
        annots = page.get("/Annots")
        for ref in (annots.get_object() if annots is not None else None) or []:
            annot = ref.get_object()
            if not hasattr(annot, "get") or annot.get("/Subtype") != "/Widget":
                continue
            node = annot if "/T" in annot else (annot.get("/Parent").get_object() if annot.get("/Parent") else None)
            if node is None:
                continue
            ft, flags = _inherited(node, "/FT"), int(_inherited(node, "/Ff") or 0)
            if ft == "/Tx":
                kind = "text"
            elif ft == "/Ch":
                kind = "choice"
            elif ft == "/Btn" and not flags & FF_PUSHBUTTON:
                kind = "radio" if flags & FF_RADIO else "checkbox"
            else:
                continue
            key = node.indirect_reference.idnum if getattr(node, "indirect_reference", None) else id(node)
            f = fields.get(key)
            if f is None:
                max_len = _inherited(node, "/MaxLen")
                f = fields[key] = FormField(
                    name=_qualified(node), kind=kind, tooltip=_text(_inherited(node, "/TU")).strip(),
                    value="" if _text(_inherited(node, "/V")) in ("Off", "") else _text(_inherited(node, "/V")),
                    default=_text(_inherited(node, "/DV")),
                    options=_options(_inherited(node, "/Opt")), flags=flags,
                    max_len=int(max_len) if max_len is not None else None, ref=node)
            rect = [float(v) for v in annot.get("/Rect", [0, 0, 0, 0])]
            box = (min(rect[0], rect[2]) - geo.left, geo.top - max(rect[1], rect[3]),
                   max(rect[0], rect[2]) - geo.left, geo.top - min(rect[1], rect[3]))
            w = Widget(page=index, box=box, on_state=_on_state(annot) if kind in ("checkbox", "radio") else None,
                       ref=annot)
            if kind in ("checkbox", "radio"):
                w.label = label_right(geo.words, box) or label_left(geo.words, box)
            f.widgets.append(w)
    out = list(fields.values())
    for f in out:
        if not f.widgets:
            continue
        w0 = min(f.widgets, key=lambda w: (w.page, w.box[1], w.box[0]))
        words = pages[w0.page].words if w0.page < len(pages) else []
        if f.kind == "radio":
            f.label = label_left(words, w0.box) or label_above(words, w0.box)
        elif f.kind == "checkbox":
            f.label = w0.label or label_above(words, w0.box)
        else:
            f.label = label_left(words, w0.box) or label_above(words, w0.box)
    return out


# ---------------------------------------------------------------- flat forms


def _underscore_blanks(index: int, words: list[Word]) -> list[Blank]:
    out = []
    for w in words:
        for m in _UNDERSCORES.finditer(w.text):
            step = (w.x2 - w.x1) / max(len(w.text), 1)
            box = (w.x1 + m.start() * step, w.y1, w.x1 + m.end() * step, w.y2)
            prefix = w.text[: m.start()]
            others = [v for v in words if v is not w]
            if prefix and not _UNDERSCORES.search(prefix):  # "Name:_____": the word's own start
                others.append(Word(prefix, w.x1, w.y1, box[0], w.y2, w.size))
            label = label_left(others, box) or label_above(words, box) or label_below(words, box)
            if label:
                baseline = w.y2 - 0.2 * (w.y2 - w.y1)
                out.append(Blank(index, box, label, baseline, min(max(w.size, 7.0), 11.0), "underscores"))
    return out


def _box_edges(words: list[Word], top: Rule, top_y: float, bottom: Rule, bottom_y: float) -> bool:
    """Whether two lines, one above the other, span the same width with no words between them."""
    if min(top.x2, bottom.x2) - max(top.x1, bottom.x1) < 0.8 * max(top.x2 - top.x1, bottom.x2 - bottom.x1):
        return False
    return not any(w.x2 > bottom.x1 and w.x1 < bottom.x2 and top_y < w.cy < bottom_y for w in words)


def _line_blanks(index: int, geo: PageWords) -> list[Blank]:
    words, rules = geo.words, geo.rules
    verticals = [r for r in rules if r.vertical]
    cands = []
    for r in rules:
        width, thick = r.x2 - r.x1, r.y2 - r.y1
        if width < 30 or thick > 3 or not r.horizontal:
            continue
        y = (r.y1 + r.y2) / 2
        # a table: a vertical rule crosses the line away from its ends
        if any(r.x1 + 4 < v.x1 < r.x2 - 4 and v.y1 - 1 <= y <= v.y2 + 1 for v in verticals):
            continue
        # written on already (or an underline of text)
        if any(w.x2 > r.x1 + 2 and w.x1 < r.x2 - 2 and y - 14 <= w.y2 <= y + 2 for w in words):
            continue
        cands.append((r, y))
    out = []
    for r, y in cands:
        # the top edge of an empty box: its bottom edge is the line to write on
        if any(o is not r and 0 < oy - y <= 40 and _box_edges(words, r, y, o, oy) for o, oy in cands):
            continue
        tops = [oy for o, oy in cands if 0 < y - oy <= 40 and _box_edges(words, o, oy, r, y)]
        box = (r.x1, y - 12, r.x2, y)
        label = (label_left(words, (r.x1, y - 10, r.x2, y), reach=150)
                 or label_above(words, (r.x1, y - 14, r.x2, y), near=0, far=22) or label_below(words, (r.x1, y, r.x2, y)))
        if not label:
            continue
        if tops:  # inside the box, in its middle
            room = y - max(tops)
            size = max(6.0, min(10.0, room - 4))
            out.append(Blank(index, (r.x1, max(tops), r.x2, y), label, y - (room - 0.7 * size) / 2, size, "box"))
            continue
        above = [y - w.y2 for w in words if w.x2 > r.x1 and w.x1 < r.x2 and w.y2 < y]
        room = min(above) if above else 14.0
        size = max(6.0, min(10.0, room - 3))
        out.append(Blank(index, box, label, y - 2.5, size, "line"))
    return out


def find_blanks(pages: list[PageWords], taken: list[tuple[int, Box]] = ()) -> list[Blank]:  # type: ignore[assignment]
    """Blank lines with a label on every page, except those under a widget in ``taken``
    (page, box): an AcroForm field already covers them."""
    found: list[Blank] = []
    for index, geo in enumerate(pages):
        mine = _underscore_blanks(index, geo.words)
        for b in _line_blanks(index, geo):
            if not any(overlap(b.box, (u.box[0], u.box[1] - 4, u.box[2], u.box[3] + 4)) > 0 for u in mine):
                mine.append(b)
        for b in mine:
            grown = (b.box[0], b.box[1] - 4, b.box[2], b.box[3] + 4)
            if any(p == index and overlap(grown, box) > 0 for p, box in taken):
                continue
            found.append(b)
    return found
