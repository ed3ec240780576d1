"""A party set out as a form under its label: ``Verkäufer`` (or ``Service Provider``, ``Client``)
over rows of a label and its value (``Name:``, ``Anschrift:``, or ``Street:``, ``City:``,
``Post code:`` one row each).

Such forms often stand side by side, the seller's beside the buyer's, so the rows under a label
are read in its column only: from where the label starts to where the next label on its line
does. Kept apart from ``parties`` (address blocks found by their postcode line), which is the
reading when no form follows a label.
"""

from __future__ import annotations

import re

from pipelines.core.models import PageResult
from pipelines.stages.extract.lines import Line
from pipelines.stages.extract.parties import labelled, page_lines
from pipelines.stages.extract.postcodes import POSTCODE
from pipelines.stages.extract.rows import group_rows

FORM_ROWS = 8
NAME_LABEL = re.compile(r"^(?:(?:(?:firmen|company|customer|client|full|business) ?)?(?:name|nom|naam|nombre|nome)|"
                        r"firma|raison sociale|raz[oó]n social|ragione sociale|denominaci[oó]n(?: social)?|"
                        r"denominazione)\s*:?$", re.I)
ADDRESS_LABEL = re.compile(r"^(?:(?:post|rechnungs)?anschrift|adresse|address|adres|direcci[oó]n|indirizzo|domicilio|"
                           r"sede)(?: fiscal[e]?| legale)?\s*:?$", re.I)
# the address given a row per part: street, town, postcode, region, country
ADDRESS_PART = re.compile(r"^(?:street(?: address)?|address line ?\d|stra(?:ß|ss)e(?: und hausnummer)?|rue|calle|via|"
                          r"straat|city|town|ort|stadt|wohnort|ville|ciudad|localidad|poblaci[oó]n|citt[àa]|comune|"
                          r"plaats|woonplaats|post ?code|postal code|zip(?: code)?|plz|code postal|c[oó]digo postal|"
                          r"c\.p\.|cap|state|province|provincia|county|region|r[ée]gion|country|land|pays|pa[ií]s|"
                          r"paese)\s*:?$", re.I)


def form_party(page: PageResult, head: Line) -> tuple[list[Line], list[Line]]:
    """A party set out as a form under its label ``head``: ``Verkäufer`` over ``Name:  Taxi GmbH``
    and ``Anschrift:  Lieferantenstraße 20`` / ``DE 10369 Berlin``. The name is the Name row's
    value, the address the address row's, going on over the rows below it with no label of their
    own up to its postcode line, or the values of rows that each give a part of it (``Street:``,
    ``City:``, ``Post code:``); other labelled rows (numbers, tax ids) are passed over. Only the
    lines in the label's column are read. Nothing when no Name row follows."""
    hb = head.box
    if hb is None:
        return [], []
    left, right = _column(page, head)
    name: list[Line] = []
    address: list[Line] = []
    going_on = parts = False
    # (a table's cells each a line: a form's rows in a table read cell by cell)
    rows = [[ln for ln in r.lines if ln.box and left <= ln.box["x1"] < right]
            for r in group_rows(page.page_number, page_lines(page)) if r.box and r.box["y1"] >= hb["y2"] - 1]
    for lines in [r for r in rows if r][:FORM_ROWS]:
        label, values = _form_row(lines)
        if label is None:
            if not going_on:
                break  # a heading or a line of text: the form ends
            address += values
            going_on = not POSTCODE.search(values[0].text) and len(address) < 4
            continue
        going_on = False
        if labelled(label):
            break  # the next party's label
        if NAME_LABEL.match(label) and not name:
            name = values
        elif ADDRESS_LABEL.match(label) and not address:
            address = values  # (none beside a label alone: the address is on the rows under it)
            going_on = not values or not POSTCODE.search(values[-1].text)
        elif ADDRESS_PART.match(label) and (parts or not address):
            address += values
            parts = True
    return (name, address) if name else ([], [])


def _column(page: PageResult, head: Line) -> tuple[float, float]:
    """The x range of the form under ``head``: from a little left of it to where the next line
    on its row without figures starts (another party's label beside it)."""
    hb = head.box
    assert hb is not None
    h = hb["y2"] - hb["y1"]
    right = min((ln.box["x1"] for ln in page_lines(page) if ln.box and ln.box["x1"] > hb["x2"] + h
                 and min(ln.box["y2"], hb["y2"]) - max(ln.box["y1"], hb["y1"]) > 0.5 * h
                 and not any(ch.isdigit() for ch in ln.text)), default=float("inf"))  # (a label, no value)
    return hb["x1"] - 2 * h, right


def _form_row(lines: list[Line]) -> tuple[str | None, list[Line]]:
    """A form row's label and value lines: ``Name:`` beside its value (or alone), or ``Name:  value``
    in one line; ``None`` and the row itself when it has no label."""
    first = lines[0].text.strip()
    if first.endswith(":") and len(first) <= 41:  # (alone: its value's cell stands a line higher)
        return first, lines[1:]
    m = re.match(r"([^:]{1,40}:)\s+(\S.*)$", first)
    if m and len(lines) == 1:
        # the value ends at dot leaders or at the next label on the line ("… . . . R.I.F.: …")
        value = re.split(r"\s*(?:\.\s){3,}|\s{2,}\S[^:]{0,25}:(?:\s|$)", m.group(2))[0].strip()
        return m.group(1), [Line(lines[0].page, value, lines[0].box, lines[0].frag, lines[0].idx, lines[0].n)]
    return None, lines
