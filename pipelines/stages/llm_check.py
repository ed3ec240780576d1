"""What an LLM answered, checked against the document it read (``llm_extract`` asks, this checks).

A model may invent a value, so each value of its answer is kept only if the document writes it.
The document goes to the model as numbered spans (``spans_of``: a line of a text block, a table
row with cells joined by `` | ``, a form field), each keeping its page and box. ``Checker`` keeps
a value written in the spans the model cites (or the line beside them), or, when it cites none,
anywhere in the text it was shown (unless it is ``WEAK``ly short): text with whitespace and case
normalised (``contains``), numbers as numbers in every reading of their separators, dates in
every reading (``format: date`` values come out ISO). Booleans and enum values, which a document
seldom spells out, need a valid citation. Each value is coerced to its type and checked against
its schema; what fails becomes ``null`` with a warning naming the field and why. ``validated``
then makes the answer valid against the schema with every value nullable (as the built-in
extractor's answers are). ``flatten`` turns the checked tree (``Leaf``: a value and its spans)
into data and citations: the first span's page, the union of its spans' boxes on that page.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

import jsonschema

from pipelines.core.models import Citation, PageResult
from pipelines.stages import extract
from pipelines.stages.extract.lines import union_box
from pipelines.stages.schema_check import made_valid, nullable  # noqa: F401 - llm_extract uses nullable

MAX_SPANS = 300  # spans in one request
MAX_CHARS = 24_000  # characters of document text in one request
SPAN_CHARS = 500  # a longer line is cut into several spans
Box = dict[str, float]
Warnings = list[tuple[int | None, str]]  # (page number, message)
WEAK = 2  # a value of this many characters at most ("1", "12", "no") is kept only where it is cited
Path = tuple[str | int, ...]  # a place in the data: ("items", 0, "amount")


@dataclass(frozen=True, eq=False)  # one object per span: compared and hashed by identity
class Span:
    n: int
    page: int
    text: str
    box: Box | None


@dataclass
class Leaf:
    value: Any
    spans: list[Span]


def spans_of(pages: list[PageResult]) -> list[Span]:
    """The pages' text as numbered spans (from 1): each line of a text fragment (its share of the
    fragment's box), each table row (cells joined by `` | ``, the union of their boxes), each form
    field (``key: value``). Lines over ``SPAN_CHARS`` are cut at spaces."""
    rows: list[tuple[int, str, Box | None]] = []
    for page in pages:
        for f in page.fragments:
            if f.fragment_type == "table" and (table := extract._table_rows(f)):
                boxes = extract._cell_boxes(f, table)
                rows += [(page.page_number, " | ".join(c for c in row if c),
                          union_box([b for c, b in zip(row, boxes[r]) if c])) for r, row in enumerate(table) if any(row)]
                continue
            key, value = f.content.get("key"), f.content.get("value")
            if isinstance(key, str):
                if isinstance(value, str) and value.strip():
                    rows.append((page.page_number, f"{key}: {value.strip()}", f.bbox))
                continue
            lines = [ln.strip() for ln in extract._text(f).split("\n") if ln.strip()]
            for i, ln in enumerate(lines):
                for piece in re.findall(rf"\S.{{0,{SPAN_CHARS - 1}}}(?=\s|$)|\S{{{SPAN_CHARS}}}", ln):
                    rows.append((page.page_number, piece.strip(), extract._line_box(f.bbox, i, len(lines))))
    return [Span(i + 1, page, text, box) for i, (page, text, box) in enumerate(rows)]


def windows(spans: list[Span]) -> list[list[Span]]:
    """Consecutive runs of at most ``MAX_SPANS`` spans and ``MAX_CHARS`` characters."""
    out: list[list[Span]] = []
    size = 0
    for s in spans:
        if not out or len(out[-1]) >= MAX_SPANS or size + len(s.text) > MAX_CHARS:
            out.append([])
            size = 0
        out[-1].append(s)
        size += len(s.text) + 8
    return out


def render(spans: list[Span]) -> str:
    lines: list[str] = []
    page = None
    for s in spans:
        if s.page != page:
            page = s.page
            lines.append(f"--- page {page} ---")
        lines.append(f"[{s.n}] {s.text}")
    return "\n".join(lines)


NOT_ALNUM = re.compile(r"[\W_]+")
PATH_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")
NUMBERS = (re.compile(r"[-+(]?\d[\d,.']*\d|\d"),  # 1,234.50  1.234,50  1'234  (5)
           re.compile(r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d+)?"))  # 1 234,50 (also read as 1 and 234,50)
DATE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}/\d{1,2}/\d{1,2}|"
                  r"[A-Za-z]{3,9}\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4}|\d{1,2}(?:st|nd|rd|th)? [A-Za-z]{3,9}\.?,? \d{4}")


def parse_path(key: str) -> Path:
    """``"items[0].amount"`` (or ``"items.0.amount"``) → ``("items", 0, "amount")``."""
    return tuple(int(i) if i else (int(n) if n.strip().isdigit() else n.strip())
                 for i, n in PATH_PART.findall(str(key)) if i or n.strip())


def path_key(path: Path) -> str:
    """The inverse of ``parse_path``, as extraction's citations name fields."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


@lru_cache(maxsize=4096)
def _norm(text: str) -> str:
    t = unicodedata.normalize("NFKC", text).casefold().translate(str.maketrans("‐‑‒–—’‘“”", "-----''\"\""))
    return re.sub(r"\s*@\s*", "@", re.sub(r"\s+", " ", t)).strip()


def contains(hay: str, needle: str) -> bool:
    """Whether ``needle`` is written in ``hay`` (case, whitespace and, for longer values,
    punctuation aside; a short value must stand as a word of its own)."""
    n, h = _norm(needle), _norm(hay)
    if not NOT_ALNUM.sub("", n):
        return bool(n) and n in h
    if len(NOT_ALNUM.sub("", n)) <= 3:
        return re.search(rf"(?<!\w){re.escape(n)}(?!\w)", h) is not None
    return n in h or NOT_ALNUM.sub("", n) in NOT_ALNUM.sub("", h)


@lru_cache(maxsize=4096)
def numbers_in(text: str) -> frozenset[float]:
    """Every number the text may write, in every reading of its separators."""
    out: set[float] = set()
    for tok in (m.group(0) for pattern in NUMBERS for m in pattern.finditer(text)):
        if (v := extract.parse_number(tok)) is not None:
            out.add(abs(v))
        digits = re.sub(r"\D", "", tok)
        seps = [i for i, ch in enumerate(tok) if ch in ",.' \u00a0\u202f"]
        if digits:
            out.add(float(digits))
            if seps:
                head, tail = re.sub(r"\D", "", tok[:seps[-1]]), re.sub(r"\D", "", tok[seps[-1] + 1:])
                out.add(float(f"{head or 0}.{tail or 0}"))
    return frozenset(out)


@lru_cache(maxsize=4096)
def dates_in(text: str) -> frozenset[str]:
    """Every date the text may write, as ISO dates, in every reading (05/06 as May or June)."""
    out: set[str] = set()
    for m in DATE.finditer(text):
        cand = re.sub(r"(\d)(st|nd|rd|th)\b|([A-Za-z])\.", r"\1\3", m.group(0)).replace(",", "")
        for fmt in {f.replace(",", "") for f in extract.DATE_FORMATS}:
            try:
                out.add(datetime.strptime(cand, fmt).date().isoformat())
            except ValueError:
                continue
    return frozenset(out)


KIND_NAMES = {"enum": "one of the values the schema allows", "date": "a date", "number": "a number",
              "integer": "a whole number", "boolean": "yes or no", "string": "text"}


def _kind(schema: dict[str, Any], value: Any) -> str:
    if "enum" in schema or "const" in schema:
        return "enum"
    if "type" not in schema:  # free-form: as the model typed it
        return "boolean" if isinstance(value, bool) else "number" if isinstance(value, int | float) else "string"
    t = extract._type(schema)
    return "date" if t == "string" and schema.get("format") == "date" else t


def coerce(value: Any, schema: dict[str, Any]) -> Any:
    """The model's value as the schema's type (``None`` when it cannot be one)."""
    kind = _kind(schema, value)
    if kind == "enum":
        opts = schema.get("enum") or [schema.get("const")]
        return next((o for o in opts if o == value or str(o).casefold() == str(value).strip().casefold()), None)
    if kind in ("number", "integer"):
        n = None if isinstance(value, bool) else value if isinstance(value, int | float) else \
            extract.parse_number(value) if isinstance(value, str) else None
        if kind == "integer":
            return int(n) if n is not None and n == int(n) else None
        return n
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        low = str(value).strip().casefold()
        return True if low in extract.TRUE else False if low in extract.FALSE else None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    text = (str(int(value)) if isinstance(value, float) and value == int(value) else str(value)).strip()
    if kind == "date":
        return extract.parse_date(text)
    return text or None


def _holds(text: str, value: Any, raw: Any, kind: str) -> bool:
    if kind in ("number", "integer"):
        return any(abs(n - abs(value)) <= 1e-9 * max(1.0, abs(value)) for n in numbers_in(text))
    if kind == "date":
        return value in dates_in(text) or contains(text, str(raw))
    return contains(text, str(value)) or contains(text, str(raw))


class Checker:
    """One answer's values against one window of spans."""

    def __init__(self, spans: list[Span], cites: dict[Path, list[int]], root: dict[str, Any],
                 warnings: Warnings, label: str) -> None:
        self.spans, self.cites, self.root, self.warnings, self.label = spans, cites, root, warnings, label
        self.by_n = {s.n: s for s in spans}
        self.defs = {k: root[k] for k in ("$defs", "definitions") if k in root}
        self.validator = jsonschema.validators.validator_for(root, default=jsonschema.Draft202012Validator)

    def warn(self, path: Path, page: int | None, why: str) -> None:
        self.warnings.append((page, f"extraction '{self.label}': {path_key(path) or 'the answer'}: {why}; left null"))

    def value(self, v: Any, schema: Any, path: Path) -> Any:
        s = extract._resolve(schema, self.root)
        s = s if isinstance(s, dict) else {}
        t = extract._type(s)
        if t == "object" or "properties" in s:
            props = s.get("properties")
            if v is not None and not isinstance(v, dict):
                self.warn(path, None, f"the model answered {short(v)}, not an object")
            v = v if isinstance(v, dict) else {}
            if not isinstance(props, dict):  # a free-form object: whatever is found in the text
                return {k: self.value(x, {}, (*path, k)) for k, x in v.items() if not isinstance(x, dict | list)}
            return {k: self.value(v.get(k), sub, (*path, k)) for k, sub in props.items()}
        if t == "array":
            items = v if isinstance(v, list) else [] if v is None else [v]
            got = [self.value(x, s.get("items") or {}, (*path, i)) for i, x in enumerate(items)]
            return [g for g in got if not _empty(g)]
        return self.scalar(v, s, path)

    def cited(self, path: Path) -> list[Span]:
        for k in range(len(path), 0, -1):  # the field's own citation, else its parent's
            if path[:k] in self.cites:
                return sorted({self.by_n[n] for n in self.cites[path[:k]] if n in self.by_n}, key=lambda s: s.n)
        return []

    def scalar(self, raw: Any, schema: dict[str, Any], path: Path) -> Leaf | None:
        if raw is None or raw == "":
            return None
        cited = self.cited(path)
        page = cited[0].page if cited else None
        value = coerce(raw, schema)
        kind = _kind(schema, raw)
        if value is None:
            self.warn(path, page, f"the model answered {short(raw)}, which is not {KIND_NAMES.get(kind, kind)}")
            return None
        if (error := self.misfit(value, schema)) is not None:
            self.warn(path, page, f"{short(value)} does not fit the schema ({error})")
            return None
        if not cited and len(_norm(str(raw)).replace(" ", "")) <= WEAK:
            self.warn(path, page, f"the model cited no span for {short(raw)}, too short to be looked for anywhere")
            return None
        found = self.find(value, raw, kind, cited)
        if found is None and kind in ("boolean", "enum"):
            if not cited:
                self.warn(path, page, f"the model cited no span for {short(raw)}")
                return None
            found = cited  # a judgement on the cited words rather than the words themselves
        if found is None:
            where = f"the spans it cited ({', '.join(str(s.n) for s in cited)})" if cited else "the document text"
            self.warn(path, page, f"the model's value {short(raw)} is not in {where}")
            return None
        return Leaf(value, found)

    def misfit(self, value: Any, schema: dict[str, Any]) -> str | None:
        """Why ``value`` does not fit its (resolved) schema, if it does not."""
        try:
            error = next(iter(self.validator({**schema, **self.defs}).iter_errors(value)), None)
        except Exception:  # noqa: BLE001 - a schema jsonschema cannot apply (a bad pattern): left unchecked
            return None
        return error.message if error is not None else None

    def find(self, value: Any, raw: Any, kind: str, cited: list[Span]) -> list[Span] | None:
        """The fewest spans that write the value: among the cited ones and the lines beside
        them, or, with no citation, anywhere in the window."""
        if kind == "boolean":
            return None
        if cited:
            near = sorted({s for c in cited for n in (c.n - 1, c.n, c.n + 1) if (s := self.by_n.get(n))
                           and s.page == c.page}, key=lambda s: s.n)
            groups = [[c] for c in cited] + ([cited] if len(cited) > 1 else []) + [[s] for s in near]
            groups += [near[i:i + k] for k in (2, 3) for i in range(len(near) - k + 1)]
        else:
            groups = [self.spans[i:i + k] for k in (1, 2, 3) for i in range(len(self.spans) - k + 1)]
        for g in groups:
            if _holds(" ".join(s.text for s in g), value, raw, kind):
                return g
        return None


def forget() -> None:
    """Empty the caches (they hold the document's words; the process converts others next)."""
    for cached in (_norm, numbers_in, dates_in):
        cached.cache_clear()


def short(v: Any) -> str:
    text = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else repr(v)
    return text if len(text) <= 80 else text[:77] + "…"


def _empty(node: Any) -> bool:
    if isinstance(node, dict):
        return all(_empty(v) for v in node.values())
    return node is None or node == []


def merge(a: Any, b: Any) -> Any:
    """Two parts' checked answers as one: objects key by key, arrays concatenated, the first value."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: merge(a.get(k), b.get(k)) for k in [*a, *(k for k in b if k not in a)]}
    if isinstance(a, list) and isinstance(b, list):
        return a + b
    return b if a is None or a == [] else a


def flatten(node: Any, path: Path, cites: dict[str, Citation]) -> Any:
    if isinstance(node, Leaf):
        page = node.spans[0].page
        same = [s for s in node.spans if s.page == page]
        cites[path_key(path)] = Citation(page_number=page, bbox=union_box([s.box for s in same]),
                                         text=" ".join(s.text for s in same))
        return node.value
    if isinstance(node, dict):
        return {k: flatten(v, (*path, k), cites) for k, v in node.items()}
    if isinstance(node, list):
        return [flatten(v, (*path, i), cites) for i, v in enumerate(node)]
    return node


def validated(data: dict[str, Any], cites: dict[str, Citation], schema: Any, warnings: Warnings,
              label: str) -> dict[str, Any]:
    """``data`` made valid against ``nullable(schema)``: what does not fit becomes ``null``."""
    fixed, ok = made_valid(data, schema)
    for path, message in fixed:
        warnings.append((None, f"extraction '{label}': {path_key(path) or 'the answer'}: {message}; left null"))
        for k in [k for k in cites if k == path_key(path) or k.startswith((path_key(path) + ".", path_key(path) + "["))]:
            del cites[k]
    if ok:
        return data
    cites.clear()
    return extract.skeleton(schema) or {}
