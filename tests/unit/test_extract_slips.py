"""Parties, numbers and dates as the held-out bills print them: a Swiss QR-bill's payee label,
a remittance slip's ``To:`` naming the seller, a logo's word over a name printed whole in the
footer, a firm's name with its tax number on one line, an address window whose word spaces line
up, invoice numbers in more languages and under the title, a due date asked for in a sentence."""

from __future__ import annotations

from pipelines.core.models import DocumentInput
from pipelines.engine.document import convert
from pipelines.stages import grid
from pipelines.stages.extract import names, parties, sides
from pipelines.stages.geometry import Word
from tests.support.extract_pdf import drawn_pdf, run
from tests.unit.test_extract_layouts import SCHEMA


def test_a_qr_bill_payee_label_is_no_name() -> None:
    """"Compte / Payable à" over the IBAN and the firm, as the Swiss QR-bill's payment part prints
    it: the label is not the seller's name."""
    texts = [(60, 40, "Atelier Horloger Lucien Berthoud", 12), (60, 56, "Rue du Marché 14, 2300 La Chaux-de-Fonds", 9),
             (360, 110, "Madame", 9), (360, 122, "Élise Perrenoud", 9), (360, 134, "Chemin des Vignes 7", 9),
             (360, 146, "1009 Pully", 9), (60, 190, "Facture n° 2025-087", 11),
             (300, 300, "Total CHF", 9), (500, 300, "1'629.05", 9, "R"),
             (350, 640, "Compte / Payable à", 8), (350, 652, "CH44 3199 9123 0008 8901 2", 8),
             (350, 664, "Atelier Horloger Lucien Berthoud", 8), (350, 676, "Rue du Marché 14", 8),
             (350, 688, "2300 La Chaux-de-Fonds", 8)]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_name"] == "Atelier Horloger Lucien Berthoud"
    assert data["buyer_name"] == "Élise Perrenoud"


def test_a_remittance_slip_to_the_seller_is_not_the_buyer_label() -> None:
    """"To: Kōwhai Coffee … Limited" on the payment advice at the foot addresses the seller:
    the buyer is not the seller, whose name the letterhead prints."""
    texts = [(150, 45, "Kowhai Coffee & Catering Supplies", 14),
             (120, 66, "27 Sturdee Street, Te Aro, Wellington 6011 · 04 555 0193", 8),
             (250, 100, "TAX INVOICE", 12), (345, 134, "Invoice Number", 9), (448, 134, "INV-20417", 9),
             (51, 134, "The Little Fern Café", 9), (51, 146, "88 Jackson Street", 9), (51, 158, "Petone", 9),
             (51, 170, "Lower Hutt 5012", 9), (345, 146, "Invoice Date", 9), (448, 146, "21/05/2025", 9),
             (300, 300, "TOTAL NZD", 9), (540, 300, "1,374.48", 9, "R"),
             (51, 700, "PAYMENT ADVICE", 10), (51, 722, "To: Kowhai Coffee & Catering Supplies Limited", 9),
             (51, 734, "27 Sturdee Street", 9), (51, 746, "Te Aro", 9), (51, 758, "Wellington 6011", 9)]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_name"] == "Kowhai Coffee & Catering Supplies"
    assert data["buyer_name"] != "Kowhai Coffee & Catering Supplies Limited"


def test_an_address_window_whose_word_spaces_line_up_is_no_table() -> None:
    """The word spaces of "The Little Fern Café" / "88 Jackson Street" / "Lower Hutt 5012" fall
    at one x beside a details column: they are no column gutter ("Petone", short, leaves the
    whole width open up to the far column and shows no gap at the gutter's edge)."""
    def row(y: float, *words: tuple[str, float, float]) -> list[Word]:
        return [Word(t, a, y, b, y + 9, 9.0) for t, a, b in words]

    rows = [row(134, ("The", 51, 67), ("Little", 70, 101.6), ("Fern", 105.2, 124), ("Café", 127, 157),
                ("Invoice", 345, 375), ("Number", 378, 413)),
            row(146, ("88", 51, 62), ("Jackson", 65, 101.4), ("Street", 104.6, 134), ("Invoice", 345, 375), ("Date", 378, 400)),
            row(158, ("Petone", 51, 83.5), ("Due", 345, 362), ("Date", 365, 387)),
            row(170, ("Lower", 51, 79), ("Hutt", 82, 103.0), ("5012", 106.2, 129), ("Reference", 345, 392))]
    gutters = grid.gap_columns(rows, 9.0, 51, 413)
    assert [round(x) for x in gutters] == [251]


def test_a_logo_word_over_the_name_is_kept_when_the_footer_prints_them_together() -> None:
    """"FOXGLOVE" set large over "PRINT & DESIGN LTD": the footer's "Foxglove Print & Design Ltd"
    says the logo's word is part of the name; "MOREL & VASSEUR" over "Atelier d'architecture —
    SARL" is the name, the line under it its trade and legal form."""
    texts = [(242, 50, "FOXGLOVE", 22), (251, 68, "PRINT & DESIGN LTD", 11),
             (113, 84, "Unit 7 Riverside Trading Estate, Mill Lane, Stockport, SK4 1RJ", 8),
             (57, 130, "Invoice to:", 9), (300, 130, "Invoice number", 9), (480, 130, "FPD-10872", 9),
             (57, 142, "Pennine Walks CIC", 9), (300, 142, "Account", 9), (480, 142, "PENN01", 9),
             (57, 154, "3 Church Street", 9), (300, 154, "Payment due", 9), (480, 154, "3 July 2025", 9),
             (57, 166, "Hebden Bridge", 9), (57, 178, "HX7 8AB", 9),
             (300, 300, "Invoice total", 9), (540, 300, "£1,555.20", 9, "R"),
             (57, 780, "Foxglove Print & Design Ltd   Registered office: Unit 7 Riverside Trading Estate", 7)]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_name"] == "Foxglove Print & Design Ltd"
    assert data["buyer_name"] == "Pennine Walks CIC"
    assert data["buyer_address"] == "3 Church Street Hebden Bridge HX7 8AB"  # not "Account", "Payment due"
    texts = [(60, 40, "MOREL & VASSEUR", 16), (60, 58, "Atelier d'architecture — SARL d'architecture", 9),
             (60, 70, "12, rue des Carmes", 9), (60, 82, "45000 Orléans", 9),
             (330, 130, "M. et Mme Thomas Garnier", 9), (330, 142, "48, avenue de Paris", 9), (330, 154, "45000 Orléans", 9),
             (60, 220, "NOTE D'HONORAIRES N° 2025-031", 12), (300, 300, "Total TTC", 9), (540, 300, "10 782,72 €", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["invoice_number"]) == ("MOREL & VASSEUR", "2025-031")


def test_a_firm_with_its_tax_number_on_one_line_and_a_contact_over_the_buyer_s_tax_number() -> None:
    """"Distribucions Alimentàries Segarra, S.L. - CIF B25614873" under a logo word: the firm is
    the seller; the buyer's address goes on past the contact's name and the buyer's NIF."""
    texts = [(40, 40, "SEGARRA", 18), (40, 58, "Distribucions Alimentàries", 9),
             (40, 72, "Distribucions Alimentàries Segarra, S.L. - CIF B25614873", 9),
             (40, 84, "Carrer de la Indústria, 48", 9), (40, 96, "25300 Tàrrega (Lleida)", 9),
             (40, 108, "Tel. 973 55 03 18", 9),
             (320, 66, "Núm. factura", 9), (480, 66, "A/2025/03117", 9), (320, 78, "Fecha", 9), (480, 78, "07/10/2025", 9),
             (320, 140, "CLIENTE", 9), (320, 152, "QUEVIURES ROSELL", 9), (320, 164, "Montserrat Rosell Vidal", 9),
             (320, 176, "NIF 40987123-K", 9), (320, 188, "Carrer Major, 17", 9), (320, 200, "25200 Cervera (Lleida)", 9),
             (300, 300, "Total factura", 9), (540, 300, "2.494,10", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_name"] == "Distribucions Alimentàries Segarra, S.L."
    assert (data["buyer_name"], data["buyer_address"]) == ("QUEVIURES ROSELL", "Carrer Major, 17 25200 Cervera (Lleida)")


def test_invoice_numbers_in_more_languages_and_under_the_title() -> None:
    """Finnish "Laskun numero", Mexico's "Serie / Folio", a number alone under "FATURA" and
    "Original"; Portugal's "Data de vencimento" over its date."""
    def number(texts: list[tuple]) -> str | None:
        return run(drawn_pdf(texts), SCHEMA)["data"]["invoice_number"]

    assert number([(40, 40, "Revontuli Systems Oy", 12), (350, 60, "Laskun päiväys", 9), (470, 60, "15.10.2025", 9),
                   (350, 72, "Laskun numero", 9), (470, 72, "10394", 9)]) == "10394"
    assert number([(40, 40, "Distribuidora Agrícola del Bajío, S.A. de C.V.", 10), (400, 40, "FACTURA", 14),
                   (330, 56, "Serie / Folio:", 9), (500, 56, "A 1047", 9)]) == "A 1047"
    texts = [(40, 40, "Marta Sequeira", 12), (520, 40, "FATURA", 14, "R"), (520, 56, "Original", 9, "R"),
             (520, 68, "FT 2024A/148", 9, "R"), (40, 200, "Data de emissão", 9), (200, 200, "Data de vencimento", 9),
             (40, 212, "2024-09-30", 9), (200, 212, "2024-10-15", 9)]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"], data["due_date"]) == ("FT 2024A/148", "2024-09-30", "2024-10-15")


def test_a_due_date_asked_for_in_a_sentence() -> None:
    """"Bitte überweisen Sie den Betrag bis zum 14.04.2025": the date the invoice is due; a
    period's dates are not."""
    texts = [(40, 40, "Jonas Albrecht", 12), (300, 100, "Rechnungsnummer: 2025-014", 9),
             (300, 112, "Rechnungsdatum: 31.03.2025", 9), (300, 124, "Leistungszeitraum: 01.03.–31.03.2025", 9),
             (300, 300, "Gesamtbetrag", 9), (540, 300, "6.973,75 €", 9, "R"),
             (40, 330, "Bitte überweisen Sie den Betrag bis zum 14.04.2025 unter Angabe der Rechnungsnummer", 9)]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_date"], data["due_date"]) == ("2025-03-31", "2025-04-14")


def test_names_without_the_labels_titles_and_streets_read_with_them() -> None:
    """"VAN" and "AAN" over the two parties' blocks (a Dutch partnership, V.O.F., with its
    contact's "t.a.v." line); "FACTURER À / BILL TO" before the buyer on its line; "Messrs."
    before the addressee; the title on the seller's row; the street after the legal form."""
    texts = [(40, 40, "pixelhaven", 14), (480, 40, "FACTUUR", 16),
             (40, 80, "VAN", 8), (40, 92, "Pixelhaven B.V.", 9), (40, 104, "Oudegracht 221", 9), (40, 116, "3511 NH Utrecht", 9),
             (300, 80, "AAN", 8), (300, 92, "Bakkerij Van Dijk V.O.F.", 9), (300, 104, "t.a.v. Marieke van Dijk", 9),
             (300, 116, "Voorstraat 63", 9), (300, 128, "3512 AK Utrecht", 9),
             (40, 170, "Factuurnummer", 9), (40, 182, "PH-2025-041", 9), (330, 300, "Totaal", 9), (540, 300, "€ 6.011,13", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Pixelhaven B.V.", "Bakkerij Van Dijk V.O.F.")
    assert names.bare_name("FACTURER À / BILL TO Groupe Conseil Laurentide inc.") == "Groupe Conseil Laurentide inc."
    assert names.bare_name("Messrs. Kobayashi Design Office Co., Ltd.") == "Kobayashi Design Office Co., Ltd."
    assert names.bare_name("Bílaleigan Norðurljós ehf. REIKNINGUR") == "Bílaleigan Norðurljós ehf."
    assert names.bare_name("Tidepool Analytics, Inc. 548 Market Street") == "Tidepool Analytics, Inc."
    assert names.bare_name("VAN DIJK BOUW B.V.") == "VAN DIJK BOUW B.V."  # a name in capitals keeps its first word


def test_totals_net_and_tax_in_estonian_and_hungarian_and_their_parties_labels() -> None:
    """"Summa km-ta" / "Käibemaks 24%" / "Kokku"; "Nettó összesen" / "ÁFA összesen" /
    "Fizetendő összesen"; "Müüja" and "Ostja" (seller, buyer) over their blocks."""
    def amounts(labels: list[str], figures: list[str]) -> tuple:
        texts = [(40, 40, "Müüja", 8), (40, 52, "Särav Puhastus OÜ", 9), (40, 64, "Turu 45a", 9), (40, 76, "51014 Tartu", 9),
                 (300, 40, "Ostja", 8), (300, 52, "Lõuna Logistika AS", 9), (300, 64, "Ringtee 75", 9),
                 (300, 76, "50105 Tartu", 9)] + [
            t for k, (lab, fig) in enumerate(zip(labels, figures))
            for t in ((330, 300 + 14 * k, lab, 9), (540, 300 + 14 * k, fig, 9, "R"))]
        data = run(drawn_pdf(texts), SCHEMA)["data"]
        return data["seller_name"], data["buyer_name"], data["subtotal"], data["tax_amount"], data["total_amount"]

    assert amounts(["Summa km-ta", "Käibemaks 24%", "Kokku"], ["1 048,50", "251,64", "1 300,14"]) == \
        ("Särav Puhastus OÜ", "Lõuna Logistika AS", 1048.5, 251.64, 1300.14)
    assert amounts(["Nettó összesen", "ÁFA összesen", "Fizetendő összesen"], ["624 691,00", "105 793,00", "730 484,00"])[2:] == \
        (624691.0, 105793.0, 730484.0)


def test_a_statement_s_remittance_stub_faces_the_payer_with_the_payee() -> None:
    """The stub at the head: the patient's window beside "MAKE CHECKS PAYABLE / REMIT TO:" over
    the practice's box; the statement under it names the payer "Responsible party"."""
    texts = [(40, 30, "Cedar Grove Family Dentistry, PLLC", 11),
             (360, 90, "MAKE CHECKS PAYABLE / REMIT TO:", 8),
             (50, 104, "RACHEL OKONKWO", 9), (50, 116, "4312 GARRETT RD APT 12B", 9), (50, 128, "DURHAM NC 27707-5514", 9),
             (360, 104, "CEDAR GROVE FAMILY DENTISTRY PLLC", 9), (360, 116, "PO BOX 52219", 9),
             (360, 128, "DURHAM NC 27717-2219", 9),
             (40, 220, "Responsible party", 8), (40, 232, "Rachel Okonkwo", 9), (40, 244, "4312 Garrett Rd, Apt 12B", 9),
             (40, 256, "Durham, NC 27707", 9), (330, 400, "PLEASE PAY THIS AMOUNT", 9), (540, 400, "$217.60", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("CEDAR GROVE FAMILY DENTISTRY PLLC", "Rachel Okonkwo")


def test_a_freight_bill_s_shipper_and_consignee_are_not_the_seller() -> None:
    """"BILL TO", "SHIPPER / ORIGIN" and "CONSIGNEE / DESTINATION" side by side: the seller is the
    carrier of the letterhead, its street's house number kept ("3400 S 43rd Ave")."""
    texts = [(110, 45, "RED MESA FREIGHT LINES, LLC", 12), (58, 58, "RMF", 14),
             (110, 62, "3400 S 43rd Ave, Phoenix, AZ 85009", 8), (110, 74, "Dispatch (602) 555-0187", 8),
             (440, 45, "FREIGHT INVOICE", 14), (390, 70, "Invoice #", 9), (520, 70, "250318-114", 9),
             (40, 140, "BILL TO", 8), (210, 140, "SHIPPER / ORIGIN", 8), (390, 140, "CONSIGNEE / DESTINATION", 8),
             (40, 152, "Sonoran Produce Logistics, Inc.", 9), (210, 152, "Del Campo Farms Cold Storage", 9),
             (390, 152, "Valley Fresh Distribution Center", 9),
             (40, 164, "455 N Morley Ave", 9), (210, 164, "880 W Frontage Rd", 9), (390, 164, "2201 E 37th St", 9),
             (40, 176, "Nogales, AZ 85621", 9), (210, 176, "Rio Rico, AZ 85648", 9), (390, 176, "Vernon, CA 90058", 9),
             (330, 300, "TOTAL DUE (USD)", 9), (540, 300, "$2,991.52", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("RED MESA FREIGHT LINES, LLC", "3400 S 43rd Ave, Phoenix, AZ 85009")
    assert data["buyer_name"] == "Sonoran Produce Logistics, Inc."


def test_a_name_over_the_logo_s_initials_and_its_legal_line() -> None:
    """"ANDREOU & PARTNERS" / "A&P" (the logo's initials, between them) / "CORPORATE
    SERVICES LTD": the footer prints the whole name, so the legal line read alone grows to it."""
    texts = [(110, 50, "ANDREOU & PARTNERS", 14), (110, 64, "A&P", 9), (110, 78, "CORPORATE SERVICES LTD", 11),
             (40, 780, "Andreou & Partners Corporate Services Ltd      VAT Reg. No. CY10287745K", 7)]
    pages = convert(DocumentInput(data=drawn_pdf(texts), file_name="bill.pdf")).pages
    legal = next(ln for ln in parties.page_lines(pages[0]) if ln.text.strip() == "CORPORATE SERVICES LTD")
    assert sides._with_logo_word(pages, [(legal.text, legal)])[0][0] == "Andreou & Partners Corporate Services Ltd"
