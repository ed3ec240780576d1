"""Which item column is the count, the unit price and the line's amount, by the rows' own
arithmetic: where one column times another gives a third in every row, those three are the
quantity, the price and the amount, whatever their heads say.

Heads mislead: ``Amount Purchased`` is a count, ``Total Price`` the line's amount, and an
embedding of the words alone takes the first for the amount. The arithmetic does not. Kept
apart from ``matching`` (the heads' words), which asks it last.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from pipelines.core.models import Citation
from pipelines.stages.extract import items
from pipelines.stages.extract.schema import Records
from pipelines.stages.extract.tables import Section
from pipelines.stages.extract.values import parse_number

MIN_ROWS = 2  # rows that must multiply out (all of them when the table has fewer rows of figures)


def by_arithmetic(rec: Records, sec: Section, cols: dict[int, int]) -> dict[int, int]:
    """``cols`` (field → column) with the quantity, unit price and amount fields moved to the
    three columns whose rows multiply out (count × price = amount in every row that prints all
    three), when exactly one such set of columns fits; a text field that sat on one of them
    (a description on ``Total Price``) goes to the first wordy column left."""
    kinds = {items.kind_of(f): fi for fi, f in enumerate(rec.fields)}
    if not all(k in kinds for k in ("quantity", "unit_price", "amount")):
        return cols
    width = max((len(r) for r in sec.rows), default=0)
    numbers = [[parse_number(r[c][0]) if c < len(r) and r[c][0].strip() else None for r in sec.rows] for c in range(width)]
    n = sum(1 for k in range(len(sec.rows)) if sum(col[k] is not None for col in numbers) >= 2)  # (not a sum's row)
    fits = []
    for q, p, a in permutations(range(width), 3):
        rows = [(x, y, z) for x, y, z in zip(numbers[q], numbers[p], numbers[a], strict=True)
                if x is not None and y is not None and z is not None]
        if len(rows) >= min(MIN_ROWS, n) and all(abs(x * y - z) <= 0.011 + 0.005 * abs(z) and z != 0 for x, y, z in rows) \
                and not all(x == 1 for x, _, _ in rows) and not all(y == 1 for _, y, _ in rows):
            fits.append((q, p, a))
    # count and price trade places in the product: the count is the column of whole numbers
    whole = {c for c in range(width) if all(v is None or float(v).is_integer() for v in numbers[c])}
    fits = [f for f in fits if f[0] in whole or f[1] not in whole] or _ones(numbers, n)
    if len({f[2] for f in fits}) != 1 or len({frozenset(f[:2]) for f in fits}) != 1:
        return cols
    q, p, a = min(fits, key=lambda f: (f[0] not in whole, f[0]))
    out = {fi: c for fi, c in cols.items() if c not in (q, p, a)}
    out.update({kinds["quantity"]: q, kinds["unit_price"]: p, kinds["amount"]: a})
    if (d := kinds.get("description")) is not None and d not in out:
        wordy = [c for c in range(width) if c not in out.values()
                 and sum(items.wordy(r[c][0]) for r in sec.rows if c < len(r)) >= 0.5 * len(sec.rows)]
        if wordy:
            out[d] = wordy[0]
    return out


def _ones(numbers: list[list[float | None]], n: int) -> list[tuple[int, int, int]]:
    """One of each item (every count 1): the one column of ones, and the one pair of columns
    equal in every row, the price before the amount; ``[]`` when that is not unique."""
    def full(*cs: int) -> list[tuple[float | None, ...]]:
        return [r for r in zip(*(numbers[c] for c in cs), strict=True) if None not in r]
    ones = [c for c in range(len(numbers)) if len(full(c)) >= min(MIN_ROWS, n) and all(v == 1 for (v,) in full(c))]
    same = [(p, a) for p in range(len(numbers)) for a in range(p + 1, len(numbers)) if {p, a}.isdisjoint(ones)
            and len(rows := full(p, a)) >= min(MIN_ROWS, n) and all(x == y != 0 for x, y in rows)]
    return [(ones[0], *same[0])] if len(ones) == 1 and len(same) == 1 else []


def without_sum(rec: Records, rows: list[tuple[dict[str, Any], dict[str, Citation]]]
                ) -> list[tuple[dict[str, Any], dict[str, Citation]]]:
    """The items without a last row that is their sum: an amount alone ("Nettopreis  851.94")
    under rows that each give a count or a unit price, equal to their amounts added up."""
    counted = [f.dotted() for f in rec.fields if items.kind_of(f) in ("quantity", "unit_price")]
    amount = next((f.dotted() for f in rec.fields if items.kind_of(f) == "amount"), None)
    if len(rows) < 2 or not counted or amount is None or any(name in rows[-1][1] for name in counted) \
            or not all(any(name in cites for name in counted) for _, cites in rows[:-1]):
        return rows
    sums = [parse_number(cites[amount].text or "") if amount in cites else None for _, cites in rows]
    if None in sums or abs(sum(sums[:-1]) - sums[-1]) > 0.011:  # type: ignore[arg-type, operator]
        return rows
    return rows[:-1]
