"""Line items read from rows of text, for invoices whose items are not a table the parser found.

Many real invoices print their items without rules — a header row (``Description  Qty  Unit
price  Amount``, ``Bezeichnung  Menge  Einzelpreis  Betrag``) and then one row per item, some of
them running over two lines — which the table detector does not always see as a table, so
``matching.match_records`` finds no section and the user gets no items. Here the page's visual
rows (``rows.rows_of``) are read as a person reads such a list:

* the **header row** is a row naming at least two kinds of item column (in any of the lexicon's
  languages);
* each later row ending in an **amount** is an item: the last amount is the line's amount, the
  one before it the unit price, a number before the prices the quantity (a unit word such as
  ``Stk.`` or ``pcs`` may sit between), the words before them the description;
* a row **without an amount** right under an item continues its description; a row of labels
  and values under it (``Basis: 75,00 €  Rabatt: -0,03 €``) is its details, no item;
* the list ends at a row that says total, subtotal or tax, or at the page's end.

Lists with no header at all (an insurer's ``Privathaftpflicht  50,00 €`` over ``Gesamtbeitrag
50,00 €``) are ``summed.read_summed``'s: the rows whose amounts add up to the sum under them.

Each item field's kind comes from its own name and description (``lexicon.gloss``): ``menge``
is read like ``quantity``.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from pipelines.core.models import Citation, PageResult
from pipelines.stages.extract.lexicon import gloss, item_gloss
from pipelines.stages.extract.lines import split_pairs
from pipelines.stages.extract.roles import AMOUNT, WHOLE_AMOUNT, totals_row
from pipelines.stages.extract.rows import Row, rows_of
from pipelines.stages.extract.schema import Field, Records
from pipelines.stages.extract.values import coerce, parse_number
from pipelines.stages.extract.whole import UNIT, count_and_price, regrouped

KINDS = {"description": "description", "quantity": "quantity", "unit price": "unit_price", "amount": "amount", "total amount": "amount", "subtotal net amount": "amount", "amount line total": "amount"}
_HEAD = {
    "description": re.compile(r"descri\w*|bezeichnung|beschreibung|artikel\w*|d[ée]signation|omschrijving|"
                              r"concepto|item|product|article|leistung|service|libell[ée]|\b(?:produ[ck]t[oe]?|"
                              r"art[íi]culo|articolo|particulars|prestations?|servizio|servicio|opis)\b", re.I),
    "quantity": re.compile(r"\b(?:qty|quantity|menge|anzahl|quantit[ée]|qt[ée]|aantal|cantidad|quantit[àa]|"
                           r"units?|antal|m[æe]ngde|ilo[śs][ćc]|anz|cant|qt[àa]|quantidade|qtd|hours|hrs|stunden|"
                           r"heures|uren|horas)\b", re.I),
    "unit_price": re.compile(r"unit ?price|price|rate|einzelpreis|preis|prix|p\.u\.|prijs|precio|prezzo|pre[çc]o|tarif|\bcena\b", re.I),
    "amount": re.compile(r"amount|total|betrag|montant|bedrag|importe|importo|summe|line total|totaal|"
                         r"\b(?:valor|wert|warto[śs][ćc])\b", re.I),
}
NUMBER = re.compile(r"^-?\d{1,6}(?:[.,]\d{1,4})?$")
RATE_LAST = re.compile(r"(?<!\S)\d{1,2}(?:[.,]\d{1,2})? ?%$")  # a tax rate's cell
UNIT_WORD = re.compile(r"^(?:[^\W\d_]{1,6}\.?|[A-Z][A-Z0-9]{2})$")  # a unit under its column: "tim", "m²", "Lizenz", "C62"
# the column heads that say a code column or a unit column is there (``columns``)
CODE_HEAD = re.compile(r"(?<![\w-])(?:hsn(?:/sac)?|sac|sku|ean|gtin|art(?:ikel)?\.?-?nr\.?|item code|code|"
                       r"r[ée]f\.?|hs code)(?![\w-])", re.I)
UNIT_HEAD = re.compile(r"(?<![\w-])(?:unit|uom|u/m|enhet|enhed|einheit|einh\.?|eh|unit[ée]|eenheid|unidad|ud\.?|un\.?|unit[àa]|"
                       r"u\.\s?m\.?|jedn\.?|me)(?![\w-])(?!\s*(?:price|cost|rate|value|amount|pris|preis|prix))", re.I)
MAX_CONTINUATION, MAX_CONTINUATION_WORDS = 2, 10
MAX_ITEM_WORDS = 30  # a paragraph that ends in an amount is not an item
SPACED = re.compile(r"(\d{1,3}) (\d{3}[.,]\d{2})")  # a count and a price, or one amount in groups
YEAR = re.compile(r"^(?:19|20)\d\d$")
DAY_MONTH = re.compile(r"(?:0[1-9]|[12]\d|3[01])\.(?:0[1-9]|1[0-2])\.")  # "bis zum 19.12. geliefert": a date


def kind_of(f: Field) -> str | None:
    """The item column a field reads: description, quantity, unit_price or amount."""
    for text in (f.name.replace("_", " "), gloss(f.name.replace("_", " ")), f.schema.get("description") or ""):
        g = gloss(text)
        if g in KINDS:
            return KINDS[g]
        for kind in ("unit_price", "quantity", "amount", "description"):
            if _HEAD[kind].search(text):
                return kind
    return None


def clean_description(text: str) -> str:
    """An item's words without the position and article numbers that lead it in their own
    columns (``1 TB100A4 Trennblätter A4`` → ``Trennblätter A4``)."""
    words = text.split()
    k = 0
    while k < min(3, len(words) - 1) and len(words[k]) <= 16 and any(ch.isdigit() for ch in words[k]) and (
            words[k].rstrip(".").isdigit() or len(words[k]) >= 3):
        k += 1  # a position ("1", "2.") or an article number ("TB100A4", "KR3M"), not "A4 paper"
    return " ".join(words[k:])


def wordy(text: str) -> bool:
    """A line that describes (more letters than digits), not an identifier such as ``GTIN: 4012…``."""
    return sum(ch.isalpha() for ch in text) > max(2, sum(ch.isdigit() for ch in text))


def is_header(row: Row) -> bool:
    return header_text(row.text)


def header_text(text: str) -> bool:
    """A row naming two kinds of item column or more, by the English words or, cell by cell,
    by the lexicon's in any of its languages (``Beskrivelse  Enhetspris  Sum``)."""
    if AMOUNT.search(text):
        return False
    kinds = {k for k, p in _HEAD.items() if p.search(text)}
    for cell in text.split("  "):
        for word in (cell, *cell.split()):
            if (kind := KINDS.get(item_gloss(word.strip()))) is not None:
                kinds.add(kind)
    return len(kinds) >= 2


def _ends(row: Row) -> bool:
    return totals_row(row.text)


def row_amounts(text: str) -> list[re.Match[str]]:
    """The amounts of a row, rates left out (``15.00%`` is a tax rate); whole amounts with their
    currency ("53 EUR", "$ 120", "2 890 Ft") where it has no other."""
    found = [m for m in AMOUNT.finditer(text) if not text[m.end():].lstrip().startswith("%")
             and not DAY_MONTH.fullmatch(text[m.start():m.end() + 1])]
    return found or list(WHOLE_AMOUNT.finditer(text))


def annotation(text: str) -> bool:
    """A line under an item that labels a detail (``Verpackung: Flasche``, ``Work team (AOP):
    EQUIPE_A``): not the item's description going on."""
    return bool(re.match(r"^[^:]{2,40}:(?!//)", text.strip()))


def parse_row(text: str, code: bool = False, unit: bool = False, position: bool = False) -> dict[str, str] | None:
    """``"Trennblätter A4 20 Stk. 9,90 198,00"`` → description, quantity, unit_price, amount
    (as printed); ``None`` when the row ends in no amount. Under a header with a code column
    between the description and the quantity (``code``: HSN, SKU) the figure before the count
    is that code; with a unit column after the quantity (``unit``) any short word after the
    count is its unit (``6 tim``, ``1 svc``). Under a position column (``position``) a figure
    leading the row is the item's position (``01.01``), not an amount."""
    amounts = row_amounts(text)
    if position and len(amounts) >= 2 and not text[:amounts[0].start()].strip():
        amounts = amounts[1:]
    if not amounts:  # whole units grouped by spaces, read by the row's own arithmetic
        if (whole := regrouped(text)) is None:
            return None
        parsed = parse_row(whole[0], code, unit, position)
        return None if parsed is None else {k: whole[1].get(v, v) for k, v in parsed.items()}
    if len(amounts) >= 2 and (m := SPACED.fullmatch(amounts[-2].group(0).strip())) \
            and _times(m.group(1), m.group(2), amounts[-1].group(0)):
        # "2 180.00  360.00": a count beside its price, not "2 180.00" grouped with a space
        return parse_row(f"{text[:amounts[-2].start()]}{m.group(1)}  {m.group(2)}{text[amounts[-2].end():]}", code, unit)
    out = {"amount": amounts[-1].group(0).strip()}
    if len(amounts) >= 2:
        out["unit_price"] = amounts[-2].group(0).strip()
        between = text[amounts[-2].end():amounts[-1].start()].split()
        if len(between) == 1 and NUMBER.match(between[0]) and _times(between[0], out["unit_price"], out["amount"]):
            out["quantity"] = between[0]  # "Rate  Qty  Line Total": "$45.00  24  $1,080.00"
    if len(amounts) >= 3 and _times(amounts[0].group(0), amounts[1].group(0), amounts[-1].group(0)):
        # a count printed with decimals: "18.00  45.00  10%  810.00" (18 × 45 = 810)
        out["quantity"], out["unit_price"] = amounts[0].group(0).strip(), amounts[1].group(0).strip()
    # (the words before the row's first amount: a row may print a net and a gross unit price)
    head = text[:amounts[0].start()].split()
    if (m := RATE_LAST.search(" ".join(head))) and len(head) >= (rate := len(m.group().split())) + 2 \
            and (NUMBER.match(head[-rate - 1]) or NUMBER.match(head[-rate - 2])):
        del head[-rate:]  # "5 ks 21 %": the VAT rate's column after the count and its unit
    units = 0
    while units < len(head) and UNIT.match(head[-1 - units]):
        units += 1
    if unit and not units and len(head) >= 2 and UNIT_WORD.match(head[-1]) and NUMBER.match(head[-2]):
        units = 1
    elif len(head) >= units + 2 and UNIT_WORD.match(head[-1 - units]) and NUMBER.match(head[-2 - units]) \
            and _pair(head[-2 - units], amounts) is not None and sum(ch.isalpha() for ch in " ".join(head[:-2 - units])) >= 2:
        units += 1  # a word between a description's count and a price that make the amount ("12 woord € 0,50")
    counted = units < len(head) and NUMBER.match(head[-1 - units]) and not YEAR.match(head[-1 - units])
    if "quantity" not in out and counted:  # "20 Stk." / "3 h": the count and its unit ("Exchange 2010" names)
        del head[len(head) - units:]
        out["quantity"] = head.pop()
        while head and head[-1] in ("x", "X", "×", "*"):  # "Item x 3": not "500 stk." in the name
            head.pop()
        if code and len(head) >= 2 and any(ch.isdigit() for ch in head[-1]):
            head.pop()  # "Cotton saree fabric (m)  5208  500": the HSN code before the count
    desc = " ".join(head).strip(" -:|")
    if sum(ch.isalpha() for ch in desc) < 2 and len(amounts) >= 3 and out.get("quantity") == amounts[0].group(0).strip():
        # "2.00  Hours of consulting  50.00  100.00", "01.02  164,35  m²  Wandflächen …": the
        # count leads (after the position), its unit and the description follow it
        words = text[amounts[0].end():amounts[1].start()].split()
        while words and UNIT.match(words[0]):
            words.pop(0)
        desc = " ".join(words).strip(" -:|")
    if sum(ch.isalpha() for ch in desc) >= 2:
        out["description"] = desc
    if len(amounts) >= 3 and "quantity" in out and not _times(out["quantity"], out["unit_price"], out["amount"]):
        # a price, the line's net, its tax and its gross ("12 kg 2 650,00 31 800,00 5% 1 590,00
        # 33 390,00"): the price and the amount are the pair the count makes
        if (pair := _pair(out["quantity"], amounts)) is not None:
            out["unit_price"], out["amount"] = pair
    if not priced(out) and (value := parse_number(out["amount"])) and (
            found := count_and_price(text[:amounts[-1].start()], abs(value))) is not None:
        desc, out["quantity"], out["unit_price"] = found  # "10000,0000 KWh 1 0,0520 19,0 520,00"
        out.pop("description", None)  # (it held the figures)
        if any(sum(ch.isalpha() for ch in w) >= 2 and not UNIT.match(w) for w in desc.strip("€$£ ").split()):
            out["description"] = desc.strip("€$£ ")
    return out


def _pair(count: str, amounts: list[re.Match[str]]) -> tuple[str, str] | None:
    """The first price and later amount of a row that ``count`` times the price makes."""
    texts = [m.group(0).strip() for m in amounts]
    return next(((p, a) for i, p in enumerate(texts) for a in texts[i + 1:] if _times(count, p, a)), None)


def priced(parsed: dict[str, str] | None) -> bool:
    """Is a parsed row an item by its figures: a count times a unit price makes its amount?"""
    return parsed is not None and all(k in parsed for k in ("quantity", "unit_price", "amount")) \
        and _times(parsed["quantity"], parsed["unit_price"], parsed["amount"])


def _times(quantity: str, price: str, amount: str) -> bool:
    q, p, a = parse_number(quantity), parse_number(price), parse_number(amount)
    return q is not None and p is not None and a is not None and a != 0 and abs(q * p - a) <= 0.011 * max(1.0, abs(a))


def read_items(rec: Records, pages: list[PageResult]) -> list[tuple[dict[str, Any], dict[str, Citation]]]:
    """The items of the first header row's list, each as an object of ``rec``'s shape and its
    citations; empty when no page has a header row naming item columns. A list that runs to
    its page's foot without a total goes on over the next pages: under their own header row
    (printed again) or, without one, in the rows whose count times price makes their amount."""
    kinds = {i: k for i, f in enumerate(rec.fields) if (k := kind_of(f)) is not None}
    if "amount" not in kinds.values() and "unit_price" not in kinds.values():
        return []
    items: list[tuple[dict[str, str], Row, int]] = []
    header: str | None = None
    for page in pages:
        rows = rows_of(page)
        start = next((i for i, r in enumerate(rows) if is_header(r)), None)
        if start is not None:
            header = rows[start].text
        elif not items or header is None:
            continue
        ended = _read_list(rows, -1 if start is None else start, header, items, priced_only=start is None)
        if items and ended:
            break
    return without_charges(rec, [item_object(rec, kinds, parsed, row) for parsed, row, _ in items])


def _read_list(rows: list[Row], start: int, header: str, items: list[tuple[dict[str, str], Row, int]],
               priced_only: bool = False) -> bool:
    """Read the items under ``rows[start]`` (a header row with the columns of ``header``) into
    ``items``; whether the list ended at a total. ``priced_only``: a page the list goes on over
    without its header, whose other rows (a letterhead, a page number) are no items."""
    above: Row | None = None
    first = _quantity_first(header)
    code, unit = columns(header)
    if not unit and UNIT_THEN_PRICE.search(header):
        unit = _units_priced(rows[start + 1:start + 1 + 12], code)
    section = mine = len(items)  # where the items of the current section (and of this page) start
    for at, row in enumerate(rows[start + 1:], start + 1):
        parsed = parse_row(row.text, code, unit, position=bool(first)) if len(row.text.split()) <= MAX_ITEM_WORDS else None
        if _ends(row) and items and not priced(parsed):
            if _section_sum(row, [p for p, _, _ in items[section:]]) and _more_items(rows[at + 1:]):
                section, above = len(items), row
                continue
            return True  # (an item with its count and price may name its tax rate: "… 389,00  TVA 20%  778,00")
        if parsed is not None and first is not None and "quantity" not in parsed:
            parsed = _leading_quantity(parsed, positions=first)
        if priced_only and (not priced(parsed) if parsed is not None else len(items) == mine) \
                or len(split_pairs(row.text)) >= 2 and not priced(parsed):  # ("Basis: 75,00 €  Rabatt: -0,03 €")
            continue
        if parsed is not None:
            items.append((parsed, row, 0))
        elif items and items[-1][2] < MAX_CONTINUATION and wordy(row.text) and not annotation(row.text) \
                and len(row.text.split()) <= MAX_CONTINUATION_WORDS and close_under(above, row):
            last, row_of, more = items[-1]
            last["description"] = f"{last.get('description', '')} {row.text.strip()}".strip()
            items[-1] = (last, row_of, more + 1)
        above = row
    return False


# "Qty  Unit  Rate": a unit column, or "Unit Rate" one column; the rows tell (``_units_priced``)
UNIT_THEN_PRICE = re.compile(r"(?<![\w-])unit\s+(?:rate|price|cost)(?![\w-])", re.I)


def _units_priced(rows: list[Row], code: bool) -> bool:
    """Whether the rows read as count, unit word, price and amount (``6 bag 74.50 447.00``):
    most rows with amounts then make their amount from the count and the price."""
    parsed = [p for r in rows if (p := parse_row(r.text, code, True)) is not None and "unit_price" in p]
    return len(parsed) >= 2 and sum(priced(p) for p in parsed) * 2 > len(parsed)


def _section_sum(row: Row, items: list[dict[str, str]]) -> bool:
    """Does ``row`` sum the items of one section (``--- Food Products ---`` … ``Subtotal $ 150.90``)?"""
    total = last_amount(row.text)
    amounts = [parse_number(p["amount"]) for p in items]
    return bool(amounts) and total is not None and None not in amounts \
        and abs(sum(a for a in amounts if a is not None) - total) <= 0.005 * max(1.0, abs(total))


def _more_items(rows: list[Row]) -> bool:
    """Does a new section follow: a title without figures, then an item row (two amounts or
    more), before the next total? (Not ``abzgl. Sondernachlass 10% von 147,30 -14,73`` right
    under a subtotal.)"""
    titled = False
    for row in rows[:MAX_CONTINUATION + 2]:
        if _ends(row):
            return False
        if row_amounts(row.text):
            return titled and len(row_amounts(row.text)) >= 2
        titled = True
    return False


def columns(header: str) -> tuple[bool, bool]:
    """Whether a header row has a code column between the description and the quantity
    (``Description of Goods  HSN  Qty``), and a unit column right after the quantity
    (``Antal  Enhet``, ``Qty  Unit  Net price``)."""
    d, q = _HEAD["description"].search(header), _HEAD["quantity"].search(header)
    if q is None:
        return False, False
    code = d is not None and any(d.end() <= m.start() < q.start() for m in CODE_HEAD.finditer(header))
    after = header[q.end():].split()
    return code, bool(after) and UNIT_HEAD.match(" ".join(after)) is not None


POSITION = re.compile(r"^\W*(?:pos(?:ition)?\.?|#|nr\.?|no\.?|lfd\.?(?: nr\.?)?|line)(?=\W|$)", re.I)


def _quantity_first(header: str) -> bool | None:
    """Whether a header row puts the quantity before the description (``Pos. Menge Einheit
    Bezeichnung …``, ``Qty Description …``): ``True`` with a position column before it, ``False``
    without, ``None`` when the quantity comes later (or there is none)."""
    q, d = _HEAD["quantity"].search(header), _HEAD["description"].search(header)
    if q is None or d is None or q.start() > d.start():
        return None
    return bool(POSITION.match(header))


def _leading_quantity(parsed: dict[str, str], positions: bool) -> dict[str, str]:
    """The quantity printed before the description, under a header that puts it there:
    ``1 4 Stk. Einbauschrank …`` (position, quantity, unit) → 4 and ``Einbauschrank …``."""
    words = parsed.get("description", "").split()
    k = 1 if positions and len(words) > 2 and re.fullmatch(r"\d{1,3}(?:\.\d{1,3})*\.?", words[0]) else 0
    if k + 1 < len(words) and NUMBER.match(words[k]):
        quantity, k = words[k], k + 1
        while k < len(words) - 1 and UNIT.match(words[k]):
            k += 1
        return {**parsed, "quantity": quantity, "description": " ".join(words[k:])}
    return parsed


def close_under(above: Row | None, row: Row, lines: float = 0.8) -> bool:
    """Is ``row`` set close under ``above``, within ``lines`` of a line's height (an item's next
    line, not a block after a gap)?"""
    a, b = (above.box if above else None), row.box
    if a is None or b is None:
        return True
    return b["y1"] - a["y2"] <= lines * max(1.0, min(a["y2"] - a["y1"], b["y2"] - b["y1"]))


def without_charges(rec: Records, rows: list[tuple[dict[str, Any], dict[str, Citation]]]
                    ) -> list[tuple[dict[str, Any], dict[str, Citation]]]:
    """The items without the charges and allowances listed among them (``abzgl. 16,7% Rabatt
    -2,00``, ``zzgl. Versandkosten 5,80``, ``Bereits bezahlt``): where half the rows or more give
    a quantity or a unit price, a row with neither is no item."""
    counted = [f.dotted() for f in rec.fields if kind_of(f) in ("quantity", "unit_price")]
    if not counted or len(rows) < 3:
        return rows
    has = [any(name in cites for name in counted) for _, cites in rows]
    if sum(has) < max(2, len(rows) / 2):
        return rows
    return [row for row, ok in zip(rows, has) if ok]


def item_object(rec: Records, kinds: dict[int, str], parsed: dict[str, str],
            row: Row) -> tuple[dict[str, Any], dict[str, Citation]]:
    obj = copy.deepcopy(rec.template)
    cites: dict[str, Citation] = {}
    for i, kind in kinds.items():
        f = rec.fields[i]
        text = parsed.get(kind)
        if text and kind == "description":
            text = clean_description(text)
        value = coerce(text, f) if text else None
        if value is None:
            continue
        node = obj
        for p in f.path[:-1]:
            node = node.setdefault(p, {})
        node[f.path[-1]] = value
        cites[f.dotted()] = Citation(page_number=row.page, bbox=row.box, text=text)
    return obj, cites


TRAILING = re.compile(r"^\s*(?:€|\$|£|EUR|USD|GBP|CHF)?\s*$")


def last_amount(text: str, alone: bool = True) -> float | None:
    """The amount a row ends in (when ``alone``, only if it is the row's one amount); else ``None``."""
    found = row_amounts(text)
    if not found or (alone and len(found) != 1) or not TRAILING.match(text[found[-1].end():]):
        return None
    return parse_number(found[-1].group(0))
