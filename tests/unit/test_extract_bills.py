"""Invoice numbers, dates and amounts as bills of more countries and trades print them: another
invoice's number beside the invoice's own, a customer number's label, a folio's colons set apart,
Norwegian and Australian net and tax labels, a rule under a letterhead, a row of column heads
over the dates."""

from __future__ import annotations

from pipelines.stages import pdf_text, table_regions, word_gaps
from pipelines.stages.extract import names, roles
from tests.support.extract_pdf import drawn_pdf, run
from tests.unit.test_extract_layouts import SCHEMA


def test_an_associated_invoice_s_number_and_date_are_not_the_invoice_s_own() -> None:
    """A corrective invoice names the invoice it corrects under the details; "NET A PAYER"
    printed without its accent is the total, not "Montant déjà payé : 0,00" above it."""
    texts = [(45, 50, "LE FOURNISSEUR SARL", 12), (45, 64, "12 rue des Prés", 9), (45, 76, "75018 PARIS", 9),
             (330, 50, "FACTURE N° :", 9), (470, 50, "F20260023", 9), (330, 64, "Date :", 9), (470, 64, "31/01/2026", 9),
             (45, 140, "N° DE FACTURE ASSOCIÉE :", 9), (180, 140, "F20260003", 9),
             (45, 152, "DATE DE FACTURE ASSOCIÉE :", 9), (180, 152, "01/01/2026", 9),
             (330, 300, "TOTAL HT", 9), (470, 300, "100,00", 9, "R"), (330, 314, "TOTAL TVA", 9), (470, 314, "20,00", 9, "R"),
             (330, 340, "Montant déjà payé :", 9), (470, 340, "0,00", 9, "R"),
             (330, 360, "NET A PAYER", 9), (470, 360, "120,00 EUR", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"], data["total_amount"]) == ("F20260023", "2026-01-31", 120.0)


def test_a_customer_number_labelled_kunde_nr_is_no_buyer() -> None:
    """"Kunde Nr." labels the customer's number: neither a buyer label nor the buyer's name."""
    texts = [(60, 40, "gocept apitest", 9), (60, 52, "Forsterstr. 29", 9), (60, 64, "06112 Halle/Saale", 9),
             (60, 140, "gocept apitest • Forsterstr. 29 • 06112 Halle/Saale", 7),
             (320, 140, "Rechnung Nr.", 9), (400, 140, "1", 9), (320, 152, "Kunde Nr.", 9), (400, 152, "10000", 9),
             (320, 164, "Datum", 9), (400, 164, "29.03.2011", 9), (60, 176, "Testkunden", 9),
             (320, 300, "Nettobetrag", 9), (500, 300, "5,00", 9, "R"), (320, 314, "Endbetrag EUR", 9), (500, 314, "5,95", 9, "R")]
    schema = {"type": "object", "properties": {**SCHEMA["properties"], "customer_number": {"type": "string"}}}
    data = run(drawn_pdf(texts), schema)["data"]
    assert data["customer_number"] == "10000"
    assert data["buyer_name"] != "Kunde Nr."


def test_a_hotel_folio_with_colons_set_apart_from_their_labels() -> None:
    """``Invoice No.   : TI-24-019877`` beside ``Folio No.   : 0048821``: the invoice's number
    without the colon; the guest's ``Company :`` is no seller label; the charges "before service
    charge & GST" are the subtotal."""
    texts = [(300, 40, "THE MARLOW", 20, "R"), (200, 64, "Marlow Hospitality Pte. Ltd. | 88 Amoy Street | Tel +65 6220 8800", 7),
             (50, 120, "Name", 9), (150, 120, ": Mr Thomas Becker", 9), (350, 120, "Folio No.", 9), (450, 120, ": 0048821", 9),
             (50, 132, "Company", 9), (150, 132, ": Halvorsen Marine AS", 9),
             (350, 132, "Invoice No.", 9), (450, 132, ": TI-24-019877", 9),
             (50, 144, "Address", 9), (150, 144, ": Strandkaien 14", 9), (350, 144, "Date", 9), (450, 144, ": 13/03/2024", 9),
             (150, 156, "4005 Stavanger", 9),
             (250, 300, "Total Charges (before service charge & GST)", 9), (540, 300, "1,068.50", 9, "R"),
             (250, 312, "Service Charge 10%", 9), (540, 312, "106.85", 9, "R"),
             (250, 324, "GST 9%", 9), (540, 324, "105.78", 9, "R"),
             (250, 336, "Total Amount (SGD)", 9), (540, 336, "1,281.13", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"]) == ("TI-24-019877", "2024-03-13")
    assert data["seller_name"] not in ("Address", "Halvorsen Marine AS")
    assert (data["subtotal"], data["total_amount"]) == (1068.5, 1281.13)


def test_a_norwegian_net_sum_eks_mva_and_an_australian_dollar_invoice() -> None:
    """"Sum eks. mva" is the net, not the VAT; a bare "$" on an invoice with an ABN and an
    Australian postcode is the Australian dollar; "Subtotal (ex GST)" and "TOTAL (inc GST)"
    are neither of them the GST."""
    texts = [(45, 50, "Fjordtall Regnskap AS", 12), (300, 300, "Sum eks. mva", 9), (500, 300, "13 655,00", 9, "R"),
             (300, 312, "MVA 25 %", 9), (500, 312, "3 413,75", 9, "R"),
             (300, 324, "Å betale NOK", 9), (500, 324, "17 068,75", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (13655.0, 3413.75, 17068.75)
    texts = [(45, 50, "Redgum Automotive Pty Ltd", 12), (45, 62, "ABN 53 612 448 907", 9),
             (45, 74, "Unit 4, 18 Kembla Street", 9), (45, 86, "Fyshwick ACT 2609", 9),
             (300, 300, "Subtotal (ex GST)", 9), (500, 300, "$926.98", 9, "R"),
             (300, 312, "GST 10%", 9), (500, 312, "$92.70", 9, "R"),
             (300, 324, "TOTAL (inc GST)", 9), (500, 324, "$1,019.68", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["currency"] == "AUD"
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (926.98, 92.7, 1019.68)


def test_a_bare_kr_is_the_crown_of_the_country_the_bill_is_from() -> None:
    """"kr" after the amounts names no country: a Norwegian bill (MVA, Forfallsdato) is in NOK, a
    Danish one (CVR, I alt) in DKK, a Swedish one in SEK."""
    for words, code in [(("Forfallsdato: 16.11.2017", "MVA 25 %", "Å betale"), "NOK"),
                        (("Forfaldsdato: 16.11.2017", "CVR 12345678  Moms 25 %", "I alt"), "DKK"),
                        (("Förfallodatum: 2017-11-16", "Moms 25 %", "Att betala"), "SEK")]:
        texts = [(45, 50, "Faktura", 14), (300, 90, words[0], 9), (300, 300, words[1], 9),
                 (500, 300, "4 600.00 kr", 9, "R"), (300, 312, words[2], 9), (500, 312, "27 600.00 kr", 9, "R")]
        assert run(drawn_pdf(texts), SCHEMA)["data"]["currency"] == code


def test_bolivar_amounts_written_bs_before_the_figures() -> None:
    """A Venezuelan factura writes its sums "Bs.1.836,80": an amount in bolívares (VES)."""
    texts = [(45, 50, "FACTURA Nº 000001", 14), (300, 300, "Subtotal", 9), (500, 300, "Bs.2.000,00", 9, "R"),
             (300, 312, "IVA (16 %)", 9), (500, 312, "Bs.320,00", 9, "R"), (300, 324, "TOTAL", 9),
             (500, 324, "Bs.2.320,00", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["currency"], data["subtotal"], data["tax_amount"], data["total_amount"]) == ("VES", 2000.0, 320.0, 2320.0)


def test_a_rule_under_the_letterhead_does_not_make_the_letter_a_table() -> None:
    """A full-width rule under the letterhead and a short one under the sender's line, then the
    letter down to the items' table drawn with three rules of the same width: the window, the
    title and the letter's date are text, not a table's header row; "Wien, am 15. Jänner 2024"
    is the invoice's date, not the first item's."""
    texts = [(71, 50, "Dr. med. Katharina Leitner", 16), (71, 66, "Fachärztin für Innere Medizin", 9),
             (71, 132, "Dr. Katharina Leitner · Mariahilfer Straße 88/2/14 · 1070 Wien", 7),
             (71, 150, "Herrn", 10), (71, 163, "Mag. Florian Gruber", 10), (71, 176, "Gentzgasse 112/7", 10),
             (71, 189, "1180 Wien", 10), (539, 226, "Wien, am 15. Jänner 2024", 10, "R"),
             (71, 258, "HONORARNOTE Nr. 2024/0318", 13),
             (74, 368, "Datum", 9, "B"), (160, 368, "Leistung", 9, "B"), (536, 368, "Betrag", 9, "BR"),
             (74, 386, "08.01.2024", 9), (160, 386, "Erstordination mit Anamnese", 9), (536, 386, "€ 120,00", 9, "R"),
             (74, 400, "10.01.2024", 9), (160, 400, "Befundbesprechung", 9), (536, 400, "€ 40,00", 9, "R"),
             (74, 430, "Summe", 10, "B"), (536, 430, "€ 160,00", 10, "BR")]
    rules = [(70, 539, 113), (70, 248, 135), (70, 539, 357), (70, 539, 375), (70, 539, 416)]
    page = pdf_text.read_page(pdf_text.open_pdf(drawn_pdf(texts, rules)), 0)
    assert [round(top) for _, top, _, _ in table_regions.ruled_regions(page.rules, page.words)] == [356]
    data = run(drawn_pdf(texts, rules), SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"]) == ("2024/0318", "2024-01-15")
    assert data["buyer_name"] == "Mag. Florian Gruber"


def test_a_portuguese_fatura_its_series_number_and_dates_under_a_row_of_column_heads() -> None:
    """``Fatura FT 2024A/153``: the series and number; ``Vencimento`` heads the due date in a row
    of five column heads over five values (only two of them dates)."""
    texts = [(45, 50, "Gráfica Atlântico, Lda.", 12), (45, 62, "Rua do Almada, 412", 9), (45, 74, "4050-032 Porto", 9),
             (45, 160, "Fatura FT 2024A/153", 13),
             (45, 190, "Data", 8), (150, 190, "Vencimento", 8), (250, 190, "Contribuinte", 8), (350, 190, "Requisição", 8),
             (450, 190, "Condições de pagamento", 8),
             (45, 202, "2024-03-12", 9), (150, 202, "2024-04-11", 9), (250, 202, "516 223 908", 9),
             (350, 202, "Encomenda 0087", 9), (450, 202, "30 dias", 9),
             (330, 300, "Total (EUR)", 9), (500, 300, "488,06 €", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"], data["due_date"]) == ("FT 2024A/153", "2024-03-12", "2024-04-11")


def test_the_quote_an_invoice_names_is_not_its_number_and_a_vat_subtotal_is_the_tax() -> None:
    """"Devis n° D-2025-004 accepté le …" under "N°  F-2025-009": the invoice's number is the
    one beside its sign; a VAT summary's "Item subtotal (excl. VAT)" is the net amount and its
    "VAT subtotal" the tax."""
    texts = [(60, 40, "Julien Marchal", 12), (520, 40, "FACTURE", 16, "R"),
             (330, 62, "N°", 9), (520, 62, "F-2025-009", 9, "R"), (330, 76, "Date", 9), (520, 76, "3 mars 2025", 9, "R"),
             (60, 180, "Devis n° D-2025-004 accepté le 20 janvier 2025", 9),
             (60, 300, "VAT rate", 9), (200, 300, "Item subtotal (excl. VAT)", 9), (420, 300, "VAT subtotal", 9),
             (60, 312, "23%", 9), (330, 312, "€152.01", 9, "R"), (480, 312, "€34.96", 9, "R"),
             (330, 340, "Invoice total", 9), (520, 340, "€186.97", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["invoice_number"] == "F-2025-009"
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (152.01, 34.96, 186.97)
    # a quote's own number, where the document is the quote
    texts = [(60, 40, "Julien Marchal", 12), (60, 100, "Devis n° 2025-024", 14), (330, 300, "Total TTC", 9), (520, 300, "1 200,00 €", 9, "R")]
    assert run(drawn_pdf(texts), SCHEMA)["data"]["invoice_number"] == "2025-024"


def test_a_total_row_with_the_hours_sum_and_spanish_party_labels_and_the_yuan() -> None:
    """"TOTAL  55.00  $4555.00": the money, not the hours' sum; "COBRAR A" and "ENVÍE A" label the
    buyer, no name; "Company ABC  TO: John Doe" ends before the next label; ¥ on a page in
    Chinese is the yuan."""
    texts = [(40, 40, "Mock Developer", 12), (40, 100, "Invoice #2025-01", 12),
             (60, 200, "Project", 9), (200, 200, "Hours", 9), (300, 200, "Rate", 9), (400, 200, "Amount", 9),
             (60, 214, "Project 1", 9), (200, 214, "24.50", 9), (300, 214, "$75.00", 9), (400, 214, "$1837.50", 9),
             (60, 228, "Project 2", 9), (200, 228, "30.50", 9), (300, 228, "$89.11", 9), (400, 228, "$2717.50", 9),
             (60, 242, "TOTAL", 9), (200, 242, "55.00", 9), (400, 242, "$4555.00", 9)]
    assert run(drawn_pdf(texts), SCHEMA)["data"]["total_amount"] == 4555.0
    texts = [(40, 40, "TECNATIVA", 14), (40, 120, "COBRAR A", 9), (300, 120, "ENVÍE A", 9),
             (40, 134, "Anita Oliver", 9), (300, 134, "Anita Oliver", 9),
             (40, 146, "Calle Mayor 12, 28013 Madrid", 9), (300, 146, "Calle Mayor 12, 28013 Madrid", 9),
             (330, 300, "TOTAL", 9), (540, 300, "1.721,00 €", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["buyer_name"] == "Anita Oliver" and data["seller_name"] == "TECNATIVA"
    assert names.bare_name("Company ABC TO: John Doe") == "Company ABC"
    assert roles.currencies("价税合计 ¥174.60") == ["CNY"]
    assert roles.currencies("ご請求金額 ¥23,221") == ["JPY"]


def test_a_short_line_without_figures_or_commas_is_no_address() -> None:
    """A job title or a person under the name is not an address; a town and its state is."""
    address = roles.Role("address", "seller")
    assert not roles.fits(address, "Graphic Designer") and not roles.fits(address, "David C Wang")
    assert roles.fits(address, "Westlake Village, CA") and roles.fits(address, "12 Mill Road")


def test_invisible_marks_in_words_and_a_buyer_issued_to() -> None:
    """Google Docs writes "INVOICE\\u200b: NO. 001": the zero-width space is no character of the
    word; "ISSUED TO:" labels the buyer."""
    assert word_gaps.token("INVOICE\u200b:") == "INVOICE:" and word_gaps.token("\u200b") == ""
    texts = [(300, 40, "JANE DOE", 14), (40, 100, "ISSUED TO:", 9), (40, 112, "Mr. Spencer Bradford", 9),
             (40, 124, "123, Golden Palace", 9), (40, 136, "Kolkata, India", 9),
             (380, 100, "INVOICE NO: INV-2025-002", 9), (330, 300, "Total", 9), (540, 300, "₹ 462.00", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["buyer_name"] == "Mr. Spencer Bradford" and data["invoice_number"] == "INV-2025-002"


def test_an_indian_tax_invoice_in_a_grid_of_boxes() -> None:
    """A GST invoice as Tally prints it: the copy it is in the top corner, the seller's name beside
    the ``Invoice No.`` and ``Dated`` boxes with their values under them, ``Buyer's Order No.`` (a
    field, not the buyer) and the buyer under ``Buyer (Bill to)``."""
    texts = [(250, 40, "TAX INVOICE", 11, "B"), (430, 40, "(ORIGINAL FOR RECIPIENT)", 8),
             (40, 70, "Sri Lakshmi Packaging Industries", 10, "B"), (360, 70, "Invoice No.", 8), (470, 70, "Dated", 8),
             (40, 82, "Plot No. 47, KIADB Industrial Area", 8), (360, 82, "SLP/24-25/1187", 9, "B"),
             (470, 82, "18-Feb-2025", 9, "B"),
             (40, 94, "Bommasandra, Hosur Road", 8), (40, 106, "Bengaluru, Karnataka - 560099", 8),
             (40, 118, "GSTIN/UIN: 29AAKFS4821Q1ZP", 8),
             (360, 140, "Buyer's Order No.", 8), (470, 140, "Dated", 8),
             (360, 152, "NAF/PO/2425/0658", 9), (470, 152, "06-Feb-2025", 9),
             (40, 180, "Buyer (Bill to)", 8), (40, 192, "Nandini Agro Foods Pvt. Ltd.", 10, "B"),
             (40, 204, "No. 12, 3rd Cross, Lavelle Road", 8), (40, 216, "Bengaluru, Karnataka - 560001", 8),
             (40, 228, "GSTIN/UIN : 29AADCN7715R1Z4", 8),
             (330, 300, "Total", 9), (540, 300, "4,19,414.00", 9, "R")]
    rules = [(30, 565, 60), (30, 565, 130), (30, 565, 170), (30, 565, 240), (350, 565, 76), (350, 565, 146)]
    uprights = [(30, 60, 240), (350, 60, 170), (460, 60, 170), (565, 60, 240)]
    data = run(drawn_pdf(texts, rules, uprights=uprights), SCHEMA)["data"]
    assert data["seller_name"] == "Sri Lakshmi Packaging Industries"
    assert data["buyer_name"] == "Nandini Agro Foods Pvt. Ltd."
    assert data["invoice_number"] == "SLP/24-25/1187"


def test_an_item_table_ruled_in_columns_only_gives_a_row_per_amount() -> None:
    """Tally rules the item table's columns, not its rows: each column of the item band is one
    ruled cell of many lines. A row per line of amounts; a description's second line goes with
    the row above; the tax ledgers printed under the items are rows of their own, and with the
    unlabelled net above them make the total."""
    texts = [(40, 40, "Sri Lakshmi Packaging Industries", 10, "B"), (40, 52, "Bengaluru, Karnataka - 560099", 8),
             (45, 100, "Sl", 8), (70, 100, "Description of Goods", 8), (300, 100, "Quantity", 8), (380, 100, "Rate", 8),
             (520, 100, "Amount", 8, "R")]
    items = [("1", "Corrugated Box 5 Ply (450x300x250 mm), 2", "4000 Nos", "38.50", "1,54,000.00"),
             ("", "colour print", "", "", ""),
             ("2", "Corrugated Box 3 Ply, plain", "6500 Nos", "14.20", "92,300.00"),
             ("3", "Printed Laminated Stand-up Pouch 1 kg with zip", "25000 Nos", "3.85", "96,250.00"),
             ("", "lock", "", "", ""),
             ("4", "BOPP Self Adhesive Tape 48 mm, brown", "600 Rolls", "42.35", "25,410.00"),
             ("", "", "", "", "3,67,960.00"),
             ("", "Output CGST @ 6%", "", "6", "14,778.00"), ("", "Output SGST @ 6%", "", "6", "14,778.00"),
             ("", "Output CGST @ 9%", "", "9", "10,949.40"), ("", "Output SGST @ 9%", "", "9", "10,949.40"),
             ("", "Round Off", "", "", "(-)0.80")]
    for k, (sl, desc, qty, rate, amount) in enumerate(items):
        y = 124 + 12 * k
        texts += [t for t in ((45, y, sl, 8), (70, y, desc, 8), (300, y, qty, 8), (380, y, rate, 8),
                              (520, y, amount, 8, "R")) if t[2]]
    texts += [(70, 284, "Total", 8), (520, 284, "4,19,414.00", 8, "R")]
    rules = [(30, 530, 90), (30, 530, 108), (30, 530, 272), (30, 530, 292)]
    uprights = [(x, 90, 292) for x in (30, 62, 290, 370, 430, 530)]
    data = run(drawn_pdf(texts, rules, uprights=uprights), SCHEMA)["data"]
    got = [(i["description"], i["amount"]) for i in data["line_items"]]
    assert got[:4] == [("Corrugated Box 5 Ply (450x300x250 mm), 2 colour print", 154000.0),
                       ("Corrugated Box 3 Ply, plain", 92300.0),
                       ("Printed Laminated Stand-up Pouch 1 kg with zip lock", 96250.0),
                       ("BOPP Self Adhesive Tape 48 mm, brown", 25410.0)]
    assert data["total_amount"] == 419414.0
    # the net ruled off under the items has no label: it and the tax ledgers add up to the total
    assert (data["subtotal"], data["tax_amount"]) == (367960.0, 51454.8)


def test_a_column_head_spanning_two_slots_moves_over_its_values() -> None:
    from pipelines.stages.extract.tables import _heads_over_values

    rows = [["Sl No.", "Description of Goods", "Quantity", "", "Rate", "Amount"],
            ["1", "Corrugated Box 5 Ply", "", "4,000 Nos", "38.50", "1,54,000.00"],
            ["2", "Corrugated Box 3 Ply", "", "6,500 Nos", "14.20", "92,300.00"]]
    assert _heads_over_values(rows)[0] == ["Sl No.", "Description of Goods", "", "Quantity", "Rate", "Amount"]
    debit_credit = [["Date", "Text", "Debit", "Credit"], ["01.03.", "Rent", "500.00", ""], ["02.03.", "Refund", "", "20.00"]]
    assert _heads_over_values([list(r) for r in debit_credit]) == debit_credit  # two heads: two columns


def test_the_last_word_of_a_wrapped_item_is_no_buyer_label() -> None:
    """"… anticipati in nome e per conto del / cliente": the item's description wrapped onto a
    line of its own is no ``Cliente`` label over the totals under it; the buyer is the block
    under ``Spett.le``."""
    cols = [57.0, 329.0, 363.0, 426.0, 488.0, 539.0]
    items = [(["Progettazione strutturale esecutiva, a corpo"], "1", "3.200,00", "3.200,00", "22%"),
             (["Pratica di deposito sismico presso il Genio Civile"], "1", "450,00", "450,00", "22%"),
             (["Diritti di segreteria anticipati in nome e per conto del", "cliente"], "1", "150,00", "150,00",
              "Escl.")]
    texts = [(57, 60, "Ing. Marco Bellandi", 16), (57, 80, "Via dei Mille 18 - 50131 Firenze (FI)", 9),
             (330, 150, "Spett.le", 10), (330, 163, "Edil Mugello S.r.l.", 10, "B"), (330, 176, "Via Provinciale 55", 10),
             (330, 189, "50032 Borgo San Lorenzo (FI)", 10), (57, 240, "FATTURA N. 14/2025 del 28/05/2025", 13),
             (60, 281, "Descrizione", 9, "B"), (360, 281, "Q.tà", 9, "BR"), (423, 281, "Prezzo unit.", 9, "BR"),
             (485, 281, "Importo €", 9, "BR"), (500, 281, "IVA", 9, "B")]
    rules, ys, y = [], [270.0, 286.0], 286.0
    for lines, q, up, amount, vat in items:
        texts += [(60, y + 11 + 11 * k, ln, 9) for k, ln in enumerate(lines)]
        texts += [(360, y + 11, q, 9, "R"), (423, y + 11, up, 9, "R"), (485, y + 11, amount, 9, "R"),
                  (500, y + 11, vat, 9)]
        y += 11 * len(lines) + 6
        ys.append(y)
    rules += [(cols[0], cols[-1], yy) for yy in ys]
    uprights = [(x, ys[0], ys[-1]) for x in cols]
    y += 25
    for k, (label, value) in enumerate([("Totale onorari", "3.650,00"), ("Contributo integrativo 4%", "146,00"),
                                        ("Imponibile IVA", "3.796,00"), ("IVA 22%", "835,12"),
                                        ("Totale fattura", "4.781,12")]):
        texts += [(269, y + 15 * k, label, 9.5), (537, y + 15 * k, value, 9.5, "R")]
        if k in (1, 3):
            rules.append((269.0, 537.0, y + 15 * k + 4))
    data = run(drawn_pdf(texts, rules, uprights=uprights), SCHEMA)["data"]
    assert data["buyer_name"] == "Edil Mugello S.r.l."


def test_a_beleg_nr_is_the_document_s_number_and_an_ursprungsbeleg_nr_is_not() -> None:
    """German accounting software labels the invoice's number "Beleg-Nr" (the voucher's); an
    "Ursprungsbeleg-Nr" is the original document's, which a correction names."""
    texts = [(45, 40, "Lieferant", 8), (190, 40, "Käufer", 8), (330, 40, "RECHNUNGS-KORREKTUR", 11),
             (45, 64, "MUSTERLIEFERANT GMBH", 8), (190, 64, "MUSTER-KUNDE GMBH", 8), (330, 64, "Beleg-Nr", 8), (420, 64, ":", 8), (430, 64, "RK21012345", 8),
             (330, 76, "Beleg-Datum", 8), (420, 76, ":", 8), (430, 76, "16.09.2013", 8),
             (45, 88, "BAHNHOFSTRASSE 99", 8), (190, 88, "KUNDENWEG 88", 8),
             (45, 100, "99199 MUSTERHAUSEN", 8), (190, 100, "40235 DUESSELDORF", 8),
             (330, 100, "Ursprungsbeleg-Nr", 8), (420, 100, ":", 8), (430, 100, "R87654321012345", 8),
             (330, 300, "Nettowert", 9), (500, 300, "100,00", 9, "R"), (330, 314, "MwSt 19 %", 9), (500, 314, "19,00", 9, "R"),
             (330, 328, "Gesamtbetrag", 9), (500, 328, "119,00", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_number"], data["invoice_date"]) == ("RK21012345", "2013-09-16")


def test_the_day_a_direct_debit_is_drawn_is_the_due_date() -> None:
    """"Der Betrag … wird am 20.03.2014 von Ihrem Konto … eingezogen": the day the amount is
    drawn is the day it is due; a day something else happens on ("Lieferung am …") is not."""
    def bill(sentence: list[str]) -> dict:
        texts = [(45, 50, "Musterlieferant GmbH", 11), (45, 64, "Bahnhofstraße 99", 9), (45, 76, "99199 Musterhausen", 9),
                 (330, 64, "Rechnung Nr. 471102", 9), (330, 76, "Rechnungsdatum: 05.03.2014", 9),
                 (330, 300, "Nettobetrag", 9), (500, 300, "445,27", 9, "R"), (330, 314, "MwSt 19 %", 9),
                 (500, 314, "84,60", 9, "R"), (330, 328, "Gesamtbetrag", 9), (500, 328, "529,87", 9, "R"),
                 *((45, 380 + 12 * k, t, 8) for k, t in enumerate(sentence))]
        return run(drawn_pdf(texts), SCHEMA)["data"]
    data = bill(["Der Betrag in Höhe von EUR 529,87 wird am 20.03.2014 von Ihrem Konto mit IBAN DE21860000000086001055",
                 "und BIC MARKDEF1860 per SEPA-Lastschrift eingezogen."])
    assert (data["invoice_date"], data["due_date"]) == ("2014-03-05", "2014-03-20")
    assert bill(["Die Lieferung erfolgte am 04.03.2014 an Ihre Anschrift."])["due_date"] is None


def test_a_hyphenated_service_date_is_not_the_invoice_date() -> None:
    """"Leistungs-Datum" and an item's "Liefer-Datum", written with a hyphen as German ERP prints
    do, date the service and the delivery, not the invoice: "Beleg-Datum" does."""
    texts = [(45, 40, "Lieferant", 8), (190, 40, "Käufer", 8), (330, 40, "K O S T E N R E C H N U N G", 11),
             (45, 64, "KOSTENLIEFERANT GMBH", 8), (190, 64, "MUSTER-KUNDE GMBH", 8),
             (330, 64, "Beleg-Nr", 8), (420, 64, ":", 8), (430, 64, "KR87654321012", 8),
             (45, 76, "BAHNHOFSTRASSE 99", 8), (190, 76, "KUNDENWEG 88", 8),
             (330, 76, "Beleg-Datum", 8), (420, 76, ":", 8), (430, 76, "06.10.2013", 8),
             (45, 88, "99199 MUSTERHAUSEN", 8), (190, 88, "40235 DUESSELDORF", 8),
             (330, 88, "Leistungs-Datum", 8), (420, 88, ":", 8), (430, 88, "01.09.13 - 30.09.13", 8),
             (45, 200, "Kopierpapier A4", 8), (300, 200, "1210", 8), (500, 200, "12,10", 8, "R"),
             (45, 212, "Liefer-Datum: 01.09.2013 - 30.09.2013", 8),
             (330, 300, "Nettowert", 9), (500, 300, "100,00", 9, "R"), (330, 314, "MwSt 19 %", 9), (500, 314, "19,00", 9, "R"),
             (330, 328, "Gesamtbetrag", 9), (500, 328, "119,00", 9, "R")]
    assert run(drawn_pdf(texts), SCHEMA)["data"]["invoice_date"] == "2013-10-06"



def test_a_number_read_by_its_label_leaves_the_date_read_with_it() -> None:
    """"Invoice #" over "Date", right-aligned beside their values, read as one cell of two lines:
    the number is "2023/2210", not "2023/2210 08/10/2023"; a series before a number stays."""
    number = roles.Role("number")
    assert names.tidy(number, "2023/2210 08/10/2023") == "2023/2210"
    assert names.tidy(number, "FT 2024A/153") == "FT 2024A/153"
    assert names.tidy(number, "INV 2024 07") == "INV 2024 07"
    # a column head of the items read with it, where the layout joined the two
    assert names.tidy(number, "INV-04260 Prijs per stuk") == "INV-04260"


def test_a_us_territory_s_address_says_dates_are_written_month_first() -> None:
    """Puerto Rico, the Virgin Islands, Guam, American Samoa and the Northern Marianas write
    dates as the States do: 01/03/2025 is the 3rd of January there."""
    from pipelines.stages.extract import values

    assert values.month_first("Robles LLC\n96348 Christopher Mill Suite 969, Haneyhaven, MP 92914\nDate 01/03/2025")
    assert values.month_first("Calle Luna 5, San Juan, PR 00901")
    assert not values.month_first("Musterstraße 1, 80333 München\n01/03/2025")


def test_a_rule_over_the_buyer_block_and_the_details_is_not_the_items_table_s_top() -> None:
    """A separator under the letterhead, the buyer's block and the invoice's details under it
    (six lines), then the items' head standing on a rule and the rows ruled under it: the
    table starts at its head, and the blocks above it are read as blocks."""
    texts = [(560, 40, "Officina Rossi s.r.l.", 14, "R"), (560, 62, "Via Garibaldi, 8, 10122 Torino", 9, "R"),
             (560, 74, "+39 011 5550199", 9, "R"),
             (28, 140, "Destinatario:", 10), (28, 156, "Bianchi e Figli SPA", 12), (28, 168, "Via Roma, 14, 20121 Milano", 9),
             (28, 180, "02 5550123", 9), (28, 192, "ufficio@bianchi.example", 9),
             (560, 156, "Fattura n.: FR2024118", 10, "R"), (560, 168, "Scadenza: 30/06/2024", 9, "R"),
             (560, 180, "Data: 31/05/2024", 9, "R"),
             (31, 208, "#", 10), (50, 208, "Descrizione", 10), (300, 208, "Quantità", 10), (400, 208, "Prezzo unitario", 10),
             (510, 208, "Importo", 10),
             (31, 227, "1", 9), (50, 227, "Revisione impianto", 9), (300, 227, "2", 9), (400, 227, "150,00", 9),
             (510, 227, "300,00", 9),
             (31, 240, "2", 9), (50, 240, "Filtro aria", 9), (300, 240, "4", 9), (400, 240, "12,50", 9), (510, 240, "50,00", 9),
             (350, 290, "Imponibile:", 10), (560, 290, "350,00 EUR", 10, "R"), (350, 304, "IVA (22%):", 10),
             (560, 304, "77,00 EUR", 10, "R"), (350, 318, "Totale:", 11), (560, 318, "427,00 EUR", 11, "R")]
    rules = [(28, 567, 125), (28, 567, 214), (28, 567, 231)]  # (none under the last row)
    page = pdf_text.read_page(pdf_text.open_pdf(drawn_pdf(texts, rules)), 0)
    assert [round(top) for _, top, _, _ in table_regions.ruled_regions(page.rules, page.words)] == [198]
    data = run(drawn_pdf(texts, rules), SCHEMA)["data"]
    assert (data["buyer_name"], data["invoice_number"]) == ("Bianchi e Figli SPA", "FR2024118")
    assert [(i["description"], i["amount"]) for i in data["line_items"]] == [("Revisione impianto", 300.0),
                                                                            ("Filtro aria", 50.0)]
