"""The finders of ``roles``: where a document says its seller, buyer, total or date, read from its
rows as a person reads them (see ``roles`` for why and how). Each returns a ``Hit`` (the text as
printed, its page and box) or ``None``; none of them names a vendor. The parties' names and
addresses are read in ``blocks``."""

from __future__ import annotations

import re

from pipelines.core.models import PageResult
from pipelines.stages.extract import breakdown
from pipelines.stages.extract.amounts import amount, parts_under_net, split_tax
from pipelines.stages.extract.lexicon import gloss
from pipelines.stages.extract.lines import Hit, Line
from pipelines.stages.extract.roles import (
    AMOUNT,
    CURRENCY_NAME,
    DATE,
    DATE_WORD,
    DUE,
    MONTHS,
    OTHER_DATE,
    TITLE,
    Role,
    currencies,
    own_numbers,
)
from pipelines.stages.extract.rows import Row, rows_of
from pipelines.stages.extract.sides import party
from pipelines.stages.extract.values import parse_number


def _datelike(text: str) -> bool:
    return bool(re.search(r"\d", text)) and (bool(MONTHS.search(text)) or bool(re.search(r"\d[-/.]\d", text)))


# a table of payments to make ("Payment Term" over "Date  Amount"): its dates are due dates
PAYMENT_TERMS = re.compile(r"(?<![a-zà-ÿ])(?:payment terms?|payment schedule|zahlungs(?:bedingungen|plan|termine?)|"
                           r"[ée]ch[ée]ancier|conditions de (?:paiement|r[èe]glement)|betalingsvoorwaarden|"
                           r"t[ée]rminos de pago|condiciones de pago|vencimientos|scadenze|termini di pagamento|"
                           r"terms of payment|betalingsbetingelser|betalningsvillkor)(?![a-zà-ÿ])", re.I)
# in payment terms, what puts the date the invoice is due after it: "i.e. by 28th May 2024",
# "bis 13.04.2024 ohne Abzug", "vence el 14 de abril de 2024"; not a discount's earlier date
BY = re.compile(r"(?<![a-zà-ÿ])(?:by|bis|bis zum|bis spätestens|spätestens(?: zum| am)?|until|no later than|before|"
                r"vence(?: el)?|avant le|au plus tard le|uiterlijk|vóór|voor|entro il|hasta el|antes del?|senest|senast|viimeistään)\s*$",
                re.I)
# a sentence that asks for payment: with ``BY`` before a date, the date the invoice is due
# ("Bitte überweisen Sie den Betrag bis zum 14.04.2025", "Please pay by 3 May")
PAY_REQUEST = re.compile(r"(?<![a-zà-ÿ])(?:pay|paid|payment|remit|transfer|settle|überweisen|zahlen|bezahlen|begleichen|"
                         r"zahlung|r[ée]gler|payer|virement|r[èe]glement|betalen|overmaken|betaling|pagar|abonar|pago|"
                         r"pagare|pagamento|versare|betale|betala|betalning|maksa\w*)(?![a-zà-ÿ])", re.I)
# a direct debit's date ("wird am 20.03.2014 von Ihrem Konto … eingezogen", "will be debited from
# your account on 3 May", "sera prélevé le 5 avril"): the day the amount is due
DEBIT = re.compile(r"(?<![a-zà-ÿ])(?:eingezogen|einziehen|abgebucht|abbuchen|lastschrift|debited|collected by direct "
                   r"debit|pr[ée]lev[ée]e?s?|afgeschreven|ge[iï]ncasseerd|cargar[áa]|cargado|addebitat[oa])(?![a-zà-ÿ])",
                   re.I)
ON_DAY = re.compile(r"(?<![a-zà-ÿ])(?:am|on|le|op|el|il)\s*$", re.I)
DISCOUNT = re.compile(r"(?<![a-zà-ÿ])(?:skonto|discount|abz[üu]glich|escompte|descuento|sconto|korting)(?![a-zà-ÿ])",
                      re.I)


def _labels(text: str) -> list[str]:
    """The date labels of a header row in order: "due", "other" or "issue" for each."""
    out = []
    for m in DATE_WORD.finditer(text):
        before = text[max(0, m.start() - 24):m.start()]
        before = before.rsplit(":", 1)[-1]  # only this label's own words, not the previous label's
        out.append("due" if DUE.search(before) else "other" if OTHER_DATE.search(before) else "issue")
    # labels set apart in columns, read whole: "Data de vencimento", "Date d'échéance" say what
    # kind of date after the word for date
    whole = [c for c in re.split(r"\s{2,}|:", text) if DATE_WORD.search(c)]
    if len(whole) == len(out) and whole:
        out = ["due" if DUE.search(c) else "other" if OTHER_DATE.search(c) else "issue" for c in whole]
    if not out:  # compounds ("Fälligkeitsdatum"): what their English glosses say
        glossed = [gloss(c) for c in re.split(r"\s{2,}|:", text) if c.strip()]
        out = ["due" if DUE.search(g) else "other" if OTHER_DATE.search(g) else "issue"
               for g in glossed if DATE_WORD.search(g)]
    return out


def date(pages: list[PageResult], role: Role) -> Hit | None:
    """The date the field asks for: one labelled for it (due, issue) before it on its row or
    above it in a header row (``Invoice Date: Due Date:`` over ``03/20/2023 04/04/2023``), else
    the first date shown."""
    best: tuple[int, int, Hit] | None = None
    order = 0
    for page in pages:
        rows = rows_of(page)
        for i, r in enumerate(rows):
            above = _labels(rows[i - 1].text) if i and not DATE.search(rows[i - 1].text) else []
            if above and i >= 2 and PAYMENT_TERMS.search(rows[i - 2].text) and not DATE.search(rows[i - 2].text):
                above = ["due" if k == "issue" else k for k in above]  # "Payment Term" / "Date Amount" / …
            dates = [m for m in DATE.finditer(r.text) if _datelike(m.group(0))]
            terms = PAYMENT_TERMS.search(r.text) or (i and PAYMENT_TERMS.search(rows[i - 1].text))
            for k, m in enumerate(dates):
                order += 1
                before = r.text[:m.start()]
                due, other, labelled = DUE.search(before), OTHER_DATE.search(before), DATE_WORD.search(before)
                labelled = labelled or PLACE_DATE.search(before)  # "Wien, am 15. Jänner 2024": a letter's date
                if not due and (terms or PAY_REQUEST.search(before)) and BY.search(before) \
                        and not DISCOUNT.search(r.text[m.end():m.end() + 40]):
                    due = BY.search(before)
                if not due and ON_DAY.search(before) and DEBIT.search(" ".join(o.text for o in rows[i:i + 2])):
                    due = ON_DAY.search(before)
                if not (due or other or labelled) and len(above) == len(dates):
                    kind = above[k]
                    due, other, labelled = kind == "due", kind == "other", True
                elif not (due or other or labelled) and i and (head := _head_over(rows[i - 1], r, m.start())):
                    due, other, labelled = DUE.search(head), OTHER_DATE.search(head), DATE_WORD.search(head)
                if role.which == "due":
                    rank = 2 if due else -1 if other else 0
                elif not (due or other) and own_numbers(before):
                    rank = 2  # the date the document's number is given with ("Rechnung Nr. 12 vom …")
                else:
                    rank = -2 if due else -1 if other else 1 if labelled else 0
                if best is None or rank > best[0]:
                    best = (rank, -order, Hit(m.group(0), r.page, r.box))
    if best is None or (role.which == "due" and best[0] < 2):
        return None
    return best[2]


def _head_over(above: Row, row: Row, at: int) -> str | None:
    """The column head in the row above that stands over the cell holding ``row.text[at]``
    (``Data  Vencimento  Contribuinte`` over ``2024-03-12  2024-04-11  516 223 908``)."""
    start = 0
    for ln in row.lines:
        if start <= at < start + len(ln.text):
            b = ln.box
            heads = [(min(b["x2"], h.box["x2"]) - max(b["x1"], h.box["x1"]), h.text) for h in above.lines
                     if b and h.box]
            best = max(heads, default=(0.0, ""))
            return best[1] if best[0] > 0 and len(best[1].split()) <= 4 else None
        start += len(ln.text) + 2  # the two spaces ``Row.text`` puts between lines
    return None


# the place a letter is written in before its date ("Wien, am", "Paris, le", "Madrid,")
PLACE_DATE = re.compile(r"(?:^|\s{2})[A-ZÄÖÜÉ][\w'’.-]+(?: [A-ZÄÖÜÉ][\w'’.-]+)?,\s*(?:am|den|le|el|il|the)?\s*$")


def currency(pages: list[PageResult]) -> Hit | None:
    """The currency the document names most (codes and symbols), as its ISO code; the one a
    label states (``Moneda: MXN - Peso Mexicano``, ``Currency: CAD``) over the symbols ("$")."""
    counts: dict[str, int] = {}
    first: dict[str, Hit] = {}
    for page in pages:
        for r in rows_of(page):
            if (m := CURRENCY_NAME.search(r.text)) and (stated := currencies(r.text[m.end():m.end() + 24])):
                return Hit(stated[0], r.page, r.box)
            for code in currencies(r.text):
                counts[code] = counts.get(code, 0) + 1
                first.setdefault(code, Hit(code, r.page, r.box))
    if not counts:
        return None
    best = max(counts, key=lambda c: counts[c])
    # a bare "$" or "kr": the dollar or crown of the country the document is from
    if (cues := {"USD": (EXPLICIT_USD, DOLLAR_COUNTRIES), "SEK": (EXPLICIT_SEK, CROWN_COUNTRIES)}.get(best)):
        text = "\n".join(r.text for page in pages for r in rows_of(page))
        explicit, countries = cues
        if not explicit.search(text):
            for code, cue in countries:
                if cue.search(text):
                    return Hit(code, first[best].page, first[best].box)
    return first[best]


EXPLICIT_USD = re.compile(r"\bUSD\b|US\$|U\.S\. dollars?|\bUS dollars?", re.I)
# what says a document's "$" is not the US dollar: its country's business numbers, postcodes, web domain
DOLLAR_COUNTRIES = [
    ("AUD", re.compile(r"\bABN\b|\.com\.au\b|\b(?:NSW|VIC|QLD|ACT|TAS|NT)\s\d{4}\b|\bAustralia\b")),
    ("NZD", re.compile(r"\.co\.nz\b|\bNZBN\b|\bNew Zealand\b")),
    ("CAD", re.compile(r"\bHST\b|\bGST/HST\b|\bQST\b|\b[A-Z]\d[A-Z]\s\d[A-Z]\d\b|\bCanada\b")),
    ("SGD", re.compile(r"\bUEN\b|\bSingapore\s\d{6}\b")),
    ("HKD", re.compile(r"\bHong Kong\b")),
    ("MXN", re.compile(r"\bRFC\b|\bCFDI\b|\bM[ée]xico\b")),
]


EXPLICIT_SEK = re.compile(r"\bSEK\b|svenska kronor|\bSverige\b", re.I)
# what says a document's "kr" is not the Swedish crown: its country's words for VAT and due dates, web domain
CROWN_COUNTRIES = [
    ("NOK", re.compile(r"\bMVA\b|\bForfallsdato\b|\bÅ betale\b|\.no\b|\bNorge\b|\bOrg\.? ?nr\b", re.I)),
    ("DKK", re.compile(r"\bCVR\b|\bForfaldsdato\b|\bI alt\b|\.dk\b|\bDanmark\b|\bMomsbeløb\b", re.I)),
    ("ISK", re.compile(r"\bVSK\b|\bKennitala\b|\.is\b|\bÍsland\b", re.I)),
]


# a number printed on a line of its own near the title, after a sign that says "number"
# (``# INV-000318``, ``Nº 2024/118``, ``č. 2024-0318``)
BARE_NUMBER = re.compile(r"^\s*(?:#|n[°º]|no\.|nr\.|č\.)\s*(?P<id>(?=[A-Za-z0-9/_.-]*\d)[A-Za-z0-9][A-Za-z0-9/_.-]{2,})\s*$",
                         re.I)


# a quote's or an offer's number: the document's own only when nothing else is numbered
QUOTE = re.compile(r"\W*(?:devis|quot(?:e|ation)|angebot|offerte|presupuesto|preventivo)\b", re.I)


def doc_number(pages: list[PageResult]) -> Hit | None:
    """The document's own number where its title or label prints it (``Facture n°562044387``),
    or a number alone after its sign in the first rows of the first page (``# INV-000318``)."""
    quoted: Hit | None = None
    for page in pages:
        for r in rows_of(page):
            for m in own_numbers(r.text):
                ident = m.group("id").rstrip(".")
                if DATE.fullmatch(ident) or AMOUNT.fullmatch(ident):
                    continue
                if QUOTE.match(m.group(0)):  # "Devis n° D-2025-004 accepté le …": the quote the work was done on
                    quoted = quoted or Hit(ident, r.page, r.box)
                    continue
                return Hit(ident, r.page, r.box)
    for r in rows_of(pages[0])[:8] if pages else []:
        for ln in [*r.lines, Line(r.page, r.text, r.box, -1, 0, 1)]:  # (the sign and the number in cells side by side)
            if (m := BARE_NUMBER.match(ln.text)) and not DATE.fullmatch(m.group("id")):
                return Hit(m.group("id"), r.page, ln.box)
    return _under_title(pages) or _under_label(pages) or quoted  # a quote's own, where the document is the quote


def _under_label(pages: list[PageResult]) -> Hit | None:
    """A number in a grid of boxes, under its label cell (``Invoice No.`` over ``SLP/24-25/1187``,
    ``Dated`` beside it over the date), in the first rows of the first page: cells side by side
    (lines, or a table row's cells two spaces apart), the label's and the number's in one column."""
    def cells(r: Row) -> list[tuple[str, Line]]:
        return [(c.strip(), ln) for ln in r.lines for c in re.split(r"\s{2,}", ln.text) if c.strip()]

    rows = rows_of(pages[0])[:12] if pages else []
    for k, r in enumerate(rows[:-1]):
        top, low = cells(r), cells(rows[k + 1])
        if len(top) != len(low):
            continue  # (a label's column is its place among the row's cells)
        for (label, _), (value, ln) in zip(top, low, strict=True):
            if own_numbers(label) or not own_numbers(label + " X-1001"):
                continue  # (a label that would take a number after it, and has none)
            m = own_numbers(f"{label} {value}")
            if m and m[0].group("id") == value and not DATE.fullmatch(value):
                return Hit(value, ln.page, ln.box)
    return None


# an identifier alone on its line ("FT 2024A/148", "INV-20417"): a series' letters, then
# letters, figures and separators with a figure and a letter or separator among them
LONE_ID = re.compile(r"(?:[A-Z]{1,4} )?(?=[A-Z0-9/_.-]*\d)(?=[A-Z0-9/_.-]*[A-Z/_-])[A-Z0-9][A-Z0-9/_.-]{3,}")
COPY_MARK = re.compile(r"(?:original|duplicado|duplicate|copy|copie|kopie|copia|triplicado)", re.I)


def _under_title(pages: list[PageResult]) -> Hit | None:
    """The number printed alone under the document's title, as a heading's second line
    (``FATURA`` / ``Original`` / ``FT 2024A/148``), in the first rows of the first page."""
    rows = rows_of(pages[0])[:12] if pages else []
    for k, r in enumerate(rows):
        parts = _parts(r.text)
        at = next((i for i, p in enumerate(parts) if TITLE.fullmatch(p.strip(" :"))), None)
        if at is None:
            continue
        for o in rows[k + 1:k + 4]:
            under = _parts(o.text)
            # the part in the title's place, counted from its side of the row
            j = at if at < len(parts) - 1 - at else len(under) - (len(parts) - at)
            t = under[j].strip() if 0 <= j < len(under) else ""
            if COPY_MARK.fullmatch(t):
                continue
            if LONE_ID.fullmatch(t) and not DATE.fullmatch(t) and not re.fullmatch(r"[A-Z]{2}\d{8,12}", t):
                return Hit(t, o.page, o.box)  # (not a VAT number: "DE123456789")
            break
    return None


def _parts(text: str) -> list[str]:
    return [p for p in re.split(r"\s{2,}", text.strip()) if p]


def find(pages: list[PageResult], role: Role) -> Hit | None:
    if role.kind == "number":
        return doc_number(pages)
    if role.kind == "currency":
        return currency(pages)
    if role.kind in ("name", "address"):
        return party(pages, role)
    if role.kind == "date":
        return date(pages, role)
    if role.kind in ("tax", "subtotal") and (split := _by_rate(pages)) is not None:
        return split[0] if role.kind == "subtotal" else split[1]
    if role.kind == "tax":
        one = amount(pages, role)
        return split_tax(pages, one, amount(pages, Role("subtotal")), amount(pages, Role("total"))) or one
    found = amount(pages, role)
    if found is None and role.kind == "subtotal" and (total := amount(pages, Role("total"))) is not None:
        under = parts_under_net(pages, parse_number(total.text) or 0.0)  # a net sum ruled off, no label
        return under[0] if under else net_by_difference(pages, total)
    return found


def _by_rate(pages: list[PageResult]) -> tuple[Hit, Hit] | None:
    """The net and the tax of a VAT breakdown by rate (``breakdown``) whose rows add up to the
    total, where the net and tax read by their labels do not."""
    total = amount(pages, Role("total"))
    tot = parse_number(total.text) if total is not None else None
    if tot is None:
        return None
    sub, tax = amount(pages, Role("subtotal")), amount(pages, Role("tax"))
    if sub is not None and tax is not None and abs((parse_number(sub.text) or 0.0) + (parse_number(tax.text) or 0.0)
                                                   - tot) <= 0.011:
        return None  # (the labelled ones agree with the total)
    return breakdown.by_rate(pages, tot)


def net_by_difference(pages: list[PageResult], total: Hit) -> Hit | None:
    """The subtotal no label names (``Beitrag``, ``Summe``, a bare figure over the tax): an
    amount the page prints that is the total less the tax, both found by their labels; the
    last one printed above the total. The arithmetic says what it is, as for a tax split in
    parts (``amounts.split_tax``)."""
    tax = find(pages, Role("tax"))
    tot, tx = parse_number(total.text), parse_number(tax.text) if tax is not None else None
    if tot is None or tx is None or tx <= 0 or tot - tx <= 0:
        return None
    out = None
    for page in pages:
        for r in rows_of(page):
            if (r.page, (r.box or {}).get("y1", 0.0)) >= (total.page, (total.box or {}).get("y1", 0.0)):
                break
            for a in AMOUNT.findall(r.text):
                if (v := parse_number(a)) is not None and abs(v - (tot - tx)) <= 0.011:
                    out = Hit(a.strip(), r.page, r.box)
    return out
