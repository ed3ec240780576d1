"""Extraction that follows the schema's words: unlabelled sellers and addresses, the right total
among subtotal, tax and line amounts, dates as printed or normalised, labels in German and French,
currencies, and line items printed without rules (items over two lines)."""

from __future__ import annotations

import io

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from pipelines.core.models import DocumentInput
from pipelines.core.requests import StructuredExtractionOptions
from pipelines.engine.document import convert
from pipelines.stages import extract
from tests.support.extract_pdf import RECEIPT_SCHEMA, TOTALS_SCHEMA, pdf, run

RECEIPT = [
    (200, 60, "KEDAI RUNCIT MAJU JAYA", 16), (230, 80, "SDN BHD", 16),
    (200, 100, "(123456-X)", 10),
    (190, 116, "NO. 12, JALAN MERANTI 3,", 10), (190, 130, "TAMAN SRI MUDA, 40400 SHAH ALAM.", 10),
    (190, 146, "TEL: 03-5121 3881", 10),
    (240, 175, "CASH BILL", 12),
    (100, 200, "Date: 25/12/2018  20:13", 10), (100, 214, "Cashier: AMIRA", 10),
    (100, 240, "SUGAR 1KG          2 x 2.80      5.60", 10),
    (100, 254, "COOKING OIL 2L                  12.90", 10),
    (100, 280, "SUBTOTAL                         18.50", 10),
    (100, 294, "GST 6%                            1.11", 10),
    (100, 308, "TOTAL                            19.61", 10),
    (100, 322, "ROUNDING ADJ                     -0.01", 10),
    (100, 336, "TOTAL ROUNDED                    19.60", 10),
    (100, 360, "CASH                             50.00", 10),
    (100, 374, "CHANGE                           30.40", 10),
    (180, 420, "THANK YOU. PLEASE COME AGAIN.", 10),
]
def test_a_receipt_gives_its_seller_address_date_as_printed_and_final_total() -> None:
    out = run(pdf(RECEIPT), RECEIPT_SCHEMA)
    data = out["data"]
    assert data["company"] == "KEDAI RUNCIT MAJU JAYA SDN BHD"  # the name goes on over its legal form
    assert data["address"] == "NO. 12, JALAN MERANTI 3, TAMAN SRI MUDA, 40400 SHAH ALAM."  # registration skipped
    assert data["date"] == "25/12/2018"  # as printed, not 2018-12-25, and without the time
    assert data["total"] == "19.60"  # the rounded total, not 19.61, the subtotal or a line amount
    assert data["tax"] == 1.11  # the tax amount, not its rate
    cite = out["citations"]["total"]
    assert cite["page_number"] == 1 and cite["bbox"]["y1"] > out["citations"]["date"]["bbox"]["y1"]


def test_a_seller_named_with_its_registration_number_and_an_address_after_a_former_name() -> None:
    """The registration number printed after the name is not part of it, and the address is found
    around its postcode line even when a former name and a licence line stand between."""
    head = [
        (150, 60, "GOLDEN ARCH RESTAURANTS SDN BHD (65351-M)", 12),
        (190, 78, "formerly known as", 10), (170, 92, "Arches Dining Sdn Bhd", 10),
        (170, 106, "Licensee of Burger Palace", 10),
        (150, 122, "Level 6, Bangunan TH, Damansara Uptown3", 10),
        (150, 136, "No.3, Jalan SS21/39, 47400 Petaling Jaya", 10), (200, 150, "Selangor", 10),
        (150, 166, "(GST ID No: 000504664064)", 10),
    ]
    body = [(x, y + 110, t, s) for x, y, t, s in RECEIPT[6:]]
    data = run(pdf(head + body), RECEIPT_SCHEMA)["data"]
    assert data["company"] == "GOLDEN ARCH RESTAURANTS SDN BHD"
    assert data["address"] == "Level 6, Bangunan TH, Damansara Uptown3 No.3, Jalan SS21/39, 47400 Petaling Jaya Selangor"
    assert data["total"] == "19.60"


def test_a_name_whose_legal_form_is_printed_on_a_line_of_its_own_is_read_from_the_line_above() -> None:
    lines = [(170, 60, "PASARAYA BORONG PINTAR", 16), (230, 80, "SDN BHD", 14),
             (200, 100, "BR No.: (124525-H)", 10), *RECEIPT[3:]]
    data = run(pdf(lines), RECEIPT_SCHEMA)["data"]
    assert data["company"] == "PASARAYA BORONG PINTAR SDN BHD"
    # a registration label whose number went on to the next line is not part of the name either
    lines = [(150, 60, "MR D.I.Y. (M) SDN BHD (CO.RFG", 14), (200, 80, "No:860671-D)", 10), *RECEIPT[3:]]
    assert run(pdf(lines), RECEIPT_SCHEMA)["data"]["company"] == "MR D.I.Y. (M) SDN BHD"
    # a big name set in words apart: its legal form under the whole name, not only its first word
    lines = [(120, 60, "POPULAR", 18), (300, 60, "BOOK", 18), (90, 96, "CO.", 18), (160, 96, "(M) SDN", 18),
             (330, 96, "BHD", 18), *RECEIPT[3:]]
    assert run(pdf(lines), RECEIPT_SCHEMA)["data"]["company"] == "POPULAR BOOK CO. (M) SDN BHD"
    # a number in a name with its legal form is part of the name
    lines = [(200, 60, "CASH SALES", 10), (150, 98, "Triple Six Point Enterprise 666", 12), *RECEIPT[3:]]
    assert run(pdf(lines), RECEIPT_SCHEMA)["data"]["company"] == "Triple Six Point Enterprise 666"


def test_totals_where_ocr_joined_labels_or_misread_the_word() -> None:
    """Rows as OCR gives them: two labels joined before their amounts (the total is the second
    amount, not the rounding's), the amount on the row below, "Tatal" for "Total", and a total
    row that says it includes the tax."""
    def total_of(rows: list[tuple[float, float, str, float]]) -> str:
        lines = [*RECEIPT[:8], (100, 240, "SUGAR 1KG          2 x 2.80      5.60", 10), *rows]
        return run(pdf(lines), RECEIPT_SCHEMA)["data"]["total"]

    assert total_of([(100, 280, "Rounding (RM) : Total (RM) :", 10), (300, 280, "-0.01", 10),
                     (340, 280, "332.30", 10), (100, 300, "CASH : 350.00", 10)]) == "332.30"
    assert total_of([(100, 280, "Rounding (RM) : Total (RM) : 0.00", 10), (300, 294, "8.00", 10),
                     (100, 314, "CHANGE 2.00", 10)]) == "8.00"
    assert total_of([(100, 280, "Total Sales (Excluding GST) : 31.03", 10), (100, 294, "Total GST : 1.65", 10),
                     (100, 308, "Tatal Sales (Inclusive of GST) : 32.70", 10)]) == "32.70"
    assert total_of([(100, 280, "*Total Qty: 1.00    9.00", 10),
                     (100, 294, "Total Includes GST 6%   9.00", 10)]) == "9.00"
    assert total_of([(100, 280, "Item(s) Total (MYR) 20.00", 10), (100, 294, "Net Total (MYR) 21.20", 10),
                     (100, 308, "Net Total Rounded (MYR) 21.20", 10)]) == "21.20"
    # no row says it is the final total: the largest sub or net total is (not the cash tendered)
    assert total_of([(100, 280, "1 SUB TOTAL 150.00", 10), (100, 294, "NET TOTAL 174.90", 10),
                     (100, 308, "CASH 200.00", 10)]) == "174.90"
    assert total_of([(100, 280, "Sub Total 129.30", 10), (100, 294, "Amt Due 131.00", 10)]) == "131.00"


def test_a_date_field_with_format_date_is_normalised() -> None:
    schema = {"type": "object", "properties": {"purchased": {"type": "string", "format": "date",
                                                             "description": "Date of purchase"}}}
    assert run(pdf(RECEIPT), schema)["data"]["purchased"] == "2018-12-25"


GERMAN = [
    (60, 60, "Lieferant GmbH", 14), (60, 78, "Lieferantenstraße 20, 80333 München", 10),
    (60, 150, "Kunden AG Mitte", 10), (60, 164, "Kundenstraße 15", 10), (60, 178, "69876 Frankfurt", 10),
    (340, 150, "Rechnungsnummer:  471102", 10), (340, 164, "Rechnungsdatum:  05.03.2013", 10),
    (340, 178, "Beträge in EUR", 10),
    (60, 230, "Rechnung", 16),
    (60, 270, "Beschreibung                 Menge    Einzelpreis      Betrag", 10),
    (60, 290, "Trennblätter A4                  20 Stk.      9,90      198,00", 10),
    (60, 304, "Joghurt Banane, Becher 150 g     50 Stk.      5,50      275,00", 10),
    (60, 318, "aus ökologischem Landbau", 10),
    (300, 350, "Rechnungssumme netto            473,00", 10),
    (300, 364, "USt. 19%                         89,87", 10),
    (300, 378, "Gesamtbetrag                    562,87", 10),
    (60, 420, "Zahlbar innerhalb 30 Tagen netto bis 04.04.2013.", 10),
]
INVOICE_SCHEMA = {"type": "object", "properties": {
    "invoice_number": {"type": "string", "description": "The invoice's number."},
    "invoice_date": {"type": "string", "format": "date", "description": "Date the invoice was issued."},
    "due_date": {"type": "string", "format": "date", "description": "Date by which payment is due."},
    "currency": {"type": "string", "description": "ISO currency code of the amounts."},
    "subtotal": {"type": "number", "description": "Total before tax (net)."},
    "tax_amount": {"type": "number", "description": "Tax (VAT) amount."},
    "total_amount": {"type": "number", "description": "Grand total including tax."},
    "seller_name": {"type": "string", "description": "Company that issued the invoice."},
    "buyer_name": {"type": "string", "description": "Customer billed."},
    "buyer_address": {"type": "string", "description": "The customer's address."},
    "line_items": {"type": "array", "items": {"type": "object", "properties": {
        "description": {"type": "string"}, "quantity": {"type": "number"},
        "unit_price": {"type": "number"}, "amount": {"type": "number"}}}},
}}


def test_a_german_invoice_is_read_by_its_own_labels() -> None:
    data = run(pdf(GERMAN), INVOICE_SCHEMA)["data"]
    assert data["invoice_number"] == "471102"
    assert data["invoice_date"] == "2013-03-05" and data["due_date"] == "2013-04-04"
    assert data["currency"] == "EUR"
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (473.0, 89.87, 562.87)
    # no label names the parties: the buyer is the address block in the window, the seller the other
    assert data["buyer_name"] == "Kunden AG Mitte" and data["buyer_address"] == "Kundenstraße 15 69876 Frankfurt"
    assert data["seller_name"] == "Lieferant GmbH"


def test_parties_under_labels_side_by_side_with_an_identifier_over_each_name() -> None:
    """Seller and buyer under their labels side by side, each name under an identifier line
    (a GLN), the buyer's name holding a label word inside it ("MUSTER-KUNDE GMBH")."""
    lines = [(40, 64, "Lieferant", 8), (210, 64, "Käufer", 8), (366, 64, "W A R E N R E C H N U N G", 8),
             (40, 73, "GLN 4333741000005", 8), (210, 73, "GLN 4304171000002", 8),
             (40, 82, "MUSTERLIEFERANT GMBH", 8), (210, 82, "MUSTER-KUNDE GMBH", 8),
             (366, 86, "Beleg-Nr : R87654321012345", 8), (366, 99, "Beleg-Datum : 06.08.2013", 8),
             (40, 104, "BAHNHOFSTRASSE 99", 8), (210, 104, "KUNDENWEG 88", 8),
             (40, 113, "99199 MUSTERHAUSEN", 8), (210, 113, "40235 DUESSELDORF", 8),
             (40, 140, "USt-IdNr : DE123456789", 8), (210, 140, "Kunden-Nr. : 009420", 8)]
    schema = {"type": "object", "properties": {
        "seller_name": {"type": "string", "description": "Company that issued the invoice."},
        "seller_address": {"type": "string", "description": "The seller's address."},
        "buyer_name": {"type": "string", "description": "Customer billed."},
        "buyer_address": {"type": "string", "description": "The customer's address."}}}
    data = run(pdf(lines), schema)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("MUSTERLIEFERANT GMBH", "MUSTER-KUNDE GMBH")
    assert data["buyer_address"] == "KUNDENWEG 88 40235 DUESSELDORF"
    assert data["seller_address"] == "BAHNHOFSTRASSE 99 99199 MUSTERHAUSEN"


def test_items_printed_without_rules_are_read_with_their_second_lines() -> None:
    items = run(pdf(GERMAN), INVOICE_SCHEMA)["data"]["line_items"]
    assert [(i["quantity"], i["unit_price"], i["amount"]) for i in items] == [(20, 9.9, 198.0), (50, 5.5, 275.0)]
    assert items[0]["description"] == "Trennblätter A4"
    assert items[1]["description"] == "Joghurt Banane, Becher 150 g aus ökologischem Landbau"


def test_a_ruled_items_table_with_a_header_over_two_rows_and_charges_under_its_items() -> None:
    """The header's words set over two rows ("Menge" over nothing, "Preis/" over "Einheit"),
    an item's second line starting with a number, and an allowance, a shipping charge and a
    payment listed in the table under the items: three items, each with its quantity and unit
    price, a second line of words kept whole (a line of figures, "300 cm x 100 cm", is no
    description)."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setFont("Helvetica", 9)
    xs = [40, 300, 360, 410, 480, 555]  # description, quantity, unit, unit price, amount
    head = [["Unsere", "Menge", "Meng.-", "Preis/", ""], ["Pos Artikelbeschreibung", "", "einheit", "Einheit", "Entgelt"]]
    body = [["1 Kunstrasen grün 3m breit", "3,00", "m2", "4,00", "12,00"], ["300 cm x 100 cm", "", "", "", ""],
            ["2 Schweinesteak", "5,00", "kg", "5,50", "27,50"],
            ["3 Mineralwasser Medium", "20,00", "Kiste", "5,49", "109,80"], ["12 x 1,0l PET", "", "", "", ""],
            ["abzgl. Sondernachlass", "", "", "", "-14,73"], ["zzgl. Versandkosten", "", "", "", "5,80"],
            ["Bereits bezahlt", "", "", "", "50,00"]]
    y = 700
    c.line(xs[0], y + 12, xs[-1], y + 12)
    for k, row in enumerate(head + body):
        for x, text in zip(xs, row):
            c.drawString(x + 3, y, text)
        if k == len(head) - 1:
            c.line(xs[0], y - 4, xs[-1], y - 4)
        y -= 14
    c.line(xs[0], y + 10, xs[-1], y + 10)
    c.save()
    items = run(buf.getvalue(), INVOICE_SCHEMA)["data"]["line_items"]
    assert [(i["description"], i["quantity"], i["unit_price"], i["amount"]) for i in items] == [
        ("Kunstrasen grün 3m breit", 3.0, 4.0, 12.0), ("Schweinesteak", 5.0, 5.5, 27.5),
        ("Mineralwasser Medium 12 x 1,0l PET", 20.0, 5.49, 109.8)]


def test_text_set_up_the_margin_joins_no_item() -> None:
    """A sample notice printed upright along the page's left edge crosses every row: its words
    are no part of the items' descriptions."""
    import pypdf

    base = pdf(GERMAN)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setFont("Helvetica", 7)
    c.translate(22, 450)  # up the edge beside the items
    c.rotate(90)
    c.drawString(0, 0, "Sample invoice Extended, Copyright AWV e.V. 2013")
    c.save()
    out = pypdf.PdfWriter(clone_from=io.BytesIO(base))
    out.pages[0].merge_page(pypdf.PdfReader(buf).pages[0])
    merged = io.BytesIO()
    out.write(merged)
    items = run(merged.getvalue(), INVOICE_SCHEMA)["data"]["line_items"]
    assert [i["description"] for i in items] == ["Trennblätter A4",
                                                 "Joghurt Banane, Becher 150 g aus ökologischem Landbau"]


def test_a_value_the_schema_refuses_is_null_with_a_warning() -> None:
    """The readers check types, enums and patterns; the rest of the schema (here ``maximum`` and
    ``maxLength``) is checked on the answer: what does not fit is null, and the page says why."""
    schema = {"type": "object", "properties": {
        "total": {"type": "string", "description": "Total amount paid, as printed.", "maxLength": 3},
        "tax": {"type": "number", "description": "The tax charged.", "maximum": 1.0},
        "date": {"type": "string", "description": "Date of the purchase, as printed."}}}
    pages = convert(DocumentInput(data=pdf(RECEIPT))).pages
    sd = extract.extract_pages(pages, StructuredExtractionOptions(schema_name="s", json_schema=schema,
                                                                  provide_citations=True))
    assert sd.data == {"total": None, "tax": None, "date": "25/12/2018"}
    assert set(sd.citations) == {"date"}
    warnings = " ".join(pages[0].warnings)
    assert "'s': total:" in warnings and "'s': tax:" in warnings and "left null" in warnings


def test_dates_and_amounts_in_the_conventions_of_western_europe() -> None:
    assert [extract.parse_date(t) for t in ("3 mars 2024", "12. März 2024", "3 de marzo de 2024", "5 maggio 2023",
                                             "12 mei 2022", "1er avril 2024", "12.03.2024", "May 18, 2025")] == [
        "2024-03-03", "2024-03-12", "2024-03-03", "2023-05-05", "2022-05-12", "2024-04-01", "2024-03-12", "2025-05-18"]
    assert [extract.parse_number(t) for t in ("1.234,56 €", "1 234,56", "EUR 1,234.56", "(35,8)", "1'234.50")] == [
        1234.56, 1234.56, 1234.56, -35.8, 1234.5]
    # months as words between dashes, two-digit years, ordinals, a time glued on, year first, "oct."
    assert [extract.parse_date(t) for t in ("18-Mar-2016", "07-Jul-16", "30 DEC 17", "July 7th, 2016",
                                             "2016-03-18T10:00", "2024.05.11", "31 oct. 2023", "Dec. 3, 2024")] == [
        "2016-03-18", "2016-07-07", "2017-12-30", "2016-07-07", "2016-03-18", "2024-05-11", "2023-10-31", "2024-12-03"]


def test_sums_read_from_a_totals_table_under_a_header_of_labels() -> None:
    """A totals table: labels in a header row, one row per tax rate, the last row their sums.
    Each amount is the sum under its label, not the first rate's row."""
    cols = (60, 170, 280, 370, 460)
    rows = [("Goods", "Net amount", "VAT", "VAT %", "Total"), ("300.00", "290.00", "55.10", "19", "345.10"),
            ("100.00", "100.00", "7.00", "7", "107.00"), ("400.00", "390.00", "62.10", "EUR", "452.10")]
    lines = [(60, 80, "Invoice 2024-17", 14), (60, 100, "Date: 04.03.2024", 10)] + [
        (x, 300 + 14 * r + (6 if r == 3 else 0), text, 9) for r, row in enumerate(rows) for x, text in zip(cols, row)]
    schema = TOTALS_SCHEMA
    data = run(pdf(lines), schema)["data"]
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (390.0, 62.1, 452.1)


def test_items_with_whole_amounts_rates_units_and_annotations() -> None:
    """A list of items without rules: amounts printed whole with their currency ("53 EUR"), a
    tax rate in its own column (15.00% is no price), counts with their unit ("20 Unit(s)"),
    and a detail line under an item ("Packaging: crate") that is not its description."""
    cols = (40, 250, 330, 420, 500)
    rows = [("Description", "Quantity", "Unit Price", "Taxes", "Amount"),
            ("Oak table", "2 Unit(s)", "120 EUR", "15.00%", "240 EUR"),
            ("Packaging: crate", "", "", "", ""),
            ("Linen napkins", "12 Unit(s)", "3 EUR", "15.00%", "36 EUR")]
    lines = [(40, 60, "Invoice 88", 14)] + [(x, 200 + 14 * r, text, 9) for r, row in enumerate(rows)
                                          for x, text in zip(cols, row) if text] + [(330, 290, "Total 276 EUR", 9)]
    items = run(pdf(lines), INVOICE_SCHEMA)["data"]["line_items"]
    assert [(i["description"], i["quantity"], i["unit_price"], i["amount"]) for i in items] == [
        ("Oak table", 2, 120.0, 240.0), ("Linen napkins", 12, 3.0, 36.0)]


def test_totals_over_a_thousand_without_separators_and_totals_said_with_or_without_vat() -> None:
    """15000.00 is an amount (no thousands separator needed); "Total without VAT" is the net,
    "Total paid with VAT" the total, and amounts marked by their currency count printed whole
    or with one decimal ("43 EUR", "8.6 EUR")."""
    schema = TOTALS_SCHEMA
    big = run(pdf([(40, 60, "Invoice N17", 14), (40, 200, "Consulting  131 h  15000.00", 10),
                   (40, 230, "Total (USD)  131  15000.00", 10)]), schema)["data"]
    assert big["total_amount"] == 15000.0
    whole = run(pdf([(40, 60, "Invoice 1", 14), (330, 200, "Total without VAT", 9), (490, 200, "43 EUR", 9),
                     (330, 214, "VAT Paid", 9), (490, 214, "8.6 EUR", 9),
                     (330, 228, "Total paid with VAT", 9), (490, 228, "51.6 EUR", 9)]), schema)["data"]
    assert (whole["subtotal"], whole["tax_amount"], whole["total_amount"]) == (43.0, 8.6, 51.6)


def test_a_total_said_without_taxes_is_not_the_tax() -> None:
    schema = {"type": "object", "properties": {"tax_amount": {"type": "number", "description": "Total tax."}}}
    """A tax summary beside the totals (rate, base, amount per rate) shares their rows."""
    lines = [(40, 60, "Invoice N°: INV-0007", 14),
             (40, 200, "Tax", 9), (90, 200, "Base", 9), (150, 200, "Amount", 9),
             (330, 200, "Total (excl. taxes):", 9), (490, 200, "$ 257.50", 9),
             (40, 214, "[1] 20%", 9), (90, 214, "$ 200.00", 9), (150, 214, "$ 40.00", 9),
             (330, 214, "Taxes:", 9), (490, 214, "$ 45.75", 9),
             (40, 228, "[2] 10%", 9), (90, 228, "$ 57.50", 9), (150, 228, "$ 5.75", 9),
             (330, 228, "Total:", 9), (490, 228, "$ 303.25", 9)]
    assert run(pdf(lines), schema)["data"]["tax_amount"] == 45.75


def test_the_date_in_a_table_of_payment_terms_is_the_due_date() -> None:
    schema = {"type": "object", "properties": {
        "invoice_date": {"type": "string", "format": "date", "description": "Date the invoice was issued."},
        "due_date": {"type": "string", "format": "date", "description": "Date payment is due."}}}
    lines = [(40, 60, "Invoice INV-0031", 14), (40, 90, "Invoice Date: 06/28/2023", 9), (40, 102, "Acton, MA 01720", 9),
             (330, 300, "Payment Term", 10), (330, 314, "Date", 9), (480, 314, "Amount", 9),
             (330, 328, "07/28/2023", 9), (480, 328, "$ 303.25", 9)]
    data = run(pdf(lines), schema)["data"]
    assert (data["invoice_date"], data["due_date"]) == ("2023-06-28", "2023-07-28")
    # the reader of due dates finds it itself, not only through the column's label
    from pipelines.stages.extract import finders, roles
    pages = convert(DocumentInput(data=pdf(lines))).pages
    hit = finders.date(pages, roles.Role(kind="date", which="due"))
    assert hit is not None and hit.text == "07/28/2023"


def test_a_cell_of_several_amounts_is_no_number_and_a_total_label_keeps_its_qualifier() -> None:
    """A tax summary's cell holding one base per rate ("11,00 60,00 27,00") is no single
    number; "TOTAL HT  TOTAL TVA  TOTAL TTC" over "100,00  4,90  104,90" gives each its own."""
    f = extract.Field(path=("tax",), schema={"type": "number"})
    assert extract.coerce("11,00 60,00 27,00 2,00", f) is None and extract.coerce("1 234,56", f) == 1234.56
    schema = TOTALS_SCHEMA
    lines = [(40, 60, "FACTURE F2026", 14), (300, 400, "TOTAL HT", 9), (380, 400, "TOTAL TVA", 9),
             (460, 400, "TOTAL TTC", 9), (300, 414, "100,00", 9), (380, 414, "4,90", 9), (460, 414, "104,90", 9)]
    data = run(pdf(lines), schema)["data"]
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (100.0, 4.9, 104.9)


def test_a_number_in_the_title_the_parser_set_apart_as_the_page_header_is_read() -> None:
    """The first page's header (a title the layout set apart at the top: "INVOICE #2024/001")
    is read like the rest of the page by the readers of numbers, dates and amounts."""
    from pipelines.core.models import Fragment, PageResult

    page = PageResult(page_number=1, width=595, height=842, fragments=[
        Fragment(fragment_type="page_header", content={"content": "INVOICE #2024/001"},
                 bbox={"x1": 60, "y1": 50, "x2": 220, "y2": 70}),
        Fragment(fragment_type="text", content={"content": "Total  €2,400.00"},
                 bbox={"x1": 300, "y1": 400, "x2": 540, "y2": 412})])
    schema = {"type": "object", "properties": {
        "invoice_number": {"type": "string", "description": "The invoice's own number, as printed."},
        "total_amount": {"type": "number", "description": "Total amount due."}}}
    data = extract.extract_pages([page], StructuredExtractionOptions(schema_name="s", json_schema=schema)).data
    assert data == {"invoice_number": "2024/001", "total_amount": 2400.0}


def test_the_number_and_date_in_the_title_and_the_sum_of_discounts_is_no_total() -> None:
    """"Handelsrechnung (380) Nr. … vom …" gives the number and the issue date, not the delivery
    date labelled below it; "Gesamtbetrag der Abschläge" is no total; "Deadline" is the due date."""
    lines = [(60, 60, "Handelsrechnung (380) Nr. TX-4711 vom 30.10.2026", 12),
             (60, 84, "Liefer- und Leistungsdatum: 29.10.2026", 9), (60, 98, "Deadline: 29.11.2026", 9),
             (300, 300, "Positionssumme", 9), (480, 300, "16,90", 9),
             (300, 314, "Gesamtbetrag der Abschläge", 9), (480, 314, "-0,00", 9),
             (300, 328, "Rechnungssumme ohne USt.", 9), (480, 328, "16,90", 9),
             (300, 342, "Steuerbetrag in EUR", 9), (480, 342, "1,18", 9),
             (300, 356, "Bruttosumme", 9), (480, 356, "18,08", 9)]
    data = run(pdf(lines), INVOICE_SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"], data["due_date"]) == ("TX-4711", "2026-10-30", "2026-11-29")
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (16.9, 1.18, 18.08)


def test_item_columns_named_nettopreis_and_in_norwegian() -> None:
    """"Nettopreis" is the unit price beside "Nettobetrag", the line's amount; "Beskrivelse",
    "Antall", "Enhetspris" and "Sum" head a Norwegian list of items."""
    for head, row in [(("Beschreibung", "Nettopreis", "Menge", "Nettobetrag"), ("Miettage", "86,55", "2", "173,10")),
                      (("Beskrivelse", "Enhetspris", "Antall", "Sum"), ("Ulike", "86,55", "2", "173,10"))]:
        lines = [(40, 60, "Rechnung 88", 14)] + [(x, 200 + 14 * r, t, 9) for r, cells in enumerate((head, row))
                                               for x, t in zip((40, 250, 360, 470), cells)]
        item = run(pdf(lines), INVOICE_SCHEMA)["data"]["line_items"][0]
        assert (item["description"], item["quantity"], item["unit_price"], item["amount"]) == (row[0], 2, 86.55, 173.1)


def test_a_whole_amount_with_grouped_thousands_fits_an_amount_field() -> None:
    """A currency without cents prints "1,056,000" and "¥1,161,600": amounts for a total, while a
    rate or a note's mark is not."""
    from pipelines.stages.extract.roles import Role, fits

    assert fits(Role("subtotal"), "1,056,000") and fits(Role("total"), "¥1,161,600")
    assert not fits(Role("tax"), "10%") and not fits(Role("total"), "[1]")
