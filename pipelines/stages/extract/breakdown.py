"""The net and the tax of a VAT breakdown: one row per rate, its net, its tax and its gross.

Many invoices sum up their tax in a small table under the items (``VAT rate  Tax  Without VAT
With VAT`` over ``10.00%  510,46 €  5 104,57 €  5 615,03 €``, ``MwSt-Satz  Netto  MwSt  Brutto``).
When its heads are set as tightly as its figures, no head stands over its own column and the
labels say nothing about which figure is which. The arithmetic does: in each row, the net
times the rate is the tax and the two add up to the gross; and the rows' gross amounts add up
to the document's total. Only then are the rows read (``by_rate``): the last ones that do.
"""

from __future__ import annotations

import itertools
import re

from pipelines.core.models import PageResult
from pipelines.stages.extract.lines import Hit
from pipelines.stages.extract.roles import AMOUNT
from pipelines.stages.extract.rows import Row, rows_of
from pipelines.stages.extract.values import parse_number

RATE = re.compile(r"(?<![\d.,])(\d{1,2}(?:[.,]\d{1,2})?)\s?%")
CENT = 0.011


def _split(row: Row) -> tuple[float, float] | None:
    """(net, tax) of a row that prints a rate and its net, tax and gross in some order."""
    rate = RATE.search(row.text)
    if rate is None:
        return None
    r = float(rate.group(1).replace(",", "."))
    # the amounts, not the rate itself ("10.00%")
    money = [v for m in AMOUNT.finditer(row.text) if not re.match(r"\s?%", row.text[m.end():])
             and (v := parse_number(m.group(0))) is not None]
    for net, tax, gross in itertools.permutations(money, 3):
        if abs(net + tax - gross) <= CENT and abs(tax - net * r / 100) <= max(CENT, 0.005 * tax) and net > 0:
            return net, tax
    return None


def by_rate(pages: list[PageResult], total: float) -> tuple[Hit, Hit] | None:
    """(the net, the tax) summed over a breakdown's rows when their gross amounts add up to
    ``total``; ``None`` when there is no such breakdown."""
    found: list[tuple[Row, float, float]] = []
    for page in pages:
        for row in rows_of(page):
            if (split := _split(row)) is not None:
                found.append((row, *split))
    # the breakdown is the last rows that do (an item's row can fit by chance: 10 × 35,18 at 10 %)
    for k in range(len(found)):
        rows = found[k:]
        if abs(sum(n + t for _, n, t in rows) - total) <= CENT * len(rows):
            first = rows[0][0]
            net, tax = sum(n for _, n, _ in rows), sum(t for _, _, t in rows)
            return Hit(f"{net:.2f}", first.page, first.box), Hit(f"{tax:.2f}", first.page, first.box)
    return None
