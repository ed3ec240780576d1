"""Lines of the parsed pages and the label/value pairs found in them (``Label: value`` inside a
line, a label with its value to the right or below): where extraction's candidates come from."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from pipelines.core.models import Fragment, PageResult

MIN_SCORE = 0.45
SHORT_LABEL_WORDS = 4
Box = dict[str, float]


@dataclass
class Line:
    page: int
    text: str
    box: Box | None
    frag: int  # index of the fragment on its page
    idx: int  # line index within the fragment
    n: int  # lines in the fragment


@dataclass
class Candidate:
    label: str
    value: str
    page: int
    box: Box | None
    kind: str
    column: list[tuple[str, Box | None]] = field(default_factory=list)  # a table column's cells


@dataclass
class Hit:
    """A value found where a reader looks for it: the text as printed, its page and box."""

    text: str
    page: int
    box: Box | None


def letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


def _line_box(box: Box | None, i: int, n: int) -> Box | None:
    """Line ``i`` of ``n`` in a block: its share of the block's height."""
    if not box or n <= 1:
        return box
    h = (box["y2"] - box["y1"]) / n
    return {"x1": box["x1"], "y1": box["y1"] + i * h, "x2": box["x2"], "y2": box["y1"] + (i + 1) * h}


def _text(f: Fragment) -> str:
    c = f.content.get("content")
    return c if isinstance(c, str) else ""


def lines_of(page: PageResult) -> list[Line]:
    out = []
    for fi, f in enumerate(page.fragments):
        if f.fragment_type in ("table", "figure", "page_header", "page_footer", "page_number", "barcode") \
                or isinstance(f.content.get("key"), str):
            continue
        parts = [p.strip() for p in _text(f).split("\n") if p.strip()]
        rows = _word_rows(f) if len(parts) == 1 else []
        if len(rows) > 1:
            lines = [Line(page.page_number, t, b, fi, i, len(rows)) for i, (t, b) in enumerate(rows)]
        else:
            lines = [Line(page.page_number, p, _line_box(f.bbox, i, len(parts)), fi, i, len(parts))
                     for i, p in enumerate(parts)]
        out += [ln for ln in lines if not sideways(ln)]
    return out


def _word_rows(f: Fragment) -> list[tuple[str, Box]]:
    """A heading set over several rows (a receipt's shop name and the start of its address in
    large type), which the parse joined into one line of text: its rows again, from its words'
    boxes, each row left to right with its own box. Empty when the words are not the
    fragment's text."""
    words = f.content.get("words")
    if not isinstance(words, list) or len(words) < 2:
        return []
    if not all(isinstance(w, dict) and w.get("bbox") and isinstance(w.get("text"), str) for w in words):
        return []
    if sorted(" ".join(w["text"] for w in words).split()) != sorted(_text(f).split()):
        return []
    rows: list[list[dict]] = []
    for w in sorted(words, key=lambda w: (w["bbox"]["y1"] + w["bbox"]["y2"]) / 2):
        b = w["bbox"]
        row = rows[-1] if rows else []
        top, bottom = min((x["bbox"]["y1"] for x in row), default=0.0), max((x["bbox"]["y2"] for x in row), default=0.0)
        if row and min(b["y2"], bottom) - max(b["y1"], top) > 0.5 * min(b["y2"] - b["y1"], bottom - top):
            row.append(w)
        else:
            rows.append([w])
    return [(" ".join(w["text"] for w in sorted(row, key=lambda w: w["bbox"]["x1"])),
             {"x1": min(w["bbox"]["x1"] for w in row), "y1": min(w["bbox"]["y1"] for w in row),
              "x2": max(w["bbox"]["x2"] for w in row), "y2": max(w["bbox"]["y2"] for w in row)})
            for row in rows]


def header_lines(page: PageResult, kind: str = "page_header") -> list[Line]:
    """The page header's lines: on a first page it is the letterhead (the sender's name and
    address, ``Au bon moulin SARL - 1242 chemin de l'olive - 84340 Malaucène``); with
    ``kind="page_footer"``, the footer's (a firm's legal notice)."""
    out = []
    for fi, f in enumerate(page.fragments):
        if f.fragment_type == kind and f.bbox:
            parts = [p.strip() for p in str(f.content.get("content") or "").split("\n") if p.strip()]
            out += [Line(page.page_number, p, _line_box(f.bbox, i, len(parts)), fi, i, len(parts))
                    for i, p in enumerate(parts)]
    return out


def sideways(ln: Line) -> bool:
    """A line of text set upright in a margin ("Copyright … 2013" up the page's edge): its box
    is far taller than wide. It belongs to no row of the page."""
    b = ln.box
    return b is not None and b["y2"] - b["y1"] > 2 * (b["x2"] - b["x1"]) and len(ln.text) >= 2


LABEL_COLON = re.compile(r"([^:\n]{1,60}?)\s*[:：]\s*(?!//)")
TITLE_WORD = re.compile(r"^(?:[A-Z][A-Za-z.#/&'-]*|\(.*\)|of|to|no\.?|#|the|and|for|per|&)$")


def split_pairs(text: str) -> list[tuple[str, str]]:
    """``"Invoice No: 12  Date: 2025-01-01"`` → [("Invoice No", "12"), ("Date", "2025-01-01")];
    a label with nothing after it gets an empty value. The label of a pair after the first is the
    longest run (≤3 words) of title-case words before its colon."""
    matches = list(LABEL_COLON.finditer(text))
    if not matches:
        return []
    out: list[tuple[str, str]] = []
    labels: list[tuple[str, int, int]] = []  # label, start of label, end of colon
    for k, m in enumerate(matches):
        if re.search(r"\d$", m.group(1)) and re.match(r"\d", text[m.end():m.end() + 1] or "x"):
            continue  # a time (10:30) or a ratio, not a label
        before = text[:m.end(1)]
        if not labels and k == 0:
            lab = before.strip()
            if len(lab.split()) > 6:
                continue
            labels.append((lab, 0, m.end()))
            continue
        words = before.split()
        take = 0
        for w in reversed(words[-3:]):
            if TITLE_WORD.match(w):
                take += 1
            else:
                break
        if take == 0:
            continue
        lab = " ".join(words[-take:])
        start = before.rfind(words[-take])
        labels.append((lab, start, m.end()))
    for k, (lab, _start, end) in enumerate(labels):
        stop = labels[k + 1][1] if k + 1 < len(labels) else len(text)
        out.append((lab, text[end:stop].strip(" ;,|")))
    return out


def _band_overlap(a: Box, b: Box) -> float:
    inter = min(a["y2"], b["y2"]) - max(a["y1"], b["y1"])
    return inter / max(1e-6, min(a["y2"] - a["y1"], b["y2"] - b["y1"]))


def _x_overlap(a: Box, b: Box) -> float:
    inter = min(a["x2"], b["x2"]) - max(a["x1"], b["x1"])
    return inter / max(1e-6, min(a["x2"] - a["x1"], b["x2"] - b["x1"]))


def _right_of(lab: Line, lines: list[Line]) -> Line | None:
    if not lab.box:
        return None
    best = None
    for ln in lines:
        if ln is lab or not ln.box or ln.frag == lab.frag or ln.box["x1"] < lab.box["x2"] - 2:
            continue
        if _band_overlap(lab.box, ln.box) >= 0.5 and (best is None or ln.box["x1"] < best.box["x1"]):  # type: ignore[union-attr]
            best = ln
    return best


def _below(lab: Line, lines: list[Line]) -> Line | None:
    if not lab.box:
        return None
    h = lab.box["y2"] - lab.box["y1"]
    best = None
    for ln in lines:
        if ln is lab or not ln.box:
            continue
        gap = ln.box["y1"] - lab.box["y2"]
        if -1 <= gap <= 2.5 * h + 6 and (_x_overlap(lab.box, ln.box) > 0.3 or abs(ln.box["x1"] - lab.box["x1"]) < 12):
            if best is None or ln.box["y1"] < best.box["y1"]:  # type: ignore[union-attr]
                best = ln
    return best


def _is_short_label(text: str) -> bool:
    words = text.split()
    return 0 < len(words) <= SHORT_LABEL_WORDS and len(text) <= 40 and sum(ch.isdigit() for ch in text) <= 2 \
        and "@" not in text


def union_box(boxes: list[Box | None]) -> Box | None:
    """The smallest box around ``boxes`` (``None`` ones left out); ``None`` when there are none."""
    bs = [b for b in boxes if b]
    if not bs:
        return None
    return {"x1": min(b["x1"] for b in bs), "y1": min(b["y1"] for b in bs),
            "x2": max(b["x2"] for b in bs), "y2": max(b["y2"] for b in bs)}


T = TypeVar("T")
REMEMBERED = 8  # pages whose rows and lines are kept while one extraction runs


def per_page(store: list[tuple[PageResult, T]], page: PageResult, make: Callable[[PageResult], T]) -> T:
    """``make(page)``, remembered in ``store`` for the last ``REMEMBERED`` pages (every finder
    reads the same page's rows; ``extract_pages`` empties the stores when it starts)."""
    for seen, value in store:
        if seen is page:
            return value
    value = make(page)
    store.insert(0, (page, value))
    del store[REMEMBERED:]
    return value


def capital_labels(text: str) -> list[str]:
    """A row of labels cut where each begins with a capital and goes on in small letters,
    figures or signs (``Exkl. moms``, ``Moms 25 %``, ``Att betala``; ``Invoice no.``,
    ``Issue date``)."""
    out: list[str] = []
    for w in text.split():
        if w[0].isupper() or not out:
            out.append(w)
        else:
            out[-1] += " " + w
    return out
