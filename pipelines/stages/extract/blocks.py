"""A party's name and address as printed, read from a page's lines: the seller's at the head of a
receipt or a letterhead (``seller_block``), the lines under a party's label (``buyer_block``);
``sides`` says which is the seller or buyer. None of it names a vendor."""

from __future__ import annotations

import re

from pipelines.core.models import PageResult
from pipelines.stages.extract import forms, names, parties, postcodes
from pipelines.stages.extract.lexicon import gloss
from pipelines.stages.extract.lines import Box, Line, _band_overlap, _right_of, union_box
from pipelines.stages.extract.lines import letters as _letters
from pipelines.stages.extract.roles import (
    ADDRESS,
    AMOUNT,
    BUYER,
    DATE,
    LEGAL,
    NAME,
    PHONE,
    REGISTRATION,
    SELLER,
    STOP,
    TITLE,
    _party_label,
    dated,
    priced,
)

HEADER_ROWS = 12  # the seller is named within the first rows of the first page
ADDRESS_ROWS = 6


def _is_title(text: str) -> bool:
    rest = TITLE.sub("", text)
    return _letters(rest) <= 2 and _letters(text) > 0


# a registration number printed after a name: ``(728515-M)``, ``(Co. No. 113825-W)``, ``519537-X)``
NAME_ID = re.compile(r"\s*\(?\s*(?:(?:co|company|roc|reg|no)\b\.?\s*){0,3}[:.]?\s*[A-Z]{0,3}\d[\dA-Z]{3,}"
                     r"(?:\s?-\s?[A-Z])\s*\)?\s*$|\s*\([^()]*\d{4,}[^()]*\)\s*$", re.I)


# what is left of a registration label when its number went to the next line: "(CO.RFG", "CO-", "BR No.:"
ID_LABEL = re.compile(r"\s*(?:\(\s*(?:co|company|roc|br|reg|rfg|no)\b[^()]*|(?:co|company)\s*-"
                      r"|(?:br|roc|reg|rfg|co\.?\s*reg|company\s*no|co\.?\s*no)\b\.?\s*(?:no\b\.?)?\s*:?)\s*$", re.I)


def _without_id(text: str) -> str:
    """A name line without the registration number printed after it."""
    return ID_LABEL.sub("", NAME_ID.sub("", text)).strip()


def _name_like(text: str) -> bool:
    t = _without_id(text)
    if _letters(t) < 3 or _is_title(t) or STOP.search(t) or DATE.search(t) or AMOUNT.search(t) or names.COPY_LINE.match(t):
        return False
    if not any(ch.isupper() for ch in t):  # a stamp or a note in lower case, not a printed name
        return False
    if t.endswith(","):  # an address line goes on; a name does not end in a comma
        return False
    if _only_labels(t):  # "Billing Address   Shipping Address": two parties' labels
        return False
    return sum(ch.isdigit() for ch in t) <= (4 if LEGAL.search(t) else 2)  # "TRIPLE SIX ENTERPRISE 666"


# words that say what a business does, not which one ("RESTAURANT SDN BHD" under a name ends it)
TRADE_WORDS = re.compile(r"(?:restaurant|restoran|cafe|café|bakery|hardware|stationery|trading|enterprises?|stores?|"
                         r"mart|supermarket|market|pharmacy|farmasi|electrical|electronics?|services?|holdings?|"
                         r"industries|marketing|motors?|books?|group|international|\(m\)|malaysia|&|and)", re.I)


LABEL_WORDS = re.compile(r"shipping|delivery|details|information|ship|from|to|and|of|&|/|:", re.I)


def _only_labels(text: str) -> bool:
    """Party labels and nothing else (``Billing Address   Shipping Address``), not a name."""
    rest = text
    for pat in (BUYER, SELLER, NAME, ADDRESS):
        rest = pat.sub(" ", rest)
    rest = " ".join(w for w in rest.split() if not LABEL_WORDS.fullmatch(w))
    return _letters(rest) <= 2 and not LEGAL.search(text)


def _legal_only(text: str) -> bool:
    """Only a legal form, perhaps after words that say the trade: the end of a name."""
    rest = LEGAL.sub("", text)
    return bool(LEGAL.search(text)) and (_letters(rest) <= 3 or all(TRADE_WORDS.fullmatch(w) for w in rest.split()))


def _legal_lead(text: str) -> bool:
    """A line that starts with a legal form: the name above goes on (``TERMOIDRAULICA FERRARESI``
    / ``S.n.c. di Ferraresi Luca & C.``)."""
    m = LEGAL.match(text.strip())
    return m is not None and m.end() >= 3


Block = list[tuple[str, Line]]


def _column(lines: list[Line], head: Line, pad: float) -> list[Line]:
    """The lines below ``head`` that sit in its column (overlapping it horizontally), top down."""
    hb = head.box
    assert hb is not None
    # where the next column starts: a line beside the head on its row ("Invoice to:" and
    # "Your order ref." side by side, their cells' boxes overlapping)
    nxt = min((b["x1"] for ln in lines if (b := ln.box) is not None and ln is not head
               and b["x1"] > hb["x1"] + 5 and b["x2"] > hb["x2"] + 1 and min(b["y2"], hb["y2"]) - max(b["y1"], hb["y1"]) > 0.5 * (hb["y2"] - hb["y1"])),
              default=float("inf"))
    out = []
    for ln in lines:
        b = ln.box
        if b is None or ln is head or b["y1"] < hb["y1"] + 0.5 * (hb["y2"] - hb["y1"]) or b["x1"] >= nxt - 1:
            continue
        # between table cells a sliver is no overlap: a cell's box may reach a few points into
        # the next column's
        sliver = 0.1 * min(b["x2"] - b["x1"], hb["x2"] - hb["x1"]) if ln.frag < 0 and head.frag < 0 else 0.0
        if min(b["x2"], hb["x2"] + pad) - max(b["x1"], hb["x1"] - pad) > sliver:
            out.append(ln)
    return sorted(out, key=lambda ln: ln.box["y1"])  # type: ignore[index]


# a VAT number alone: its country's two letters and digits, spaced or not ("FR 12 345 678 901")
VAT_ID = re.compile(r"^[A-Z]{2}\s?[0-9A-Z][0-9A-Z ]{6,14}[0-9A-Z]$")


COUNTRY_LAST = re.compile(r"[\s,](?:malaysia|singapore|indonesia|deutschland|germany|france|belgique|belgi[eë]|"
                          r"nederland|netherlands|espa[ñn]a|spain|italia|italy|[öo]sterreich|austria|schweiz|suisse|"
                          r"switzerland|united kingdom|uk|usa|united states)\W*$", re.I)
EMAIL_LINE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# the labels of a party's tax or company number, in many countries
_TAX_IDS = (r"gst(?:in)?|vat|tax|ust|tva|btw|iva|nif|nip|cif|siret|siren|p\.? ?iva|steuer-?nr\.?|trn|rfc|cnpj|abn|ein|"
            r"uen|di[čc]|ičo|mva|org\.? ?nr|cvr")
# a tax number's line: "(GST ID No : 001147416576)", "GST REG NO: 000800589824", "VAT no. 1234567"
TAX_LINE = re.compile(rf"\W*(?:{_TAX_IDS}|sst|nie|uid|c\.?f\.?)\b[^:]{{0,16}}:?\s*[\w-]+\W*$", re.I)
# a labelled line of the party's tax registration, whatever follows the label
TAX_LABEL = re.compile(rf"\W*(?:{_TAX_IDS}|r[ée]gimen fiscal)\b[^:]{{0,20}}:", re.I)
ADDRESS_LEAD = re.compile(r"^[\w -]{0,20}?\b(?:address|adresse|anschrift|adres|direcci[oó]n|indirizzo)\s*:\s*", re.I)


def _address(lines: list[Line], started: bool = False) -> Block:
    """Address lines from the top of ``lines``: registration numbers and a date before the
    address are passed over, a registration number leading a line is cut off; the address ends
    at a telephone, tax-number, title, amount or buyer line."""
    out: Block = []
    passed = 0
    rows = lines[:ADDRESS_ROWS + 4]
    for k, ln in enumerate(rows):
        t = ln.text.strip()
        if out and _gap(out[-1][1], ln):
            break  # a blank line's height or more: the next block (the items' header)
        if (lab := ADDRESS_LEAD.match(t)) is not None and _letters(t[lab.end():]) >= 2:
            t = t[lab.end():]  # "Ship-from Address: 12 Mill Road": the label is not the address
        if VAT_ID.match(t) and sum(ch.isdigit() for ch in t) >= 7:
            continue  # a VAT number on a line of its own, under the name or the address
        house = re.match(r"\s*\d{1,5}[A-Za-z]?\s+[^\W\d]", t) is not None  # "3400 S 43rd Ave, Phoenix": a house number
        if not out and not house and (m := REGISTRATION.match(t)) and not postcodes.STREET_LINE.match(t):
            if _letters(t[m.end():]) <= 3:
                passed += 1
                continue
            t = t[m.end():].strip(" :,.")
        if (not out and passed < 2 or started and len(out) <= 2) and TAX_LINE.match(t) \
                and sum(ch.isdigit() for ch in t) >= 6:
            # the party's tax number between its name (and its contact's) and its address ("NIF A-08123456")
            passed += 1
            continue
        if not out and passed < 3 and TAX_LABEL.match(t):
            passed += 1  # "Régimen fiscal: 601 General de Ley Personas Morales" under the name
            continue
        if not out and not started and dated(t) and passed < 2:
            passed += 1
            continue
        if (kept := _before_contacts(t)) is not None:
            out.append((kept, ln))  # "Unit 7, Ballybrit Business Park, Galway H91 X2C4 · 091 770 215 · …"
            break
        if STOP.search(postcodes.UK.sub(" ", t)) or (_is_title(t) and not POSTCODE.search(t)) or priced(t) or parties.labelled(t) \
                or PHONE.search(t) or (out and dated(t)) or EMAIL_LINE.search(t):
            break
        if not out and passed < 2 and re.search(r"\d{6,}", t) and _letters(t) <= 4:
            passed += 1  # an identifier over the name ("GLN 4304171000002")
            continue
        if _letters(t) + sum(ch.isdigit() for ch in t) < 2:
            continue
        if not out and not started and k + 1 < len(rows) and not re.search(r"\d", t) and not t.endswith(",") \
                and re.search(r"\d", rows[k + 1].text.strip()[:8]):
            continue  # a branch's or a site's name over the street ("IKEA Cheras" / "No 2A Jalan…")
        out.append((t, ln))
        if len(out) == ADDRESS_ROWS or COUNTRY_LAST.search(t):
            break  # (an address ends with its country: a branch's name may follow)
    return out


def _contact(part: str) -> bool:
    return bool(STOP.search(part) or PHONE.search(part) or EMAIL_LINE.search(part) or TAX_LINE.match(part))


def _before_contacts(text: str) -> str | None:
    """The address at the head of a letterhead's one line that goes on, after a dot or a bar,
    with the telephone, e-mail or tax number; ``None`` for any other line."""
    parts = [p.strip() for p in re.split(r"\s*[·•|]\s*", text) if p.strip()]
    k = next((i for i, p in enumerate(parts) if _contact(p)), len(parts))
    if len(parts) < 2 or k == 0 or k == len(parts) or not any(ch.isdigit() for ch in " ".join(parts[:k])):
        return None
    return " ".join(parts[:k])


def _gap(above: Line, ln: Line) -> bool:
    a, b = above.box, ln.box
    if not a or not b or above.frag == ln.frag:
        return False
    h = min(a["y2"] - a["y1"], b["y2"] - b["y1"])
    return b["y1"] - a["y2"] > 1.8 * h


_sorted_lines = parties.page_lines


def _height(ln: Line) -> float:
    return ln.box["y2"] - ln.box["y1"] if ln.box else 0.0


def _firm_before_id(ln: Line) -> Line:
    """"Distribucions Segarra, S.L. - CIF B25614873": the firm's name without its number."""
    m = STOP.search(ln.text)
    if m is None or m.start() == 0:
        return ln
    head = ln.text[:m.start()]
    name = head.rstrip(" -–·|,")
    if name == head.rstrip() or not LEGAL.search(name) or not _name_like(name):
        return ln  # (a separator before the number: " - ", " · ", ", ")
    return Line(ln.page, name, ln.box, ln.frag, ln.idx, ln.n)


def seller_block(pages: list[PageResult], skip: tuple[Line, ...] | list[Line] = ()) -> tuple[Block, Block]:
    """The seller's name and address lines at the top of the first page. A name printed larger
    than the text under it goes on over the rows in that size (``POPULAR BOOK`` / ``CO. (M) SDN
    BHD``); a name continues onto a row that is only a legal form, and after a row that ends in
    ``&`` or ``and`` (``HOME MASTER HARDWARE &`` / ``ELECTRICAL``). Lines in ``skip`` (a labelled
    buyer's) are passed over."""
    lines = [_firm_before_id(ln) for ln in _sorted_lines(pages[0])] if pages else []
    top = [ln for ln in lines[:HEADER_ROWS] if _name_like(ln.text) and not parties.column_head(pages[0], ln)
           and not any(ln.text == o.text and ln.box == o.box for o in skip)]
    if not top:
        return [], []
    # the name with its legal form, above the first telephone, tax number or title (a maker's
    # name among the items is not the seller's)
    stop = next((ln.box["y1"] for ln in lines[:HEADER_ROWS] if ln.box and STOP.search(ln.text)), float("inf"))
    head = next((ln for ln in top[:4] if LEGAL.search(ln.text) and ln.box and ln.box["y1"] < stop), top[0])
    # "PASARAYA BORONG PINTAR" / "SDN BHD": the name starts on the line above (a line above a
    # whole name with its legal form is a trade name: "AL MENDIS" / "ZAWIAJAYA F&B SDN BHD")
    if (_legal_only(head.text) or _legal_lead(head.text)) and (up := parties._above(lines, head)) is not None \
            and _name_like(up.text):
        head = up
    if any(DATE.search(ln.text) and ln.box and head.box and ln.box["x1"] < head.box["x2"] and head.box["x1"] < ln.box["x2"]
           for ln in lines[:next((i for i, ln in enumerate(lines) if ln is head), 0)]):
        # a "name" under the sale's date (in its column) is an item: the name is a logo OCR cannot read
        thanked = next(((name, ln) for ln in lines if (name := names.thanked(ln.text))), None)
        return [thanked] if thanked else [], _around_postcode(lines)
    body = sorted(_height(ln) for ln in lines) or [0.0]
    typical = body[len(body) // 2]
    # the rest of the head's row (a big name set in two columns of words), left to right
    row = sorted([ln for ln in lines if ln is not head and ln.box and head.box
                  and _band_overlap(ln.box, head.box) > 0.5 and _name_like(ln.text)
                  and gloss(ln.text.strip(" :")) == ln.text.strip(" :")  # (no label: "Núm. factura")
                  and _near(ln.box, head.box)] + [head],
                 key=lambda ln: ln.box["x1"])  # type: ignore[index]
    span = Line(head.page, head.text, union_box([ln.box for ln in row]), head.frag, head.idx, head.n)
    below = [ln for ln in _column(lines, span, 0.0) if ln not in row]  # under the whole name
    name: Block = [(" ".join(_without_id(ln.text) for ln in row), head)]
    big = _height(head) > 1.3 * typical
    while below:
        nxt = below[0]
        same_row = sorted([ln for ln in below if ln.box and nxt.box and _band_overlap(ln.box, nxt.box) > 0.5],
                          key=lambda ln: ln.box["x1"])  # type: ignore[index]
        text = " ".join(_without_id(ln.text) for ln in same_row)
        dangling = re.search(r"(?:&|\band|\bund|\bet|-)$", name[-1][0].strip(), re.I) is not None
        street = postcodes.STREET_LINE.match(text) or postcodes.STREET_NUMBER_LAST.match(text)
        if _legal_only(text) or _legal_lead(text) or (big and _height(nxt) > 0.8 * _height(head) and _name_like(text) and not street) \
                or (dangling and _name_like(text)) or (len(name) == 1 and _closed_by_id(name[0][0], text, below[len(same_row):])):
            name.append((text, nxt))
            below = [ln for ln in below if ln not in same_row]
            continue
        break
    address = _address(below)
    if not any(POSTCODE.search(t) and not postcodes.STREET_LINE.match(t) for t, _ in address):
        address = _around_postcode(below) or address
    return name, address


def _closed_by_id(first: str, text: str, rest: list[Line]) -> bool:
    """Words without a figure between a name without its legal form and the firm's number on a
    line of its own close the name (``RESTAURANT JIAWEI`` / ``JIAWEI HOUSE`` / ``002693074-K``)."""
    return (not LEGAL.search(first) and _name_like(text) and not re.search(r"\d", text) and bool(rest)
            and not _without_id(rest[0].text) and REGISTRATION.match(rest[0].text) is not None)


POSTCODE = re.compile(r"(?<![\w:/-])(?:[A-Z]{1,2}-)?\d{4,5},?\s+[A-Za-zÄÖÜÉÈ][\w'’.-]+"
                      r"|(?<!\w)[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}(?=$|[\s,])"
                      rf"|(?<![\w-])(?:{postcodes.ABROAD})(?=$|[\s,])"
                      # China's and Russia's six figures, Japan's 〒 NNN-NNNN, before the country's name
                      r"|(?<![\w-])(?:\d{6}|\d{3}-\d{4}),?\s+(?=(?i:china|p\.?\s?r\.?\s?c\.?|japan|russia)\b)")


def _around_postcode(lines: list[Line]) -> Block:
    """The address around its postcode line (``81100 JOHOR BAHRU,``), in the first rows under a
    seller's name: the street lines above it (each with a number, a comma or a closing stop:
    ``NO.53, JALAN BESAR,``, ``TAMAN DAYA,``; a branch or trade name above them is not the
    address) and a one- or two-word state or country line under it. Empty without a postcode."""
    rows = lines[:ADDRESS_ROWS + 4]
    k = next((i for i, ln in enumerate(rows) if POSTCODE.search(ln.text) and not _stop(ln.text)
              and not postcodes.STREET_LINE.match(ln.text)), None)
    if k is None:
        return []
    start = k
    while start > 0 and k - start < 4:
        t = rows[start - 1].text.strip()
        if _stop(t) or REGISTRATION.fullmatch(t) or not (re.search(r"\d|,", t) or t.endswith(".")):
            break
        start -= 1
    end = k + 1
    if end < len(rows):  # the state or country: after a comma, or one word ("SELANGOR", "FRANCE")
        t = rows[end].text.strip()
        if not _stop(t) and not re.search(r"\d", t) and _letters(t) >= 3 and (
                len(t.split()) == 1 or (rows[k].text.rstrip().endswith(",") and len(t.split()) <= 3)):
            end += 1
    return [(ln.text.strip(), ln) for ln in rows[start:end]]


def _stop(text: str) -> bool:
    return bool(STOP.search(text) or _is_title(text) or AMOUNT.search(text) or parties.labelled(text)
                or PHONE.search(text) or DATE.search(text))


def _near(a: Box, b: Box) -> bool:
    """Two pieces of one row close enough to be words of one name: at most eight times the line's
    height apart (``POPULAR`` ``BOOK``; not the buyer's name and a label across the page)."""
    gap = max(a["x1"] - b["x2"], b["x1"] - a["x2"], 0.0)
    return gap <= 8 * max(a["y2"] - a["y1"], b["y2"] - b["y1"])


def _street_and_town(block: Block) -> Block:
    """An address cut to its street and postcode lines when it has a postcode line (a contact
    person above the street, a country or an id below the town are not the address)."""
    k = next((i for i, (t, _) in enumerate(block) if postcodes.postcode_line(t)), None)
    if k is None:
        return block
    while k + 1 < len(block) and postcodes.postcode_line(block[k + 1][0]):
        k += 1  # "1997 Linda Throughway" over "West Heather, LA 53492": a house number, then the town
    start = k
    # up over the street and town lines (a figure or a comma: not a person), and over the town
    # above a postcode printed alone (``Clonakilty, Co. Cork`` / ``P85 YK30``, ``Glasgow`` / ``G1 1LH``)
    def street(i: int) -> bool:
        return i >= 0 and (re.search(r"\d|,", block[i][0]) is not None or postcodes.STREET_WORD.match(block[i][0]) is not None)

    while start > 0 and k - start < 3 and (street(start - 1)
                                           or (start == k and _letters(POSTCODE.sub("", block[k][0])) == 0)
                                           or (len(block[start - 1][0].split()) <= 3 and street(start - 2))):
        start -= 1  # (a town's line without figures between the street and "Kent CT1 2PR")
    return block[start:k + 1]


def buyer_block(pages: list[PageResult], label: re.Pattern[str] = BUYER) -> tuple[Block, Block]:
    """The lines under a buyer label (``Bill to``, ``Kunde``…), or another party's label: the
    first is the name."""
    for page in pages:
        lines = _sorted_lines(page)
        for ln in lines:
            m = label.search(ln.text)
            heading = label is BUYER and parties.BUYER_HEADING.fullmatch(ln.text.strip(" :"))
            said = label is not BUYER and m is not None and m.start() <= 3 and \
                re.match(r"\s*:\s*\S", ln.text[m.end():]) is not None and \
                _name_like(ln.text[m.end():].strip(" :.-,"))  # "Sold By: Kestrel Retail Ltd"
            if m is None or len(ln.text) > 60 or (m.start() > 3 and not heading) or not parties.labelled(ln.text) or (
                    label is not BUYER and not _party_label(ln.text) and not said):  # a seller's: the label alone
                continue
            if ln.idx > 0 and ln.text[:1].islower() and ":" not in ln.text:
                continue  # a sentence wrapped onto its next line ("… per conto del / cliente"), no label
            after = ln.text[m.end():].lstrip(" :.-,").rstrip(" :-,")  # (keeps "S.r.l.")
            if re.match(r"(?:account|number|no\b|nr\b|id\b|code|ref|reference|vat|tax|service|care|support)",
                        after, re.I):
                continue  # "Customer account: PEN-0077", "Client No.": an identifier's label
            if gloss(ln.text.strip(" :")) == "customer number":
                continue  # "N° client", "Kunde Nr.": the number's label before the word
            if after.startswith("/") or (after.startswith("(") and label.fullmatch(after.strip("() :"))):
                after = ""  # "Käufer/Leistungsempfänger", "Buyer (Bill to)": one label in two
            name, address = forms.form_party(page, ln)
            if name:
                return [(" ".join(n.text.strip() for n in name), name[0])], [(a.text.strip(), a) for a in address]
            beside = _right_of(ln, lines) if _letters(after) < 3 else None
            if beside is not None and _name_like(beside.text) and not parties.labelled(beside.text) \
                    and beside.box["x1"] - ln.box["x2"] < 3 * _height(ln):  # type: ignore[index]
                ln, after = beside, beside.text.strip()  # "To:" with the name to its right, the address under it
            block = _address(_column(lines, ln, 2.0), started=True)
            if _letters(after) >= 3:
                block.insert(0, (after, ln))
            if block:
                return block[:1], _street_and_town(block[1:])
    return [], []
