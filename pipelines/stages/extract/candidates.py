"""Every label/value candidate of a page: tables, form fields, the letterhead, inline pairs and
labels with their value beside or below them."""

from __future__ import annotations

import re
from dataclasses import replace

from pipelines.core.models import PageResult
from pipelines.stages.extract.items import is_header
from pipelines.stages.extract.lexicon import gloss, known_label
from pipelines.stages.extract.lines import (
    Box,
    Candidate,
    Line,
    _below,
    _is_short_label,
    _right_of,
    _text,
    capital_labels,
    lines_of,
    split_pairs,
)
from pipelines.stages.extract.roles import REFERENCE_LEAD
from pipelines.stages.extract.rows import rows_of
from pipelines.stages.extract.tables import table_candidates


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
    heads = [r.box for r in rows_of(page) if r.box and is_header(r)]  # items' column headers
    for ln in lines:
        if pairs := split_pairs(ln.text):
            continue
        if not _is_short_label(ln.text):
            continue
        right = _right_of(ln, lines)
        if right is not None and not split_pairs(right.text):
            out.append(Candidate(ln.text, right.text, ln.page, right.box, "right"))
        below = _below(ln, lines)
        if below is not None and not split_pairs(below.text) and not _in_rows(ln, heads):
            out.append(Candidate(ln.text, below.text, ln.page, below.box, "below"))
    # a label's neighbour that is itself a known label ("Billed To" beside "Date of Issue") is
    # the next label, not its value
    out = [replace(c, value=bare) if (bare := _bare(c.value)) != c.value else c for c in out]
    return [part for c in out for part in _unjoined(c)
            if not (c.kind in ("right", "below") and known_label(c.value.strip())) and not _referenced(c.label)]


# words that make an invoice's number or date another invoice's: "N° de facture associée",
# "Original invoice no.", "Ursprungsrechnung", "Factura rectificada"
REFERRING = re.compile(r"(?<![a-zà-ÿ])(?:associ[ée]e?s?|d'origine|origin(?:al|ale|elle)|related|previous|"
                       r"pr[ée]c[ée]dente?|initiale?|corrig[ée]e|rectificad[ao]|rectifi[ée]e|referenced|"
                       r"ursprungs\w*|bezugs\w*)(?![a-zà-ÿ])", re.I)


def _bare(value: str) -> str:
    """A label's neighbour without the colon set apart in front of it (``Folio No.   : 0048821``)."""
    return value.strip().removeprefix(":").strip() or value


def _referenced(label: str) -> bool:
    """Does a label name another document's number or date ("zu Rechnung Nr.", "against invoice
    no.", "Date de facture associée")?"""
    if REFERRING.search(label):
        rest = REFERRING.sub(" ", label).strip(" :.")
        if not rest or gloss(rest).lower() in ("invoice number", "invoice date", "invoice no", "invoice no."):
            return True
    m = REFERENCE_LEAD.match(label)
    return m is not None and gloss(label[m.end():]) == "invoice number"


def _unjoined(c: Candidate) -> list[Candidate]:
    """A candidate whose label is two known labels the layout joined (``Invoice no. Issue
    date`` over ``OA-0772 2024-07-01``), as one candidate per label, when its value has one word
    for each; else the candidate itself."""
    labels = capital_labels(c.label)
    words = c.value.split()
    cells = [(cell.split(), box) for cell, box in c.column]
    if not 2 <= len(labels) == len(words) or any(len(ws) != len(labels) for ws, _ in cells) \
            or not all(map(known_label, labels)):
        return [c]
    return [Candidate(lab, words[k], c.page, c.box, c.kind, [(ws[k], box) for ws, box in cells])
            for k, lab in enumerate(labels)]


def _in_rows(ln: Line, rows: list[Box]) -> bool:
    """Is ``ln`` one of these rows' cells? (Under an items list's column header, "Total HT" over
    "450,00", stands the first item's amount, not the document's total.)"""
    b = ln.box
    return b is not None and any(min(b["y2"], r["y2"]) - max(b["y1"], r["y1"]) > 0.5 * (b["y2"] - b["y1"]) for r in rows)
