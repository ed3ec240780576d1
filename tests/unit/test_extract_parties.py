"""Seller and buyer as a reader finds them on real invoices and receipts: labels that are no
values, delivery addresses, letterheads and branches, address blocks side by side, windows
written to a firm, a receipt's own address, and the document's own date order."""

from __future__ import annotations

from tests.support.extract_pdf import RECEIPT_SCHEMA, drawn_pdf, pdf, run
from tests.unit.test_extract_item_rows import BENCH_SCHEMA as SCHEMA

PARTY_SCHEMA = {"type": "object", "properties": {
    "seller_name": {"type": "string", "description": "Company that issued the invoice."},
    "seller_address": {"type": "string", "description": "The seller's address."},
    "buyer_name": {"type": "string", "description": "Customer billed."},
    "buyer_address": {"type": "string", "description": "The customer's address."}}}


def test_a_firm_named_at_the_head_of_the_page_issues_the_bill_its_branch_only_serves() -> None:
    """A letterhead (a name over two lines ending in its legal form) above the window the bill
    is written to and a branch office's block: the seller is the firm, at the branch's address."""
    lines = [(70, 70, "Nordsee Hausrat", 11), (70, 82, "Versicherungsgesellschaft Kiel a.G.", 11),
             (70, 110, "Frau", 10), (70, 122, "Erika Beispiel", 10), (70, 134, "Lindenallee 4", 10),
             (70, 146, "24103 Kiel", 10),
             (70, 170, "Geschäftsstelle", 10), (70, 182, "Hafenbüro", 10), (70, 194, "Kaistraße 17", 10),
             (70, 206, "24159 Kiel", 10), (70, 218, "Tel.: 0431/555 120", 10),
             (70, 260, "Beitragsrechnung", 12), (70, 290, "Gesamtbeitrag 120,00 €", 10)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert data["seller_name"] == "Nordsee Hausrat Versicherungsgesellschaft Kiel a.G."
    assert data["seller_address"] == "Kaistraße 17 24159 Kiel"
    assert (data["buyer_name"], data["buyer_address"]) == ("Erika Beispiel", "Lindenallee 4 24103 Kiel")


def test_labels_side_by_side_are_not_each_others_values() -> None:
    """A row of party labels with nothing beside them ("Supplier", "Customer") is no value of
    the other, nor is the document's title beside a label."""
    lines = [(40, 64, "Supplier", 8), (210, 64, "Customer", 8), (380, 64, "INVOICE", 14),
             (40, 80, "Harbour Tools Ltd", 8), (210, 80, "Greenfield Farms", 8),
             (40, 90, "12 Quay Street", 8), (210, 90, "4 Mill Lane", 8),
             (40, 100, "BS1 4DJ Bristol", 8), (210, 100, "EX4 3PU Exeter", 8),
             (380, 90, "Invoice No: 7731", 8), (40, 220, "Total due 84.00", 8)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Harbour Tools Ltd", "Greenfield Farms")
    assert data["seller_address"] == "12 Quay Street BS1 4DJ Bristol"


def test_a_delivery_address_is_the_buyers_side_not_the_seller() -> None:
    """The block under "Delivery address" is where the buyer wants the goods; the seller is
    the other block (here at the foot of the page)."""
    lines = [(380, 50, "INVOICE 2024-118", 14),
             (40, 120, "Delivery address", 8), (40, 132, "Greenfield Depot", 8), (40, 142, "Barn 2, 4 Mill Lane", 8),
             (40, 152, "EX4 3PU Exeter", 8),
             (320, 120, "Customer", 8), (320, 132, "Greenfield Farms", 8), (320, 142, "4 Mill Lane", 8),
             (320, 152, "EX4 3PU Exeter", 8),
             (40, 400, "Total due 84.00", 8),
             (40, 760, "Harbour Tools", 8), (40, 770, "12 Quay Street", 8), (40, 780, "BS1 4DJ Bristol", 8)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Harbour Tools", "Greenfield Farms")
    assert data["seller_address"] == "12 Quay Street BS1 4DJ Bristol"


def test_a_us_document_writes_its_dates_month_first_and_a_labelled_sender_is_the_seller() -> None:
    """03/05/2026 is 5 March on a bill from a US address with a ZIP code (3 May elsewhere); a
    date written year first with dots is read as such; the block under "Bill From:" is the
    seller, and labels beside each other (Status: / Paid) are no one's name."""
    lines = [(330, 30, "Invoice", 16), (330, 52, "Status:", 9), (330, 64, "Paid", 9),
             (40, 120, "Bill To:", 9), (330, 120, "Bill From:", 9),
             (40, 134, "Harbor Street Bakery", 9), (330, 134, "Pine Ridge Supply", 9),
             (40, 146, "9 Harbor Street", 9), (330, 146, "410 Elm Road", 9),
             (40, 158, "Portland, ME 04101", 9), (330, 158, "Concord, NH 03301", 9),
             (40, 200, "Invoice Date: 03/05/2026", 9), (40, 214, "Due Date: 2026.04.04", 9),
             (40, 260, "Total: $120.00", 9)]
    schema = {**PARTY_SCHEMA, "properties": {
        **PARTY_SCHEMA["properties"],
        "invoice_date": {"type": "string", "format": "date", "description": "Date the invoice was issued."},
        "due_date": {"type": "string", "format": "date", "description": "Date payment is due."}}}
    data = run(pdf(lines), schema)["data"]
    assert (data["invoice_date"], data["due_date"]) == ("2026-03-05", "2026-04-04")
    assert (data["seller_name"], data["buyer_name"]) == ("Pine Ridge Supply", "Harbor Street Bakery")
    elsewhere = run(pdf([(40, 100, "Rechnung", 16), (40, 140, "Rechnungsdatum: 03/05/2026", 9)]), schema)["data"]
    assert elsewhere["invoice_date"] == "2026-05-03"


def test_blocks_side_by_side_whose_towns_carry_a_state_or_country_after_a_comma() -> None:
    """"Acton, MA 01720" and "20122 Milano, Italy" are postcode lines of two blocks side by side
    (a service provider's and the client's), not one-line sender addresses; the provider label
    names the seller."""
    lines = [(260, 73, "Invoice N17", 14),
             (90, 100, "Service Provider:", 9), (312, 100, "Bill To:", 9),
             (90, 111, "Quillfeather LLC", 9), (312, 111, "Officine Lagunari", 9),
             (90, 122, "2 Old Mill Path", 9), (312, 122, "Via Torino 18", 9),
             (90, 134, "Acton, MA 01720", 9), (312, 134, "20122 Milano, Italy", 9),
             (90, 145, "United States", 9), (312, 145, "VAT No: IT12990250966", 9),
             (90, 190, "Date 03/05/2026", 9)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Quillfeather LLC", "Officine Lagunari")
    assert data["seller_address"] == "2 Old Mill Path Acton, MA 01720"
    assert data["buyer_address"] == "Via Torino 18 20122 Milano, Italy"


def test_a_window_naming_a_firm_and_then_a_person_is_written_to_the_firm() -> None:
    """An address window of two name lines without a legal form ("Les Trois Moulins" over
    "Claire Martin"): the bill goes to the first, the firm; the person is whom it is for."""
    lines = [(40, 60, "Atelier Bleu SARL", 12), (40, 74, "8 rue des Lilas", 9), (40, 84, "69003 Lyon", 9),
             (320, 140, "Les Trois Moulins", 10), (320, 152, "Claire Martin", 10), (320, 164, "12 place du Marché", 10),
             (320, 176, "84000 Avignon", 10), (40, 230, "Facture FA-2024-031", 14), (40, 400, "Total TTC 250,00 €", 10)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["buyer_name"], data["buyer_address"]) == ("Les Trois Moulins", "12 place du Marché 84000 Avignon")
    assert data["seller_name"] == "Atelier Bleu SARL"


def test_a_receipt_whose_one_address_block_heads_the_page_is_the_sellers() -> None:
    """A receipt prints one address, its own, under a name that starts with a word a label
    could start with ("RESTAURANT ..."): the name is whole and the block is no buyer's."""
    lines = [(150, 40, "RESTAURANT SERI WANGI", 12), (150, 56, "NO 12, JALAN MERANTI 3", 9),
             (150, 68, "TAMAN SRI MUDA, 40400 SHAH ALAM", 9), (150, 90, "CASH BILL", 11),
             (100, 120, "Date: 25/12/2018", 9), (100, 150, "TOTAL  19.60", 9)]
    data = run(pdf(lines), RECEIPT_SCHEMA)["data"]
    assert data["company"] == "RESTAURANT SERI WANGI"
    assert data["address"] == "NO 12, JALAN MERANTI 3 TAMAN SRI MUDA, 40400 SHAH ALAM"


def test_parties_set_out_as_forms_under_their_labels() -> None:
    """``Verkäufer`` / ``Käufer/Leistungsempfänger`` over ``Name:`` and ``Anschrift:`` rows (an
    e-invoice viewer's layout): each party is its Name row's value, its address the address row
    and the rows under it up to the postcode; numbers and tax ids between are passed over."""
    lines = [(60, 60, "Handelsrechnung Nr. TX-4711 vom 30.10.2026", 12),
             (60, 100, "Verkäufer", 10), (60, 116, "Globale Nummer:", 9), (260, 116, "4000001123452", 9),
             (60, 130, "Name:", 9), (260, 130, "Taxiunternehmen TX GmbH", 9),
             (60, 144, "Anschrift:", 9), (260, 144, "Lieferantenstraße 20", 9), (260, 156, "10369 Berlin", 9),
             (60, 170, "USt.-Id.-Nr.:", 9), (260, 170, "DE123456789", 9),
             (60, 200, "Käufer/Leistungsempfänger", 10), (60, 216, "Nummer:", 9), (260, 216, "GE2020211", 9),
             (60, 230, "Name:", 9), (260, 230, "Taxi-Gast AG Mitte", 9),
             (60, 244, "Anschrift:", 9), (260, 244, "Hans Mustermann", 9), (260, 256, "Kundenstraße 15", 9),
             (260, 268, "13351 Berlin", 9), (60, 300, "Bemerkungen", 10),
             (60, 330, "Bruttosumme", 9), (480, 330, "18,08", 9)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Taxiunternehmen TX GmbH", "Taxi-Gast AG Mitte")
    assert data["seller_address"] == "Lieferantenstraße 20 10369 Berlin"
    assert data["buyer_address"] == "Hans Mustermann Kundenstraße 15 13351 Berlin"


def test_forms_side_by_side_are_read_each_in_its_column() -> None:
    """"Service Provider" beside "Client", each over Name / Street / City / Post code rows set
    on the same lines: each party is read from its own column only, its address from the rows
    that each give a part of it."""
    lines = [(380, 60, "Invoice", 16), (360, 84, "Invoice id:", 9), (450, 84, "INV-2207", 9),
             (60, 120, "Service Provider", 14), (340, 120, "Client", 14),
             (60, 144, "Name:", 9), (140, 144, "Harbour Tools Ltd", 9), (340, 144, "Name:", 9), (400, 144, "Greenfield Farms", 9),
             (60, 158, "Street:", 9), (140, 158, "12 Quay Street", 9), (340, 158, "Street:", 9), (400, 158, "4 Mill Lane", 9),
             (60, 172, "City:", 9), (140, 172, "Bristol", 9), (340, 172, "City:", 9), (400, 172, "Exeter", 9),
             (60, 186, "Post code:", 9), (140, 186, "BS1 4DJ", 9), (340, 186, "Post code:", 9), (400, 186, "EX4 3PU", 9),
             (340, 200, "Email:", 9), (400, 200, "farm@example.org", 9), (60, 240, "Total 84.00", 9)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Harbour Tools Ltd", "12 Quay Street Bristol BS1 4DJ")
    assert (data["buyer_name"], data["buyer_address"]) == ("Greenfield Farms", "4 Mill Lane Exeter EX4 3PU")


def test_bill_to_labels_and_number_signs_of_more_languages() -> None:
    """"Facturar a:" / "Factuur aan:" head the buyer as "Bill to:" does, and "núm." or "id"
    after the document's name signs its number as "No." does (leading zeros kept)."""
    for label, title in [("Facturar a:", "Factura núm.: 000412"), ("Factuur aan:", "Invoice id: 000412")]:
        lines = [(360, 50, "Talleres Ruiz S.L.", 14), (360, 66, "Calle Mayor 5, 28013 Madrid", 8),
                 (40, 120, label, 8), (40, 134, "Lucía Prieto", 12), (40, 150, "Av. del Puerto 12, 46021 Valencia", 8),
                 (360, 134, title, 12), (360, 240, "Total 84,00 EUR", 9)]
        data = run(pdf(lines), {**PARTY_SCHEMA, "properties": {**PARTY_SCHEMA["properties"],
                                                               "invoice_number": {"type": "string"}}})["data"]
        assert (data["buyer_name"], data["buyer_address"]) == ("Lucía Prieto", "Av. del Puerto 12, 46021 Valencia")
        assert data["invoice_number"] == "000412"


def test_a_table_s_column_labels_name_no_seller() -> None:
    """A bill that names no party: the first row of its item table ("Product Id", "Product
    Name", ...) is the columns' labels, not the seller's name."""
    xs, top = [40, 180, 320, 460, 560], 120
    texts = [(60, 50, "Invoice no.", 12), (150, 50, "2024092345", 12), (60, 70, "Date:", 12), (150, 70, "2024.9.15", 12)]
    for r, row in enumerate([("Product Id", "Product Name", "Amount Purchased", "Total Price"),
                             ("1000", "Annual software licence", "12", "8857.56"), ("1007", "Printer toner", "4", "189.24"),
                             ("1014", "Delivery and handling", "4", "74.0")]):
        texts += [(x + 3, top + 20 * r + 13, cell, 9) for x, cell in zip(xs, row)]
    rules = [(xs[0], xs[-1], top + 20 * r) for r in range(5)]
    uprights = [(x, top, top + 80) for x in xs]
    texts += [(60, 230, "Total Amount Due:", 12), (200, 230, "$9120.8", 12)]
    data = run(drawn_pdf(texts, rules, uprights=uprights), PARTY_SCHEMA)["data"]
    assert data["seller_name"] is None


def test_a_buyer_with_a_legal_form_under_its_label_is_not_the_seller_too() -> None:
    """A sole trader's name at the top right, the buyer a firm ("Garcia S.A.S.") under "Facturé
    à": the firm's legal form does not make it the seller as well."""
    lines = [(460, 40, "Dos Santos", 16), (390, 62, "702, avenue de Regnier, 56260 Lagarde", 8),
             (390, 74, "ines52@example.com", 8), (40, 124, "Facturé à:", 8), (40, 144, "Garcia S.A.S.", 14),
             (40, 162, "153, boulevard Jean Grenier, 40916 BazinBourg", 8), (400, 144, "N° de facture: 2023/7453", 12),
             (400, 300, "Total: 5 264,50 €", 10)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["buyer_name"], data["buyer_address"]) == ("Garcia S.A.S.", "153, boulevard Jean Grenier, 40916 BazinBourg")
    assert (data["seller_name"], data["seller_address"]) == ("Dos Santos", "702, avenue de Regnier, 56260 Lagarde")


def test_forms_side_by_side_in_the_cells_of_one_grid() -> None:
    """The two forms ruled as one grid (``Service Provider`` and ``Client`` heading its columns
    of labels and values): each party is read from its own cells, not from the grid's rows."""
    xs, top = [40, 110, 300, 370, 560], 120
    rows = [("Service Provider", "", "Client", ""), ("Name:", "Harbour Tools Ltd", "Name:", "Greenfield Farms"),
            ("Street:", "12 Quay Street", "Street:", "4 Mill Lane"), ("City:", "Bristol", "City:", "Exeter"),
            ("Post code:", "BS1 4DJ", "Post code:", "EX4 3PU")]
    texts = [(300, 60, "Invoice id: INV-2207", 12), (60, 300, "Total 84.00", 10)]
    texts += [(x + 3, top + 16 * r + 12, cell, 9) for r, row in enumerate(rows) for x, cell in zip(xs, row) if cell]
    rules = [(xs[0], xs[-1], top + 16 * r) for r in range(len(rows) + 1)]
    data = run(drawn_pdf(texts, rules, uprights=[(x, top, top + 16 * len(rows)) for x in xs]), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Harbour Tools Ltd", "12 Quay Street Bristol BS1 4DJ")
    assert (data["buyer_name"], data["buyer_address"]) == ("Greenfield Farms", "4 Mill Lane Exeter EX4 3PU")


def test_a_sender_line_wrapped_onto_a_second_line_over_the_window() -> None:
    """A DIN letter's sender line in small type, too long for the window and wrapped after a dot
    ("… · Studio 79Q, Foster Roads ·" / "Atkinsonmouth S8 8NZ"), over the address written to: the
    sender is the seller, and the postcode's line ends the sender's address, not the buyer's name."""
    lines = [(330, 60, "Invoice No.: S-2025-4052", 10), (68, 150, "Wilson, Bennett and Robertson · Studio 79Q, Foster Roads ·", 6),
             (68, 158, "Atkinsonmouth S8 8NZ", 6), (68, 172, "Williams-Porter", 11), (68, 186, "292 Carly Haven", 11),
             (68, 200, "South Rachelchester M8W 3YR", 11), (68, 280, "Invoice S-2025-4052", 12), (420, 400, "Total 1,304.82", 10)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Wilson, Bennett and Robertson",
                                                             "Studio 79Q, Foster Roads, Atkinsonmouth S8 8NZ")
    assert (data["buyer_name"], data["buyer_address"]) == ("Williams-Porter", "292 Carly Haven South Rachelchester M8W 3YR")


def test_a_sender_line_wrapped_after_its_postcode_is_not_the_buyer_s_name() -> None:
    """The sender line wrapped between its postcode and town ("… · 48052" / "Groß-Gerau"), in
    small print right over the window: its tail is no line of the buyer's name."""
    lines = [(330, 60, "Rechnungsnummer: RG202509972", 10), (68, 150, "Jacobi Jäckel e.G. · Heidelinde-Krause-Straße 4-5 · 48052", 7),
             (68, 158.7, "Groß-Gerau", 7), (68, 172, "Kranz KG", 11), (68, 186, "Linkering 678", 11), (68, 200, "98313 Ilmenau", 11),
             (68, 280, "Rechnung RG202509972", 12), (420, 400, "Gesamtbetrag 5011,39 €", 10)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert data["seller_name"] == "Jacobi Jäckel e.G."
    assert (data["buyer_name"], data["buyer_address"]) == ("Kranz KG", "Linkering 678 98313 Ilmenau")

def test_a_sender_line_ending_in_its_separator_goes_on_even_after_a_house_number() -> None:
    """"Love, Cain and Swanson · 96865 Heather Square Apt. 261 ·" / "Cherylhaven, NH 62710": the
    line ends in its separator, so it goes on, though its house number reads like a postcode."""
    lines = [(330, 60, "Invoice No.: IN-07300", 10), (68, 150, "Love, Cain and Swanson · 96865 Heather Square Apt. 261 ·", 7),
             (68, 158.7, "Cherylhaven, NH 62710", 7), (68, 172, "Melinda Shelton", 11), (68, 186, "889 Christopher Groves", 11),
             (68, 200, "East Caroline, PW 58857", 11), (68, 280, "Invoice IN-07300", 12), (420, 400, "Sum (gross) 5569.51 $", 10)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Love, Cain and Swanson", "Melinda Shelton")

def test_the_sender_line_over_a_person_written_to_is_not_the_person_s_firm() -> None:
    """"Ms Tina Harris" in the window under the sender line "Jenkins Ltd · 5 Sharp Pike · …":
    a firm's line over the person written to is the person's firm, but a sender line is not."""
    lines = [(330, 60, "Invoice No.: 2024-03-1929", 10), (68, 150, "Jenkins Ltd · 5 Sharp Pike · South Marilyn RM6W 7GF", 8),
             (68, 172, "Ms Tina Harris", 11), (68, 186, "385 Connor Rapid", 11), (68, 200, "Walkerville E12 5GF", 11),
             (68, 280, "Invoice 2024-03-1929", 12), (420, 400, "Sum (gross) 1,569.51 £", 10)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Jenkins Ltd", "Ms Tina Harris")

def test_a_window_address_set_large_with_a_british_postcode_keeps_its_lines() -> None:
    """The address written to, set larger than the text (a DIN letter's window), its postcode
    British ("Arthurshire L7A 4NU", no two figures together): an address, not a heading whose
    lines run into one."""
    lines = [(330, 60, "Invoice No.: 2024/7324", 8), (330, 74, "Due date: 06/04/2024", 8),
             (68, 150, "Thompson PLC · 001 Lane Road · Louisfort CV0 6ET", 6), (68, 172, "Geoffrey May", 11),
             (68, 186, "Flat 4, Leslie Rapid", 11), (68, 200, "Arthurshire L7A 4NU", 11),
             (80, 320, "1  Office chair, ergonomic  193.28 £  5.00  966.40 £", 8),
             (80, 334, "2  Printer toner cartridge  55.33 £  20.00  1106.60 £", 8), (420, 360, "Sum (gross)  2072.00 £", 8)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["buyer_name"], data["buyer_address"]) == ("Geoffrey May", "Flat 4, Leslie Rapid Arthurshire L7A 4NU")
    assert data["seller_name"] == "Thompson PLC"


def test_an_address_label_alone_on_its_row_reads_the_rows_under_it() -> None:
    """``Anschrift:`` with nothing beside it, the address on the rows under it: those rows are
    the address (and nothing fails on the empty row)."""
    lines = [(60, 60, "Rechnung Nr. 4711", 12), (60, 100, "Verkäufer", 10), (60, 116, "Name:", 9),
             (260, 116, "Taxi GmbH", 9), (60, 132, "Anschrift:", 9), (260, 146, "Lieferantenstraße 20", 9),
             (260, 158, "10369 Berlin", 9), (60, 300, "Bruttosumme", 9), (480, 300, "18,08", 9)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Taxi GmbH", "Lieferantenstraße 20 10369 Berlin")


def test_a_heading_over_the_customers_details_labels_the_buyer() -> None:
    """"Datos del cliente" heads the buyer's form; its name row ends at the dot leaders before the
    next label on the line."""
    lines = [(60, 50, "Distribuidora Norte S.A.", 12), (60, 64, "Calle Mayor 5, 28013 Madrid", 9),
             (60, 100, "FACTURA Nº 000123", 12), (60, 130, "Datos del cliente", 10),
             (60, 146, "Razón social: Talleres Ruiz . . . . . . . . . . . NIF: B-12345678", 9),
             (60, 160, "Persona de contacto: Ana Ruiz", 9),
             (60, 174, "Dirección fiscal: Av. del Puerto 12, 46021 Valencia", 9),
             (60, 188, "Teléfono: +34 963 000 000", 9), (60, 240, "TOTAL 1.836,80", 9)]
    data = run(pdf(lines), PARTY_SCHEMA)["data"]
    assert data["buyer_name"] == "Talleres Ruiz"
    assert data["buyer_address"] == "Av. del Puerto 12, 46021 Valencia"


def test_parties_in_the_cells_of_a_ruled_table_keep_their_lines() -> None:
    """SELLER and BUYER side by side, each a cell of a ruled table holding a name, a VAT number
    and an address over several lines: the parser keeps a cell's lines, the VAT line is passed
    over, and neither column reads into the other."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    top = 780
    for x in (60, 300, 540):
        c.line(x, top, x, top - 110)
    for y in (top, top - 110):
        c.line(60, y, 540, y)
    cells = [(66, ["SELLER", "Tech Solutions SARL", "FR 12 345 678 901", "15 Rue de la Paix", "75002 Paris"]),
             (306, ["BUYER", "Logistics GmbH", "DE 987654321", "Friedrichstraße 123", "10117 Berlin"])]
    for x, texts in cells:
        for i, t in enumerate(texts):
            c.setFont("Helvetica", 9)
            c.drawString(x, top - 16 - 14 * i, t)
    c.setFont("Helvetica", 9)
    c.drawString(360, top - 160, "Total 2,400.00")
    c.save()
    data = run(buf.getvalue(), PARTY_SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Tech Solutions SARL", "Logistics GmbH")
    assert (data["seller_address"], data["buyer_address"]) == ("15 Rue de la Paix 75002 Paris",
                                                               "Friedrichstraße 123 10117 Berlin")


def test_billing_address_and_invoice_to_label_the_buyer_and_facture_a_regler_does_not() -> None:
    """"Billing Address", "Invoice to", "Adresse de facturation" head the buyer's block (one with
    no postcode, which only its label finds); "Facture à régler par virement" (an invoice to be
    paid) is no buyer label."""
    for label in ("Billing Address:", "Invoice to", "Adresse de facturation"):
        lines = [(60, 50, "Harbour Tools Ltd", 12), (60, 64, "12 Quay Street", 9), (60, 76, "BS1 4DJ Bristol", 9),
                 (330, 120, label, 9), (330, 134, "Greenfield Farms", 9), (330, 146, "4 Mill Lane", 9),
                 (330, 158, "Exeter", 9), (60, 240, "Facture à régler par virement", 9),
                 (60, 260, "Total due 84.00", 9)]
        data = run(pdf(lines), PARTY_SCHEMA)["data"]
        assert data["buyer_name"] == "Greenfield Farms", label
    lines = [(60, 50, "Harbour Tools Ltd", 12), (60, 64, "12 Quay Street", 9), (60, 76, "BS1 4DJ Bristol", 9),
             (60, 240, "Facture à régler par virement sur le compte suivant :", 9),
             (60, 254, "IBAN FR76 3000 6000 0112", 9), (60, 280, "Total due 84.00", 9)]
    assert run(pdf(lines), PARTY_SCHEMA)["data"]["buyer_name"] is None


def test_a_uk_address_with_its_town_and_postcode_on_lines_of_their_own() -> None:
    lines = [(420, 40, "Northwind Energy Ltd", 10), (420, 52, "PO Box 1182", 9), (420, 64, "Leeds", 9),
             (420, 76, "LS1 9XX", 9), (40, 60, "northwind energy", 18),
             (40, 150, "Mr Daniel Hargreaves", 9), (40, 162, "Flat 3, 27 Clarendon Road", 9), (40, 174, "Leeds", 9),
             (40, 186, "LS2 9NZ", 9), (330, 150, "Bill number  300184562719", 9),
             (330, 300, "Amount to pay", 9), (480, 300, "£118.38", 9)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert data["buyer_name"] == "Mr Daniel Hargreaves"
    assert data["buyer_address"].replace(",", "") == "Flat 3 27 Clarendon Road Leeds LS2 9NZ"


def test_a_firm_s_name_going_on_after_its_legal_form_and_a_vat_rate_column() -> None:
    """"TERMOIDRAULICA FERRARESI" / "S.n.c. di Ferraresi Luca & C.": one name; "Aliquota IVA"
    heads the VAT rate (10,00), not the tax."""
    lines = [(176, 48, "TERMOIDRAULICA FERRARESI", 18), (238, 66, "S.n.c. di Ferraresi Luca & C.", 9),
             (148, 92, "Via Emilia Est 1185 - 41122 Modena (MO) - Tel. 059 371 224", 8),
             (51, 140, "Spett.le", 9), (51, 152, "Condominio Le Magnolie", 9), (51, 164, "Via Giardini 470", 9),
             (51, 176, "41124 Modena (MO)", 9), (330, 140, "Numero  45/2024", 9),
             (51, 300, "Aliquota IVA", 9), (200, 300, "Imponibile", 9), (300, 300, "Imposta", 9),
             (51, 312, "10,00", 9), (200, 312, "1.084,40", 9), (300, 312, "108,44", 9),
             (330, 340, "Totale imponibile", 9), (480, 340, "1.084,40", 9),
             (330, 352, "Totale IVA", 9), (480, 352, "108,44", 9),
             (330, 364, "Totale documento EUR", 9), (480, 364, "1.192,84", 9)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert data["seller_name"] == "TERMOIDRAULICA FERRARESI S.n.c. di Ferraresi Luca & C."
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (1084.4, 108.44, 1192.84)


def test_an_irish_fee_note_its_client_beside_a_list_of_labels_and_values() -> None:
    """The address block and the ``Fee Note No:`` / ``Date:`` list to its right are read apart
    (not as rows of one table); the Eircode sits under the town and the Dublin district; the
    outlays "not subject to VAT" are not the VAT."""
    lines = [(163, 50, "O'CALLAGHAN BRENNAN LLP", 18), (144, 86, "14 Fitzwilliam Place, Dublin 2, D02 X285", 8),
             (71, 136, "Ciarán and Aoife Dolan", 10), (71, 149, "7 Seafield Avenue", 10), (71, 162, "Clontarf", 10),
             (71, 175, "Dublin 3", 10), (71, 188, "D03 KX96", 10),
             (346, 136, "Fee Note No:", 10), (414, 136, "24/0312", 10), (346, 149, "Date:", 10),
             (414, 149, "12th March 2024", 10), (346, 162, "Our Ref:", 10), (414, 162, "JB/DOL/0042-23", 10),
             (346, 175, "Your Ref:", 10),
             (71, 300, "Professional fees", 10), (480, 300, "€2,750.00", 10),
             (71, 316, "VAT @ 23% on fees", 10), (480, 316, "€632.50", 10),
             (71, 340, "OUTLAYS (not subject to VAT)", 10), (80, 354, "Land Registry registration fee", 10),
             (400, 354, "€800.00", 10), (71, 380, "TOTAL DUE", 10), (480, 380, "€4,182.50", 10)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert data["invoice_number"] == "24/0312"
    assert data["buyer_name"] == "Ciarán and Aoife Dolan"
    assert data["buyer_address"].replace(",", "") == "7 Seafield Avenue Clontarf Dublin 3 D03 KX96"
    assert (data["tax_amount"], data["total_amount"]) == (632.5, 4182.5)


def test_a_logo_word_set_flush_right_over_the_firm_s_whole_name_is_not_part_of_it() -> None:
    texts = [(539, 40, "KESSLER", 16, "R"), (539, 56, "ZAHNTECHNIK", 8, "R"), (539, 80, "Dentallabor Kessler GmbH", 9, "R"),
             (539, 92, "Hauptstraße 58", 9, "R"), (539, 104, "79104 Freiburg im Breisgau", 9, "R"),
             (60, 150, "Zahnarztpraxis Dr. Weiß", 9), (60, 162, "Kaiser-Joseph-Straße 12", 9), (60, 174, "79098 Freiburg", 9),
             (330, 300, "Gesamtbetrag", 9), (500, 300, "1.240,00 €", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_name"] == "Dentallabor Kessler GmbH"
