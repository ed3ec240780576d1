"""A ruled table across the page is a band of its own, however tight the lines over it.

A form's two columns (a seller's fields beside a client's) set a few points over an item
table that spans the page show no gutter through the whole band: the table closes it. Cut
apart from the table, the fields keep their columns, and no line reads across both. And in a
table's rows, a currency's sign a word space before its amount is no column's edge.
"""

from __future__ import annotations

from pipelines.stages.geometry import Word
from pipelines.stages.grid import gap_columns
from pipelines.stages.tables import table_rows
from tests.support.drawn import drawn_pdf, fragments, grid_rules

FIELDS = [("Name:", "Harbour Tools Ltd", "Greenfield Farms"), ("Street:", "12 Quay Street", "4 Mill Lane"),
          ("City:", "Bristol", "Exeter"), ("Post code:", "BS1 4DJ", "EX4 3PU")]


def _page(gap: float) -> bytes:
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 14)
        c.drawString(72, 718, "Service Provider")
        c.drawString(330, 718, "Client")
        c.setFont("Helvetica", 10)
        top = 700
        for k, (label, left, right) in enumerate(FIELDS):
            y = top - 14 * k
            c.drawString(72, y, label)
            c.drawString(150, y, left)
            c.drawString(330, y, label)
            c.drawString(400, y, right)
        c.drawString(330, top - 14 * len(FIELDS), "Email:")
        c.drawString(400, top - 14 * len(FIELDS), "farm@example.org")
        c.setFont("Helvetica-Bold", 14)
        c.drawString(72, top - 14 * len(FIELDS) - 18, "Detail")
        c.setFont("Helvetica", 10)
        table_top = top - 14 * len(FIELDS) - 18 - gap
        grid_rules(c, [72, 250, 330, 420, 520], table_top, 16, 3)
        for k, row in enumerate([("Item", "Qty", "Price", "Amount"), ("Cable", "2", "4.00", "8.00"),
                                 ("Chair", "1", "76.00", "76.00")]):
            for x, text in zip((76, 254, 334, 424), row):
                c.drawString(x, table_top - 12 - 16 * k, text)
    return drawn_pdf(draw)


def test_fields_set_tight_over_a_ruled_table_keep_their_columns() -> None:
    frags = fragments(_page(gap=6))
    # each line of text, and each table row, as a reader meets it
    lines = [" ".join(row) for f in frags if f.fragment_type == "table" for row in table_rows(f)]
    lines += [ln for f in frags if f.fragment_type != "table" for ln in str(f.content.get("content")).splitlines()]
    assert any("Harbour" in ln for ln in lines) and any("Greenfield" in ln for ln in lines)
    for left, right in [("Harbour", "Greenfield"), ("Quay", "Mill"), ("Bristol", "Exeter")]:
        assert not any(left in ln and right in ln for ln in lines)
    items = [f for f in frags if f.fragment_type == "table" and "Cable" in str(f.content.get("content"))]
    assert len(items) == 1 and "Harbour" not in str(items[0].content.get("content"))




def test_a_currency_sign_a_word_space_before_its_amount_is_no_column() -> None:
    """Items whose amounts print their sign a word space before the figures ("€ 1.108,59"), that
    space in line with the one in a head ("Total price") and the other amounts set flush right
    of it (the words' places as an invoice generator set them): no gutter runs between the sign
    and its amount, so the head stays one cell and the amount one."""
    def words(y: float, *placed: tuple[str, float, float]) -> list[Word]:
        return [Word(t, x1, y, x2, y + 7, 7.0, False) for t, x1, x2 in placed]
    lines = [words(302, ("Description", 59.5, 104.8), ("Units", 263.6, 284.2), ("Price", 306.1, 326.0),
                   ("per", 328.4, 341.6), ("one", 344.1, 358.6), ("Total", 382.7, 402.7), ("price", 405.2, 424.9),
                   ("Tax", 445.0, 459.0)),
             words(316, ("USB-C", 59.5, 81.3), ("dock", 83.5, 135.0), ("1", 291.0, 295.4), ("€", 337.3, 341.8),
                   ("128,80", 344.0, 368.5), ("€", 405.4, 409.8), ("128,80", 412.0, 436.5), ("9 %", 451.6, 464.9)),
             words(330, ("Ontwerp", 59.5, 89.6), ("logo", 91.8, 106.7), ("3", 291.0, 295.4), ("€", 337.3, 341.8),
                   ("369,53", 344.0, 368.5), ("€", 398.7, 403.1), ("1.108,59", 405.4, 436.5), ("9 %", 451.6, 464.9))]
    gutters = gap_columns(lines, 7.0, 55, 470)
    assert not any(403.1 <= x <= 405.4 for x in gutters)  # (between "Total" and "price", "€" and "1.108,59")
    assert any(375 <= x <= 382.7 for x in gutters) and any(436.5 <= x <= 445 for x in gutters)
