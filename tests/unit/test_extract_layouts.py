"""Invoices as businesses in several countries set them out, each with what it needs read:
an Italian e-invoice's printout (Cedente/Prestatore beside Cessionario/Committente), a North
American bill (a street number that looks like a postcode, a province and postal code, HST,
an e-mail under the address), a UK bill (Net / VAT / Total) and a Swiss one (exkl. MWST)."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines.core.models import DocumentInput, Fragment, PageResult
from pipelines.core.requests import StructuredExtractionOptions
from pipelines.engine.document import convert
from pipelines.stages import extract
from pipelines.stages.extract.blocks import seller_block
from pipelines.stages.extract.items import parse_row
from tests.support.extract_pdf import drawn_pdf, run

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "bench" / "invoices" / "schema.json").read_text())


def _lines(x: float, y: float, rows: list[str], size: float = 9) -> list[tuple]:
    return [(x, y + 12 * i, t, size) for i, t in enumerate(rows)]


def test_an_italian_e_invoice_printout_with_its_two_parties_side_by_side() -> None:
    texts = [(45, 50, "Cedente/Prestatore", 9, "B"), (310, 50, "Cessionario/Committente", 9, "B"),
             *_lines(45, 70, ["Officine Ravelli S.r.l.", "Via Emilia Est 214", "41122 Modena (MO)", "P.IVA IT01234567890"]),
             *_lines(310, 70, ["Meccanica Bertoli S.p.A.", "Via dell'Industria 7", "24040 Stezzano (BG)",
                               "Codice destinatario: M5UXCR1"]),
             (45, 160, "Fattura n. 145/2024 del 28/03/2024", 13),
             (380, 240, "Imponibile", 9.5), (550, 240, "2.640,00", 9.5, "R"), (380, 255, "IVA 22%", 9.5),
             (550, 255, "580,80", 9.5, "R"), (380, 270, "Totale documento", 9.5, "B"), (550, 270, "€ 3.220,80", 9.5, "RB")]
    data = run(drawn_pdf(texts, shades=[(40, 40, 250, 14), (305, 40, 250, 14)]), SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Officine Ravelli S.r.l.", "Meccanica Bertoli S.p.A.")
    assert data["buyer_address"] == "Via dell'Industria 7 24040 Stezzano (BG)"
    assert (data["invoice_number"], data["total_amount"]) == ("145/2024", 3220.8)


def test_a_north_american_bill_with_a_long_street_number_a_postal_code_and_hst() -> None:
    texts = [(40, 50, "Maple Leaf Printing Inc.", 14), *_lines(40, 68, ["2210 Alder St", "Eugene, OR 97405"]),
             (400, 50, "INVOICE", 18), (400, 70, "Invoice # 5521", 9), (400, 82, "Date: 04/15/2024", 9),
             (40, 120, "BILL TO", 8, "B"),
             *_lines(40, 132, ["Northshore Cafe Ltd.", "3050 Lake Shore Blvd W", "Etobicoke, ON M8V 1K3",
                               "accounts@northshore.example"]),
             (380, 250, "Subtotal", 9), (540, 250, "1,000.00", 9, "R"), (380, 262, "HST 13%", 9),
             (540, 262, "130.00", 9, "R"), (380, 274, "Total", 9, "B"), (540, 274, "1,130.00", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_address"] == "2210 Alder St Eugene, OR 97405"
    assert (data["buyer_name"], data["buyer_address"]) == ("Northshore Cafe Ltd.",
                                                          "3050 Lake Shore Blvd W Etobicoke, ON M8V 1K3")
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (1000.0, 130.0, 1130.0)


def test_net_vat_total_and_exkl_mwst() -> None:
    for net, tax, total in (("Net", "VAT 20%", "Total £"), ("Total exkl. MWST", "MWST 8.1 %", "Total inkl. MWST")):
        texts = [(40, 50, "Invoice 77", 14), (380, 250, net, 9), (540, 250, "1,200.00", 9, "R"), (380, 262, tax, 9),
                 (540, 262, "240.00", 9, "R"), (380, 274, total, 9, "B"), (540, 274, "1,440.00", 9, "RB")]
        data = run(drawn_pdf(texts), SCHEMA)["data"]
        assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (1200.0, 240.0, 1440.0), net


def test_a_spanish_buyer_with_its_tax_number_between_name_and_street() -> None:
    texts = [(45, 50, "Reformas Costa Brava S.L.", 14), (45, 66, "CIF B-17654321", 8.5),
             (45, 78, "Carrer de la Riera 22", 8.5), (45, 90, "17300 Blanes", 8.5),
             (380, 50, "FACTURA", 18), (380, 78, "Factura nº:", 9), (470, 78, "2024-A-0078", 9),
             (45, 150, "Datos del cliente", 9, "B"),
             *_lines(45, 164, ["Inmobiliaria Montseny S.A.", "NIF A-08123456", "Avda. Diagonal 401, 3º 2ª",
                               "08008 Barcelona"]),
             (380, 300, "Total", 9, "B"), (540, 300, "4.283,40 €", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["buyer_name"], data["buyer_address"]) == ("Inmobiliaria Montseny S.A.",
                                                          "Avda. Diagonal 401, 3º 2ª 08008 Barcelona")


def test_a_credit_note_credits_the_party_under_credit_to_not_its_account_number() -> None:
    texts = [(45, 50, "Pennant Office Supplies Ltd", 14), *_lines(45, 66, ["88 Commercial Road", "Swansea SA1 1NE"]),
             (420, 50, "CREDIT NOTE", 16), (45, 120, "Credit to:", 9, "B"),
             *_lines(45, 134, ["Ellis & Rowe Solicitors", "5 Walter Road", "Swansea SA1 5NF"]),
             (330, 120, "Credit note no:", 9), (450, 120, "CN-00412", 9), (330, 132, "Date:", 9), (450, 132, "09/04/2024", 9),
             (330, 156, "Customer account:", 9), (450, 156, "PEN-0077", 9),
             (45, 220, "Description", 9, "B"), (330, 220, "Qty", 9, "RB"), (420, 220, "Unit price", 9, "RB"),
             (540, 220, "Net", 9, "RB"),
             (45, 236, "A4 paper 80gsm (box of 5 reams)", 9), (330, 236, "2", 9, "R"), (420, 236, "21.50", 9, "R"),
             (540, 236, "43.00", 9, "R"), (420, 270, "Total credit", 9, "B"), (540, 270, "£43.00", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["buyer_name"], data["buyer_address"]) == ("Ellis & Rowe Solicitors", "5 Walter Road Swansea SA1 5NF")
    assert data["line_items"][0]["description"] == "A4 paper 80gsm (box of 5 reams)"


def test_the_date_labelled_issued_is_the_invoice_date_not_the_first_items_date() -> None:
    texts = [(45, 50, "INVOICE", 18), (330, 90, "Invoice no.", 9), (430, 90, "2024-07", 9),
             (330, 102, "Issued", 9), (430, 102, "31/07/2024", 9), (330, 114, "Due", 9), (430, 114, "14/08/2024", 9),
             (45, 160, "Date", 9, "B"), (110, 160, "Description", 9, "B"), (380, 160, "Hours", 9, "RB"),
             (460, 160, "Rate", 9, "RB"), (540, 160, "Amount", 9, "RB"),
             (45, 176, "02/07/2024", 9), (110, 176, "User interviews", 9), (380, 176, "6.5", 9, "R"),
             (460, 176, "€75.00", 9, "R"), (540, 176, "€487.50", 9, "R"),
             (460, 210, "Total", 9, "B"), (540, 210, "€487.50", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_date"], data["due_date"]) == ("2024-07-31", "2024-08-14")


def test_portuguese_swedish_irish_and_indian_addresses_titles_and_taxes() -> None:
    texts = [(45, 50, "FATURA", 18), (45, 80, "Oficina Ribeiro & Filhos, Lda.", 11),
             *_lines(45, 94, ["Rua das Flores 120", "4050-107 Porto", "NIF 501234567"]),
             (330, 80, "Exmos. Srs.", 9), *_lines(330, 94, ["Quinta do Vale, S.A.", "Av. da Liberdade 45", "1250-142 Lisboa"]),
             (45, 160, "Fatura n.º FT 2024/118", 9), (45, 172, "Data de vencimento: 08/06/2024", 9),
             (420, 270, "Total a pagar", 9, "B"), (540, 270, "29,52 €", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Oficina Ribeiro & Filhos, Lda.", "Rua das Flores 120 4050-107 Porto")
    assert (data["buyer_name"], data["buyer_address"]) == ("Quinta do Vale, S.A.", "Av. da Liberdade 45 1250-142 Lisboa")
    assert data["due_date"] == "2024-06-08"
    # a unit word is a count's unit only after the count: "units" is the item's own word here
    assert parse_row("Emergency lighting units  12.00  24.00") == {"amount": "24.00", "unit_price": "12.00",
                                                                   "description": "Emergency lighting units"}
    assert parse_row("Trennblätter A4 20 Stk. 9,90 198,00")["quantity"] == "20"
    texts = [(45, 50, "Varbergs Snickeri AB", 14), *_lines(45, 66, ["Kungsgatan 12", "432 45 Varberg"]),
             (380, 250, "Netto", 9), (540, 250, "18 880,00", 9, "R"), (380, 262, "Moms 25 %", 9),
             (540, 262, "4 720,00", 9, "R"), (380, 274, "I alt", 9, "B"), (540, 274, "23 600,00", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_address"] == "Kungsgatan 12 432 45 Varberg"
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (18880.0, 4720.0, 23600.0)


def test_a_stamp_duty_is_no_tax() -> None:
    texts = [(45, 50, "Fattura n. 9/2024 del 02/04/2024", 12), (380, 250, "Imponibile", 9), (540, 250, "600,00", 9, "R"),
             (380, 262, "IVA 22%", 9), (540, 262, "132,00", 9, "R"), (380, 274, "Imposta di bollo", 9),
             (540, 274, "2,00", 9, "R"), (380, 286, "Totale documento", 9, "B"), (540, 286, "734,00", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (600.0, 132.0, 734.0)


def test_a_totals_table_whose_amounts_group_thousands_with_spaces() -> None:
    texts = [(45, 50, "FACTURE N° 2024-88", 14), (300, 250, "Total HT", 9, "B"), (380, 250, "TVA", 9, "B"),
             (460, 250, "Total TTC", 9, "B"), (300, 264, "1 200,00", 9), (380, 264, "240,00", 9), (460, 264, "1 440,00", 9)]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (1200.0, 240.0, 1440.0)


def test_an_indian_gst_invoice_in_lakhs_with_its_tax_split_in_two() -> None:
    """Amounts grouped the Indian way (1,03,900.00), a "Taxable Value" for the net, and the tax
    printed as its central and state halves: the tax is their sum, since net + both = total."""
    texts = [(40, 50, "Shree Ganesh Textiles Pvt. Ltd.", 12), (400, 50, "Invoice No.: SGT/24-25/0193", 9),
             (360, 250, "Taxable Value", 9), (540, 250, "1,03,900.00", 9, "R"),
             (360, 262, "CGST @ 2.5%", 9), (540, 262, "2,597.50", 9, "R"),
             (360, 274, "SGST @ 2.5%", 9), (540, 274, "2,597.50", 9, "R"),
             (360, 290, "Grand Total", 11, "B"), (540, 290, "₹ 1,09,095.00", 11, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (103900.0, 5195.0, 109095.0)


def test_two_tax_rows_that_do_not_add_up_to_the_total_are_not_summed() -> None:
    """A VAT row and its repetition in a summary: net + one of them is the total, so one is the tax."""
    texts = [(40, 50, "Invoice 88", 14), (380, 250, "Net", 9), (540, 250, "500.00", 9, "R"),
             (380, 262, "VAT 20%", 9), (540, 262, "100.00", 9, "R"), (380, 274, "VAT amount", 9),
             (540, 274, "100.00", 9, "R"), (380, 290, "Total", 9, "B"), (540, 290, "600.00", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (500.0, 100.0, 600.0)


def test_a_header_of_labels_of_several_words_over_one_row_of_sums() -> None:
    """A Swedish bill's sums: a header of four labels, two of them two words, over four amounts
    that group their thousands with spaces; each label reads the amount under it."""
    texts = [(40, 50, "Faktura 20417", 14), (300, 250, "Exkl. moms  Moms 25 %  Öresavrundning  Att betala", 8),
             (300, 262, "18 880,00  4 720,00  0,00  SEK 23 600,00", 9)]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (18880.0, 4720.0, 23600.0)



def test_a_hotel_folio_with_its_details_beside_the_guest_and_a_vat_summary_of_labels() -> None:
    """A hotel's folio as the parser reads it: one table whose rows hold the guest's address, then
    a label and its value (Room 214, Arrival…, Folio No. 88172), and a VAT summary whose header
    says Rate / Net / VAT / Gross over one row."""
    rows = [["Mr Tomasz Brandt", "", "Room", "214"], ["Veridian Surveys Ltd", "", "Arrival", "03/06/2024"],
            ["44 Albion Street", "", "Departure", "06/06/2024"], ["Glasgow G1 1LH", "", "Folio No.", "88172"],
            ["", "", "Invoice Date", "06/06/2024"], ["", "", "Cashier", "ANNA"]]
    page = PageResult(page_number=1, width=595, height=842, fragments=[
        Fragment(fragment_type="section_header", content={"content": "The Harbour View Hotel", "level": 1},
                 bbox=_box(200, 40, 400, 60)),
        Fragment(fragment_type="table", content={"rows": rows}, bbox=_box(40, 120, 555, 200)),
        Fragment(fragment_type="text", content={"content": "Total Charges"}, bbox=_box(300, 300, 380, 310)),
        Fragment(fragment_type="text", content={"content": "352.50"}, bbox=_box(520, 300, 550, 310)),
        Fragment(fragment_type="text", content={"content": "Rate  Net  VAT  Gross\n20%  293.75  58.75  352.50"},
                 bbox=_box(40, 340, 300, 365))])
    data = extract.extract_pages([page], StructuredExtractionOptions(schema_name="s", json_schema=SCHEMA)).data
    assert (data["invoice_number"], data["invoice_date"]) == ("88172", "2024-06-06")
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (293.75, 58.75, 352.5)


def test_sums_in_a_ruled_cell_of_several_lines_beside_their_amounts() -> None:
    """Items ruled off under their heads and above the sums, not between rows: the parser reads
    the sums as one cell "Subtotal / VAT (20%) / TOTAL" beside one cell of their three amounts.
    Each label goes with the amount on its own line, not the three labels with the three sums."""
    rows = [["Unit", "Amount"], ["£557.54\n£288.91\n£38.48", "£5,575.40\n£3,466.92\n£384.80"],
            ["Subtotal\nVAT (20%)\nTOTAL", "£9,427.12\n£1,885.42\n£11,312.54"]]
    page = PageResult(page_number=1, width=612, height=792, fragments=[
        Fragment(fragment_type="section_header", content={"content": "INVOICE", "level": 1}, bbox=_box(54, 50, 140, 66)),
        Fragment(fragment_type="text", content={"content": "Description\nLogo design\nWebsite maintenance (monthly)"},
                 bbox=_box(54, 276, 210, 343)),
        Fragment(fragment_type="table", content={"rows": rows}, bbox=_box(418, 276, 566, 397))])
    data = extract.extract_pages([page], StructuredExtractionOptions(schema_name="s", json_schema=SCHEMA)).data
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (9427.12, 1885.42, 11312.54)


def _box(x1: float, y1: float, x2: float, y2: float) -> dict:
    return {"x1": x1, "y1": y1, "x2": x2, "y2": y2}


def test_a_dutch_letterhead_whose_street_follows_a_large_name() -> None:
    """A name set large over its street in a slightly smaller size: ``Wilgenlaan 17`` is the
    street (its number last, as Continental Europe writes it), not the name going on."""
    texts = [(40, 50, "FACTUUR", 20, "B"), (555, 48, "Klusbedrijf De Vries", 12, "RB"),
             (555, 64, "Wilgenlaan 17", 10, "R"), (555, 76, "3581 KD Utrecht", 10, "R"),
             (555, 88, "KvK 81234567", 10, "R"), (40, 130, "Aan:", 8),
             *_lines(40, 142, ["Bouwbedrijf Van Leeuwen B.V.", "Industrieweg 44", "3542 AD Utrecht"], 8),
             *_lines(340, 142, ["Factuurnummer: 2024-0412", "Factuurdatum: 30-04-2024", "Vervaldatum: 30-05-2024"], 8),
             *[(40, 220 + 10 * k, f"Timmerwerk week {k} (uren)  38  € 42,50  € 1.615,00", 7.5) for k in range(12)],
             (380, 330, "Totaal", 9, "B"), (540, 330, "€ 12.920,00", 9, "RB")]
    pdf = drawn_pdf(texts)
    data = run(pdf, SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Klusbedrijf De Vries", "Wilgenlaan 17 3581 KD Utrecht")
    name, address = seller_block(convert(DocumentInput(data=pdf)).pages)  # the letterhead's own reading
    assert ([t for t, _ in name], [t for t, _ in address]) == (["Klusbedrijf De Vries"],
                                                               ["Wilgenlaan 17", "3581 KD Utrecht"])


def test_a_letterhead_line_with_the_address_then_telephone_and_e_mail_after_dots() -> None:
    """An Irish letterhead prints its address, telephone and e-mail on one line between dots:
    the address is the part before the telephone, not the customer's lines further down."""
    texts = [(40, 45, "Murphy & Kinsella Electrical Ltd", 15, "B"),
             (40, 62, "Unit 7, Ballybrit Business Park, Galway H91 X2C4 · 091 770 215 · accounts@mkelectrical.ie", 8),
             (40, 74, "VAT No. IE 3456789KH · CRO 612345", 8), (40, 110, "VAT INVOICE", 14, "B"),
             (40, 140, "Customer:", 8, "B"),
             *_lines(40, 152, ["O'Donovan's Pharmacy", "14 Main Street", "Clonakilty, Co. Cork", "P85 YK30"]),
             (380, 300, "Invoice Total €", 9, "B"), (540, 300, "853.64", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_address"] == "Unit 7, Ballybrit Business Park, Galway H91 X2C4"
    assert data["buyer_address"] == "14 Main Street Clonakilty, Co. Cork P85 YK30"


def test_a_mexican_cfdi_printout_with_its_tax_lines_a_receptor_and_a_stated_currency() -> None:
    """The issuer's RFC and tax regime between its name and its street, the buyer under
    "Receptor" as a form, and "Moneda: MXN" over the "$" of its amounts."""
    texts = [(40, 45, "Distribuidora de Limpieza del Bajío, S.A. de C.V.", 12, "B"), (430, 45, "FACTURA", 16, "B"),
             *_lines(40, 62, ["RFC: DLB150312KT9", "Régimen fiscal: 601 General de Ley Personas Morales",
                              "Blvd. Adolfo López Mateos 2310 Ote., Col. Jardines del Moral",
                              "C.P. 37160, León, Guanajuato"], 8.5),
             (40, 130, "Receptor", 9, "B"), (40, 144, "Nombre:", 8.5), (140, 144, "Abarrotes La Esperanza, S.A. de C.V.", 8.5),
             (40, 156, "RFC:", 8.5), (140, 156, "ALE0807224N1", 8.5),
             (380, 250, "Subtotal", 9), (540, 250, "$27,192.50", 9, "R"), (380, 262, "IVA Trasladado 16%", 9),
             (540, 262, "$4,350.80", 9, "R"), (380, 274, "Total", 9, "B"), (540, 274, "$31,543.30", 9, "RB"),
             (40, 300, "Moneda:  MXN - Peso Mexicano", 8.5)]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_address"] == "Blvd. Adolfo López Mateos 2310 Ote., Col. Jardines del Moral C.P. 37160, León, Guanajuato"
    assert (data["buyer_name"], data["currency"]) == ("Abarrotes La Esperanza, S.A. de C.V.", "MXN")


def test_an_address_ends_before_a_trn_line_and_currencies_of_more_countries() -> None:
    from pipelines.stages.extract.roles import currencies

    texts = [(40, 45, "Falcon Logistics LLC", 13, "B"),
             *_lines(40, 62, ["Office 1204, Al Moosa Tower 2", "Sheikh Zayed Road, P.O. Box 118245", "Dubai",
                              "TRN 100345678900003"], 8.5),
             (380, 250, "Total", 9, "B"), (540, 250, "AED12,495.00", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_address"] == "Office 1204, Al Moosa Tower 2 Sheikh Zayed Road, P.O. Box 118245 Dubai"
    assert currencies("Celkem 57 142,00 Kč") == ["CZK"] and currencies("AED12,495.00") == ["AED"]


def test_a_czech_tax_document_with_spaced_dates_and_its_own_words_for_the_sums() -> None:
    texts = [(40, 45, "FAKTURA – DAŇOVÝ DOKLAD", 14, "B"), (40, 70, "Stavebniny Horák s.r.o.", 10, "B"),
             (40, 120, "Datum vystavení:", 8.5), (170, 120, "12. 3. 2024", 8.5),
             (40, 132, "Datum splatnosti:", 8.5), (170, 132, "26. 3. 2024", 8.5),
             (330, 250, "Základ", 9), (540, 250, "47 225,00", 9, "R"), (330, 262, "DPH 21 %", 9),
             (540, 262, "9 917,25", 9, "R"), (330, 274, "Celkem k úhradě", 9, "B"), (540, 274, "57 142,25", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_date"], data["due_date"]) == ("2024-03-12", "2024-03-26")
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (47225.0, 9917.25, 57142.25)


def test_a_number_after_its_sign_under_the_title_and_an_amount_with_its_code_glued() -> None:
    texts = [(40, 45, "Al Noor Facility Services L.L.C", 12, "B"), (555, 45, "TAX INVOICE", 18, "RB"),
             (555, 68, "# INV-000318", 9, "R"), (380, 250, "Sub Total", 9), (540, 250, "11,900.00", 9, "R"),
             (380, 262, "VAT (5%)", 9), (540, 262, "595.00", 9, "R"), (380, 274, "Total", 9, "B"),
             (540, 274, "AED12,495.00", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_number"], data["total_amount"], data["currency"]) == ("INV-000318", 12495.0, "AED")


def test_the_total_of_an_invoice_with_a_deposit_is_not_the_balance_left_to_pay() -> None:
    """Total 8,848.85, a deposit of 2,500.00, balance due 6,348.85 (also repeated in the header
    box): the invoice's total is 8,848.85."""
    texts = [(40, 45, "Hartwell Home Renovations LLC", 13, "B"), (380, 110, "Balance Due (USD):  $6,348.85", 9),
             (300, 250, "Subtotal:", 9), (550, 250, "$8,612.50", 9, "R"), (300, 262, "Sales Tax 7.25%:", 9),
             (550, 262, "$236.35", 9, "R"), (300, 274, "Total:", 9, "B"), (550, 274, "$8,848.85", 9, "RB"),
             (300, 286, "Deposit received May 6, 2024:", 9), (550, 286, "-$2,500.00", 9, "R"),
             (300, 298, "Balance Due (USD):", 9, "B"), (550, 298, "$6,348.85", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["total_amount"] == 8848.85


def test_a_marketplace_seller_label_and_a_contact_line_under_the_buyer() -> None:
    texts = [(40, 45, "amazon.it", 14, "B"), (40, 80, "Venduto da: Ferramenta Moretti S.r.l.", 9),
             (40, 92, "Via Roma 18, 20121 Milano", 9), (330, 80, "Rechnungsadresse", 8, "B"),
             *_lines(330, 92, ["Fliesen Aigner KG", "z. H. Herrn Stefan Aigner", "Industriezeile 36", "4020 Linz"]),
             (380, 250, "Totale", 9, "B"), (540, 250, "86,37", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Ferramenta Moretti S.r.l.", "Fliesen Aigner KG")


def test_the_due_date_a_sentence_of_payment_terms_gives() -> None:
    """"by 28th May 2024", "vence el 14 de abril de 2024", and of SAP's two dates the one
    without the discount ("bis 28.03.2024 abzüglich 2 % Skonto, bis 13.04.2024 ohne Abzug")."""
    for terms, due in (("Payment terms: 14 days, i.e. by 28th May 2024.", "2024-05-28"),
                       ("Condiciones de pago:  Crédito 30 días, vence el 14 de abril de 2024", "2024-04-14"),
                       ("Zahlungsbedingungen: bis 28.03.2024 abzüglich 2 % Skonto,", "2024-04-13")):
        texts = [(40, 45, "Invoice 2024-118", 14, "B"), (40, 70, "Date: 14.03.2024", 9),
                 (380, 250, "Total", 9, "B"), (540, 250, "1,850.00", 9, "RB"), (40, 300, terms, 8.5),
                 (40, 312, "bis 13.04.2024 ohne Abzug." if "Skonto" in terms else "Thank you.", 8.5)]
        data = run(drawn_pdf(texts), SCHEMA)["data"]
        assert data["due_date"] == due, terms


def test_a_chinese_exporter_whose_postcode_has_six_figures_before_the_country() -> None:
    """"Ningbo, Zhejiang 315800, China" is the exporter's address line, not a reason to take
    the buyer's Dutch postcode further down for it."""
    texts = [(150, 45, "NINGBO HAIRUN HOUSEWARE CO., LTD.", 13, "B"),
             (60, 62, "No. 88 Jinhai Road, Beilun District, Ningbo, Zhejiang 315800, China", 8),
             (60, 74, "Tel: +86 574 8688 1234 Email: sales@hairun-houseware.com", 8),
             (200, 110, "PROFORMA INVOICE", 14, "B"), (40, 140, "Messrs:", 9),
             *_lines(95, 140, ["Kitchenworks Europe B.V.", "Nijverheidsweg 21", "5683 CJ Best", "The Netherlands"]),
             (380, 300, "TOTAL", 9, "B"), (540, 300, "18,420.00", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_address"] == "No. 88 Jinhai Road, Beilun District, Ningbo, Zhejiang 315800, China"


def test_values_down_the_right_edge_are_read_with_their_rows() -> None:
    """Dates, an item's amount and the total right-aligned at the edge, nothing else that far
    right: a strip of whitespace runs down the page beside them. They are the last cells of
    their rows, not a column read after the page (nor a table of their own that cuts
    "9 480,64" at its space)."""
    texts = [(330, 40, "Invoice number", 14), (560, 40, "2024103993", 14, "R"),
             (40, 90, "Supplier", 10, "B"), (330, 90, "Customer", 10, "B"),
             *_lines(40, 110, ["Dvorakova o.s.", "Namesti Pavlova 7", "674 83, Novy Bydzov", "Ceska republika"]),
             *_lines(330, 110, ["Emil Zeman", "Pod Spiritkou 5", "368 64, Rozmital", "Ceska republika"]),
             (40, 200, "Payment terms", 10, "B"),
             (120, 220, "Bank:", 9), (220, 220, "Raiffeisenbank", 9), (330, 220, "Issue date:", 9),
             (560, 220, "25. 10. 2024", 9, "R"), (120, 232, "Account:", 9), (220, 232, "298902655/5500", 9),
             (330, 232, "Due date:", 9), (560, 232, "09. 12. 2024", 9, "R"),
             (120, 244, "Reference:", 9), (220, 244, "2024103993", 9),
             (40, 300, "Item", 9, "B"), (330, 300, "Qty", 9, "B"), (370, 300, "Unit", 9, "B"),
             (430, 300, "Unit price", 9, "B"), (560, 300, "Price", 9, "B"),
             (40, 320, "Office chair", 9), (350, 320, "2", 9, "R"), (370, 320, "pcs", 9),
             (480, 320, "4 740,32 CZK", 9, "R"), (560, 320, "9 480,64 CZK", 9, "R"),
             (40, 350, "Total price:", 10, "B"), (560, 350, "9 480,64 CZK", 10, "RB"),
             (100, 420, "Registered in the commercial register of the regional court, section C", 8)]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_date"], data["due_date"]) == ("2024-10-25", "2024-12-09")
    assert data["total_amount"] == 9480.64
    text = "\n".join(str(f.content.get("content") or f.content.get("markdown") or "")
                     for p in convert(DocumentInput(data=drawn_pdf(texts))).pages for f in p.fragments)
    assert text.index("Due date:") < text.index("09. 12. 2024") < text.index("Office chair")
    assert "9 480,64 CZK" in text
