"""Line items printed without a header row, found by their sum.

Some invoices list their items with no column heads at all — an insurer's premium notice prints
``Privathaftpflicht  50,00 €`` and ``Lebensgefährte/in …  0,00 €`` over ``Gesamtbeitrag  50,00 €``
— so ``items.read_items`` finds no list. Here the rows right above a sum, each ending in one
amount, are the items when their amounts add up to that sum: the arithmetic, not a word, says
they are the sum's parts. Failing that (``read_priced``), a row whose count times its unit price
makes its amount (``Widget  3  4.50  13.50``) is an item wherever it stands.
"""

from __future__ import annotations

from typing import Any

from pipelines.core.models import Citation, PageResult
from pipelines.stages.extract.items import (
    MAX_ITEM_WORDS,
    close_under,
    item_object,
    kind_of,
    last_amount,
    parse_row,
    priced,
    row_amounts,
    wordy,
)
from pipelines.stages.extract.roles import totals_row
from pipelines.stages.extract.rows import Row, rows_of
from pipelines.stages.extract.schema import Records

MAX_SUMMED = 12  # item rows above one sum
MAX_DETAILS = 8  # lines without an amount among them (``- Feuerversicherung - Teil A § 2``)


def read_summed(rec: Records, pages: list[PageResult]) -> list[tuple[dict[str, Any], dict[str, Citation]]]:
    """Items printed without a header row: the rows right above a sum whose amounts add up to it
    (two rows or more, or one over a row that says total or subtotal); empty when none do."""
    kinds = {i: k for i, f in enumerate(rec.fields) if (k := kind_of(f)) is not None}
    if "amount" not in kinds.values():
        return []
    for page in pages:
        rows = rows_of(page)
        for i, row in enumerate(rows):
            total = last_amount(row.text)
            if total is None or not wordy(row.text):
                continue
            run = _run_above(rows, i)
            sums = [sum(a for _, a in run[:k + 1]) for k in range(len(run))]
            k = max((k + 1 for k, s in enumerate(sums) if abs(s - total) <= 0.005 * max(1.0, abs(total))), default=0)
            if k >= 2 or (k == 1 and totals_row(row.text)):
                found = [(parse_row(r.text), r) for r, _ in reversed(run[:k])]
                return [item_object(rec, kinds, parsed, r) for parsed, r in found if parsed is not None]
    return []


def _run_above(rows: list[Row], i: int) -> list[tuple[Row, float]]:
    """The rows above ``rows[i]`` that end in an amount, nearest first, with those amounts: up
    to a heading (``… versichert:``), a row that is a total or tax itself, or a gap."""
    run: list[tuple[Row, float]] = []
    details = 0
    for j in range(i - 1, -1, -1):
        r = rows[j]
        # (within two and a half lines: a table's rows are set further apart than a paragraph's)
        if not close_under(r, rows[j + 1], lines=2.5) or r.text.rstrip().endswith(":") \
                or len(r.text.split()) > MAX_ITEM_WORDS:
            break
        amount = last_amount(r.text, alone=False)
        if amount is None:
            details += 1
            if row_amounts(r.text) or details > MAX_DETAILS:
                break
            continue
        named = r.text[:row_amounts(r.text)[0].start()]  # the words before its figures
        if totals_row(r.text) or sum(ch.isalpha() for ch in named) < 2 or len(run) >= MAX_SUMMED:
            break
        run.append((r, amount))
    return run


def read_priced(rec: Records, pages: list[PageResult]) -> list[tuple[dict[str, Any], dict[str, Citation]]]:
    """Items printed without a header row and over no sum: the rows (no total, no tax) whose
    count times unit price makes their amount."""
    kinds = {i: k for i, f in enumerate(rec.fields) if (k := kind_of(f)) is not None}
    if "amount" not in kinds.values():
        return []
    found = [(parsed, r) for page in pages for r in rows_of(page)
             if len(r.text.split()) <= MAX_ITEM_WORDS and not totals_row(r.text)
             and priced(parsed := parse_row(r.text)) and "description" in parsed]
    return [item_object(rec, kinds, parsed, r) for parsed, r in found]
