"""Seller and buyer on invoices: address blocks found by their postcode line, read as a clerk reads
an envelope window.

A receipt names its seller at the top and no buyer; ``blocks.seller_block`` reads that. An
invoice prints two parties, usually without a label: the buyer in the address window at the top
left (often under a one-line sender address), the seller in the letterhead or beside it, and much
of it inside tables the parser found. Here every line of the page, table cells included, is
looked at for **address blocks**: a postcode line (``80333 München``, ``75018 PARIS``,
``WA 98109``, ``EC1A 1BB``) with the street line above it, the name above the street (after a
salutation such as ``Herrn`` or ``M.`` when there is one) and a country line below. Then:

* the **buyer** is the block a buyer label (``Bill to``, ``Kunde``…) heads, else the block in the
  window: the first one in the upper half of page 1, on its left half;
* the **seller** is another block whose name carries a legal form (``GmbH``, ``SARL``, ``Inc.``),
  else the first other block, else the sender line above the window
  (``Lieferant GmbH · Lieferantenstraße 20 · 80333 München``).

Nothing here names a vendor; postcode shapes are those of the countries the lexicon reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.core.models import PageResult
from pipelines.stages.extract.items import header_text
from pipelines.stages.extract.lines import Box, Line, header_lines, lines_of, per_page, sideways, union_box
from pipelines.stages.extract.names import party_words
from pipelines.stages.extract.postcodes import POSTCODE, STREET_WORD, US_TOWN, postcode_line
from pipelines.stages.extract.roles import BUYER, LEGAL, PAYEE, SELLER, STOP, THIRD, TITLE, WEB, _party_label
from pipelines.stages.extract.tables import _cell_boxes, _table_rows

_TITLE = r"(?:herrn?|frau|mr\.?|mrs\.?|ms\.?|m\.|mme\.?|mlle\.?|monsieur|madame|dhr\.?|mevr\.?|sr\.?|sra\.?)"
SALUTATION = re.compile(rf"^(?:{_TITLE}(?:\s*(?:und|and|&|et|en|y|e)\s*{_TITLE})?|firma|"
                        r"exm[oa]s?\.?(?:\(s\))?(?:\s+sr[as]?\.?(?:\(s\))?|\s+sras\.?)?|sig\.?|sig\.ra|spett\.?le|spettabile|egr\.?|gent\.?(?:mo|ma|\.)?|attn:?|z\.? ?hd\.?)$", re.I)
# a person written to, title and name on one line: "M. Julien Mercier", "Herrn Max Mustermann"
TITLED = re.compile(rf"^{_TITLE}\s+[A-ZÀ-Ý]", re.I)
# a contact person's line under a firm's name: "Herrn Max Mustermann", "Attn: Jane Doe", "z. Hd. Frau Roth"
# a postcode alone on its line: the UK's, Ireland's Eircode
BARE_POSTCODE = re.compile(r"[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}|[A-Z]\d{2}\s[A-Z0-9]{4}")
# a department of the firm written to, on its own line under the firm's name
DEPARTMENT = re.compile(r"^(?:afdeling|abteilung|abt\.|department|dept\.?|service|servicio|servizio|ufficio|"
                        r"accounts (?:payable|department)|purchasing|einkauf|[\w-]*buchhaltung|comptabilit[ée]|"
                        r"boekhouding|crediteurenadministratie|ekonomiavdelningen|contabilidad|contabilit[àa])\b", re.I)
# a department or person to whose attention the letter goes, under the firm's name
ATTENTION = re.compile(r"^(?:att(?:n|ention)?\.?\s*:|z\.? ?hd\.?|à l'attention de|t\.?a\.?v\.?|c/o)\s*\S", re.I)
CONTACT_LINE = re.compile(r"^(?:herrn?|frau|mr\.?|mrs\.?|ms\.?|mme\.?|monsieur|madame|dhr\.?|mevr\.?|sr\.?|sra\.?|"
                          r"attn\.?:?|attention:?|z\.? ?hd?\.?|c/o|à l'attention de|t\.?a\.?v\.?)\s+\S", re.I)
# a heading over the buyer's details: "Datos del cliente", "Customer details", "Kundendaten"
BUYER_HEADING = re.compile(r"(?:datos|details?|informations?|données|dati|gegevens|angaben)(?: (?:del|du|de la|des|"
                           r"of the|of|dello|van de|des|zum))? (?:cliente|client|customer|buyer|kunden?|klant|"
                           r"acquirente)|(?:customer|client|buyer) (?:details|information|data)|kundendaten|"
                           r"klantgegevens", re.I)
DOTS = re.compile(r"\s*[·•|]\s*")  # a sender line's own separators
SEPARATORS = re.compile(DOTS.pattern + r"|\s+-\s+|\s*,\s+")
COUNTRY_WORDS = 3
SELLER_LABEL = SELLER
JOINED = re.compile(r"(?:&|,|(?<![^\W\d_])(?:and|und|et|e|y|en))\s*$", re.I)  # a name's line that goes on


@dataclass
class Party:
    name: list[Line]
    address: list[Line]
    addressed: bool = False  # the name follows a salutation ("Herrn", "M."): the one written to

    @property
    def top(self) -> float:
        first = (self.name or self.address)[0]
        return first.box["y1"] if first.box else 0.0

    @property
    def left(self) -> float:
        first = (self.name or self.address)[0]
        return first.box["x1"] if first.box else 0.0


_LINES: list[tuple[PageResult, list[Line]]] = []  # the last few pages' lines


def page_lines(page: PageResult) -> list[Line]:
    """Every text line of the page with its box, table cells included (a cell's lines share its
    box by height), vertical text left out, top to bottom; remembered while one extraction runs
    (``lines.per_page``)."""
    return per_page(_LINES, page, _page_lines)


def _page_lines(page: PageResult) -> list[Line]:
    out = [ln for ln in lines_of(page) if ln.box] + header_lines(page) + header_lines(page, "page_footer")
    for fi, f in enumerate(page.fragments):
        if f.fragment_type != "table":
            continue
        for cell, box in _cells(f):
            parts = [p.strip() for p in cell.split("\n") if p.strip()]
            if not parts or not box:
                continue
            h = (box["y2"] - box["y1"]) / len(parts)
            for i, p in enumerate(parts):
                b: Box = {"x1": box["x1"], "y1": box["y1"] + i * h, "x2": box["x2"], "y2": box["y1"] + (i + 1) * h}
                out.append(Line(page.page_number, p, b, -1 - fi, i, len(parts)))
    upright = [ln for ln in out if ln.box and not sideways(ln)]
    return sorted(upright, key=lambda ln: (ln.box["y1"], ln.box["x1"]))  # type: ignore[index]


def _cells(f) -> list[tuple[str, Box | None]]:  # type: ignore[no-untyped-def]
    """A table's cells with their boxes: from its cell list, whose texts keep their lines (a
    party's block in one cell), else from its rows."""
    cells = f.content.get("cells")
    if isinstance(cells, list) and cells and all(isinstance(c, dict) and "text" in c for c in cells):
        return [(str(c.get("text") or ""), c.get("bounding_box")) for c in cells]
    rows = _table_rows(f)
    boxes = _cell_boxes(f, rows) if rows else []
    return [(cell, boxes[r][c]) for r, row in enumerate(rows) for c, cell in enumerate(row)]


def column_head(page: PageResult, ln: Line) -> bool:
    """Is ``ln`` a cell of the first row of a table of three rows or more, whose first row fills
    three cells or more and names item columns (``Product Id  Product Name  Amount Purchased``):
    a column's label, no party's name?"""
    if ln.frag >= 0 or -1 - ln.frag >= len(page.fragments):
        return False
    rows = _table_rows(page.fragments[-1 - ln.frag])
    heads = {c.strip() for c in rows[0] if c.strip()} if rows else set()
    return len(rows) >= 3 and len(heads) >= 3 and ln.text.strip() in heads and header_text("  ".join(rows[0]))


def _name_like(text: str) -> bool:
    t = text.strip()
    return (sum(ch.isalpha() for ch in t) >= 3 and ":" not in t and not STOP.search(t) and not TITLE.fullmatch(t)
            and sum(ch.isdigit() for ch in t) <= 4 and not re.search(r"\d[.,]\d{2}\b|%", t))


def _above(lines: list[Line], ln: Line) -> Line | None:
    """The line just above ``ln`` in its column (left edges within a few points, or right edges
    together, close gap)."""
    b = ln.box
    assert b is not None
    h = b["y2"] - b["y1"]
    best = None
    for other in lines:
        o = other.box
        if o is None or other is ln or o["y2"] > b["y1"] + 0.3 * h or b["y1"] - o["y2"] > 1.6 * h + 2:
            continue
        if abs(o["x1"] - b["x1"]) > max(8.0, 0.6 * h) and not (o["x1"] <= b["x1"] <= o["x2"]) \
                and abs(o["x2"] - b["x2"]) > 1.5:  # (or set flush right, as a letterhead at the right)
            continue
        if best is None or o["y2"] > best.box["y2"]:  # type: ignore[index]
            best = other
    return best


def _block(lines: list[Line], post: Line) -> Party | None:
    street = _above(lines, post)
    address = [post]
    if BARE_POSTCODE.fullmatch(post.text.strip()):
        # "Flat 3, 27 Clarendon Road" / "Leeds" / "LS2 9NZ", "7 Seafield Avenue" / "Clontarf" / "Dublin 3" /
        # "D03 KX96": the postcode alone, the town and district on lines of their own above it
        towns = []
        cur = street
        while cur is not None and len(towns) < 2 and len(cur.text.split()) <= 3 and not STOP.search(cur.text) \
                and re.fullmatch(r"[^\W\d_][^\d]*?(?:\s\d{1,2})?", cur.text.strip()):  # "Leeds", "Dublin 3"
            towns.insert(0, cur)
            cur = _above(lines, cur)
        if towns and cur is not None and re.search(r"\d", cur.text):
            address[:0] = towns
            street = cur
    if street is not None and US_TOWN.match(post.text) and _name_like(street.text) and not labelled(street.text) \
            and not (re.search(r"\d", street.text) or STREET_WORD.match(street.text.strip())):
        return Party([street], [post])  # a letterhead's "Saber" / "Westlake Village, CA": no street
    if street is None or not (re.search(r"\d", street.text) or STREET_WORD.match(street.text.strip())) \
            or STOP.search(street.text):  # ("avenue Nathalie Morvan": a street named without its number)
        return None
    address.insert(0, street)
    name: list[Line] = []
    cur = street
    addressed = False
    for _ in range(2):
        up = _above(lines, cur)
        if up is not None and ATTENTION.match(up.text.strip()) and not name:
            addressed, cur = True, up  # "Att: Ekonomiavdelningen" between the firm and its street
            up = _above(lines, cur)
        if up is None or labelled(up.text):
            break
        if SALUTATION.match(up.text.strip()):
            addressed = True
            break
        if not _name_like(up.text) or postcode_line(up.text):
            break  # (a postcode's line ends another address: "Atkinsonmouth S8 8NZ" over the name)
        if name and up.box and name[0].box and up.box["y2"] - up.box["y1"] < 0.75 * (name[0].box["y2"] - name[0].box["y1"]):
            break  # small print over the name: the sender line's tail ("… · 48052" / "Groß-Gerau")
        name.insert(0, up)
        cur = up
        if TITLED.match(up.text.strip()) and not LEGAL.search(up.text):
            addressed = True  # the person written to; a firm above is the party, the person its contact
            firm = _above(lines, up)
            if firm is not None and LEGAL.search(firm.text) and _name_like(firm.text) and not labelled(firm.text) \
                    and not DOTS.search(firm.text):  # (not the sender's line over the window: "Jenkins Ltd · 5 …")
                name.insert(0, firm)
            break
        if len(name) == 1 and (before := _above(lines, up)) is not None and SALUTATION.match(before.text.strip()):
            addressed = True
            break  # "Herrn" / "Max Mustermann": the name is the line after the salutation
    kept = name[:1] if name and not LEGAL.search(" ".join(n.text for n in name)) else name
    if len(kept) == 2 and LEGAL.search(kept[1].text) and len(LEGAL.sub("", kept[1].text).split()) >= 2 \
            and kept[0].text.strip().isupper() and len(kept[0].text.split()) == 1:
        kept = kept[1:]  # "ZAHNTECHNIK" over "Dentallabor Kessler GmbH": a logo's word over a whole name
    if len(kept) > 1 and any(LEGAL.search(n.text) for n in kept):
        # "Beispiel AG" / "Herrn Max Mustermann": the firm is the party, the person its contact
        kept = [n for n in kept if not CONTACT_LINE.match(n.text.strip()) and not DEPARTMENT.match(n.text.strip())] \
            or kept
    return Party(kept, address, addressed)


def labelled(text: str) -> bool:
    """A party label heads the line ("Kunde:", "Bill to", "Rechnungsersteller"); "MUSTER-KUNDE
    GMBH" is a name."""
    named = bool(LEGAL.search(text)) and ":" not in text  # "Lieferant GmbH" is a firm's name
    if party_words(text):
        return True  # "VAN" / "AAN" over the parties' blocks, "SHIPPER / ORIGIN"
    return not named and (bool(BUYER_HEADING.fullmatch(text.strip(" :"))) or any((m := pat.search(text)) is not None and m.start() <= 3 for pat in (BUYER, SELLER))
                          or _party_label(text))


def blocks(page: PageResult, named: bool = True) -> list[Party]:
    """The page's address blocks (a postcode line and the lines over it), named ones only if ``named``."""
    lines = page_lines(page)
    out = []
    for ln in lines:
        # (a line of three parts or more is a one-line sender address: ``sender_line``)
        if postcode_line(ln.text) and len(ln.text) <= 60 and len(SEPARATORS.split(ln.text.strip().rstrip(","))) < 3:
            if (party := _block(lines, ln)) is not None and (party.name or not named):
                out.append(party)
    return out


def sender_line(page: PageResult, below: float) -> Party | None:
    """A one-line sender address above the window: ``Name · Street · Postcode City``, or that
    line wrapped onto a second one in its small type (``… · Groth-Ring`` / ``7-4 · 70432 Osterode``)."""
    lines = page_lines(page)
    for k, ln in enumerate(lines):
        if ln.box is None or ln.box["y1"] >= below:
            continue
        parts = _parts(ln.text)
        nxt = lines[k + 1] if k + 1 < len(lines) else None
        ends_open = DOTS.fullmatch(ln.text.rstrip()[-1:] or "x") is not None  # "… Apt. 261 ·": it goes on
        if (not POSTCODE.search(ln.text) or ends_open) and DOTS.search(ln.text) and nxt is not None and nxt.box \
                and nxt.box["y1"] < below and abs(nxt.box["x1"] - ln.box["x1"]) < 2 \
                and abs((nxt.box["y2"] - nxt.box["y1"]) - (ln.box["y2"] - ln.box["y1"])) < 1 \
                and nxt.box["y1"] - ln.box["y2"] < 0.5 * (ln.box["y2"] - ln.box["y1"]):
            ln = Line(ln.page, f"{ln.text.strip()} {nxt.text.strip()}", union_box([ln.box, nxt.box]), ln.frag, ln.idx, ln.n)
            parts = _parts(ln.text)
        while len(parts) > 3 and (STOP.search(parts[-1]) or WEB.search(parts[-1])):
            parts.pop()  # "… · 1620 København V · CVR 38441209": the firm's number, not its address
        if len(parts) >= 3 and POSTCODE.search(ln.text) and not re.search(r"\d", parts[0]):
            name = Line(ln.page, parts[0], ln.box, ln.frag, ln.idx, ln.n)
            rest = Line(ln.page, ", ".join(parts[1:]), ln.box, ln.frag, ln.idx, ln.n)
            return Party([name], [rest])
    return None


def _parts(text: str) -> list[str]:
    """A sender line's parts: between its dots or bars where it has them (a firm's name may
    hold commas: "Valenzuela, Ritter and Robinson · 634 Clayton Common"), else its commas too."""
    sep = DOTS if DOTS.search(text) else SEPARATORS
    return [p for p in sep.split(text.strip()) if p]


def _same(a: Party, lines: list[Line]) -> bool:
    ids = {id(ln) for ln in lines}
    return any(id(ln) in ids for ln in a.name + a.address) or any(
        ln.box and o.box and abs(ln.box["y1"] - o.box["y1"]) < 1 and abs(ln.box["x1"] - o.box["x1"]) < 1
        for ln in a.name + a.address for o in lines)


def buyer_and_seller(pages: list[PageResult], labelled: list[Line] | None = None) -> tuple[Party | None, Party | None]:
    """The buyer's and the seller's blocks on the first page (``None`` where not found);
    ``labelled`` are the lines a buyer label heads, when there is one."""
    if not pages:
        return None, None
    page = pages[0]
    # (a block "named" by an e-mail or web address is a letterhead's contact lines, not a party)
    every = blocks(page, named=False)  # (a letterhead's address, its name set apart: a block under it is written to)
    found = [p for p in every if p.name and not WEB.fullmatch(p.name[0].text.strip())]
    width, height = page.width or 1e9, page.height or 1e9
    if labelled:
        buyer = next((p for p in found if _same(p, labelled)), None)
        others = [p for p in found if p is not buyer]
    else:
        # the block written to (after a salutation), else the lower of two blocks in the upper
        # half (the letterhead stands above the address it writes to), else the window's
        upper = sorted((p for p in found if p.top < 0.5 * height), key=lambda p: p.top)
        # a block under "Remit to:" or "Make checks payable to:" is the seller's, whoever it faces
        lines = page_lines(page)
        upper = [p for p in upper if not PAYEE.search(_label_above(lines, p))] or upper
        window = [p for p in upper if p.left < 0.5 * width]
        under = upper[0] if len(upper) == 1 and any(not p.name and p.top < upper[0].top for p in every) else None
        buyer = next((p for p in upper if p.addressed), None) or \
            (upper[1] if len(upper) >= 2 else window[0] if window else under)
        alone = len(found) == 1 and len(every) == 1
        head = _letterhead(page_lines(page), found, height) if buyer is not None and alone else []
        if buyer is not None and alone and not buyer.addressed and \
                (not head or head[-1].frag == (buyer.name + buyer.address)[0].frag >= 0) and \
                sender_line(page, buyer.top) is None:
            # the page's one address, nobody else named (no sender's line over it), or named in
            # the same block of text: the sender's (a receipt's head)
            return None, None
        others = [p for p in found if p is not buyer]
        if buyer is not None and buyer is under and (own := _headed(page_lines(page), every, under)) is not None:
            others.insert(0, own)
    if buyer is None and not labelled:
        return None, None
    lines = page_lines(page)
    # a delivery address, or the buyer's block printed twice, is the buyer's side
    others = [p for p in others if not _buyer_side(_label_above(lines, p))
              and not (buyer is not None and _texts(p.name) & _texts(buyer.name + buyer.address))]
    seller = next((p for p in others if SELLER_LABEL.search(_label_above(lines, p))), None)
    seller = seller or next((p for p in others if LEGAL.search(" ".join(ln.text for ln in p.name))), None)
    if seller is None and buyer is not None and (seller := sender_line(page, buyer.top)) is not None \
            and not LEGAL.search(seller.name[0].text) and (logo := _logo(lines, seller.name[0])) is not None:
        seller = Party([logo], seller.address)  # the firm's name set large over a sender line that names its owner
    if seller is None and others:
        seller = others[0]
    if (seller is None or not LEGAL.search(" ".join(ln.text for ln in seller.name))) and \
            (head := _letterhead(lines, found, height)):
        seller = Party(head, seller.address if seller is not None else [])  # a branch's address under the firm's name
    return buyer, seller


def _logo(lines: list[Line], sender: Line) -> Line | None:
    """The lines set large right over the sender line, flush with it (``BERGER &`` / ``CO.``), as
    one name; ``None`` when they read as a title or a label."""
    b = sender.box
    if b is None:
        return None
    h, run, edge = b["y2"] - b["y1"], [], b["y1"]
    for o in sorted((o for o in lines if o.box and o.box["y2"] <= b["y1"] + 1 and abs(o.box["x1"] - b["x1"]) < 3),
                    key=lambda o: -o.box["y2"]):  # type: ignore[index]
        if o.box["y2"] - o.box["y1"] < 1.5 * h or edge - o.box["y2"] > 2 * h:  # type: ignore[index]
            break
        run.insert(0, o)
        edge = o.box["y1"]  # type: ignore[index]
    text = " ".join(o.text.strip() for o in run)
    if not run or not _name_like(text) or TITLE.search(text) or labelled(text) or WEB.search(text):
        return None
    return Line(run[0].page, text, union_box([o.box for o in run if o.box]), run[0].frag, run[0].idx, run[0].n)


def _headed(lines: list[Line], every: list[Party], under: Party) -> Party | None:
    """The nameless address over ``under`` with the nearest name above it in its column, however far
    (a letterhead's name as a running head), with its lines wrapped before it or its legal form after."""
    addr = next(p for p in every if not p.name and p.top < under.top)
    b = addr.address[0].box
    over = [o for o in lines if o.box and b and o.box["y2"] <= b["y1"] and abs(o.box["x1"] - b["x1"]) <= 8
            and _name_like(o.text) and not labelled(o.text) and not postcode_line(o.text)
            and not LEGAL.fullmatch(o.text.strip())]
    if not over or b is None:
        return None
    name = max(over, key=lambda o: o.box["y2"])  # type: ignore[index]
    n, h = name.box, name.box["y2"] - name.box["y1"]  # type: ignore[index]
    form = [o for o in lines if o.box and o.box["y2"] <= b["y1"] and 0 <= o.box["y1"] - n["y2"] <= 0.8 * h
            and n["x1"] <= o.box["x1"] <= n["x2"] and LEGAL.fullmatch(o.text.strip())]
    head = [o for o in lines if o.box and 0 <= n["y1"] - o.box["y2"] <= 0.8 * h and o.box["x1"] <= n["x1"] <= o.box["x2"]
            and JOINED.search(o.text)]  # ("Antonelli, Cavalcanti e Zoppetti e" / "figli")
    return Party([*head[:1], name, *form[:1]], addr.address)


def _letterhead(lines: list[Line], found: list[Party], height: float) -> list[Line]:
    """A firm's name with its legal form at the head of the page, above every address block
    (``MVM Musterhafter`` / ``Versicherungsverein Musterstadt a.G.``): the one who writes."""
    top = min([p.top for p in found] + [0.25 * height])
    for ln in lines:
        if ln.box is None or ln.box["y1"] >= top:
            break
        if LEGAL.search(ln.text) and _name_like(ln.text) and not SEPARATORS.search(ln.text.strip()) \
                and not WEB.search(ln.text) and not postcode_line(ln.text):  # ("…@emberoak.co", "SR6V 1UG …")
            up = _above(lines, ln)
            return [up, ln] if up is not None and _name_like(up.text) and not LEGAL.search(up.text) \
                and not TITLE.search(up.text) and not labelled(up.text) else [ln]
    return []


def _texts(lines: list[Line]) -> set[str]:
    return {ln.text.strip().lower() for ln in lines}


def _buyer_side(label: str) -> bool:
    from pipelines.stages.extract.lexicon import gloss

    t = label.strip().rstrip(":").strip()
    # (a third party's: the shipper, the consignee, a site the work was done at)
    return bool(t) and len(t.split()) <= 4 and (gloss(t) in ("customer bill to", "ship to") or bool(THIRD.search(t)))



def _label_above(lines: list[Line], p: Party) -> str:
    first = (p.name or p.address)[0]
    up = _above(lines, first)
    return up.text if up is not None else ""
