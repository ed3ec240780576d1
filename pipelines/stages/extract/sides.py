"""Which party a schema's field asks for, read from the blocks of ``blocks`` and ``parties``.

The buyer is the block under a buyer label, else the envelope window's; the seller the other
block beside the window, else the one under a seller label, else the letterhead at the top as on
a receipt — and, when that would name the buyer again or nobody, the firm of the legal notice in
the page's footer (``footer``). The buyer is never the seller.
"""

from __future__ import annotations

import re

from pipelines.core.models import PageResult
from pipelines.stages.extract import footer, parties
from pipelines.stages.extract.blocks import (
    Block,
    _height,
    _legal_lead,
    _legal_only,
    buyer_block,
    seller_block,
)
from pipelines.stages.extract.lines import Hit, Line, union_box
from pipelines.stages.extract.names import bare_name, party_words
from pipelines.stages.extract.roles import LEGAL, SELLER, Role, fits


def _texts(block: Block) -> list[str]:
    return [t for t, _ in block]


def _as_blocks(p: parties.Party) -> tuple[Block, Block]:
    return [(ln.text.strip(), ln) for ln in p.name], [(ln.text.strip(), ln) for ln in p.address]


def same_firm(a: str, b: str) -> bool:
    """``a`` and ``b`` name one firm: the same words, legal forms and punctuation aside."""
    def words(t: str) -> str:
        return " ".join(re.sub(r"[^\w&]+", " ", LEGAL.sub(" ", t)).casefold().split())
    wa, wb = words(a), words(b)
    return bool(wa) and wa == wb


def _with_logo_word(pages: list[PageResult], name: Block) -> Block:
    """The seller's name with the word set over it as a logo ("FOXGLOVE" / "PRINT & DESIGN LTD")
    when the page prints the two together elsewhere ("Foxglove Print & Design Ltd", in the
    footer): as printed there."""
    text, ln = name[0]
    lines = parties.page_lines(pages[0]) if pages else []
    b = ln.box
    if b is None:
        return name
    h = b["y2"] - b["y1"]
    # the lines just above, set from the same left edge or over the name: the logo's word, or the
    # words over the logo's initials ("ANDREOU & PARTNERS" / "A&P" / "CORPORATE SERVICES LTD")
    ups = sorted((o for o in lines if o is not ln and (ob := o.box) is not None and ob["y1"] < b["y1"] - 0.3 * h
                  and ob["y1"] > b["y1"] - 4 * h and (abs(ob["x1"] - b["x1"]) < 3 or ob["x1"] <= b["x1"] <= ob["x2"])
                  and 0 < len(o.text.split()) <= 4), key=lambda o: -o.box["y1"])  # type: ignore[index]
    for over in ups[:2]:
        if whole := _printed_elsewhere(pages, [over.text, text], [over, ln]):
            return [(whole, ln)]
    return name


def _printed_elsewhere(pages: list[PageResult], texts: list[str], own: list[Line]) -> str | None:
    """``texts`` as one phrase on another line of the first page, as printed there."""
    words = " ".join(texts).split()
    if not words or not pages:
        return None
    whole = re.compile(r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)", re.I)
    for other in parties.page_lines(pages[0]):
        if all(other is not o for o in own) and (m := whole.search(other.text)):
            return m.group(0)
    return None


def party(pages: list[PageResult], role: Role) -> Hit | None:
    """The buyer: under a buyer label, else in the address window; the seller: beside a buyer's
    window on an invoice (``parties``), else at the top of the page as on a receipt."""
    labelled = buyer_block(pages)
    window, other = parties.buyer_and_seller(pages, [ln for _, ln in labelled[0] + labelled[1]] or None)
    if role.party == "buyer":
        name, address = labelled
        if name and (seller := party(pages, Role("name", "seller"))) is not None and same_firm(name[0][0], seller.text):
            # "To: Kōwhai Coffee Ltd" on a remittance slip: the seller's label, whom the buyer pays
            name, address = [], []
            window, _ = parties.buyer_and_seller(pages)
        if not (name or address) and window is not None:
            name, address = _as_blocks(window)
    elif window is not None and other is not None and not all(party_words(ln.text) for ln in other.name):
        name, address = _as_blocks(other)
        legal = [(t, ln) for t, ln in name if LEGAL.search(t) and not _legal_only(t) and not _legal_lead(t)]
        if len(name) > 1 and len(legal) == 1 and all(_height(ln) > 1.3 * _height(legal[0][1])
                                                     for _, ln in name if ln is not legal[0][1]):
            big = [(t, ln) for t, ln in name if ln is not legal[0][1]]
            said = {w.casefold() for t, _ in big for w in re.findall(r"\w{3,}", t)}
            # a logo's word set large over the name with its legal form ("LUMEN" / "Lumen Domotique
            # SAS"); a name set large over its trade and legal form ("MOREL & VASSEUR" /
            # "Atelier d'architecture — SARL") is the name; both, where the page prints them as one
            # ("FOXGLOVE" / "PRINT & DESIGN LTD", and "Foxglove Print & Design Ltd" in the footer)
            whole = _printed_elsewhere(pages, [t for t, _ in name], [ln for _, ln in name])
            name = [(whole, name[0][1])] if whole else \
                legal if said & {w.casefold() for w in re.findall(r"\w{3,}", legal[0][0])} else big
        if not address and name and (under := buyer_block(pages, SELLER))[0] and same_firm(under[0][0][0], name[0][0]):
            address = under[1]  # "Sold by" over the name and its address
        if not address and name and (head := seller_block(pages))[0] and head[0][0][1] is name[0][1]:
            address = head[1]  # a letterhead's name with its address under it on one line
    elif (under := buyer_block(pages, SELLER))[0] and fits(Role("name", "seller"), under[0][0][0]):  # under a seller label ("Bill From:", "Lieferant")
        name, address = under
    else:
        name, address = seller_block(pages)
    if role.party != "buyer" and name and labelled[0] and same_firm(labelled[0][0][0], " ".join(t for t, _ in name)):
        name, address = seller_block(pages, [ln for _, ln in labelled[0] + labelled[1]])  # (the buyer is not the seller)
    if role.party != "buyer" and (not name or (window is not None and _texts(name) == _texts(_as_blocks(window)[0]))):
        name, address = [], []  # (the buyer is not the seller)
        if (notice := footer.seller(pages)) is not None:  # a logo for a letterhead: the legal notice's firm
            ln, firm, office = notice
            name, address = [(firm, ln)], [(office, ln)] if office else []
    if role.party != "buyer" and len(name) == 1:
        name = _with_logo_word(pages, name)
    name = [(t, ln) for t, ln in name if not party_words(t)]  # "VAN" / "Pixelhaven B.V."
    block = name if role.kind == "name" else address
    text = " ".join(t for t, _ in block)
    if role.kind == "name":
        text = bare_name(text)
    if not block or not text:
        return None
    return Hit(text, block[0][1].page, union_box([ln.box for _, ln in block]))



