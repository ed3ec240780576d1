"""Structured extraction without an LLM: label/value geometry, embedding match, type validators.

For each ``structured_extraction_options`` item:

1. **Candidates** from the parsed fragments of the pages in play (every value keeps its page
   and box): ``Label: value`` inside a line; a label line (``Label:``, or a short line of a few
   words) with its value to the right on the same band or just below it; a label block whose
   lines pair with the lines of a value block to its right (``Subtotal:`` / ``Total:`` beside
   the amounts); two-cell table rows (key, value); table header → the cells of its column;
   PDF form fields (their name and value).
2. **Fields**: the JSON schema's leaf properties (nested objects are walked; an array of
   scalars is one field that takes a whole table column or an inline list). An array of objects
   (line items) takes the rows of the table whose header row fits the item's properties best,
   each header matched to a property like a label to a field.
3. **Match**: each field's ``"parent name: description"`` is embedded with MiniLM and compared
   with each candidate label (cosine), plus exact and fuzzy name matches; a candidate whose
   value does not pass the field's type (number, integer, boolean, date, enum, pattern, email)
   is not a candidate for it. Field ↔ label pairs are taken greedily, best first, each label
   once, above ``MIN_SCORE``.
4. **Values** are coerced to the schema types (``"EUR 1.234,50"`` → 1234.5, ``"18 May 2025"``
   → ``"2025-05-18"`` for ``format: date``, ``Yes``/``Unpaid`` → booleans); fields not found
   are ``null``. With ``provide_citations`` every value carries page number and box.

``partition_strategy`` ``none`` gives one answer for the document, ``page`` one per page;
``page_classes`` keeps only the pages classified into those classes. ``prompt`` and
``model_provider`` are not used (no LLM runs here).
"""

from __future__ import annotations

import copy
import difflib
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pipelines.core.models import Citation, DocumentResult, Fragment, PageResult, StructuredData
from pipelines.core.requests import StructuredExtractionOptions
from pipelines.stages import embed

MIN_SCORE = 0.45
SHORT_LABEL_WORDS = 4
Box = dict[str, float]


# ---------------------------------------------------------------- candidates


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
        for i, p in enumerate(parts):
            out.append(Line(page.page_number, p, _line_box(f.bbox, i, len(parts)), fi, i, len(parts)))
    return out


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


def _table_rows(f: Fragment) -> list[list[str]]:
    rows = f.content.get("rows")
    if isinstance(rows, list) and rows and all(isinstance(r, list) for r in rows):
        return [[str(c or "").strip() for c in r] for r in rows]
    md = f.content.get("markdown")
    if isinstance(md, str):
        out = []
        for ln in md.splitlines():
            if ln.strip().startswith("|") and not re.match(r"^\|[\s:|-]+\|$", ln.strip()):
                out.append([c.strip() for c in ln.strip().strip("|").split("|")])
        return out
    return []


def _cell_boxes(f: Fragment, rows: list[list[str]]) -> list[list[Box | None]]:
    """Each cell's box where the fragment lists ``cells`` in row order, else the table's rows."""
    cells = f.content.get("cells")
    flat = [c for r in rows for c in r]
    if isinstance(cells, list) and len(cells) == len(flat):
        it = iter(cells)
        return [[(next(it) or {}).get("bounding_box") for _ in r] for r in rows]
    return [[_line_box(f.bbox, i, len(rows)) for _ in r] for i, r in enumerate(rows)]


def _labelish_row(row: list[str]) -> bool:
    filled = [c for c in row if c]
    return len(filled) >= 3 and all(_is_short_label(c) and not any(ch.isdigit() for ch in c) for c in filled)


@dataclass
class Section:
    """A header row of a table and the rows under it (up to the next header row)."""

    page: int
    header: list[str]
    rows: list[list[tuple[str, Box | None]]]


def _sections(page: PageResult, rows: list[list[str]], boxes: list[list[Box | None]]) -> list[Section]:
    heads = [r for r, row in enumerate(rows) if r == 0 or _labelish_row(row)]
    out = []
    for h in heads:
        end = next((k for k in heads if k > h), len(rows))
        body = [[(cell, boxes[r][c]) for c, cell in enumerate(rows[r])] for r in range(h + 1, end)]
        out.append(Section(page.page_number, rows[h], body))
    return out


def _value_cell(text: str) -> bool:
    return bool(re.search(r"\w", text)) and not text.endswith(":")


def sections_of(page: PageResult) -> list[Section]:
    out: list[Section] = []
    for f in page.fragments:
        if f.fragment_type == "table" and (rows := _table_rows(f)):
            out += _sections(page, rows, _cell_boxes(f, rows))
    return out


def table_candidates(page: PageResult) -> tuple[list[Candidate], list[Line]]:
    """Candidates from tables, and the cells that are labels waiting for a value outside the
    table (``Subtotal:`` in the last column, its amount printed beside the table)."""
    out: list[Candidate] = []
    loose: list[Line] = []
    for fi, f in enumerate(page.fragments):
        if f.fragment_type != "table":
            continue
        rows = _table_rows(f)
        if not rows:
            continue
        boxes = _cell_boxes(f, rows)
        for r, row in enumerate(rows):  # key/value rows: exactly two non-empty cells
            filled = [(c, boxes[r][i]) for i, c in enumerate(row) if c]
            for cell, box in filled:  # "Label: value" inside one cell
                out += [Candidate(lab, val, page.page_number, box, "inline") for lab, val in split_pairs(cell) if val]
            if len(filled) == 2 and _is_short_label(filled[0][0]):
                out.append(Candidate(filled[0][0], filled[1][0], page.page_number, filled[1][1], "table-row"))
            if len(filled) == 1 and filled[0][0].endswith(":") and filled[0][1]:
                loose.append(Line(page.page_number, filled[0][0], filled[0][1], -1 - fi, r, len(rows)))
        # header rows (the first, or a row of labels inside the table) → their columns below
        for sec in _sections(page, rows, boxes):
            for c, head in enumerate(sec.header):
                if not head or split_pairs(head):
                    continue
                col = [row[c] for row in sec.rows if c < len(row) and _value_cell(row[c][0])]
                if col:
                    out.append(Candidate(head, col[0][0], page.page_number, col[0][1], "table-column", col))
                if len(col) == 1:  # a label row above a value row (boxes of a form read as a table)
                    out.append(Candidate(head, col[0][0], page.page_number, col[0][1], "below"))
    return out, loose


def _split_values(text: str, k: int) -> list[str] | None:
    toks = text.split()
    if k <= 1 or len(toks) % k:
        return None
    step = len(toks) // k
    return [" ".join(toks[i:i + step]) for i in range(0, len(toks), step)]


LETTERHEAD = "letterhead: sender, company name, from, vendor, seller"


def letterhead(page: PageResult) -> list[Candidate]:
    """The heading at the top left of a first page: who sends the document (an invoice's seller,
    a letter's sender), which is seldom labelled."""
    if page.page_number != 1 or not page.height:
        return []
    for f in page.fragments:
        if f.fragment_type in ("title", "section_header") and f.bbox and f.bbox["y1"] < 0.2 * page.height \
                and f.bbox["x1"] < 0.4 * (page.width or 1e9):
            return [Candidate(LETTERHEAD, _text(f), page.page_number, f.bbox, "letterhead")]
    return []


def candidates(page: PageResult) -> list[Candidate]:
    out, loose = table_candidates(page)
    out += letterhead(page)
    for f in page.fragments:  # form fields: the PDF names the key and holds the value
        key, value = f.content.get("key"), f.content.get("value")
        if isinstance(key, str) and isinstance(value, str) and value.strip():
            out.append(Candidate(key, value, page.page_number, f.bbox, "form-field"))
    lines = lines_of(page)
    for ln in lines + loose:
        pairs = split_pairs(ln.text)
        empty = [p for p in pairs if not p[1]]
        for lab, val in pairs:
            if val:
                out.append(Candidate(lab, val, ln.page, ln.box, "inline"))
        if pairs and len(empty) == len(pairs):
            # labels without values: the value is beside them (one value each) or below
            right = _right_of(ln, lines)
            if right is not None and split_pairs(right.text):
                right = None  # the next label, with its own value
            if right is not None and len(pairs) == 1:
                out.append(Candidate(pairs[0][0], right.text, ln.page, right.box, "right"))
            elif right is not None and (vals := _split_values(right.text, len(pairs))):
                for (lab, _), val in zip(pairs, vals):
                    out.append(Candidate(lab, val, ln.page, right.box, "right"))
            elif len(pairs) == 1 and (below := _below(ln, lines)) is not None:
                out.append(Candidate(pairs[0][0], below.text, ln.page, below.box, "below"))
    for ln in lines:
        if pairs := split_pairs(ln.text):
            continue
        if not _is_short_label(ln.text):
            continue
        right = _right_of(ln, lines)
        if right is not None and not split_pairs(right.text):
            out.append(Candidate(ln.text, right.text, ln.page, right.box, "right"))
        below = _below(ln, lines)
        if below is not None and not split_pairs(below.text):
            out.append(Candidate(ln.text, below.text, ln.page, below.box, "below"))
    return out


# ---------------------------------------------------------------- schema fields


@dataclass
class Field:
    path: tuple[str, ...]
    schema: dict[str, Any]
    array: bool = False

    @property
    def name(self) -> str:
        return self.path[-1]

    def query(self) -> str:
        words = " ".join(p.replace("_", " ") for p in self.path)
        desc = self.schema.get("description") or self.schema.get("title") or ""
        return f"{words}: {desc}" if desc else words

    def dotted(self) -> str:
        return ".".join(self.path)


def _resolve(schema: Any, root: Any) -> Any:
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref.startswith("#/"):
            node = root
            for part in ref[2:].split("/"):
                node = node.get(part, {}) if isinstance(node, dict) else {}
            return _resolve(node, root)
    if isinstance(schema, dict):
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):  # Optional[X] from pydantic: the non-null branch
                branches = [b for b in schema[key] if not (isinstance(b, dict) and b.get("type") == "null")]
                if len(branches) == 1:
                    merged = {k: v for k, v in schema.items() if k != key}
                    return {**_resolve(branches[0], root), **merged}
    return schema


def _type(schema: dict[str, Any]) -> str:
    t = schema.get("type", "string")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    return t if isinstance(t, str) else "string"


@dataclass
class Records:
    """An array of objects (line items): each row of a matching table becomes one object."""

    path: tuple[str, ...]
    fields: list[Field]
    description: str = ""
    template: dict[str, Any] = field(default_factory=dict)  # one item, every value null

    def dotted(self) -> str:
        return ".".join(self.path)


def walk(schema: Any, root: Any = None, path: tuple[str, ...] = ()) -> tuple[list[Field], list[Records]]:
    """The schema's scalar leaves and arrays of scalars (fields), and its arrays of objects."""
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return [], []
    fields: list[Field] = []
    records: list[Records] = []
    for name, sub in (schema.get("properties") or {}).items():
        sub = _resolve(sub, root)
        if not isinstance(sub, dict):
            continue
        t = _type(sub)
        if t == "object" or "properties" in sub:
            more, recs = walk(sub, root, path + (name,))
            fields, records = fields + more, records + recs
        elif t == "array":
            items = _resolve(sub.get("items") or {}, root)
            if isinstance(items, dict) and (_type(items) == "object" or "properties" in items):
                records.append(Records(path + (name,), walk(items, root)[0], sub.get("description", ""),
                                       skeleton(items, root) or {}))
                continue
            merged = {**(items if isinstance(items, dict) else {}), "description": sub.get("description", "")}
            fields.append(Field(path + (name,), merged, array=True))
        else:
            fields.append(Field(path + (name,), sub))
    return fields, records


def fields_of(schema: Any) -> list[Field]:
    return walk(schema)[0]


def skeleton(schema: Any, root: Any = None) -> Any:
    """The schema's shape with every value null (arrays empty)."""
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return None
    if _type(schema) == "object" or "properties" in schema:
        return {k: skeleton(v, root) for k, v in (schema.get("properties") or {}).items()}
    if _type(schema) == "array":
        return []
    return None


# ---------------------------------------------------------------- values


CURRENCY = re.compile(r"[$€£¥]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|INR|SEK|NOK|DKK)\b", re.I)
DATE_FORMATS = ("%Y-%m-%d", "%d.%m.%Y", "%d/%m/%Y", "%m/%d/%Y", "%d-%m-%Y", "%B %d, %Y", "%b %d, %Y",
                "%d %B %Y", "%d %b %Y", "%B %d %Y", "%b %d %Y", "%Y/%m/%d", "%d.%m.%y", "%b. %d, %Y")
TRUE = {"yes", "y", "true", "paid", "checked", "x", "✓", "✔", "on", "1", "agree", "agreed", "active"}
FALSE = {"no", "n", "false", "unpaid", "unchecked", "off", "0", "none", "open", "due", "outstanding", "pending"}
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def parse_number(text: str) -> float | None:
    s = CURRENCY.sub("", text).replace("\u00a0", " ").strip()
    m = re.search(r"[-+(]?\d[\d.,' ]*\d|[-+]?\d", s)
    if not m:
        return None
    num = m.group(0).replace(" ", "").replace("'", "")
    neg = num.startswith(("-", "("))
    num = num.lstrip("+-(")
    if "," in num and "." in num:  # the last separator is the decimal one
        num = num.replace(",", "") if num.rfind(".") > num.rfind(",") else num.replace(".", "").replace(",", ".")
    elif "," in num:
        head, _, tail = num.rpartition(",")
        num = num.replace(",", "") if len(tail) == 3 and head else head.replace(",", "") + "." + tail
    elif num.count(".") > 1:
        num = num.replace(".", "")
    try:
        v = float(num)
    except ValueError:
        return None
    return -v if neg else v


def parse_date(text: str) -> str | None:
    s = re.sub(r"\s+", " ", text.strip().rstrip("."))
    s = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", s)
    candidates = [s] + re.findall(r"\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|"
                                  r"[A-Za-z]{3,9}\.? \d{1,2},? \d{4}|\d{1,2} [A-Za-z]{3,9}\.? \d{4}", s)
    for cand in candidates:
        for fmt in DATE_FORMATS:
            try:
                return datetime.strptime(cand, fmt).date().isoformat()
            except ValueError:
                continue
    return None


def coerce(value: str, f: Field) -> Any:
    """``value`` as the field's type, or ``None`` when it is not one (then the candidate does
    not fit the field)."""
    s = f.schema
    t = _type(s)
    v = value.strip()
    if not v or set(v) <= set("_ .-"):
        return None
    if "enum" in s and isinstance(s["enum"], list):
        low = v.lower()
        for opt in s["enum"]:
            if str(opt).lower() == low:
                return opt
        for opt in s["enum"]:
            if re.search(rf"(?<!\w){re.escape(str(opt).lower())}(?!\w)", low):
                return opt
        return None
    if t in ("number", "integer"):
        n = parse_number(v)
        if n is None or (len(re.sub(r"[\d.,\s$€£¥+()-]", "", CURRENCY.sub("", v))) > 3):
            return None
        if t == "integer":
            return int(n) if n == int(n) else None
        return n
    if t == "boolean":
        low = re.sub(r"[^\w✓✔ ]", "", v.lower()).strip()
        if low in TRUE:
            return True
        if low in FALSE:
            return False
        return None
    fmt = s.get("format")
    if fmt == "date" or (fmt is None and re.search(r"(^|_)(date|dob|birth)(_|$)", f.name)):
        d = parse_date(v)
        if d is None and fmt == "date":
            return None
        v = d or v
    elif fmt == "date-time":
        d = parse_date(v)
        v = d or v
    if fmt == "email" or re.search(r"(^|_)e?mail$", f.name):
        m = EMAIL.search(re.sub(r"\s*@\s*", "@", v))  # OCR puts spaces around the @
        if m is None:
            return None
        v = m.group(0)
    if isinstance(s.get("pattern"), str):
        try:
            pat = re.compile(s["pattern"])
        except re.error:
            pat = None
        if pat is not None and not pat.search(v):
            tok = next((t for t in v.split() if pat.search(t)), None)
            if tok is None:
                return None
            v = tok
    return v


# ---------------------------------------------------------------- matching


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower().replace("_", " ")).strip()


def name_score(f: Field, label: str) -> float:
    """1 for the same words as the field's name, else a fuzzy ratio (0..1)."""
    a, b = _norm(" ".join(f.path)), _norm(label)
    n = _norm(f.name)
    if b in (a, n):
        return 1.0
    return max(difflib.SequenceMatcher(None, n, b).ratio(), difflib.SequenceMatcher(None, a, b).ratio())


@dataclass
class Found:
    value: Any
    citation: Citation


def match(fields: list[Field], cands: list[Candidate]) -> dict[str, Found | list[Found]]:
    if not fields or not cands:
        return {}
    labels = sorted({_norm(c.label) or c.label for c in cands})
    lv = embed.embed(labels)
    fv = embed.embed([f.query() for f in fields])
    sim = fv @ lv.T
    col = {lab: i for i, lab in enumerate(labels)}
    # a value that is itself a label resembling one of the fields is most likely the
    # neighbouring field's label (``INVOICE NO`` beside ``INVOICE DATE``), not this label's value
    strength, best = sim.max(axis=0), sim.argmax(axis=0)
    label_of = {lab: int(best[i]) for lab, i in col.items() if strength[i] >= MIN_SCORE}
    scored: list[tuple[float, int, int]] = []
    for fi, f in enumerate(fields):
        for ci, c in enumerate(cands):
            if f.array != (c.kind == "table-column") and not (f.array and c.kind != "table-column"):
                continue  # a scalar field never takes a whole column
            s = float(sim[fi, col[_norm(c.label) or c.label]])
            ns = name_score(f, c.label)
            s += 0.5 if ns == 1.0 else 0.2 * max(0.0, ns - 0.5)
            if _type(f.schema) == "boolean" and re.search(rf"\b(un|not ?)?{re.escape(_norm(f.name))}\b",
                                                           _norm(c.value)):
                s += 0.4  # "Status: Unpaid" for a field named "paid"
            if label_of.get(_norm(c.value), fi) != fi:
                s -= 0.3
            if c.kind == "table-column" and not f.array:
                s -= 0.15
            if s < MIN_SCORE:
                continue
            if f.array:  # a table column, or an inline list ("Tags: a, b, c")
                if c.kind != "table-column" and (c.kind != "inline" or coerce(c.value, f) is None):
                    continue
            elif coerce(c.value, f) is None:
                continue
            scored.append((s, fi, ci))
    scored.sort(key=lambda x: -x[0])
    taken_f: set[int] = set()
    taken_c: set[int] = set()
    out: dict[str, Found | list[Found]] = {}
    for _score, fi, ci in scored:
        if fi in taken_f or ci in taken_c:
            continue
        f, c = fields[fi], cands[ci]
        if f.array:
            cells = c.column or [(v.strip(), c.box) for v in re.split(r"[;,]", c.value) if v.strip()]
            vals = [Found(v, Citation(page_number=c.page, bbox=b, text=t))
                    for t, b in cells if (v := coerce(t, f)) is not None]
            if not vals:
                continue
            out[f.dotted()] = vals
        else:
            out[f.dotted()] = Found(coerce(c.value, f), Citation(page_number=c.page, bbox=c.box, text=c.value))
        taken_f.add(fi)
        taken_c.add(ci)
    return out


def _assign(fields: list[Field], header: list[str]) -> tuple[dict[int, int], float]:
    """Item field → column of ``header`` (greedy, best first, above ``MIN_SCORE``), and the
    summed score."""
    cols = [(c, h) for c, h in enumerate(header) if h and not split_pairs(h)]
    if not cols or not fields:
        return {}, 0.0
    sim = embed.embed([f.query() for f in fields]) @ embed.embed([_norm(h) or h for _, h in cols]).T
    pairs = []
    for fi, f in enumerate(fields):
        for k, (c, h) in enumerate(cols):
            ns = name_score(f, h)
            score = float(sim[fi, k]) + (0.5 if ns == 1.0 else 0.2 * max(0.0, ns - 0.5))
            if score >= MIN_SCORE:
                pairs.append((score, fi, c))
    pairs.sort(key=lambda x: -x[0])
    out: dict[int, int] = {}
    total = 0.0
    for score, fi, c in pairs:
        if fi not in out and c not in out.values():
            out[fi] = c
            total += score
    return out, total


def match_records(rec: Records, sections: list[Section]) -> list[tuple[dict[str, Any], dict[str, Citation]]]:
    """The rows of the table section whose header fits the item's fields best (most fields
    matched, then the highest score), each as an object and its citations. Rows whose matched
    cells are all empty or do not type-check, and total rows (``Subtotal:``), are skipped."""
    best: tuple[int, float, Section, dict[int, int]] | None = None
    for sec in sections:
        cols, score = _assign(rec.fields, sec.header)
        need = 1 if len(rec.fields) == 1 else 2
        if len(cols) >= need and (best is None or (len(cols), score) > best[:2]):
            best = (len(cols), score, sec, cols)
    if best is None:
        return []
    _, _, sec, cols = best
    out = []
    for row in sec.rows:
        if any(text.strip().endswith(":") for text, _ in row):
            continue
        obj = copy.deepcopy(rec.template)
        cites: dict[str, Citation] = {}
        for fi, c in cols.items():
            if c >= len(row):
                continue
            text, box = row[c]
            value = coerce(text, rec.fields[fi]) if text.strip() else None
            if value is not None:
                _put(obj, rec.fields[fi].path, value)
                cites[rec.fields[fi].dotted()] = Citation(page_number=sec.page, bbox=box, text=text)
        if cites:
            out.append((obj, cites))
    return out


def _put(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = data
    for p in path[:-1]:
        if not isinstance(node.get(p), dict):
            node[p] = {}
        node = node[p]
    node[path[-1]] = value


def extract_pages(pages: list[PageResult], opt: StructuredExtractionOptions) -> StructuredData:
    fields, records = walk(opt.json_schema)
    cands = [c for p in pages for c in candidates(p)]
    found = match(fields, cands)
    data = skeleton(opt.json_schema)
    if not isinstance(data, dict):
        data = {}
    citations: dict[str, Citation] = {}
    used: set[int] = set()
    for f in fields:
        got = found.get(f.dotted())
        if got is None:
            continue
        if isinstance(got, list):
            _put(data, f.path, [g.value for g in got])
            for i, g in enumerate(got):
                citations[f"{f.dotted()}[{i}]"] = g.citation
                used.add(g.citation.page_number)
        else:
            _put(data, f.path, got.value)
            citations[f.dotted()] = got.citation
            used.add(got.citation.page_number)
    if records:
        sections = [sec for p in pages for sec in sections_of(p)]
        for rec in records:
            rows = match_records(rec, sections)
            if rows:
                _put(data, rec.path, [obj for obj, _ in rows])
            for i, (_, cites) in enumerate(rows):
                for name, cite in cites.items():
                    citations[f"{rec.dotted()}[{i}].{name}"] = cite
                    used.add(cite.page_number)
    numbers = sorted(used) or [p.page_number for p in pages]
    return StructuredData(schema_name=opt.schema_name, data=data, page_numbers=numbers,
                          citations=citations if opt.provide_citations else None)


def pages_for(result: DocumentResult, opt: StructuredExtractionOptions) -> list[PageResult]:
    if not opt.page_classes:
        return result.pages
    wanted = set(opt.page_classes)
    numbers = {n for pc in result.page_classes or [] if pc.page_class in wanted for n in pc.page_numbers}
    return [p for p in result.pages if p.page_number in numbers]


def partition(opt: StructuredExtractionOptions) -> str:
    return opt.partition_strategy if isinstance(opt.partition_strategy, str) else "none"


def extract(result: DocumentResult) -> DocumentResult:
    """Set ``result.structured_data`` from ``input.extraction`` (run after ``classify``)."""
    opts = result.input.extraction
    if not opts:
        return result
    out: list[StructuredData] = []
    for opt in opts:
        pages = pages_for(result, opt)
        if partition(opt) == "page":
            out += [extract_pages([p], opt) for p in pages]
        elif pages or not opt.page_classes:
            out.append(extract_pages(pages, opt))
    result.structured_data = out
    return result

