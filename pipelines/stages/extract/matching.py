"""Fields to candidates: embedding similarity of the field's words with each label, exact and fuzzy
name matches, type checks; greedy, best first. Line items: the table section whose header fits."""

from __future__ import annotations

import copy
import difflib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from pipelines.core.models import Citation
from pipelines.stages import embed
from pipelines.stages.extract import arithmetic, items, lexicon
from pipelines.stages.extract.lines import MIN_SCORE, Box, Candidate, split_pairs
from pipelines.stages.extract.roles import totals_row
from pipelines.stages.extract.schema import Field, Records, _type
from pipelines.stages.extract.tables import Section
from pipelines.stages.extract.values import coerce


@lru_cache(maxsize=65536)
def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower().replace("_", " ")).strip()


def _key(label: str) -> str:
    """What a label is embedded as: its English words (``lexicon``), normalised."""
    g = lexicon.gloss(label)
    return _norm(g) or g


@lru_cache(maxsize=65536)  # the same field names meet the same labels page after page
def _ratio(a: str, b: str) -> float:
    """difflib's ratio where it is above 0.5; else 0 (a name that close adds nothing). The
    cheap upper bounds decide most pairs: a label against every field is the extractor's
    costliest loop."""
    if 2 * min(len(a), len(b)) <= 0.5 * (len(a) + len(b)):
        return 0.0
    sm = difflib.SequenceMatcher(None, a, b)
    if sm.quick_ratio() <= 0.5:
        return 0.0
    r = sm.ratio()
    return r if r > 0.5 else 0.0


def name_score(f: Field, label: str) -> float:
    """1 for the same words as the field's name, else a fuzzy ratio above 0.5, else 0."""
    a, b = _norm(" ".join(f.path)), _norm(label)
    n = _norm(f.name)
    if b in (a, n):
        return 1.0
    return max(_ratio(n, b), _ratio(a, b) if a != n else 0.0)


@dataclass
class Found:
    value: Any
    citation: Citation
    strong: bool = False  # a form field: the PDF names the value itself
    label: str = ""


def match(fields: list[Field], cands: list[Candidate]) -> dict[str, Found | list[Found]]:
    if not fields or not cands:
        return {}
    labels = sorted({_key(c.label) for c in cands})
    lv = embed.embed(labels)
    fv = embed.embed([f.query() for f in fields])
    sim = fv @ lv.T
    col = {lab: i for i, lab in enumerate(labels)}
    # a value that is itself a label resembling one of the fields is most likely the
    # neighbouring field's label (``INVOICE NO`` beside ``INVOICE DATE``), not this label's value
    strength, best = sim.max(axis=0), sim.argmax(axis=0)
    label_of = {lab: int(best[i]) for lab, i in col.items() if strength[i] >= MIN_SCORE}
    scored: list[tuple[float, int, int]] = []
    names: dict[tuple[int, str], float] = {}  # many candidates share a label
    for fi, f in enumerate(fields):
        for ci, c in enumerate(cands):
            if f.array != (c.kind == "table-column") and not (f.array and c.kind != "table-column"):
                continue  # a scalar field never takes a whole column
            if c.kind in ("below", "right") and c.value.rstrip().endswith(":"):
                continue  # the next label, not this one's value
            s = float(sim[fi, col[_key(c.label)]])
            if (ns := names.get((fi, c.label))) is None:
                ns = names[fi, c.label] = max(name_score(f, c.label), name_score(f, lexicon.gloss(c.label)))
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
            out[f.dotted()] = Found(coerce(c.value, f), Citation(page_number=c.page, bbox=c.box, text=c.value),
                                    strong=c.kind == "form-field", label=c.label)
        taken_f.add(fi)
        taken_c.add(ci)
    return out


def _assign(fields: list[Field], header: list[str]) -> tuple[dict[int, int], float]:
    """Item field → column of ``header`` (greedy, best first, above ``MIN_SCORE``), and the
    summed score."""
    cols = [(c, h) for c, h in enumerate(header) if h and not split_pairs(h)]
    if not cols or not fields:
        return {}, 0.0
    queries = embed.embed([f.query() for f in fields])
    sim = queries @ embed.embed([_key(h) for _, h in cols]).T
    glossed = [lexicon.item_gloss(h) for _, h in cols]  # "Prix HT" over items: the line's amount
    sim = np.maximum(sim, queries @ embed.embed([_key(g) for g in glossed]).T)
    pairs = []
    for fi, f in enumerate(fields):
        for k, (c, h) in enumerate(cols):
            ns = max(name_score(f, h), name_score(f, glossed[k]))
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


def _continued(sec: Section, sections: list[Section]) -> list[tuple[int, list[tuple[str, Box | None]]]]:
    """The rows of ``sec`` and of the same table going on over the next pages: a section on each
    following page under the same header row, printed again, up to a page without one — when
    no total ended the list on its own page."""
    rows, page = [(sec.page, row) for row in sec.rows], sec.page
    if any(totals_row(" ".join(text for text, _ in row)) for row in sec.rows):
        return rows  # (the list ended on its page: a page after it may print the invoice again)
    same = [s for s in sections if s.page > sec.page and [h.strip().lower() for h in s.header]
            == [h.strip().lower() for h in sec.header]]
    for s in sorted(same, key=lambda s: s.page):
        if s.page != page + 1:
            break
        rows += [(s.page, row) for row in s.rows]
        page = s.page
    return rows


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
    cols = arithmetic.by_arithmetic(rec, sec, _with_rate(rec, sec.header, cols))
    out: list[tuple[dict[str, Any], dict[str, Citation]]] = []
    # the fields that price an item (amount, unit price): a row without one continues the item above
    described = {fi for fi in cols if items.kind_of(rec.fields[fi]) == "description"}
    priced = [fi for fi in cols if _type(rec.fields[fi].schema) in ("number", "integer")
              and re.search(r"amount|price|total|betrag|preis|montant|prix|bedrag|prijs|importe|precio|importo|prezzo",
                            rec.fields[fi].query(), re.I)] or None
    after_total = False  # under a total row, lines without a price describe no item
    at = {items.kind_of(rec.fields[fi]): c for fi, c in cols.items()}
    for page, row in _continued(sec, sections):
        joined = " ".join(text for text, _ in row)
        figures = {k: row[c][0] for k, c in at.items() if k is not None and c < len(row)}
        if any(text.strip().endswith(":") for text, _ in row) or totals_row(joined) and not items.priced(figures):
            # ("ítem con IVA reducido  1  1.000,00  1.000,00": a priced item that names its tax is an item)
            after_total = True
            continue  # a total, subtotal or tax row under the items is not an item
        obj = copy.deepcopy(rec.template)
        cites: dict[str, Citation] = {}
        priced_row = priced is None or any(c < len(row) and row[c][0].strip() for fi, c in cols.items() if fi in priced)
        for fi, c in cols.items():
            if c >= len(row):
                continue
            text, box = row[c]
            if fi in described and priced_row:  # an item's first line, not its continuation ("300 cm x 100 cm")
                text = items.clean_description(text)
            value = coerce(text, rec.fields[fi]) if text.strip() else None
            if value is not None:
                _put(obj, rec.fields[fi].path, value)
                cites[rec.fields[fi].dotted()] = Citation(page_number=page, bbox=box, text=text)
        if cites and priced is not None and out and not any(rec.fields[i].dotted() in cites for i in priced):
            if not after_total:
                _continue(rec, out[-1], cites)  # a line without a price goes on describing the item above
        elif cites:
            out.append((obj, cites))
            after_total = False
    # a row with an amount alone, neither described nor counted, among described items: a sum
    # printed in the table's last columns ("US$ 220" under "INVOICE TOTAL")
    said = {rec.fields[fi].dotted() for fi in cols if items.kind_of(rec.fields[fi]) in ("description", "quantity")}
    if said and any(said & set(c) for _, c in out):
        out = [(o, c) for o, c in out if said & set(c)]
    return items.without_charges(rec, out)


RATE_HEAD = re.compile(r"(?:unit |hourly |daily )?(?:rate|price|cost)|each|tarif|preis|prix|prijs|precio|prezzo", re.I)


def _with_rate(rec: Records, header: list[str], cols: dict[int, int]) -> dict[int, int]:
    """A column headed "Rate" or "Price" alone beside a column taken for the line's amount is the
    unit price (alone, the words may name the line's total or a tax rate: left to the model)."""
    kinds = {items.kind_of(f): fi for fi, f in enumerate(rec.fields)}
    price, amount = kinds.get("unit_price"), kinds.get("amount")
    if price is None or price in cols or amount not in cols:
        return cols
    free = [c for c, h in enumerate(header) if c not in cols.values() and RATE_HEAD.fullmatch(h.strip(" :()€$£"))]
    return {**cols, price: free[0]} if len(free) == 1 and free[0] < cols[amount] else cols


def _continue(rec: Records, item: tuple[dict[str, Any], dict[str, Citation]], cites: dict[str, Citation]) -> None:
    obj, got = item
    for f in rec.fields:
        if f.dotted() in cites and isinstance(text := cites[f.dotted()].text, str) and _type(f.schema) == "string" \
                and items.wordy(text) and not items.annotation(text):
            node = obj
            for p in f.path[:-1]:
                node = node.setdefault(p, {})
            node[f.path[-1]] = f"{node.get(f.path[-1]) or ''} {text}".strip()
            got.setdefault(f.dotted(), cites[f.dotted()])


def _put(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = data
    for p in path[:-1]:
        if not isinstance(node.get(p), dict):
            node[p] = {}
        node = node[p]
    node[path[-1]] = value
