"""Lists of items that do not sit under one header on one page: rows with no header whose
amounts add up to the sum under them, sections with their own subtotals, and a list that goes
on over the next page — and an invoice printed twice, whose items are not read twice."""

from __future__ import annotations

from pipelines.core.models import DocumentInput
from pipelines.engine.document import convert
from pipelines.stages.extract import items
from pipelines.stages.extract.matching import match_records
from pipelines.stages.extract.schema import walk
from pipelines.stages.extract.tables import Section
from tests.support.extract_pdf import pages_pdf, pdf, run
from tests.unit.test_extract_item_rows import BENCH_SCHEMA


def _items(data: dict) -> list[tuple]:
    return [(i.get("description"), i.get("quantity"), i.get("unit_price"), i.get("amount")) for i in data["line_items"]]


def test_rows_with_no_header_over_a_sum_they_add_up_to_are_the_items() -> None:
    lines = [(40, 40, "Musterversicherung AG", 12), (40, 56, "Hauptstr. 1, 12345 Musterstadt", 9),
             (40, 110, "Herrn Max Muster", 9), (40, 122, "Gartenweg 2", 9), (40, 134, "54321 Beispielstadt", 9),
             (40, 180, "Beitragsrechnung", 14), (400, 180, "3. Februar 2025", 9),
             (40, 210, "Folgende Risiken sind versichert:", 9),
             (40, 226, "Hausratversicherung", 9), (400, 226, "84,00 €", 9),
             (40, 238, "Glasbruch", 9), (400, 238, "12,50 €", 9),
             (40, 250, "Fahrraddiebstahl", 9), (400, 250, "0,00 €", 9),
             (40, 262, "Gesamtbeitrag", 9), (400, 262, "96,50 €", 9),
             (40, 274, "Versicherungsteuer 19 %", 9), (400, 274, "18,34 €", 9),
             (40, 286, "Rechnungsbetrag", 9), (400, 286, "114,84 €", 9)]
    assert [(d, a) for d, _, _, a in _items(run(pdf(lines), BENCH_SCHEMA)["data"])] == [
        ("Hausratversicherung", 84.0), ("Glasbruch", 12.5), ("Fahrraddiebstahl", 0.0)]


def test_rows_over_a_sum_they_do_not_add_up_to_are_no_items() -> None:
    """A net, a shipping charge and a total: the shipping row alone does not make the total."""
    lines = [(40, 40, "Acme Supplies Ltd", 12), (40, 100, "Invoice 4471", 14),
             (40, 140, "Thank you for your order.", 9),
             (40, 200, "Net amount", 9), (400, 200, "250.00", 9),
             (40, 212, "Shipping", 9), (400, 212, "12.00", 9),
             (40, 224, "Total", 9), (400, 224, "262.00", 9)]
    assert run(pdf(lines), BENCH_SCHEMA)["data"].get("line_items") in (None, [])


def test_items_in_sections_each_with_a_subtotal_are_all_read() -> None:
    lines = [(40, 40, "Green Grocer Inc.", 12), (40, 90, "Invoice INV/2025/0042", 14),
             (40, 130, "Description", 9), (260, 130, "Quantity", 9), (340, 130, "Unit Price", 9), (470, 130, "Amount", 9),
             (40, 150, "--- Fruit ---", 9),
             (40, 166, "Apples", 9), (260, 166, "10.00 kg", 9), (340, 166, "2.50", 9), (470, 166, "$ 25.00", 9),
             (40, 178, "Pears", 9), (260, 178, "4.00 kg", 9), (340, 178, "3.00", 9), (470, 178, "$ 12.00", 9),
             (400, 198, "Subtotal", 9), (470, 198, "$ 37.00", 9),
             (40, 222, "--- Dairy ---", 9),
             (40, 238, "Butter", 9), (260, 238, "2.00 kg", 9), (340, 238, "8.00", 9), (470, 238, "$ 16.00", 9),
             (400, 258, "Subtotal", 9), (470, 258, "$ 16.00", 9),
             (300, 290, "Subtotal", 9), (470, 290, "$ 53.00", 9),
             (300, 304, "Tax 10%", 9), (470, 304, "$ 5.30", 9),
             (300, 318, "Total", 9), (470, 318, "$ 58.30", 9)]
    data = run(pdf(lines), BENCH_SCHEMA)["data"]
    assert [(d, a) for d, _, _, a in _items(data)] == [("Apples", 25.0), ("Pears", 12.0), ("Butter", 16.0)]
    assert (data["subtotal"], data["total_amount"]) == (53.0, 58.3)


def _page(first: int, n: int, header: bool = True) -> list[tuple]:
    lines = [(40, 40, "Nordic Parts AB", 12), (420, 40, "Invoice 9001", 9)]
    y = 120
    if header:
        lines += [(40, y, "Description", 9), (260, y, "Qty", 9), (340, y, "Unit price", 9), (470, y, "Amount", 9)]
    for k in range(first, first + n):
        y += 14
        lines += [(40, y, f"Bolt M{k}", 9), (260, y, f"{k}", 9), (340, y, "2.00", 9), (470, y, f"{2 * k}.00", 9)]
    return lines


def test_a_list_of_items_goes_on_over_the_next_page_under_its_header_printed_again() -> None:
    last = _page(5, 3) + [(340, 200, "Total", 9), (470, 200, "84.00", 9)]
    data = run(pages_pdf([_page(1, 4), last]), BENCH_SCHEMA)["data"]
    assert [(d, q, a) for d, q, _, a in _items(data)] == [(f"Bolt M{k}", k, 2.0 * k) for k in range(1, 8)]


def test_an_invoice_printed_twice_gives_its_items_once() -> None:
    one = _page(1, 2) + [(340, 200, "Subtotal", 9), (470, 200, "6.00", 9), (340, 212, "Total", 9), (470, 212, "6.00", 9)]
    data = run(pages_pdf([one, one]), BENCH_SCHEMA)["data"]
    assert [(d, a) for d, _, _, a in _items(data)] == [("Bolt M1", 2.0), ("Bolt M2", 4.0)]


def test_rows_of_count_price_and_amount_under_no_known_header_over_their_sum_are_the_items() -> None:
    """Column heads the lexicon does not know (``Pos  Text  Anz  à  CHF``), rows set wide apart:
    the rows' amounts add up to the subtotal under them. ``2 180.00`` is a count and a price, not
    2,180.00 grouped with a space: 2 × 180.00 makes the row's 360.00."""
    lines = [(40, 40, "Schreinerei Holz & Co", 12), (40, 100, "Rechnung 2025-17", 14),
             (40, 150, "Pos", 9), (80, 150, "Text", 9), (300, 150, "Anz", 9), (360, 150, "à", 9), (470, 150, "CHF", 9),
             (40, 172, "1", 9), (80, 172, "Tischplatte Eiche", 9), (300, 172, "2", 9), (360, 172, "180.00", 9),
             (470, 172, "360.00", 9),
             (40, 194, "2", 9), (80, 194, "Montage vor Ort", 9), (300, 194, "3", 9), (360, 194, "95.00", 9),
             (470, 194, "285.00", 9),
             (300, 222, "Zwischentotal", 9), (470, 222, "645.00", 9),
             (300, 236, "MWST 8.1%", 9), (470, 236, "52.25", 9), (300, 250, "Total", 9), (470, 250, "697.25", 9)]
    items = _items(run(pdf(lines), BENCH_SCHEMA)["data"])
    assert items == [("Tischplatte Eiche", 2, 180.0, 360.0), ("Montage vor Ort", 3, 95.0, 285.0)]


def test_a_row_whose_count_times_price_makes_its_amount_is_an_item_with_no_header_and_no_sum() -> None:
    lines = [(40, 40, "Brightside Studio", 12), (40, 100, "Invoice 88", 14),
             (40, 150, "Logo design, three drafts", 9), (300, 150, "1", 9), (360, 150, "450.00", 9), (470, 150, "450.00", 9),
             (40, 166, "Business cards (box of 250)", 9), (300, 166, "4", 9), (360, 166, "32.50", 9),
             (470, 166, "130.00", 9),
             (40, 200, "Payment within 30 days.", 9), (300, 230, "Amount due", 9), (470, 230, "612.50", 9)]
    items = _items(run(pdf(lines), BENCH_SCHEMA)["data"])
    assert [(q, p, a) for _, q, p, a in items] == [(1, 450.0, 450.0), (4, 32.5, 130.0)]
    assert items[1][0].startswith("Business cards")


def test_items_led_by_a_position_number_with_decimals() -> None:
    """``01.02  164,35  m²  Wandflächen spachteln …  6,80  1.117,58`` under ``Pos.  Menge  Einh.
    Bezeichnung``: the position is no amount (1.01 × 185 is near enough 185 to pass for a
    count), the count and its unit lead the description, which goes on under it."""
    lines = [(40, 40, "Malerbetrieb Krüger", 12), (40, 100, "Schlussrechnung Nr. 2025-0087", 12),
             (40, 140, "Pos.", 9), (90, 140, "Menge", 9), (130, 140, "Einh.", 9), (165, 140, "Bezeichnung", 9),
             (420, 140, "EP €", 9), (490, 140, "GP €", 9),
             (40, 156, "01.01", 9), (100, 156, "1", 9), (130, 156, "psch", 9),
             (165, 156, "Abdeck- und Schutzarbeiten an Böden, Geländer", 9), (420, 156, "185,00", 9), (490, 156, "185,00", 9),
             (165, 167, "und Türen", 9),
             (40, 182, "01.02", 9), (90, 182, "164,35", 9), (130, 182, "m²", 9),
             (165, 182, "Wandflächen spachteln (Q2), Risse mit Gewebe", 9), (420, 182, "6,80", 9), (490, 182, "1.117,58", 9),
             (165, 193, "armieren", 9),
             (330, 220, "Nettobetrag", 9), (490, 220, "1.302,58", 9)]
    assert _items(run(pdf(lines), BENCH_SCHEMA)["data"]) == [
        ("Abdeck- und Schutzarbeiten an Böden, Geländer und Türen", 1.0, 185.0, 185.0),
        ("Wandflächen spachteln (Q2), Risse mit Gewebe armieren", 164.35, 6.8, 1117.58)]


def test_a_unit_column_before_the_rate_is_told_by_the_rows() -> None:
    """``Qty  Unit  Rate  Amount``: "Unit Rate" could be one column; the rows' ``6  bag  74.50
    447.00`` (6 × 74.50) say the unit is a column of its own, and the count is the item's."""
    lines = [(40, 40, "Maple Ridge Landscaping Ltd.", 12), (40, 100, "INVOICE 4471", 14),
             (40, 140, "Description", 9), (300, 140, "Qty", 9), (340, 140, "Unit", 9), (390, 140, "Rate", 9),
             (480, 140, "Amount", 9),
             (40, 156, "Core aeration - common lawn areas", 9), (300, 156, "1", 9), (340, 156, "job", 9),
             (390, 156, "485.00", 9), (480, 156, "485.00", 9),
             (40, 170, "Overseeding, premium blend (25 kg bags)", 9), (300, 170, "6", 9), (340, 170, "bag", 9),
             (390, 170, "74.50", 9), (480, 170, "447.00", 9),
             (330, 200, "Subtotal", 9), (480, 200, "932.00", 9)]
    pages = convert(DocumentInput(data=pdf(lines), file_name="bill.pdf")).pages
    rec = walk(BENCH_SCHEMA)[1][0]
    assert [(o["description"], o["quantity"], o["unit_price"], o["amount"]) for o, _ in items.read_items(rec, pages)] == [
        ("Core aeration - common lawn areas", 1.0, 485.0, 485.0),
        ("Overseeding, premium blend (25 kg bags)", 6.0, 74.5, 447.0)]


def test_a_rate_column_beside_the_amount_is_the_unit_price() -> None:
    """``Description  Qty  Rate  Amount`` as a table: "Rate" alone is the unit price when the
    amount has a column of its own."""
    lines = [(40, 40, "Foxglove Print & Design Ltd", 12), (40, 100, "INVOICE FPD-10872", 14),
             (40, 140, "Description", 9), (300, 140, "Qty", 9), (390, 140, "Rate", 9), (480, 140, "Amount", 9),
             (40, 156, "A2 posters, 200gsm satin", 9), (300, 156, "50", 9), (390, 156, "3.20", 9), (480, 156, "160.00", 9),
             (40, 170, "Pull-up banner 850 x 2000 mm", 9), (300, 170, "2", 9), (390, 170, "94.00", 9), (480, 170, "188.00", 9),
             (40, 184, "Artwork and design amendments (hours)", 9), (300, 184, "3.5", 9), (390, 184, "45.00", 9),
             (480, 184, "157.50", 9), (330, 214, "Total net", 9), (480, 214, "505.50", 9)]
    assert [u for _, _, u, _ in _items(run(pdf(lines), BENCH_SCHEMA)["data"])] == [3.2, 94.0, 45.0]


def test_sums_in_the_table_s_last_columns_are_no_items() -> None:
    """A jsPDF invoice's table, amounts without cents: under the items "SUBTOTAL  $ 220" …
    "SHIPPING  $ 0" in its last columns, the labels where the counts stand. Rows with an amount
    and neither a description nor a count are no items."""
    def cells(*texts: str) -> list[tuple[str, None]]:
        return [(t, None) for t in texts]

    sec = Section(1, ["Description", "", "Unit cost QTY", "Amount"],
                  [cells("English Tea", "", "100 2", "200"), cells("Tofu", "", "2 10", "20"),
                   cells("", "", "SUBTOTAL", "$ 220"), cells("", "", "DISCOUNT", "$ -0"), cells("", "", "TAX", "$ 0"),
                   cells("", "", "SHIPPING", "$ 0"), cells("", "", "", "INVOICE TOTAL"), cells("", "", "", "US$ 220")])
    rec = walk(BENCH_SCHEMA)[1][0]
    assert [(o["description"], o["amount"]) for o, _ in match_records(rec, [sec])] == [("English Tea", 200.0), ("Tofu", 20.0)]
