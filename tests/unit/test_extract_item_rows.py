"""Line items printed as rows of text that the parser does not take for a table: the header row
is known by its columns' words in any of the lexicon's languages, cell by cell."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines.stages.extract.items import parse_row
from tests.support.extract_pdf import drawn_pdf, pdf, run

# the real-invoice bench's schema, written from the field list alone
BENCH_SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "bench" / "invoices" / "schema.json").read_text())

SCHEMA = {"type": "object", "properties": {
    "invoice_number": {"type": "string"},
    "line_items": {"type": "array", "items": {"type": "object", "properties": {
        "description": {"type": "string"}, "quantity": {"type": "number"},
        "unit_price": {"type": "number"}, "amount": {"type": "number", "description": "Line total"}}}}}}


def test_a_norwegian_list_of_items_whose_prices_stand_apart_from_their_names() -> None:
    lines = [(40, 60, "Faktura", 16), (300, 90, "Fakturanummer: 38", 9),
             (40, 200, "Beskrivelse", 9), (300, 200, "Enhetspris MVA", 9), (480, 200, "Sum", 9),
             (40, 218, "Flere", 9), (300, 218, "5 000.00 kr 20 % 6 000.00 kr", 9),
             (40, 236, "Ulike", 9), (300, 236, "8 000.00 kr 20 % 9 600.00 kr", 9),
             (300, 300, "Å betale:", 9), (420, 300, "15 600.00 kr", 9)]
    items = run(pdf(lines), SCHEMA)["data"]["line_items"]
    assert [(i["description"], i["unit_price"], i["amount"]) for i in items] == [
        ("Flere", 5000.0, 6000.0), ("Ulike", 8000.0, 9600.0)]



def test_a_column_headed_total_ht_over_the_items_is_not_the_net_total() -> None:
    """"Total HT" heads the items' amount column and labels the net total under the list; the
    first item's amount under the header is not the net total."""
    lines = [(40, 40, "FACTURE", 18), (400, 40, "N° F-2024-031", 9), (400, 52, "Date : 5 mars 2024", 9),
             (40, 80, "Atelier Durand SARL", 11), (40, 94, "8 rue des Lilas", 9), (40, 106, "69003 Lyon", 9),
             (320, 140, "Client", 9), (320, 152, "Boulangerie Martin", 9), (320, 164, "22 avenue Foch", 9),
             (320, 176, "75016 Paris", 9),
             (40, 220, "Désignation", 9), (280, 220, "Qté", 9), (340, 220, "Prix unitaire HT", 9), (470, 220, "Total HT", 9),
             (40, 234, "Réparation four", 9), (280, 234, "1", 9), (340, 234, "450,00", 9), (470, 234, "450,00", 9),
             (40, 248, "Déplacement", 9), (280, 248, "2", 9), (340, 248, "25,00", 9), (470, 248, "50,00", 9),
             (340, 280, "Total HT", 9), (470, 280, "500,00 €", 9), (340, 292, "TVA 20 %", 9), (470, 292, "100,00 €", 9),
             (340, 304, "Total TTC", 9), (470, 304, "600,00 €", 9)]
    data = run(pdf(lines), BENCH_SCHEMA)["data"]
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (500.0, 100.0, 600.0)


def test_a_currency_sign_before_the_price_is_not_part_of_the_description() -> None:
    lines = [(40, 40, "Bakkerij de Vries B.V.", 14), (40, 58, "Dorpsstraat 12, 1234 AB Utrecht", 9),
             (40, 110, "Factuur", 16), (40, 130, "Factuurnummer: 2024-0088", 9),
             (330, 110, "Aan:", 9), (330, 122, "Café Het Hoekje", 9), (330, 134, "Marktplein 3", 9),
             (330, 146, "3511 LK Utrecht", 9),
             (40, 190, "Omschrijving", 9), (280, 190, "Aantal", 9), (340, 190, "Prijs", 9), (470, 190, "Bedrag", 9),
             (40, 204, "Roggebrood", 9), (280, 204, "20", 9), (340, 204, "€ 3,50", 9), (470, 204, "€ 70,00", 9),
             (340, 240, "Subtotaal", 9), (470, 240, "€ 70,00", 9), (340, 264, "Totaal", 9), (470, 264, "€ 76,30", 9)]
    item = run(pdf(lines), BENCH_SCHEMA)["data"]["line_items"][0]
    assert (item["description"], item["quantity"], item["unit_price"], item["amount"]) == ("Roggebrood", 20, 3.5, 70.0)


def test_items_of_a_ruled_list_whose_table_was_found_only_in_part() -> None:
    """A shaded header over ruled items, numbers set right: the table found may hold only the
    number columns; the list read row by row then gives each item's description and amount."""
    texts = [(60, 55, "Gruber Elektrotechnik e.U.", 15), (60, 135, "Gruber Elektrotechnik e.U., Hauptplatz 9, 8010 Graz", 6.5),
             (60, 152, "Hotel Sonnhof Betriebs GmbH", 10), (60, 165, "Linzer Gasse 40", 10), (60, 178, "5020 Salzburg", 10),
             (60, 230, "RECHNUNG", 14), (60, 252, "Rechnung Nr.:", 9), (160, 252, "24/0087", 9),
             (62, 330, "Bezeichnung", 8.5, "B"), (330, 330, "Menge", 8.5, "RB"), (430, 330, "Einzelpreis", 8.5, "RB"),
             (540, 330, "Betrag", 8.5, "RB"),
             (62, 346, "LED-Panel 60x60 inkl. Montage", 8.5), (330, 346, "14", 8.5, "R"), (430, 346, "89,00", 8.5, "R"),
             (540, 346, "1.246,00", 8.5, "R"),
             (62, 362, "Notlicht-Prüfung nach ÖVE/ÖNORM", 8.5), (330, 362, "1", 8.5, "R"), (430, 362, "320,00", 8.5, "R"),
             (540, 362, "320,00", 8.5, "R"),
             (330, 388, "Summe netto", 9.5), (540, 388, "1.566,00", 9.5, "R"), (330, 403, "USt 20 %", 9.5),
             (540, 403, "313,20", 9.5, "R"), (330, 418, "Gesamtbetrag EUR", 9.5), (540, 418, "1.879,20", 9.5, "R")]
    data = run(drawn_pdf(texts, rules=[(58, 545, 335), (58, 545, 367)], shades=[(58, 319, 487, 16)]), BENCH_SCHEMA)["data"]
    got = [(i["description"], i["quantity"], i["unit_price"], i["amount"]) for i in data["line_items"]]
    assert got == [("LED-Panel 60x60 inkl. Montage", 14, 89.0, 1246.0), ("Notlicht-Prüfung nach ÖVE/ÖNORM", 1, 320.0, 320.0)]



def _table(cols: list[tuple[float, str]], y: float, header: list[str], rows: list[list[str]], x_end: float = 550
           ) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """Texts, rules and the shade of a list of items as invoicing software draws one: a grey
    header row in bold, a rule under it and under the last item, numbers set right."""
    x0 = cols[0][0] - 4
    texts = [(x, y, h, 8.5, al + "B") for (x, al), h in zip(cols, header)]
    texts += [(x, y + 16 * (r + 1), cell, 8.5, al) for r, row in enumerate(rows) for (x, al), cell in zip(cols, row)]
    return texts, [(x0, x_end, y + 5), (x0, x_end, y + 16 * len(rows) + 5)], [(x0, y - 11, x_end - x0, 16)]


def _items(texts: list[tuple], table: tuple[list[tuple], list[tuple], list[tuple]]) -> list[tuple]:
    got = run(drawn_pdf(texts + table[0], table[1], table[2]), BENCH_SCHEMA)["data"]["line_items"]
    return [(i["description"], i["quantity"], i["unit_price"], i["amount"]) for i in got]


def test_quantity_before_the_description_net_and_gross_prices_and_a_count_with_decimals() -> None:
    """Three ways items are printed: ``Pos. Menge Einheit Bezeichnung …`` (the count first), a
    marketplace's net and gross unit prices around the tax rate, and a count with decimals."""
    head = [(70, 265, "Rechnung", 13), (360, 150, "Rechnungsnummer:", 8.5), (460, 150, "RE-2024-0412", 8.5),
            (70, 290, "Sehr geehrte Damen und Herren,", 10)]
    assert _items(head, _table([(72, "L"), (125, "R"), (135, "L"), (180, "L"), (460, "R"), (540, "R")], 330,
                               ["Pos.", "Menge", "Einheit", "Bezeichnung", "Einzelpreis", "Gesamtpreis"],
                               [["1", "4", "Stk.", "Einbauschrank Eiche, nach Maß", "1.180,00 €", "4.720,00 €"],
                                ["2", "12", "Std.", "Montage", "58,00 €", "696,00 €"]], x_end=545)) == [
        ("Einbauschrank Eiche, nach Maß", 4, 1180.0, 4720.0), ("Montage", 12, 58.0, 696.0)]
    head = [(40, 40, "Invoice", 18), (40, 70, "Invoice number GB4XK7QZ2AB", 9)]
    assert _items(head, _table([(45, "L"), (290, "R"), (350, "R"), (400, "R"), (470, "R"), (550, "R")], 300,
                               ["Description", "Qty", "Unit price", "VAT rate", "Unit price", "Item subtotal"],
                               [["Cotton towel set (4 pcs)", "2", "£16.66", "20%", "£19.99", "£39.98"]])) == [
        ("Cotton towel set (4 pcs)", 2, 19.99, 39.98)]
    head = [(40, 40, "TAX INVOICE", 18), (40, 70, "Invoice Number INV-0193", 9)]
    assert _items(head, _table([(45, "L"), (330, "R"), (400, "R"), (450, "R"), (550, "R")], 300,
                               ["Description", "Quantity", "Unit Price", "GST", "Amount AUD"],
                               [["Table centrepieces - native mix", "18.00", "45.00", "10%", "810.00"]])) == [
        ("Table centrepieces - native mix", 18, 45.0, 810.0)]


def test_an_address_set_larger_than_the_body_is_read_line_by_line() -> None:
    """An address window in larger type than the rest: a block of three short lines, but a
    street and a postcode, not a heading; the buyer's name and address come apart."""
    texts = [(45, 52, "Van Damme Schilderwerken BV", 15),
             *[(45, 68 + 11 * i, t, 8.5) for i, t in enumerate(["Kortrijksesteenweg 112", "9000 Gent",
                                                               "BTW BE 0712.345.678"])],
             (45, 150, "Klant", 8.5, "B"),
             *[(45, 164 + 13 * i, t, 10) for i, t in enumerate(["Brasserie De Kaai", "Meir 48", "2000 Antwerpen"])],
             (550, 150, "FACTUUR", 18, "R"), (380, 172, "Factuurnummer", 9), (550, 172, "2024/0156", 9, "R"),
             (380, 185, "Factuurdatum", 9), (550, 185, "08-05-2024", 9, "R")]
    table = _table([(47, "L"), (330, "R"), (440, "R"), (550, "R")], 260, ["Omschrijving", "Aantal", "Eenheidsprijs",
                                                                         "Bedrag"],
                   [["Voorbehandeling houtwerk", "1", "450,00", "450,00"], ["Schilderwerken ramen", "12", "35,00",
                                                                          "420,00"]])
    data = run(drawn_pdf(texts + table[0], table[1], table[2]), BENCH_SCHEMA)["data"]
    assert (data["buyer_name"], data["buyer_address"]) == ("Brasserie De Kaai", "Meir 48 2000 Antwerpen")


def test_a_code_column_before_the_count_and_a_unit_column_after_it() -> None:
    """Under "Description of Goods  HSN  Qty" the figure before the count is the HSN code, not
    the name's; under "Antal  Enhet" any short word after the count is its unit (elsewhere only
    where the count times the price makes the amount); a unit word inside the name ("tryk 500
    stk.") stays when the count comes after it."""
    from pipelines.stages.extract.items import columns, parse_row

    assert columns("Sr Description of Goods HSN Qty Rate Amount (₹)") == (True, False)
    assert columns("Benämning Antal Enhet À-pris Belopp") == (False, True)
    assert columns("Description  Qty  Unit price  Amount") == (False, False)
    assert parse_row("1  Cotton saree fabric (m)  5208  500  185.00  92,500.00", code=True) == {
        "amount": "92,500.00", "unit_price": "185.00", "quantity": "500", "description": "1  Cotton saree fabric (m)"
        .replace("  ", " ")}
    assert parse_row("Montering 6 tim 650,00 3 900,00", unit=True)["quantity"] == "6"
    # without the unit column, a word after the count is its unit only where count × price is the amount
    assert parse_row("Montering 6 tim 650,00 3 900,00")["description"] == "Montering"
    assert parse_row("Montering 6 tim 650,00 3 800,00")["description"] == "Montering 6 tim"
    assert parse_row("Visitkort, tryk 500 stk.  2  650,00  1.300,00")["description"] == "Visitkort, tryk 500 stk."
    assert parse_row("Cable reel x 3  9,90  29,70") == {"amount": "29,70", "unit_price": "9,90", "quantity": "3",
                                                       "description": "Cable reel"}
    assert parse_row("Photo retouching  $45.00  24  $1,080.00")["quantity"] == "24"  # Rate  Qty  Line Total
    assert "quantity" not in parse_row("Photo retouching  $45.00  7  $1,080.00")  # 7 × 45 is not 1,080


def test_a_swedish_bill_with_hours_in_its_unit_column() -> None:
    lines = [(40, 60, "Faktura", 16), (300, 90, "Fakturanummer 20417", 9),
             (40, 200, "Benämning Antal Enhet À-pris Belopp", 9),
             (40, 218, "Platsbyggd bokhylla ek 1 st 14 500,00 14 500,00", 9),
             (40, 236, "Montering 6 tim 650,00 3 900,00", 9),
             (300, 300, "Att betala", 9), (420, 300, "18 400,00", 9)]
    items = run(pdf(lines), SCHEMA)["data"]["line_items"]
    assert [(i["description"], i["quantity"], i["amount"]) for i in items] == [
        ("Platsbyggd bokhylla ek", 1, 14500.0), ("Montering", 6, 3900.0)]


def test_an_odoo_invoice_whose_items_name_their_tax_rate_and_whose_logo_word_tops_the_name() -> None:
    """Each item prints "TVA 20%" in its own column: the list goes on to the net total; and the
    logo's word set large over the seller's name is not part of it."""
    texts = [(40, 45, "LUMEN", 18), *[(40, 70 + 11 * k, t, 8.5) for k, t in enumerate(
                 ["Lumen Domotique SAS", "14 avenue Jean Jaurès", "69007 Lyon", "France"])],
             *[(330, 145 + 12 * k, t, 9.5) for k, t in enumerate(
                 ["Brasserie du Vieux Port SARL", "3 quai du Port", "13002 Marseille", "France"])],
             (40, 235, "Facture FAC/2024/00187", 16),
             *[(x, 310, h, 8.5, a) for x, h, a in ((45, "Description", ""), (330, "Quantité", "R"),
                                                  (400, "Prix unitaire", "R"), (470, "Taxes", "R"), (550, "Montant", "R"))],
             *[t for k, row in enumerate((("Passerelle domotique KNX-IP", "2,00 Unité(s)", "389,00", "778,00 €"),
                                         ("Détecteur de présence plafond", "6,00 Unité(s)", "74,50", "447,00 €"),
                                         ("Mise en service (heures)", "5,00 Heure(s)", "68,00", "340,00 €")))
               for t in ((45, 326 + 16 * k, row[0], 8.5), (330, 326 + 16 * k, row[1], 8.5, "R"),
                         (400, 326 + 16 * k, row[2], 8.5, "R"), (470, 326 + 16 * k, "TVA 20%", 8.5, "R"),
                         (550, 326 + 16 * k, row[3], 8.5, "R"))],
             (360, 390, "Montant hors taxes", 9), (550, 390, "1 565,00 €", 9, "R"),
             (360, 402, "TVA 20%", 9), (550, 402, "313,00 €", 9, "R"), (360, 414, "Total", 9), (550, 414, "1 878,00 €", 9, "R")]
    data = run(drawn_pdf(texts), BENCH_SCHEMA)["data"]
    assert [(i["description"], i["quantity"], i["amount"]) for i in data["line_items"]] == [
        ("Passerelle domotique KNX-IP", 2, 778.0), ("Détecteur de présence plafond", 6, 447.0),
        ("Mise en service (heures)", 5, 340.0)]
    assert data["seller_name"] == "Lumen Domotique SAS"


def test_a_bar_inside_an_item_table_cell_stays_in_its_description() -> None:
    """A ruled table's cells are read as the parser found them: a "|" in a description (as
    markdown writes it, escaped) does not start a new column."""
    texts = [(40, 40, "INVOICE", 18), (400, 40, "Invoice No. 7731", 9),
             (45, 118, "Description", 9), (300, 118, "Qty", 9), (360, 118, "Unit price", 9), (470, 118, "Amount", 9),
             (45, 138, "Cable | 2 m", 9), (300, 138, "3", 9), (360, 138, "4.00", 9), (470, 138, "12.00", 9),
             (45, 158, "Plug | EU", 9), (300, 158, "2", 9), (360, 158, "2.50", 9), (470, 158, "5.00", 9),
             (360, 200, "Total", 9), (470, 200, "17.00", 9)]
    rules = [(40, 540, y) for y in (105, 125, 145, 165)]
    uprights = [(x, 105, 165) for x in (40, 295, 355, 465, 540)]
    items = run(drawn_pdf(texts, rules, uprights=uprights), SCHEMA)["data"]["line_items"]
    assert [(i["description"], i["quantity"], i["unit_price"], i["amount"]) for i in items] == [
        ("Cable | 2 m", 3, 4.0, 12.0), ("Plug | EU", 2, 2.5, 5.0)]


def test_a_count_keeps_its_unit_word_under_an_abbreviated_unit_head_or_where_the_figures_agree() -> None:
    """A row read as text: "4  Sack" under "Menge  Einh." is four sacks; "12  woord" under no
    unit column is twelve words where 12 × 0,50 makes the line's 6,00; in "4 chairs" the count
    leads and "chairs" is no unit."""
    from pipelines.stages.extract import items

    code, unit = items.columns("Pos.  Art.-Nr.  Bezeichnung  Menge  Einh.  Einzelpreis €  USt.  Gesamt €")
    assert unit
    row = items.parse_row("1  100231  Weizenmehl Type 405, 25 kg Sack  4  Sack  18,90  7 %  75,60", code, unit)
    assert row is not None and (row["quantity"], row["unit_price"], row["amount"]) == ("4", "18,90", "75,60")
    row = items.parse_row("Vertaling Duits-Nederlands  12  woord  € 0,50  € 6,00")
    assert row == {"description": "Vertaling Duits-Nederlands", "quantity": "12", "unit_price": "0,50", "amount": "6,00"}
    assert items.parse_row("4 chairs  100.00  400.00") == {"description": "chairs", "quantity": "4",
                                                          "unit_price": "100.00", "amount": "400.00"}


def test_a_row_with_its_net_tax_and_gross_takes_the_price_and_amount_its_count_makes() -> None:
    """"12 kg  2 650,00  31 800,00  5%  1 590,00  33 390,00": price, net, rate, tax, gross; the
    count times the price makes the net, which is the line's amount."""
    from pipelines.stages.extract import items

    row = items.parse_row("Sertéstarja csont nélkül  12  kg  2 650,00  31 800,00  5%  1 590,00  33 390,00", unit=True)
    assert row == {"description": "Sertéstarja csont nélkül", "quantity": "12", "unit_price": "2 650,00",
                   "amount": "31 800,00"}
    row = items.parse_row("Widget  3  4,50  2,70  16,20")  # no pair makes an amount: as before
    assert (row["unit_price"], row["amount"]) == ("2,70", "16,20")


def test_whole_units_grouped_by_spaces_are_read_by_the_rows_own_arithmetic() -> None:
    """Forints print no decimals and group thousands with a space: "2 650  31 800" is 2 650 and
    31 800 because 12 × 2 650 = 31 800; the values come back as printed."""
    from pipelines.stages.extract import items

    assert items.parse_row("Sertéstarja csont nélkül  12  kg  2 650  31 800 5%  1 590 33 390", unit=True) == {
        "description": "Sertéstarja csont nélkül", "quantity": "12", "unit_price": "2 650", "amount": "31 800"}
    assert items.parse_row("Citrom  5  899  4 495 27%  1 214 5 709") == {
        "description": "Citrom", "quantity": "5", "unit_price": "899", "amount": "4 495"}
    assert items.parse_row("Tejföl 20% 1 kg  10  db  1 190  11 900 18%  2 142 14 042")["quantity"] == "10"
    assert items.parse_row("Room 101 on the 2nd floor, 3 beds") is None  # figures that make nothing


def test_a_count_and_a_price_the_decimal_reader_misses_are_found_by_what_they_make() -> None:
    """Prices with four decimals, a count of "5,000 kg" that is five, a price printed before its
    count, and a count leading the row: the pair whose product is the line's amount."""
    from pipelines.stages.extract import items

    row = items.parse_row("4123456000014 WA997 10000,0000 KWh 1  0,0520  19,0  520,00")  # 19,0: the VAT rate
    assert (row["quantity"], row["unit_price"], row["description"]) == ("10000,0000", "0,0520", "4123456000014 WA997")
    assert items.parse_row("2 SFK5 55T02 Schweinesteak 5,000 kg 5,50 27,50 7")["quantity"] == "5"
    row = items.parse_row("Hausbesuch  12,00  10 Stk  0%  120,00")
    assert (row["quantity"], row["unit_price"]) == ("10", "12,00")
    row = items.parse_row("5,000 A5 leaflets, 170gsm silk  £0.046  Z  £230.00")
    assert (row["quantity"], row["unit_price"], row["description"]) == ("5,000", "0.046", "A5 leaflets, 170gsm silk")


def test_two_item_columns_the_grid_ran_together_are_parted_again() -> None:
    """"Unit cost QTY" over "100 2" and "2 10" (a totals block's labels under them): a unit price
    column and a quantity column; a head of one kind, or cells of one figure, stay as they are."""
    from pipelines.stages.extract.tables import _unmerged

    header = ["Description", "Unit cost QTY", "Amount"]
    body = [[("English Tea", None), ("100 2", None), ("200", None)], [("Tofu", None), ("2 10", None), ("20", None)],
            [("", None), ("SUBTOTAL", None), ("$ 220", None)]]
    head, rows = _unmerged(header, body)
    assert head == ["Description", "Unit cost", "QTY", "Amount"]
    assert [[t for t, _ in r] for r in rows] == [["English Tea", "100", "2", "200"], ["Tofu", "2", "10", "20"],
                                                 ["", "SUBTOTAL", "", "$ 220"]]
    assert _unmerged(["Description", "Qty", "Amount"], body)[0] == ["Description", "Qty", "Amount"]
    single = [[("Tea", None), ("100", None), ("200", None)], [("Tofu", None), ("2 10", None), ("20", None)]]
    assert _unmerged(header, single)[0] == header


def test_item_columns_known_by_their_arithmetic_where_their_heads_mislead() -> None:
    """"Amount Purchased" is a count and "Total Price" the line's amount: in every row one column
    times another gives a third, so those are the quantity, the unit price and the amount."""
    xs, top = [40, 140, 300, 420, 500, 570], 120
    texts = [(60, 50, "Invoice no.", 12), (150, 50, "2024092345", 12)]
    for r, row in enumerate([("Product Id", "Product Name", "Amount Purchased", "Price Per Unit", "Total Price"),
                             ("1000", "Annual software licence", "12", "738.13", "8857.56"),
                             ("1007", "Printer toner cartridge", "4", "47.31", "189.24"),
                             ("1014", "Delivery and handling", "4", "18.5", "74.0")]):
        texts += [(x + 3, top + 20 * r + 13, cell, 8) for x, cell in zip(xs, row)]
    rules = [(xs[0], xs[-1], top + 20 * r) for r in range(5)]
    data = run(drawn_pdf(texts, rules, uprights=[(x, top, top + 80) for x in xs]), SCHEMA)["data"]
    assert [(i["description"], i["quantity"], i["unit_price"], i["amount"]) for i in data["line_items"]] == [
        ("Annual software licence", 12, 738.13, 8857.56), ("Printer toner cartridge", 4, 47.31, 189.24),
        ("Delivery and handling", 4, 18.5, 74.0)]
    # one of each, the table as the parser reads it: the column of ones is the count, and the
    # price stands before the amount equal to it
    from pipelines.stages.extract.matching import match_records
    from pipelines.stages.extract.schema import walk
    from pipelines.stages.extract.tables import Section

    rows = [("1000", "Printer toner cartridge", "1", "48.87", "48.87"),
            ("1007", "Translation of user manual", "1", "256.23", "256.23"), ("", "", "", "", "305.1")]
    table = Section(1, ["Product Id", "Product Name", "Amount Purchased", "Price Per Unit", "Total Price"],
                    [[(cell, None) for cell in row] for row in rows])
    got = [obj for obj, _ in match_records(walk(BENCH_SCHEMA)[1][0], [table])]
    assert [(i["description"], i["quantity"], i["unit_price"], i["amount"]) for i in got] == [
        ("Printer toner cartridge", 1, 48.87, 48.87), ("Translation of user manual", 1, 256.23, 256.23)]

def test_a_day_and_month_written_with_their_dots_are_no_amount_of_a_row() -> None:
    """German writes a date without its year as ``19.12.``: a notice under an items table ("Bei
    Bestellungen bis zum 19.12. ist die Auslieferung bis 23.12. garantiert") has no amount and
    is no item; the same figures without the trailing dot are prices."""
    from pipelines.stages.extract.items import parse_row

    assert parse_row("Wichtige Information: Bei Bestellungen bis zum 19.12. ist die Auslieferung "
                     "bis spätestens 23.12. garantiert.") is None
    assert parse_row("Kerzenhalter  2  19.12  38.24") == {"amount": "38.24", "unit_price": "19.12", "quantity": "2",
                                                         "description": "Kerzenhalter"}
    assert parse_row("Lieferung am 03.11. Heizöl 1000 l  0,95  950,00")["amount"] == "950,00"



def test_a_vat_rate_between_the_count_and_the_price_and_four_amounts_a_row() -> None:
    """Central European VAT payers' rows as the layout joins them: count, unit, the VAT rate,
    then the unit price, the net, the tax and the gross. The count is the count, not the rate,
    and the price and amount are the pair it makes; a rate that ends a description stays in it."""
    row = "Translation of the manual  5  ks  21 %  8 118,20 Kč 40 591,00 Kč 8 524,11 Kč  49 115,11 Kč"
    assert parse_row(row) == {"description": "Translation of the manual", "quantity": "5", "unit_price": "8 118,20",
                              "amount": "40 591,00"}
    assert parse_row("Beratung  2  Std.  19%  100,00  200,00") == {
        "description": "Beratung", "quantity": "2", "unit_price": "100,00", "amount": "200,00"}
    assert parse_row("Rabatt 10 %  -5,00") == {"description": "Rabatt 10 %", "amount": "-5,00"}


def test_a_sum_printed_under_the_items_with_an_amount_alone_is_no_item() -> None:
    """"Nettopreis  851.94 CHF" under items that each give a count and a price, equal to their
    amounts added up: the list's sum, not an item (its label is no known total's)."""
    texts = [(60, 60, "Rechnung 2024-118", 14)]
    texts += [(x, 200, head, 8) for x, head in ((60, "Position"), (120, "Anzahl"), (170, "Einheit"),
                                                (215, "Bezeichnung"), (440, "Einzelpreis"), (520, "Gesamtpreis"))]
    texts += [(x, 214, cell, 8) for x, cell in ((60, "1"), (120, "2.0"), (150, "Stück"),
                                                (215, "Übersetzung Bedienungsanleitung"), (440, "425.97 CHF"), (520, "851.94 CHF"))]
    texts += [(300, 230, "Nettopreis", 8), (520, 230, "851.94 CHF", 8), (300, 244, "MWST 2.60%", 8),
              (520, 244, "22.15 CHF", 8), (300, 258, "Rechnungsbetrag", 8), (520, 258, "874.09 CHF", 8)]
    items = run(drawn_pdf(texts), BENCH_SCHEMA)["data"]["line_items"]
    assert [(i["description"], i["unit_price"], i["amount"]) for i in items] == [
        ("Übersetzung Bedienungsanleitung", 425.97, 851.94)]


def test_labels_and_values_under_an_item_are_its_details_not_an_item() -> None:
    """"Artikelrabatt 1: 2,00%  Basis: 75,00 €  Rabatt: -0,03 €" under an item (an electronic
    invoice's print): the item's allowance, written as labels and values, not an item of its own."""
    lines = [(40, 60, "Rechnung 471102", 14),
             (40, 200, "Bezeichnung", 9), (260, 200, "Menge", 9), (340, 200, "Einzelpreis", 9), (480, 200, "Betrag", 9),
             (40, 218, "Zitronensaeure 100ml", 9), (260, 218, "100 Stk.", 9), (340, 218, "1,00", 9), (480, 218, "100,00", 9),
             (40, 236, "Gelierzucker Extra 250g", 9), (260, 236, "50 Stk.", 9), (340, 236, "1,45", 9), (480, 236, "72,50", 9),
             (60, 250, "Artikelrabatt 1: 2,00%      Basis: 75,00 EUR      Rabatt: -0,03 EUR", 8),
             (60, 262, "Bruttopreis: 1,50 EUR      Artikelgesamtrabatt: -2,50 EUR", 8),
             (40, 290, "Summe", 9), (480, 290, "172,50", 9)]
    items = run(pdf(lines), SCHEMA)["data"]["line_items"]
    assert [(i["description"], i["quantity"], i["amount"]) for i in items] == [
        ("Zitronensaeure 100ml", 100, 100.0), ("Gelierzucker Extra 250g", 50, 72.5)]


def test_a_priced_item_that_names_its_tax_is_an_item_and_abbreviated_price_heads() -> None:
    """A Venezuelan factura: "Precio U. (Bs.)" and "Precio T. (Bs.)" head the unit price and the
    line's amount, and the item "ítem con IVA reducido", whose count times price makes its amount,
    is an item though it names the tax (a row that says a tax ends the list only when unpriced)."""
    from pipelines.stages.extract.lexicon import item_gloss
    from pipelines.stages.extract.matching import match_records
    from pipelines.stages.extract.schema import walk
    from pipelines.stages.extract.tables import Section

    assert (item_gloss("Precio U. (Bs.)"), item_gloss("Precio T. (Bs.)")) == ("unit price", "amount line total")
    rows = [("1", "ítem con IVA general", "G 1.000,00", "G 1.000,00"), ("1", "ítem con IVA reducido", "R 1.000,00", "R 1.000,00"),
            ("", "IVA R (8 %)", "", "Bs. 65,60")]
    table = Section(1, ["Cantidad", "Descripción", "Precio U. (Bs.)", "Precio T. (Bs.)"],
                    [[(cell, None) for cell in row] for row in rows])
    got = [obj for obj, _ in match_records(walk(BENCH_SCHEMA)[1][0], [table])]
    assert [(i["description"], i["quantity"], i["amount"]) for i in got] == [
        ("ítem con IVA general", 1, 1000.0), ("ítem con IVA reducido", 1, 1000.0)]
