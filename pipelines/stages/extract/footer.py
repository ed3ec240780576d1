"""The seller named in a page's legal footer, for bills whose letterhead is only a logo.

A telecom's or utility's bill often prints its name as a picture at the top and its legal name
only in the small print at the foot: ``Azur Télécom SAS au capital de 2 500 000 € - Siège social :
18 avenue de la Grande Armée, 75017 Paris - RCS Paris 512 334 889``, ``Nordwind Energie GmbH ·
Sitz der Gesellschaft: Hamburg · Amtsgericht Hamburg HRB 12345``. Such a line says who issues the
document by the company law it quotes (share capital, registered office, register), so its name
with its legal form is the seller's, and the address after ``Siège social`` / ``Registered
office`` the seller's address.
"""

from __future__ import annotations

import re

from pipelines.core.models import PageResult
from pipelines.stages.extract.lines import Line
from pipelines.stages.extract.parties import page_lines
from pipelines.stages.extract.roles import LEGAL

# what only a firm's legal notice says
NOTICE = re.compile(r"\b(?:au capital(?: social)? de|capital social|si[èe]ge social|registered (?:office|in)|"
                    r"sitz(?: der gesellschaft)?|amtsgericht|handelsregister|registergericht|rcs|r\.c\.s\.|kvk|"
                    r"company (?:no|number|reg\w*)|reg(?:istration)?\.? no|capitale sociale|sede legale|"
                    r"domicilio social|registro mercantil)\b", re.I)
OFFICE = re.compile(r"\b(?:si[èe]ge social|registered office|sitz der gesellschaft|sede legale|domicilio social)"
                    r"\s*:?\s*", re.I)
PARTS = re.compile(r"\s+[-–·|•]\s+")


def legal_notice(lines: list[Line]) -> tuple[Line, str, str | None] | None:
    """The footer line that names the firm under company law: the line, the firm's name with
    its legal form, and its registered address when the line gives one; the lowest such line."""
    for ln in sorted((ln for ln in lines if ln.box), key=lambda ln: -ln.box["y1"]):  # type: ignore[index]
        if not NOTICE.search(ln.text):
            continue
        first = PARTS.split(ln.text.strip())[0]
        legal = LEGAL.search(first)
        if legal is None or legal.start() == 0:
            continue
        name = first[:legal.end()].strip(" ,")
        if sum(ch.isalpha() for ch in name) < 4 or len(name.split()) > 8:
            continue
        address = None
        if (office := OFFICE.search(ln.text)) is not None:
            address = PARTS.split(ln.text[office.end():])[0].strip(" ,") or None
            if address is not None and not re.search(r"\d", address):
                address = None  # "Sitz der Gesellschaft: Hamburg": a town, no address
        return ln, name, address
    return None


def seller(pages: list[PageResult]) -> tuple[Line, str, str | None] | None:
    """``legal_notice`` on the first page, else the last (``page_lines`` holds the footer's lines)."""
    for page in (pages[:1] + pages[-1:]) if pages else []:
        if (found := legal_notice(page_lines(page))) is not None:
            return found
    return None
