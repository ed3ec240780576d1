"""Parties said by labels on the line (``Sold By: …``, ``Ship-from Address: …``) and two parties'
labels side by side on one line (``Billing Address   Shipping Address``), as marketplace and
retail invoices print them: the labels are not names, and an address ends at the gap before the
items."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.extract_pdf import drawn_pdf, pdf, run

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "bench" / "invoices" / "schema.json").read_text())


def test_sold_by_on_its_line_and_billing_beside_shipping_address() -> None:
    lines = [(40, 50, "Tax Invoice", 16),
             (40, 80, "Sold By: Kestrel Retail Private Limited,", 9), (330, 80, "Invoice Number: KR-2231", 9),
             (40, 92, "Ship-from Address: 12 Mill Road, Bengaluru 560001", 9), (330, 92, "Invoice Date: 03-04-2024", 9),
             (40, 130, "Billing Address", 9), (250, 130, "Shipping Address", 9),
             (40, 142, "Asha Rao", 9), (250, 142, "Asha Rao", 9),
             (40, 154, "44 Lake View, Pune 411001", 9), (250, 154, "44 Lake View, Pune 411001", 9),
             (40, 200, "Product", 9), (250, 200, "Qty", 9), (330, 200, "Price", 9), (450, 200, "Total", 9),
             (40, 214, "Steel Bottle 1L", 9), (250, 214, "2", 9), (330, 214, "450.00", 9), (450, 214, "900.00", 9),
             (330, 240, "Grand Total", 9), (450, 240, "900.00", 9)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert data["seller_name"] == "Kestrel Retail Private Limited"
    assert data["seller_address"] == "12 Mill Road, Bengaluru 560001"
    assert (data["buyer_name"], data["buyer_address"]) == ("Asha Rao", "44 Lake View, Pune 411001")
    assert data["total_amount"] == 900.0


def test_a_din_letter_invoice_names_the_buyer_firm_not_its_contact_person() -> None:
    """The seller's letterhead and sender line over the window; in the window the firm and, under
    it, the person it is for: the buyer is the firm."""
    lines = [(40, 40, "Muster GmbH", 18), (380, 40, "Muster GmbH", 9), (380, 52, "Hauptstraße 1", 9),
             (380, 64, "10115 Berlin", 9), (40, 110, "Muster GmbH · Hauptstr. 1 · 10115 Berlin", 6),
             (40, 124, "Firma", 9), (40, 136, "Beispiel AG", 9), (40, 148, "Herrn Max Mustermann", 9),
             (40, 160, "Industriestr. 5", 9), (40, 172, "70565 Stuttgart", 9),
             (380, 200, "Rechnungsnr.: 2024-117", 9), (380, 212, "Datum: 12.03.2024", 9), (40, 240, "Rechnung", 14),
             (360, 320, "Nettobetrag", 9), (470, 320, "1.000,00 €", 9),
             (360, 332, "zzgl. 19% USt", 9), (470, 332, "190,00 €", 9),
             (360, 344, "Rechnungsbetrag", 9), (470, 344, "1.190,00 €", 9)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Muster GmbH", "Beispiel AG")
    assert data["buyer_address"] == "Industriestr. 5 70565 Stuttgart"
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (1000.0, 190.0, 1190.0)


def test_a_dutch_buyer_under_aan_and_the_seller_address_on_the_letterhead_line() -> None:
    lines = [(40, 40, "Bakkerij de Vries B.V.", 14), (40, 58, "Dorpsstraat 12, 1234 AB Utrecht", 9),
             (40, 70, "KvK 12345678  BTW NL001234567B01", 9),
             (40, 110, "Factuur", 16), (40, 130, "Factuurnummer: 2024-0088", 9), (40, 142, "Factuurdatum: 12-03-2024", 9),
             (330, 110, "Aan:", 9), (330, 122, "Café Het Hoekje", 9), (330, 134, "Marktplein 3", 9),
             (330, 146, "3511 LK Utrecht", 9), (340, 240, "Totaal", 9), (470, 240, "€ 76,30", 9)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Bakkerij de Vries B.V.", "Dorpsstraat 12, 1234 AB Utrecht")
    assert (data["buyer_name"], data["buyer_address"]) == ("Café Het Hoekje", "Marktplein 3 3511 LK Utrecht")


def test_a_german_invoice_with_a_sender_line_a_details_box_and_small_print_at_its_foot() -> None:
    """The window holds the buyer under the sender's one-line address; the details box beside it
    lines up with the window into one table; the legal and bank lines at the foot, in small
    print, outnumber the page's other words and do not make the totals' labels a heading."""
    lines = [(40, 110, "Musterfirma GmbH · Ringstr. 3 · 50667 Köln", 6),
             (40, 124, "Elektro Schmitz KG", 9), (40, 136, "Am Markt 8", 9), (40, 148, "53111 Bonn", 9),
             (40, 200, "Rechnung", 16),
             (360, 124, "Rechnungsnummer", 8), (460, 124, "RE-2024-0815", 8),
             (360, 136, "Rechnungsdatum", 8), (460, 136, "04.03.2024", 8),
             (360, 148, "Kundennummer", 8), (460, 148, "10023", 8),
             (360, 300, "Summe netto", 8), (470, 300, "130,00 €", 8), (360, 312, "USt. 19 %", 8), (470, 312, "24,70 €", 8),
             (360, 324, "Gesamtbetrag", 8), (470, 324, "154,70 €", 8),
             (40, 360, "Zahlbar innerhalb von 14 Tagen bis 18.03.2024.", 8),
             (40, 780, "Musterfirma GmbH · Ringstraße 3 · 50667 Köln · Geschäftsführer: Hans Muster · HRB 12345 Köln · "
                       "USt-IdNr. DE123456789", 6),
             (40, 790, "Kreissparkasse Köln · IBAN DE12 3705 0299 0000 1234 56 · BIC COKSDE33", 6)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"], data["due_date"]) == ("RE-2024-0815", "2024-03-04",
                                                                                 "2024-03-18")
    assert (data["seller_name"], data["seller_address"]) == ("Musterfirma GmbH", "Ringstr. 3, 50667 Köln")
    assert (data["buyer_name"], data["buyer_address"]) == ("Elektro Schmitz KG", "Am Markt 8 53111 Bonn")
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (130.0, 24.7, 154.7)


def test_an_italian_invoice_numbered_n_and_a_buyer_under_spettabile() -> None:
    lines = [(40, 40, "Rossi Impianti S.r.l.", 14), (40, 56, "Via Roma 10", 9), (40, 68, "20121 Milano (MI)", 9),
             (330, 110, "Spett.le", 9), (330, 122, "Bianchi Costruzioni S.p.A.", 9), (330, 134, "Corso Italia 22", 9),
             (330, 146, "10121 Torino (TO)", 9), (40, 180, "Fattura n. 12/2024 del 15/03/2024", 11),
             (350, 260, "Imponibile", 9), (470, 260, "200,00", 9), (350, 272, "IVA 22%", 9), (470, 272, "44,00", 9),
             (350, 284, "Totale documento", 9), (470, 284, "244,00", 9)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"]) == ("12/2024", "2024-03-15")
    assert (data["buyer_name"], data["buyer_address"]) == ("Bianchi Costruzioni S.p.A.", "Corso Italia 22 10121 Torino (TO)")
    assert data["total_amount"] == 244.0


def test_labels_the_layout_joined_and_a_label_beside_another_label() -> None:
    """A header row of labels read as one cell ("Invoice no. Issue date" over "OA-0772
    2024-07-01") gives each label its word; "Billed To" beside "Date of Issue" has no value there
    (its name is below it); an identifier under "Käufer" is not the buyer's name."""
    texts = [(40, 45, "Orrin Acoustics Ltd", 14, "B"), (40, 62, "Studio 12, Tanner's Yard", 8),
             (40, 74, "Bristol BS1 4RN", 8),
             (40, 120, "Invoice no. Issue date", 8, "B"), (40, 132, "OA-0772 2024-07-01", 9),
             (40, 170, "Billed To", 8, "B"), (200, 170, "Date of Issue", 8, "B"),
             (40, 182, "Fenwick Hollis Architects", 9), (200, 182, "02/07/2024", 9),
             (40, 194, "9 Broad Quay", 9), (40, 206, "Bristol BS1 4DJ", 9),
             (380, 300, "Total", 9, "B"), (540, 300, "2,937.60", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"]) == ("OA-0772", "2024-07-01")
    assert data["buyer_name"] == "Fenwick Hollis Architects"


def test_portuguese_number_and_issue_date_labels() -> None:
    from pipelines.stages.extract.lexicon import gloss, known_label

    assert [gloss(t) for t in ("Fatura n.º", "Fatura-recibo n.º", "Data de emissão", "Issue date")] == [
        "invoice number", "invoice number", "invoice date", "invoice date"]
    assert known_label("Date of Issue") and not known_label("MUSTER-KUNDE GMBH")


def test_a_credit_note_gives_its_own_number_and_date_not_those_of_the_invoice_it_corrects() -> None:
    texts = [(40, 45, "Baustoffe Wimmer GmbH", 13, "B"), (330, 90, "Linz, am 18. April 2024", 9),
             (40, 140, "GUTSCHRIFT", 16, "B"),
             (40, 170, "Gutschrift-Nr.:", 9), (160, 170, "GS-2024-0009", 9),
             (40, 182, "zu Rechnung Nr.:", 9), (160, 182, "RE-2024-0412 vom 2. April 2024", 9),
             (380, 300, "Gutschriftsbetrag", 9, "B"), (540, 300, "-288,00", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"]) == ("GS-2024-0009", "2024-04-18")
    from pipelines.stages.extract.roles import own_numbers

    assert [m.group("id") for m in own_numbers("BILL TO  Invoice Number:  0031")] == ["0031"]
    assert own_numbers("zu Rechnung Nr.:  RE-2024-0412") == []


def test_an_e_mail_ending_in_co_is_neither_the_seller_nor_a_name() -> None:
    """A letterhead set right whose last line is "studio@emberoak.co" ("co" reads as a legal
    form): the seller is the firm's name at its head; an e-mail is never a name."""
    from pipelines.stages.extract.roles import Role, fits

    texts = [(40, 60, "EMBER & OAK", 18),
             *[(555, 50 + 12 * i, t, 8.5, "RB" if i == 0 else "R") for i, t in enumerate(
                 ["Ember & Oak Creative", "415 N Broadway, Suite 300", "Milwaukee, WI 53202", "(414) 555-0127",
                  "studio@emberoak.co"])],
             (40, 140, "Billed To", 8, "B"), (40, 153, "Lakeshore Dental Group", 9), (40, 165, "9100 W Bluemound Rd", 9),
             (40, 177, "Wauwatosa, WI 53226", 9), (200, 140, "Date of Issue", 8, "B"), (200, 153, "02/12/2024", 9),
             (380, 300, "Total", 9, "B"), (540, 300, "3,196.65", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Ember & Oak Creative", "Lakeshore Dental Group")
    assert not fits(Role("name", "buyer"), "hello@orrinacoustics.co.uk") and fits(Role("name", "buyer"), "Orrin Ltd")


def test_a_to_label_with_the_name_beside_it_and_the_address_under_the_name() -> None:
    """A letter-style invoice: "To:" with the buyer's name just right of it, the address under
    the name, and a "For:" line under the label that is no part of the buyer."""
    texts = [(545, 45, "Eleanor Whitcombe", 13, "RB"), (545, 62, "17 Abbey Gardens", 9, "R"),
             (545, 74, "Canterbury", 9, "R"), (545, 86, "Kent CT1 2ER", 9, "R"), (55, 150, "INVOICE", 16, "B"),
             (55, 200, "To:", 9, "B"), (80, 200, "Marlowe Bay Publishing Ltd", 9),
             (80, 212, "2nd Floor, 9 Castle Street", 9), (80, 224, "Canterbury", 9), (80, 236, "Kent CT1 2PR", 9),
             (55, 262, "For: copywriting and editing, April 2024", 9),
             (380, 330, "Total due:", 9, "B"), (540, 330, "1,850.00 GBP", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["buyer_name"] == "Marlowe Bay Publishing Ltd"
    assert data["buyer_address"] == "2nd Floor, 9 Castle Street Canterbury Kent CT1 2PR"


def test_a_danish_web_shop_invoice_billing_beside_delivery_address_prices_with_vat() -> None:
    """``Faktureringsadresse`` labels the buyer; ``Total inkl. moms`` is the total, ``Heraf moms``
    the tax and ``Beløb ekskl. moms`` the net; the sender line's CVR number is no address."""
    lines = [(200, 40, "NORDLYS LIVING", 14),
             (120, 56, "Nordlys Living ApS · Vesterbrogade 118 · 1620 København V · CVR 38441209", 8),
             (40, 100, "Faktura", 14), (300, 100, "Faktureringsadresse", 9), (440, 100, "Leveringsadresse", 9),
             (300, 112, "Mette Kjær Hansen", 9), (440, 112, "Mette Kjær Hansen", 9),
             (40, 124, "Fakturanr.   100482", 9), (300, 124, "Skovvej 17, 2. tv.", 9), (440, 124, "GLS Pakkeshop: Netto", 9),
             (40, 136, "Fakturadato  12.03.2024", 9), (300, 136, "8000 Aarhus C", 9), (440, 136, "Frederiks Allé 102", 9),
             (440, 148, "8000 Aarhus C", 9),
             (40, 200, "Beskrivelse", 9), (300, 200, "Antal", 9), (380, 200, "Stk.pris", 9), (480, 200, "I alt", 9),
             (40, 214, "Uldplaid Hygge", 9), (300, 214, "1", 9), (380, 214, "599,00", 9), (480, 214, "599,00", 9),
             (300, 250, "Total inkl. moms", 9), (480, 250, "599,00 kr.", 9),
             (300, 262, "Heraf moms 25%", 9), (480, 262, "119,80 kr.", 9),
             (300, 274, "Beløb ekskl. moms", 9), (480, 274, "479,20 kr.", 9)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert (data["buyer_name"], data["seller_name"]) == ("Mette Kjær Hansen", "Nordlys Living ApS")
    assert data["seller_address"] == "Vesterbrogade 118, 1620 København V"
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (479.2, 119.8, 599.0)


def test_a_french_bill_with_its_window_on_the_right_under_a_customer_number() -> None:
    """The window at the right names "M. Julien Mercier"; "N° client" labels a number, not the buyer."""
    lines = [(40, 40, "azur", 16), (40, 56, "télécom", 16), (40, 100, "Votre facture", 12), (40, 114, "du 3 mars 2024", 10),
             (330, 130, "M. Julien Mercier", 9), (330, 142, "12 rue des Tanneurs", 9), (330, 154, "67000 STRASBOURG", 9),
             (40, 142, "N° de facture", 9), (150, 142, "F24-0305-88412730", 9),
             (40, 154, "N° client", 9), (150, 154, "1.2248.7731", 9),
             (40, 166, "N° de contrat", 9), (150, 166, "FX-7730412", 9),
             (40, 178, "Période facturée", 9), (150, 178, "du 1er au 31 mars 2024", 9),
             (330, 300, "Total TTC", 9), (480, 300, "60,89 €", 9)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert data["buyer_name"] == "M. Julien Mercier"
    assert data["buyer_address"].replace(",", "") == "12 rue des Tanneurs 67000 STRASBOURG"


def test_a_couple_written_to_under_herrn_und_frau() -> None:
    lines = [(40, 40, "Bauunternehmung Huber GmbH", 12), (40, 54, "Industriestr. 4, 86150 Augsburg", 8),
             (40, 110, "Herrn und Frau", 9), (40, 122, "Stefan und Julia Brandl", 9), (40, 134, "Lechauenweg 8", 9),
             (40, 146, "86343 Königsbrunn", 9), (330, 110, "Rechnung Nr. 2024-118", 9),
             (330, 300, "Gesamtbetrag", 9), (480, 300, "12.400,00 €", 9)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert data["buyer_name"] == "Stefan und Julia Brandl"
    assert data["buyer_address"].replace(",", "") == "Lechauenweg 8 86343 Königsbrunn"


def test_a_bill_whose_letterhead_is_a_logo_names_its_seller_in_the_legal_footer() -> None:
    """Only "azur télécom" in large type at the top; the firm is "Azur Télécom SAS" of the footer's
    legal notice, at its registered office. "Votre facture" is a title, "Date limite de paiement"
    the due date."""
    lines = [(40, 40, "azur", 16), (40, 56, "télécom", 16), (40, 100, "Votre facture", 12),
             (40, 114, "du 3 mars 2024", 10),
             (330, 130, "M. Julien Mercier", 9), (330, 142, "12 rue des Tanneurs", 9), (330, 154, "67000 STRASBOURG", 9),
             (40, 142, "N° de facture", 9), (150, 142, "F24-0305-88412730", 9),
             (60, 220, "Montant à payer TTC", 10), (480, 220, "60,89 €", 10),
             (60, 240, "Date limite de paiement : 18 mars 2024 - prélevé sur votre compte", 9),
             (330, 300, "Total TTC", 9), (480, 300, "60,89 €", 9),
             (40, 800, "Azur Télécom SAS au capital de 2 500 000 € - Siège social : 18 avenue de la Grande Armée, "
                       "75017 Paris - RCS Paris 512 334 889", 7)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Azur Télécom SAS", "18 avenue de la Grande Armée, 75017 Paris")
    assert (data["invoice_date"], data["due_date"]) == ("2024-03-03", "2024-03-18")
    assert data["buyer_name"] == "M. Julien Mercier"


def test_a_department_and_an_attention_line_between_the_firm_and_its_street() -> None:
    """``Afdeling …`` and ``T.a.v. …`` under the buyer's name, ``Att:`` under a Swedish one: the
    firm is the buyer, its street under them the address; a freelancer's name set flush right
    over a tagline is the seller."""
    lines = [(527, 50, "Linde de Vries", 16, "R"), (527, 72, "VERTALINGEN DUITS · ENGELS · NEDERLANDS", 7, "R"),
             (527, 100, "Oudegracht 187", 9, "R"), (527, 112, "3511 NE Utrecht", 9, "R"),
             (68, 150, "Brouwer Medical Devices B.V.", 9), (68, 162, "Afdeling Regulatory Affairs", 9),
             (68, 174, "T.a.v. mevrouw S. Jansen", 9), (68, 186, "Industrieweg 44", 9), (68, 198, "5683 CH Best", 9),
             (68, 260, "Factuurnummer  2024-031", 9), (330, 400, "Totaal", 9), (480, 400, "€ 1.210,00", 9)]
    data = run(drawn_pdf(lines), SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Linde de Vries", "Brouwer Medical Devices B.V.")
    assert data["buyer_address"].replace(",", "") == "Industrieweg 44 5683 CH Best"
    swedish = [(40, 40, "Norrsken Konsult AB", 12), (40, 54, "Sveavägen 64, 111 34 Stockholm", 8),
               (330, 150, "Bergström Logistik AB", 9), (330, 162, "Att: Ekonomiavdelningen", 9),
               (330, 174, "Box 1147", 9), (330, 186, "171 22 Solna", 9),
               (330, 400, "Att betala SEK", 9), (480, 400, "112 608,00", 9)]
    data = run(pdf(swedish), SCHEMA)["data"]
    assert data["buyer_name"] == "Bergström Logistik AB"
    assert data["buyer_address"].replace(",", "") == "Box 1147 171 22 Solna"


def test_a_polish_faktura_vat_with_sprzedawca_beside_nabywca() -> None:
    """(Names without Polish letters: the test's PDF font has none.)"""
    lines = [(400, 40, "Data wystawienia: 2024-03-12", 9), (200, 90, "Faktura VAT nr FV/2024/03/017", 13),
             (40, 140, "Sprzedawca", 9), (300, 140, "Nabywca", 9),
             (40, 152, "Wisniewski Serwis Sp. z o.o.", 9), (300, 152, "Kowalczyk i Synowie S.A.", 9),
             (40, 164, "ul. Zablocie 23/4", 9), (300, 164, "al. Jana Pawla II 41A", 9),
             (40, 176, "30-701 Krakow", 9), (300, 176, "31-864 Krakow", 9),
             (40, 188, "NIP: 678-312-45-09", 9), (300, 188, "NIP: 945-221-87-36", 9),
             (40, 300, "Do zaplaty: 1 518,07 PLN", 10)]
    data = run(pdf(lines), SCHEMA)["data"]
    assert data["invoice_number"] == "FV/2024/03/017"
    assert (data["seller_name"], data["buyer_name"]) == ("Wisniewski Serwis Sp. z o.o.", "Kowalczyk i Synowie S.A.")
    assert data["buyer_address"].replace(",", "") == "al. Jana Pawla II 41A 31-864 Krakow"


def test_a_four_figure_house_number_over_the_town_line_is_the_street_not_the_postcode() -> None:
    """"1997 Linda Throughway" reads like a postcode and a town; the line under it, "West
    Heather, LA 53492", is the town's: the address runs to it."""
    lines = [(40, 50, "Provider", 9), (40, 62, "Oliver LLC", 9), (40, 74, "542 Rodriguez Islands", 9),
             (40, 86, "South Ricardochester, PA 64294", 9), (330, 50, "Invoice num.: 2024/8321", 9),
             (330, 62, "Date: Jul 27, 2024", 9),
             (330, 140, "Customer", 9), (330, 152, "Douglas Group", 9), (330, 164, "1997 Linda Throughway", 9),
             (330, 176, "West Heather, LA 53492", 9),
             (300, 300, "Total", 9), (500, 300, "$642.95", 9, "R")]
    data = run(drawn_pdf(lines), SCHEMA)["data"]
    assert (data["buyer_name"], data["buyer_address"]) == ("Douglas Group", "1997 Linda Throughway West Heather, LA 53492")


def test_a_dutch_postcode_with_its_letters_set_close_ends_the_address() -> None:
    """"7232WP Beilen" is a postcode and its town as "7232 WP Beilen" is: the seller's address
    under "Provider" ends there, not with the payment lines under it."""
    lines = [(311, 45, "Taxable invoice num.: INV202400698", 12), (62, 74, "Provider", 10),
             (314, 74, "Date of exposure taxable invoice: 23 mei 2024", 8), (314, 89, "Due date: 22 jun 2024", 8),
             (62, 88, "Hexspoor Groep", 7), (62, 96, "Mohameddreef 47", 7), (62, 105, "7232WP Beilen", 7),
             (312, 142, "Customer", 10), (312, 156, "Kyra Corstiaens-Mater", 7), (312, 164, "Ashleysingel 289", 7),
             (312, 173, "8582 CM Belt-Schutsloot", 7), (65, 178, "Payment information", 7), (65, 199, "Account n.: 11062843", 7),
             (300, 300, "Totaal", 9), (500, 300, "€ 642,95", 9, "R")]
    from pipelines.stages.extract import postcodes

    assert postcodes.postcode_line("7232WP Beilen") and postcodes.postcode_line("7232 WP Beilen")
    assert not postcodes.postcode_line("Account n.: 11062843")
    data = run(drawn_pdf(lines), SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Hexspoor Groep", "Mohameddreef 47 7232WP Beilen")


def test_a_generator_s_mark_on_a_bill_that_names_nobody_is_no_buyer() -> None:
    """A generator's mark set large near the head of a bill that names nobody: it is read as
    the letterhead, the sender's, never as the buyer."""
    lines = [(31, 36, "Invoice no.", 11), (116, 36, "20253853", 11), (31, 59, "Date:", 11), (116, 59, "2025.2.21", 11),
             (31, 104, "Product Id", 8), (138, 104, "Product Name", 8), (246, 104, "Amount Purchased", 8),
             (354, 104, "Price Per Unit", 8), (462, 104, "Total Price", 8),
             (31, 127, "1000", 7), (138, 127, "Network cabling per metre", 7), (246, 127, "120", 7), (354, 127, "3.79", 7),
             (462, 127, "454.8", 7), (462, 150, "454.8", 7), (31, 195, "Total Amount Due:", 11), (160, 195, "$454.8", 11),
             (31, 150, "HardCode E>", 14)]
    assert run(drawn_pdf(lines), SCHEMA)["data"]["buyer_name"] is None


def test_a_street_named_without_a_house_number_is_part_of_the_address() -> None:
    """"rue Emmanuel Boulanger" over "97474 Sainte Zoé": a street named by its kind, with no
    number, is the address's first line."""
    lines = [(40, 50, "Provider", 9), (40, 62, "Bouchet", 9), (40, 74, "rue Emmanuel Boulanger", 9),
             (40, 86, "97474 Sainte Zoé", 9), (330, 50, "Facture n°: 2024-11-6469", 9),
             (42, 150, "Payment information", 9), (42, 162, "Account n.: 05654166", 9),
             (300, 300, "Total", 9), (500, 300, "1 250,00 €", 9, "R")]
    data = run(drawn_pdf(lines), SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Bouchet", "rue Emmanuel Boulanger 97474 Sainte Zoé")
