"""``enrichment_options.key_value_extraction``: every label/value pair printed on a page, as
``key_value_region`` fragments with the key's and the value's text and boxes.

Why a stage of its own: ``stages.extract.candidates`` finds every place a label meets a value
(``Label: value``, a value beside or below its label, two-cell table rows, form fields), but
generously: a schema and embeddings sort them out later. "The pairs on this page" means each
printed label once, with the value a reader gives it; this module makes that choice with geometry
and text only (no model), so it costs little.

* A pair per label occurrence, a value to one label; best readings first: a label printed as one
  (colon, table row), then one with a label word (``Name``, ``Total``), then a bare short line; a
  value that has no pair of its own; inline, then beside or table row, then below; reading order.
* Left out: table columns, rows of wider tables and headers of tables the layout missed, the
  letterhead guess, blanks (``____``), captions, code and prose. A line without a colon is a label
  only if short, in a block of short lines, and (without a label word) no heading, outside the
  margins, not in a grid row, and apart from its value (a letterhead's name over its address).
* Boxes (page units, top-left origin): ``value_bbox``, ``key_bbox`` around the words (OCR gives
  word boxes; on a digital page a part of a line is cut from the line's box by the characters'
  usual widths; a table cell keeps its box); the fragment's ``bbox`` is their union.
* Form fields already are ``key_value_region`` fragments. With the option their ``key`` becomes
  the label printed beside or above the widget (the PDF's name moves to ``field_name``) and they
  get the same boxes (``bbox`` stays the widget's).

New fragments follow the page's others, in their labels' reading order (a client that skips
``key_value_region`` sees the page as without the option); the stage runs after chunking and
extraction, so chunks hold each printed word once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pipelines.core.models import DocumentResult, Fragment, PageResult
from pipelines.stages.extract import lexicon
from pipelines.stages.extract import lines as ex
from pipelines.stages.extract.candidates import candidates
from pipelines.stages.extract.lines import Box, Candidate, Line, union_box

FRAGMENT_TYPE = "key_value_region"
# the candidate kinds that are pairs (not table-column, letterhead; form-field is a fragment already)
RANK = {"inline": 0, "right": 1, "table-row": 1, "below": 2}
SOURCE = {"inline": "inline", "right": "beside", "table-row": "table", "below": "below"}
PROSE_WORDS = 9  # a line this long is a sentence, not a label's value beside or below it
MARGIN = 0.12  # of the page height: running heads and page numbers live there
Slot = tuple[object, ...]
# words that make a short line without a colon read as a label (English; ``lexicon.gloss`` adds
# the common German, French, Dutch, Spanish and Italian ones)
LABEL_WORDS = re.compile(
    r"\b(?:name|address|date|no|nr|number|id|code|ref(?:erence)?|phone|tel(?:ephone)?|fax|mobile|e-?mail|"
    r"web(?:site)?|total|sub-?total|tax|vat|amount|balance|due|price|qty|quantity|rate|fee|account|iban|bic|"
    r"swift|customer|client|order|invoice|contact|company|title|signature|country|city|town|state|county|zip|"
    r"post(?:al)? ?code|status|type|description|period|birth|dob|gender|sex|nationality|occupation|employer|"
    r"position|department|issued?|expir\w*|valid\w*|member|policy|claim|patient|vendor|supplier|seller|"
    r"buyer|bill(?:ed)? to|ship(?:ping)?(?: to)?|from|attn|currency|terms|method|bank|payee|payer|age|"
    r"height|weight|size|model|serial|version|reason|comments?|notes?|remarks?)\b", re.I)
# a sentence's words: a "label" holding one is a clause running on to a colon
SENTENCE = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|will|would|can|could|should|must|may|might|"
                      r"we|you|they|it|this|that|these|those|which|who|if|when|as)\b", re.I)
CAPTION = re.compile(r"^(?:table|figure|fig\.?|example|listing|chart|exhibit|plate|algorithm|equation|appendix|"
                     r"section|chapter|box|scheme)\s*[\dIVX]+[\d.a-z-]*$", re.I)


@dataclass
class Pair:
    key: str
    value: str
    key_box: Box | None
    value_box: Box | None
    source: str
    rank: int  # RANK of the reading
    strength: int  # 0: printed as a label (colon, table row), 1: has a label word, 2: a short line
    order: tuple[float, ...]
    slots: tuple[Slot, Slot]  # (the key's line, its text), (the value's line, its text)
    lines: tuple[Line | None, Line | None] = (None, None)  # the key's and the value's

    def fragment(self) -> Fragment:
        return Fragment(fragment_type=FRAGMENT_TYPE, bbox=union(self.key_box, self.value_box),
                        content={"content": f"{self.key}: {self.value}", "key": self.key, "value": self.value,
                                 "key_bbox": self.key_box, "value_bbox": self.value_box, "source": self.source})


def apply(result: DocumentResult) -> DocumentResult:
    """Add the pairs of every page (the engine calls this only when the option is set)."""
    for page in result.pages:
        add_pairs(page)
    return result


def add_pairs(page: PageResult) -> list[Fragment]:
    """Label the page's form fields and append a fragment per printed pair; returns those."""
    lines = ex.lines_of(page) + _cell_lines(page)
    blocks: dict[int, list[Line]] = {}
    at_box: dict[object, list[Line]] = {}
    for ln in lines:
        blocks.setdefault(ln.frag, []).append(ln)
        at_box.setdefault(_bid(ln.box), []).append(ln)
    taken: set[Slot] = set()
    for f in page.fragments:
        if f.fragment_type == FRAGMENT_TYPE and "source" not in f.content and isinstance(f.content.get("key"), str):
            taken |= _label_form_field(f, lines)
    pairs = [p for c in candidates(page) if (p := _pair(page, c, lines, blocks, at_box)) is not None]
    label_lines = {p.slots[0][0] for p in pairs}
    pairs = [p for p in pairs if not _heads_a_column(p, lines, label_lines)]
    kept = []
    for p in sorted(pairs, key=lambda p: (p.strength, _value_is_label(p, label_lines), p.rank, p.order)):
        if p.slots[0] in taken or p.slots[1] in taken:
            continue  # this label already has its value, or this value (or label) its pair
        taken.update(p.slots)
        kept.append(p)
    new = [p.fragment() for p in sorted(kept, key=lambda p: p.order)]
    for f in new:
        f.reading_order = len(page.fragments)
        page.fragments.append(f)
    return new


def _pair(page: PageResult, c: Candidate, lines: list[Line], blocks: dict[int, list[Line]],
          at_box: dict[object, list[Line]]) -> Pair | None:
    rank = RANK.get(c.kind)
    key, value = " ".join(c.label.split()), " ".join(c.value.split())
    if rank is None or not _keyish(key) or not re.search(r"[^\W_]", value) or value.casefold() == key.casefold():
        return None
    if value.endswith(":") or (ex.split_pairs(value) and not any(v for _, v in ex.split_pairs(value))):
        return None  # the "value" is the next label
    at = at_box.get(_bid(c.box), []) if c.box else []
    value_line = next((ln for ln in at if _find(ln.text, value) is not None), at[0] if at else None)
    key_line = value_line if c.kind == "inline" else _key_line(c, key, lines)
    if key_line is not None and 0 <= key_line.frag < len(page.fragments) and \
            page.fragments[key_line.frag].fragment_type.endswith("caption"):
        return None
    if c.kind == "table-row" and (value_line is None or not _pair_row(page, value_line)):
        return None  # a row of a wider table, or a two-column table's header row
    strength = 0
    if c.kind in ("right", "below"):
        if key_line is None or value_line is None or _in_paragraph(value_line, blocks):
            return None  # no label where it should be, or a value cut out of a paragraph
        if not _labelled(key_line, key):
            strength = 1 if LABEL_WORDS.search(key) or lexicon.gloss(key) != key else 2
            if not _plausible(page, c.kind, key_line, value_line, value, blocks, strength, lines):
                return None
    key_span = _find(key_line.text, key) if key_line is not None else None
    start = key_span[1] if key_span is not None and key_line is value_line else 0
    value_span = _find(value_line.text, value, start) if value_line is not None else None
    key_box = _part(page, key_line, key_span) if key_line is not None else None
    value_box = _part(page, value_line, value_span) if value_line is not None else _round(c.box)
    k, v = key.casefold(), value.casefold()
    slots: tuple[Slot, Slot] = (("key", k, v), ("value", k, v))  # a page without boxes: texts only
    order: tuple[float, ...] = (1e9,)
    if key_line is not None and value_line is not None:
        slots = ((_bid(key_line.box), k), (_bid(value_line.box), v))
        order = (key_line.frag if key_line.frag >= 0 else -1 - key_line.frag, key_line.idx, (key_box or {}).get("x1", 0))
    return Pair(key, value, key_box, value_box, SOURCE[c.kind], rank, strength, order, slots, (key_line, value_line))


def _keyish(key: str) -> bool:
    """A label: starts with a capital or digit, is mostly letters, no caption nor clause."""
    letters = sum(ch.isalpha() for ch in key)
    signs = sum(not ch.isalnum() and not ch.isspace() for ch in key)
    return bool(key) and key[0].isalnum() and not key[0].islower() and letters >= 2 and signs <= letters \
        and not CAPTION.match(key) and not SENTENCE.search(key)


def _value_is_label(p: Pair, label_lines: set[object]) -> bool:
    """``p``'s value (beside or below) is a line that has a pair of its own: such readings come last."""
    return p.source in ("beside", "below") and p.slots[1][0] in label_lines and p.slots[1][0] != p.slots[0][0]


def _heads_a_column(p: Pair, lines: list[Line], label_lines: set[object]) -> bool:
    """A header of a table the layout did not see as one: a label without a colon with others on
    its band, over a column (under it, or under its value below) that goes on with no label."""
    k, v = p.lines
    if p.strength == 0 or p.source not in ("beside", "below") or k is None or v is None or k.box is None:
        return False
    if not any(ln.box and ln.frag not in (k.frag, v.frag) and ex._band_overlap(ln.box, k.box) >= 0.5 for ln in lines):
        return False
    under = ex._below(k if p.source == "beside" else v, lines)
    return under is not None and _bid(under.box) not in label_lines


def _labelled(ln: Line, key: str) -> bool:
    """The line prints ``key`` as a label: followed by a colon."""
    span = _find(ln.text, key)
    return span is not None and ln.text[span[1]:].lstrip().startswith((":", "："))


def _in_paragraph(ln: Line, blocks: dict[int, list[Line]]) -> bool:
    """``ln`` is one line of a paragraph (a block of several lines, some as long as a sentence)."""
    block = blocks.get(ln.frag, [])
    return len(block) > 1 and any(len(x.text.split()) >= PROSE_WORDS for x in block)


def _plausible(page: PageResult, kind: str, key_line: Line, value_line: Line, value: str,
               blocks: dict[int, list[Line]], strength: int, lines: list[Line]) -> bool:
    """Whether a line without a colon is a label (see the module's docstring)."""
    text, box = key_line.text.strip(), key_line.box
    if not ex._is_short_label(text) or text[-1] in ".,;!?" or not any(ch.isalpha() for ch in text):
        return False
    if not all(ex._is_short_label(ln.text) for ln in blocks.get(key_line.frag, [])):
        return False
    if strength == 2:
        if key_line.frag == value_line.frag or not re.search(r"[^\W\d_]{3}", text) or (
                0 <= key_line.frag < len(page.fragments) and page.fragments[key_line.frag].fragment_type in (
                "title", "section_header")):
            return False  # a letterhead's name over its address, a heading
        band = [ln for ln in lines if ln.box and box and ln.frag not in (key_line.frag, value_line.frag)
                and ex._band_overlap(ln.box, box) >= 0.5]
        if len(band) >= 2 or (kind == "right" and any(ln.box["x1"] >= (value_line.box or box)["x2"] for ln in band)):
            return False  # a row of a grid of three or more columns
        if box and page.height and (box["y2"] < MARGIN * page.height or box["y1"] > (1 - MARGIN) * page.height):
            return False  # a running head and its page number
        if text.isupper() and len(text.split()) >= 3:
            return False  # a heading in capitals
    return len(value.split()) <= (6 if kind == "below" else PROSE_WORDS) and not (
        kind == "below" and value.endswith("."))


def _pair_row(page: PageResult, cell: Line) -> bool:
    """A table-row value is a pair's where the table is a key/value table: two filled columns,
    or a run of rows filled in the same two columns (a key/value block the table reader joined
    to a wider table); not the block's header (a first row without digits over values with)."""
    fi = -1 - cell.frag
    cells = page.fragments[fi].content.get("cells") if 0 <= fi < len(page.fragments) else None
    if not isinstance(cells, list):
        return True
    rows: dict[object, dict[object, str]] = {}
    for c in cells:
        if isinstance(c, dict) and str(c.get("text") or "").strip():
            rows.setdefault(c.get("row"), {})[c.get("column")] = str(c["text"])
    if len(mine := rows.get(cell.idx, {})) != 2:
        return True  # cells without rows and columns: nothing to judge by
    run = [r for r in sorted(rows, key=lambda r: r if isinstance(r, int) else -1) if rows[r].keys() == mine.keys()]
    if len({col for r in rows.values() for col in r}) > 2 and not ({cell.idx - 1, cell.idx + 1} & set(run)):
        return False
    if cell.idx != run[0] or len(run) < 3:
        return True
    column = next((c.get("column") for c in cells if isinstance(c, dict) and c.get("row") == cell.idx
                   and c.get("bounding_box") == cell.box), None)
    later = [rows[r].get(column, "") for r in run[1:]]
    return any(ch.isdigit() for ch in " ".join(mine.values())) or not any(ch.isdigit() for t in later for ch in t)


def _key_line(c: Candidate, key: str, lines: list[Line]) -> Line | None:
    """The line that prints ``c``'s label: left of its value on the same band (beside, table
    row) or above it (below), the nearest."""
    if not c.box:
        return None
    best, dist, here = None, 1e9, _bid(c.box)
    for ln in lines:
        if not ln.box or _find(ln.text, key) is None or _bid(ln.box) == here:
            continue
        a, b = ln.box, c.box
        if c.kind == "below":
            near = a["y2"] <= b["y1"] + 2 and (ex._x_overlap(a, b) > 0.3 or abs(a["x1"] - b["x1"]) < 12)
            d = b["y1"] - a["y2"]
        else:
            near = a["x2"] <= b["x1"] + 2 and ex._band_overlap(a, b) >= 0.5
            d = b["x1"] - a["x2"]
        if near and d < dist:
            best, dist = ln, d
    return best


def _label_form_field(f: Fragment, lines: list[Line]) -> set[Slot]:
    """Give a form-field fragment the label printed beside or above its widget; returns the
    label's slot (so no printed pair takes that label again)."""
    c = f.content
    name, value = str(c.get("key")), str(c.get("value", ""))
    c["field_name"], c["value_bbox"], c["key_bbox"], c["source"] = name, f.bbox, None, "form_field"
    found = _printed_label(f.bbox, lines) if f.bbox else None
    if found is None:
        return set()
    ln, span, label = found
    c["key"], c["key_bbox"], c["content"] = label, _box_of_span(ln, span, None), f"{label}: {value}"
    return {(_bid(ln.box), label.casefold())}


def _printed_label(w: Box, lines: list[Line]) -> tuple[Line, tuple[int, int], str] | None:
    """The short label line nearest the widget ``w``: to its left on the same band, to its right
    (a checkbox's), or just above it."""
    h = w["y2"] - w["y1"]
    small = (w["x2"] - w["x1"]) < 2 * h  # a checkbox or a radio button: its label may follow it
    best: tuple[float, Line] | None = None
    for ln in lines:
        labels = ex.split_pairs(ln.text)
        if not ln.box or (labels and any(v for _, v in labels)) or not ex._is_short_label(ln.text.rstrip(":： ")):
            continue
        b = ln.box
        if ex._band_overlap(b, w) >= 0.5 and b["x2"] <= w["x1"] + 2 and w["x1"] - b["x2"] < 200:
            d = w["x1"] - b["x2"]
        elif small and ex._band_overlap(b, w) >= 0.5 and b["x1"] >= w["x2"] - 2 and b["x1"] - w["x2"] < 40:
            d = 1000 + b["x1"] - w["x2"]
        elif b["y2"] <= w["y1"] + 2 and w["y1"] - b["y2"] < 1.5 * (b["y2"] - b["y1"]) + 4 and (
                ex._x_overlap(b, w) > 0.3 or abs(b["x1"] - w["x1"]) < 12):
            d = 2000 + w["y1"] - b["y2"]
        else:
            continue
        if best is None or d < best[0]:
            best = (d, ln)
    if best is None:
        return None
    ln, labels = best[1], ex.split_pairs(best[1].text)
    label = labels[-1][0] if labels else ln.text.strip().rstrip(":： ")
    span = _find(ln.text, label)
    return (ln, span, label) if span is not None and label else None


def _cell_lines(page: PageResult) -> list[Line]:
    """Table cells as lines (a table row's label, a ``Label: value`` cell), with their boxes;
    ``frag`` is ``-1 - `` the table's index and ``idx`` the cell's row."""
    out = []
    for fi, f in enumerate(page.fragments):
        cells = f.content.get("cells") if f.fragment_type == "table" else None
        for cell in cells if isinstance(cells, list) else []:
            if isinstance(cell, dict) and str(cell.get("text") or "").strip() and cell.get("bounding_box"):
                out.append(Line(page.page_number, " ".join(str(cell["text"]).split()), cell["bounding_box"],
                                -1 - fi, int(cell.get("row") or 0), len(cells)))
    return out


def _find(text: str, part: str, start: int = 0) -> tuple[int, int] | None:
    """Where ``part`` is in ``text`` (any run of spaces matches one), at or after ``start``."""
    m = p.search(text, start) if (p := _pattern(part)) is not None else None
    return (m.start(), m.end()) if m else None


@lru_cache(maxsize=4096)
def _pattern(part: str) -> re.Pattern[str] | None:
    return re.compile(r"\s+".join(map(re.escape, part.split())), re.I) if part.split() else None


def _part(page: PageResult, ln: Line, span: tuple[int, int] | None) -> Box | None:
    words = page.fragments[ln.frag].content.get("words") if 0 <= ln.frag < len(page.fragments) else None
    return _box_of_span(ln, span, words if isinstance(words, list) else None)


def _box_of_span(ln: Line, span: tuple[int, int] | None, words: list | None) -> Box | None:
    """The box of ``ln.text[i:j]``: the union of its words' boxes where the page lists them,
    else the line's box cut by the characters' usual widths; a table cell keeps its box."""
    box = ln.box
    if not box or span is None or ln.frag < 0:
        return _round(box)
    i, j = span
    placed = _placed_words(ln, words) if words else None
    hits = [b for (a, z, b) in placed or [] if a < j and z > i]
    if hits:
        return union(*hits)
    if i == 0 and j >= len(ln.text.rstrip()):
        return _round(box)
    total = _width(ln.text) or 1.0
    w = box["x2"] - box["x1"]
    return _round({"x1": box["x1"] + w * _width(ln.text[:i]) / total, "y1": box["y1"],
                   "x2": box["x1"] + w * _width(ln.text[:j]) / total, "y2": box["y2"]})


def _placed_words(ln: Line, words: list) -> list[tuple[int, int, Box]] | None:
    """The line's words (those whose middle is inside its box), with where each is in its text;
    None when they do not spell the line."""
    b, mine = ln.box or {}, []
    for w in words:
        wb = w.get("bbox") if isinstance(w, dict) else None
        if wb and b["y1"] - 1 <= (wb["y1"] + wb["y2"]) / 2 <= b["y2"] + 1 and b["x1"] - 1 <= wb["x1"] <= b["x2"] + 1:
            mine.append((wb["x1"], str(w.get("text", "")), wb))
    out, pos = [], 0
    for _, text, wb in sorted(mine, key=lambda t: t[0]):
        k = ln.text.find(text, pos)
        if not text or k < 0:
            return None
        out.append((k, k + len(text), wb))
        pos = k + len(text)
    return out or None


_NARROW, _WIDE = set("iljtfrI1.,:;'!|()[] "), set("mwMW@%")


def _width(text: str) -> float:
    """Roughly how wide ``text`` prints, in ems (proportional fonts)."""
    return sum(0.3 if ch in _NARROW else 0.85 if ch in _WIDE else 0.68 if ch.isupper() else 0.55 for ch in text)


def union(*boxes: Box | None) -> Box | None:
    return _round(union_box(list(boxes)))


def _round(b: Box | None) -> Box | None:
    return {k: round(float(b[k]), 2) for k in ("x1", "y1", "x2", "y2")} if b else None


def _bid(b: Box | None) -> tuple[float, ...] | None:
    return tuple(round(b[k], 1) for k in ("x1", "y1", "x2", "y2")) if b else None


