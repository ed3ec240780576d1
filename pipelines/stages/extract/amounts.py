"""Amounts a document names: its total, subtotal and tax, read from its rows as a person reads
them — a total row's amount (on its row or the one below), a column of labels the layout joined
into one row, a totals table whose header names the columns over one row per tax rate and their
sums. Split from ``finders`` (which calls ``amount``) to keep each reader short; none names a
vendor."""

from __future__ import annotations

import re
from functools import lru_cache

from pipelines.core.models import PageResult
from pipelines.stages.extract.items import is_header
from pipelines.stages.extract.lexicon import CHANGE_GIVEN, COUNTER_PAYMENT
from pipelines.stages.extract.lines import Hit, capital_labels
from pipelines.stages.extract.lines import letters as _letters
from pipelines.stages.extract.roles import (
    AMOUNT,
    BETTER_TOTAL,
    CARRIED,
    FINAL,
    NOT_TOTAL,
    SUBTOTAL,
    TAX,
    TITLE,
    TOTAL,
    WHOLE_AMOUNT,
    Role,
)
from pipelines.stages.extract.rows import Row, rows_of


def _amount_on(row: Row, after: re.Pattern[str] | None = None) -> str | None:
    """The row's amount: the first one after the last ``after`` word when given (a row the layout
    joined with its neighbours, ``ROUNDING -0.02 CASH TOTAL ROUNDED 33.90 50.00``), else the last."""
    rest = list(AMOUNT.finditer(row.text, words[-1].end())) if after is not None and (words := list(after.finditer(row.text))) else []
    money = [m for m in rest if _marked(row.text, m)]
    if len(rest) >= 2 and len(money) == 1:
        return money[0].group(0).strip()  # "TOTAL  55.00  $4555.00": the hours' sum, then the money
    if rest:
        return rest[0].group(0).strip()
    found = AMOUNT.findall(row.text) or [m.group(0) for m in CURRENCY_AMOUNT.finditer(row.text)] \
        or [m.group(0) for m in WHOLE_AMOUNT.finditer(row.text)]
    return found[-1].strip() if found else None


def _marked(text: str, m: re.Match[str]) -> bool:
    """Does a currency sign or code stand at the amount (``$4555.00``, ``12,00 €``, ``EUR 5.00``)?"""
    return bool(re.search(r"(?:[$€£¥₹]|\b[A-Z]{3})\s?$", text[max(0, m.start() - 4):m.start()])
                or re.match(r"[^\d]?\s?(?:[$€£¥₹]|[A-Z]{3}\b)", m.group(0)) or re.match(r"\s?(?:[€$£¥₹]|[A-Z]{3}\b)", text[m.end():]))


# an amount its currency marks, printed whole or with one decimal ("43 EUR", "8.6 EUR", "$ 120")
CURRENCY_AMOUNT = re.compile(r"(?<![\w.,])-?\d{1,7}(?:[.,]\d)?\s*(?:EUR|USD|GBP|CHF|€|\$|£)(?!\w)|"
                             r"(?:EUR|USD|GBP|CHF|[€$£])\s*-?\d{1,7}(?:[.,]\d)?(?![\d.,%])")


def _in_label_order(rows: list[Row], i: int) -> tuple[str, Row] | None:
    """A row the layout joined from a column of labels (``Rounding (RM) : Total (RM) : -0.01
    332.30``): its amounts come in the labels' order, going on onto the next row when that row
    holds amounts only. The total label's amount, or ``None`` for a row with one label or when
    labels and amounts do not line up."""
    t = rows[i].text
    first = AMOUNT.search(t)
    labels = [seg for seg in t[:first.start() if first else len(t)].split(":") if _letters(seg) >= 2]
    if len(labels) < 2:
        return None
    k = max((n for n, seg in enumerate(labels) if TOTAL.search(seg) and not NOT_TOTAL.search(seg)), default=None)
    if k is None:
        return None
    amounts = [(m.group(0).strip(), rows[i]) for m in AMOUNT.finditer(t)]
    if i + 1 < len(rows) and _letters(AMOUNT.sub("", rows[i + 1].text)) <= 2:
        amounts += [(m.group(0).strip(), rows[i + 1]) for m in AMOUNT.finditer(rows[i + 1].text)]
    if k >= len(amounts) or _value(amounts[k][0]) <= 0:
        return None  # labels and amounts out of step (a total is more than nothing)
    return amounts[k]


NET = re.compile(r"(?<![\w-])(?:net|nett|netto)(?![\w-])", re.I)


@lru_cache(maxsize=8192)  # asked of every row for every amount field; a pure function of its text
def _header_label(text: str, kind: str) -> int | None:
    """How many words of a header row of labels follow the last label that names ``kind``."""
    def spans(pat: re.Pattern[str]) -> list[tuple[int, int]]:
        return [m.span() for m in pat.finditer(text)]
    sub, tax = spans(SUBTOTAL), spans(TAX)
    # "VAT subtotal": the tax's own sum, not the net amount
    sub = [(a, b) for a, b in sub if not ((before := text[:a].split()) and TAX.fullmatch(before[-1])
                                          and not text[:a].endswith("  ") and not WITHOUT.match(text[a:b]))]
    if kind == "subtotal":
        found = sub or spans(NET)  # "Rate  Net  VAT  Gross": a column's label says net alone
    elif kind == "tax":  # (not a net's "without VAT", nor a gross's "with VAT")
        found = [t for t in tax if not any(a <= t[0] < b for a, b in sub) and not WITH_TAX.search(text[:t[0]])]
    else:
        found = [t for t in spans(TOTAL) if not any(a <= t[0] < b or t[0] <= a < t[1] for a, b in sub + tax)
                 and not NOT_TOTAL.search(text[t[0]:t[1]])]
    found = [(a, b) for a, b in found if not _rate(text[a:].split())]
    if not found:
        return None
    end = found[-1][1]
    while end < len(text) and not text[end].isspace():
        end += 1
    cell = text[:end].rsplit("  ", 1)[-1]
    if cell.count("(") > cell.count(")") and (close := text.find(")", end, text.find("  ", end) % (len(text) + 1))) != -1:
        end = close + 1  # the label's own brackets: "Item subtotal (excl. VAT)"
    rest = QUALIFIED.sub("X", text[end:]).split()  # ("Without VAT", "With VAT": one label each)
    while kind != "tax" and rest and re.fullmatch(r"\(?(?:ttc|ht|brutto|netto|incl\.?|excl\.?|gross|net)\)?", rest[0], re.I):
        rest = rest[1:]  # the label's own qualifier: "TOTAL TTC", "Summe Brutto"
    if kind == "tax" and rest and re.fullmatch(r"(?:sub-?)?totals?|amount|betrag|summe|montant|bedrag|importe", rest[0], re.I):
        rest = rest[1:]  # "VAT subtotal", "VAT amount": one label
    return sum(1 for w in rest if any(ch.isalnum() for ch in w))  # "VAT %" is one label


def _rate(words: list[str]) -> bool:
    """Does a label (the first of ``words``) name a rate: ``MwSt-%``, ``VAT %``?"""
    return bool(words) and ("%" in words[0] or (len(words) > 1 and "%" in words[1]
                                                and not any(ch.isalnum() for ch in words[1])))


def _tokens(text: str) -> list[str]:
    """A row's words, each amount one word however it groups its thousands (``18 880,00``)."""
    out: list[str] = []
    pos = 0
    for m in AMOUNT.finditer(text):
        out += text[pos:m.start()].split()
        out.append(m.group(0).strip())
        pos = m.end()
    return out + text[pos:].split()


def _under_header(rows: list[Row], i: int, kind: str) -> tuple[str, Row] | None:
    """A totals table: a header row of labels (``Nettobetrag MwSt-Betrag MwSt-% Endbetrag``) over
    rows of amounts, one per tax rate, the last of them their sum. The amount under the label in
    that last row, counted from the right (the labels right of it are one word each). Only when
    the rows add up (or there is one row): then the columns are what the header says."""
    if AMOUNT.search(rows[i].text) or (after := _header_label(rows[i].text, kind)) is None:
        return None
    body = []
    for r in rows[i + 1:i + 8]:
        if not AMOUNT.search(r.text) or _letters(AMOUNT.sub("", r.text)) > 3:
            break
        body.append(r)
    if not body:
        return None
    last = [_value(a) for a in AMOUNT.findall(body[-1].text)]
    if len(body) > 1 and abs(sum(_value(AMOUNT.findall(r.text)[-1]) for r in body[:-1]) - last[-1]) > 0.011:
        return None
    heads, cells = rows[i].text.split("  "), body[-1].text.split("  ")
    if len(heads) == len(cells) > 1:  # labels over amounts cell by cell ("VAT rate Tax" over "7.00% $38.72")
        k = max((n for n, head in enumerate(heads) if _header_label(head, kind) is not None), default=None)
        if k is not None:
            tokens = [t for t in _tokens(cells[k]) if t != "%" and t not in _units(body[-1].text)]
            after = _header_label(heads[k], kind) or 0
            return (tokens[-1 - after], body[-1]) if after < len(tokens) and AMOUNT.fullmatch(tokens[-1 - after]) else None
    amounts = [m.group(0).strip() for m in AMOUNT.finditer(body[-1].text)]
    labels = capital_labels(rows[i].text)
    if len(labels) == len(amounts):  # one label over each amount: "Exkl. moms  Moms 25 %  Att betala"
        k = max((n for n, seg in enumerate(labels) if _header_label(seg, kind) is not None), default=None)
        return (amounts[k], body[-1]) if k is not None else None
    tokens = _tokens(body[-1].text)
    if after >= len(tokens) or not AMOUNT.fullmatch(tokens[-1 - after]):
        return None
    return tokens[-1 - after], body[-1]


def _units(text: str) -> set[str]:
    """Signs a row prints beside every amount of it ("636,30 €  3.348,93 €"): no column's."""
    tokens = _tokens(text)
    n = sum(1 for k, t in enumerate(tokens) if AMOUNT.fullmatch(t) and tokens[k + 1:k + 2] != ["%"])
    return {t for t in set(tokens) if not any(ch.isdigit() for ch in t) and tokens.count(t) == n}


def _value(text: str) -> float:
    from pipelines.stages.extract.values import parse_number

    return parse_number(text) or 0.0


# a label of two words, an amount with or without the tax: "Without VAT", "inkl. MwSt."
QUALIFIED = re.compile(r"\b(?:with(?:out)?|incl\.?|excl\.?|inkl\.?|exkl\.?|ohne|mit|hors|sans|avec|zonder|met|sin|con|senza)"
                       r"\s+\(?[\w.-]+\)?", re.I)
# "with VAT", "inkl. MwSt.": a gross amount's label, which names the tax it includes
WITH_TAX = re.compile(r"\b(?:with|incl(?:\.|uding|usive(?: of)?)?|inkl(?:\.|usive)?|mit|avec|con|met|compris)\s*$", re.I)
# what a tax row is not: charges outside the tax ("OUTLAYS (not subject to VAT)")
EXEMPT = re.compile(r"\b(?:not subject to|exempt(?:ed)?|outside the scope|zero-rated|steuerfrei|befreit|"
                    r"exon[ée]r[ée]e?s?|non soggett[oi]|esente|exento)\b", re.I)
# "excl. taxes", "without VAT", "ohne MwSt": a tax named only as what a net amount leaves out
WITHOUT = re.compile(r"\b(?:excl(?:\.|uding|usive(?: of)?)?|exkl(?:\.|usive)?|ekskl(?:\.|usive)?|eks\.|ex(?=\.?\s*(?:gst|vat|tax))|"
                     r"without|uten|utan|ohne|hors|sans|before|zonder|sin|senza)(?!\w)\s*\(?\s*[\w.-]+", re.I)

# a stamp duty is a charge, not the tax: "Imposta di bollo", "droit de timbre"
STAMP = re.compile(r"\b(?:bollo|stamp duty|timbre|stempel\w*)\b", re.I)
ROUNDING = re.compile(r"\b(?:round(?:ing)?|rundung|arrondi\w*|afronding|redondeo|arrotondamento)\b", re.I)

# a payment already made, printed between an invoice's total and the balance left to pay
PAID = re.compile(r"\b(?:deposit|paid|payments?(?: received)?|received|anzahlung|bereits bezahlt|acompte|"
                  r"anticipo|already paid|credit applied|retainer|d[ée]j[àa] pay[ée])\b", re.I)


def _paid_above(rows: list[Row], i: int) -> bool:
    """Is a payment (``Deposit received … -$2,500.00``) printed between a plain total above row
    ``i`` and it? The balance due is then what is left to pay, not the invoice's total."""
    for j in range(i - 1, max(0, i - 4) - 1, -1):
        t = rows[j].text
        if TOTAL.search(t) and not BETTER_TOTAL.search(t):
            return False
        if PAID.search(t) and (value := _amount_on(rows[j])) is not None and _value(value) != 0:
            return any(TOTAL.search(p.text) and not BETTER_TOTAL.search(p.text) and not SUBTOTAL.search(p.text)
                       for p in rows[max(0, i - 6):j])
    return False


def _total_cell(text: str) -> bool:
    """A row of cells (two spaces apart) where one cell says a total with no count or discount
    after its word, and its amount: "Item 2  Total with GST @6%  77.20" (or the count and the
    total in one cell, "Item 2 Total with GST @6%") is a total beside a count."""
    cells = text.split("  ")
    return any((m := TOTAL.search(c)) and not NOT_TOTAL.search(c[m.start():]) and not SUBTOTAL.search(c) and
               (AMOUNT.search(c) or (k + 1 < len(cells) and AMOUNT.fullmatch(cells[k + 1].strip())))
               for k, c in enumerate(cells))


def amount(pages: list[PageResult], role: Role) -> Hit | None:
    """The amount a total (subtotal, tax) row prints, on its row or the row below it."""
    best: tuple[int, float, Hit] | None = None
    net: tuple[float, Hit] | None = None  # the largest sub or net total, for a receipt with no other
    order = 0
    for page in pages:
        rows = rows_of(page)
        # the balances left to pay after a deposit or payment (also where the header repeats one)
        left = {_value(v) for k, r in enumerate(rows) if role.kind == "total" and BETTER_TOTAL.search(r.text)
                and _paid_above(rows, k) and (v := _amount_on(r)) is not None}
        for i, r in enumerate(rows):
            t = r.text
            order += 1
            if (col := _under_header(rows, i, role.kind)) is not None:  # a header of labels over the sums
                value, where = col
                rank = 1 if role.kind == "total" else 0
                second = _value(value) if role.kind == "total" else order
                if best is None or (rank, second) >= best[:2]:
                    best = (rank, second, Hit(value, r.page, where.box))
                continue
            if role.kind == "total":
                if not TOTAL.search(t) or NOT_TOTAL.search(t) and not _total_cell(t) or CARRIED.search(t):
                    continue
                if SUBTOTAL.search(t) and not FINAL.search(t):
                    if not TAX.search(t) and (value := _amount_on(r, TOTAL)) is not None \
                            and (net is None or _value(value) >= net[0]):
                        net = (_value(value), Hit(value, r.page, r.box))
                    continue
                if TAX.search(t) and not BETTER_TOTAL.search(t):
                    continue
            elif role.kind == "subtotal":
                if not SUBTOTAL.search(t) or _tax_label_last(t) or CARRIED.search(t):
                    continue
            elif not TAX.search(WITHOUT.sub(" ", t)) or NOT_TOTAL.search(t[:a.end()] if (a := AMOUNT.search(t)) else t) \
                    or (TOTAL.search(t) and BETTER_TOTAL.search(t)) or STAMP.search(t) or EXEMPT.search(t):
                continue  # "Total incl. tax" is the total, "Total (excl. taxes)" the net: neither the tax
            value, where = _amount_on(r, TOTAL if role.kind == "total" else None), r
            if role.kind == "total" and (nth := _in_label_order(rows, i)) is not None:
                value, where = nth
            if value is None and i + 1 < len(rows) and not TOTAL.search(rows[i + 1].text) and not is_header(r):
                value, where = _amount_on(rows[i + 1]), rows[i + 1]
            if value is None:
                continue
            rank = 1 if role.kind == "total" and BETTER_TOTAL.search(t) and _value(value) not in left else 0
            if role.kind == "total" and any(ROUNDING.search(p.text) and not TOTAL.search(p.text)
                                            for p in rows[max(0, i - 2):i]):
                rank = 2  # the total under a rounding adjustment is the one paid
            if role.kind == "total" and _value(value) == 0:
                rank = -1  # "Total Saving 0.00", "Balance 0.00": only when nothing else says a total
            hit = Hit(value, r.page, where.box)
            # among totals of one rank the largest (a tax summary's "TOTAL : 52.00" is the net);
            # among subtotals and taxes the last one printed
            second = _value(value) if role.kind == "total" else order
            if best is None or (rank, second) >= best[:2]:
                best = (rank, second, hit)
    if best is None and net is not None:  # "SUB TOTAL 150.00 / NET TOTAL 174.90 / CASH 200.00"
        return _net_plus_tax(pages, net[0]) or net[1]
    if best is None and role.kind == "total":
        return _tendered(pages)
    return best[2] if best else None


def _tax_label_last(text: str) -> bool:
    """Is the label nearest before the row's last amount a tax's, after a net word? A row the
    layout joined across two columns ("ÁFA-kulcs Nettó ÁFA Bruttó  ÁFA összesen 105 793 Ft"):
    its amount is the tax's."""
    bare = WITHOUT.sub(" ", text)
    money = list(AMOUNT.finditer(bare)) or list(WHOLE_AMOUNT.finditer(bare))
    if not money:
        return False
    head = bare[:money[-1].start()]
    net = [m.end() for m in SUBTOTAL.finditer(head)]
    tax = [m.end() for m in TAX.finditer(head)]
    return bool(net and tax and tax[-1] > net[-1])


def _net_plus_tax(pages: list[PageResult], net: float) -> Hit | None:
    """Under a net total and its tax, the first amount that is their sum (to a rounding of 0.05):
    the total, whatever its label says ("Sub Total 68.87 / GST 6% 4.13 / TOR RM 73.00")."""
    for page in pages:
        rows = rows_of(page)
        start = next((i for i, r in enumerate(rows) if SUBTOTAL.search(r.text) and (v := _amount_on(r, TOTAL))
                      and _value(v) == net), None)
        if start is None:
            continue
        tax = None
        for r in rows[start + 1:start + 8]:
            if (value := _amount_on(r)) is None:
                continue
            if tax is None and TAX.search(r.text) and not TOTAL.search(r.text):
                tax = _value(value)
            elif tax is not None and abs(_value(value) - net - tax) <= 0.05 + 1e-9:
                return Hit(value, r.page, r.box)
    return None


# a payment taken at the counter, and the change given back
TENDERED = re.compile(rf"^\W*(?:{COUNTER_PAYMENT})\b", re.I)
CHANGE = re.compile(rf"\b(?:{CHANGE_GIVEN})\b", re.I)


def _tendered(pages: list[PageResult]) -> Hit | None:
    """A slip that prints no total at all ("OPT.05 RM 149.00 / DPI.04 RM 21.00 / CASH / RM 170.00"):
    the amount paid at the counter is the total, unless change (other than nothing) came back;
    then the amount above that is what was paid less the change."""
    for page in pages:
        rows = rows_of(page)
        for i, r in enumerate(rows):
            if not TENDERED.search(r.text) or TITLE.search(r.text):
                continue
            value, where = _amount_on(r), r
            if value is None and i + 1 < len(rows):
                value, where = _amount_on(rows[i + 1]), rows[i + 1]
            if value is None:
                continue
            change = [v for p in rows[i + 1:i + 4] if CHANGE.search(p.text) and (v := _amount_on(p)) is not None]
            if not any(_value(v) != 0 for v in change):
                return Hit(value, where.page, where.box)
            due = _value(value) - max(map(_value, change))  # what was paid less the change given, printed
            return next((Hit(v, p.page, p.box) for p in reversed(rows[:i])  # above it unlabelled ("RM 60.30")
                         if (v := _amount_on(p)) is not None and _value(v) > 0 and abs(_value(v) - due) < 0.005), None)
    return None


def tax_parts(pages: list[PageResult]) -> list[list[tuple[float, Row]]]:
    """Runs of two or more tax rows printed one under another, each with its amount: a tax the
    document splits by authority or rate (``CGST @ 2.5%`` / ``SGST @ 2.5%``, ``GST`` / ``PST``,
    ``VAT 20%`` / ``VAT 5%``). Whether a run is the tax is for the caller to check against the
    subtotal and the total."""
    runs: list[list[tuple[float, Row]]] = []
    for page in pages:
        run: list[tuple[float, Row]] = []
        for r in rows_of(page):
            t = r.text
            part = TAX.search(WITHOUT.sub(" ", t)) and not TOTAL.search(t) and not SUBTOTAL.search(t) \
                and not STAMP.search(t) and not NOT_TOTAL.search(t) and (value := _amount_on(r)) is not None
            if part:
                run.append((_value(value), r))
                continue
            if len(run) >= 2:
                runs.append(run)
            run = []
        if len(run) >= 2:
            runs.append(run)
    return runs


def split_tax(pages: list[PageResult], one: Hit | None, subtotal: Hit | None, total: Hit | None) -> Hit | None:
    """The tax as the sum of its parts when the subtotal and those parts add up to the total and
    the one tax row found does not; ``None`` otherwise."""
    if total is None:
        return None
    if subtotal is None:
        return found[1] if (found := parts_under_net(pages, _value(total.text))) else None
    sub, tot = _value(subtotal.text), _value(total.text)
    if one is not None and abs(sub + _value(one.text) - tot) <= 0.011:
        return None
    for run in reversed(tax_parts(pages)):
        if abs(sub + sum(v for v, _ in run) - tot) <= 0.011:
            first = run[0][1]
            return Hit(f"{sum(v for v, _ in run):.2f}", first.page, first.box)
    return None


def parts_under_net(pages: list[PageResult], tot: float) -> tuple[Hit, Hit] | None:
    """Tax rows under an amount with no label (a net sum ruled off under the items) that add up
    with it to the total, to a round-off of one unit: (the net, the tax as their sum)."""
    for run in reversed(tax_parts(pages)):
        first = run[0][1]
        page = next((p for p in pages if p.page_number == first.page), None)
        rows = rows_of(page) if page is not None else []
        k = next((i for i, r in enumerate(rows) if r.text == first.text and r.box == first.box), 0)
        net = _amount_on(rows[k - 1]) if k > 0 else None
        if net is not None and abs(_value(net) + sum(v for v, _ in run) - tot) <= 1.0:
            return Hit(net, first.page, rows[k - 1].box), Hit(f"{sum(v for v, _ in run):.2f}", first.page, first.box)
    return None
