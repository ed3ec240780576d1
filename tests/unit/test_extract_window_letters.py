"""Invoices set as business letters, as southern European accounting software prints them: the
firm's name as a running head apart from its address, the customer's address in the envelope's
window beside the firm's contact lines with no label over it, "Factura n.º … de fecha …", the
totals box's "Total con IVA" / "Totale IVA inclusa" (the gross total, not the tax), and dates
labelled over their values ("Fecha de vencimiento:", "Fälligkeitsdatum:")."""

from __future__ import annotations

import pytest

from pipelines.stages.extract import finders
from tests.support.extract_pdf import drawn_pdf, run
from tests.unit.test_extract_layouts import SCHEMA, _lines

LETTERS = {
    "es": ("Talleres Ortega S.L.", ["Calle Mayor 12", "28013 Madrid", "Tel.: +34 910 555 201"],
           ["Distribuciones Vega S.A.", "Paseo de Gracia 88", "08008 Barcelona"],
           "Factura n.º 2024/0113 de fecha 15/05/2024",
           [("Base imponible", "1.000,00"), ("IVA 21,00%", "210,00"), ("Total con IVA", "1.210,00"),
            ("A pagar", "1.210,00")]),
    "it": ("Tipografia Moretti s.r.l.", ["Via Nazionale 40", "00184 Roma", "Tel.: +39 06 5550 1234"],
           ["Cartoleria Fabbri s.n.c.", "Corso Vittorio Emanuele 15", "80121 Napoli"],
           "Fattura n. 2024/0113 del 15/05/2024",
           [("Imponibile", "1.000,00"), ("IVA 21,00%", "210,00"), ("Totale IVA inclusa", "1.210,00"),
            ("Da pagare", "1.210,00")]),
    "fr": ("Menuiserie Caron", ["14, rue des Tanneurs", "69002 Lyon", "Tél : 04 72 55 50 10"],
           ["Atelier Perrin S.A.R.L.", "avenue Jean Jaurès", "38000 Grenoble"],
           "Facture n° 2024/0113 en date du 15/05/2024",
           [("Total HT", "1 000,00"), ("TVA 21,00%", "210,00"), ("Total TTC", "1 210,00"), ("À payer", "1 210,00")]),
}


@pytest.mark.parametrize("lang", sorted(LETTERS))
def test_a_letter_s_window_address_beside_the_firm_s_contact_lines_is_the_buyer(lang: str) -> None:
    firm, address, buyer, title, totals = LETTERS[lang]
    texts = [(30, 40, firm, 14), *_lines(30, 90, address), (300, 102, buyer[0], 9), *_lines(300, 114, buyer[1:]),
             (30, 200, title, 10), (40, 240, "1", 9), (80, 240, "Licencia anual", 9), (520, 240, "1.000,00", 9, "R")]
    for k, (label, value) in enumerate(totals):
        texts += [(330, 300 + 14 * k, label, 9), (560, 300 + 14 * k, value, 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["buyer_name"], data["seller_name"]) == (buyer[0], firm)
    assert data["buyer_address"].startswith(buyer[1])  # (a street named without its number, in French)
    assert (data["invoice_number"], data["invoice_date"]) == ("2024/0113", "2024-05-15")
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (1000.0, 210.0, 1210.0)


def test_a_date_label_over_its_value_says_what_date_it_is_in_its_whole_words() -> None:
    """One label on its row: the words after the word for date count too ("Fecha de
    vencimiento"), and a compound that holds it ("Fälligkeitsdatum") is read by its gloss."""
    assert finders._labels("Fecha de vencimiento:") == ["due"]
    assert finders._labels("Fälligkeitsdatum:") == ["due"]
    assert finders._labels("Rechnungsdatum:") == ["issue"]
    assert finders._labels("Lieferdatum:") == ["other"]
    assert finders._labels("Invoice Date:  Due Date:  Incoterm:") == ["issue", "due"]


def test_towns_that_start_with_an_accent_or_an_apostrophe_and_spanish_legal_forms() -> None:
    """"27301 Ávila" and "5211 AB 's-Hertogenbosch" are postcodes with their towns, so the blocks
    over them are addresses; "S.Coop." and "S.Com." are legal forms, kept with the firm's name
    when they wrap under it."""
    from pipelines.stages.extract.postcodes import postcode_line

    assert postcode_line("27301 Ávila") and postcode_line("5211AB 's-Hertogenbosch")
    assert postcode_line("5211 AB 's-Hertogenbosch") and not postcode_line("Ölstraße 12")
    texts = [(30, 40, "Hermanos Ibáñez Gil", 14), (38, 56, "S.Com.", 14),
             *_lines(30, 90, ["Calle de Toledo 297", "24414 Albacete", "Tel.: +34 731 879 901"]),
             (300, 114, "Nicolau y Pazos S.Coop.", 9), *_lines(300, 126, ["Pasadizo Ángel Guardia 16 Piso 3", "05001 Ávila"]),
             (30, 200, "Factura n.º 2025-06-7694 de fecha 12/06/2025", 10)]
    for k, (label, value) in enumerate([("Base imponible", "100,00"), ("IVA 21,00%", "21,00"),
                                        ("Total con IVA", "121,00")]):
        texts += [(330, 300 + 14 * k, label, 9), (560, 300 + 14 * k, value, 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Hermanos Ibáñez Gil S.Com.", "Nicolau y Pazos S.Coop.")
    assert data["buyer_address"] == "Pasadizo Ángel Guardia 16 Piso 3 05001 Ávila"


def test_a_us_letterhead_of_a_name_and_its_town_faces_the_customer_s_block() -> None:
    """"Saber" / "Westlake Village, CA" (a town and state, no street, no ZIP) is the letterhead's
    address: the block on the right under it, "… / Scranton, PA", is the customer's."""
    texts = [*_lines(57, 68, ["Saber", "Westlake Village, CA"], 10),
             *_lines(377, 110, ["Dunder Mifflin", "1725 Slough Avenue", "Scranton, PA"], 10),
             (233, 165, "Invoice N°: INV-0007", 14), (57, 190, "Date: 06/28/2023", 9),
             (390, 300, "Total:", 9), (560, 300, "$ 303.25", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["seller_address"]) == ("Saber", "Westlake Village, CA")
    assert (data["buyer_name"], data["buyer_address"]) == ("Dunder Mifflin", "1725 Slough Avenue Scranton, PA")


def test_a_letterhead_name_wrapped_after_its_and_is_read_whole() -> None:
    """"Antonelli, Cavalcanti e Zoppetti e" / "figli": the running head's name goes on after "e"."""
    texts = [(30, 40, "Antonelli, Cavalcanti e Zoppetti e", 14), (42, 56, "figli", 14),
             *_lines(30, 90, ["Rotonda Cabrini, 3", "57014 Porto Frailis", "Tel.: +39 0490 798543"]),
             (300, 114, "Bassi, Onio e Calgari SPA", 9), *_lines(300, 126, ["Contrada Orengo, 9", "00188 Roma"]),
             (30, 200, "Fattura n. F-02371 del 11/03/2023", 10), (330, 300, "Totale IVA inclusa", 9),
             (560, 300, "58,74", 9, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Antonelli, Cavalcanti e Zoppetti e figli",
                                                         "Bassi, Onio e Calgari SPA")



def test_a_czech_invoice_s_number_after_cislo_and_its_total_price() -> None:
    """"Faktura - daňový doklad číslo 001936": the number; "Celková cena" labels the total. (Read
    on the labels' text: the test PDFs' standard fonts cannot set "ň" or "č".)"""
    from pipelines.stages.extract.roles import DOC_NUMBER, Role, label_says

    assert DOC_NUMBER.search("Faktura - daňový doklad číslo  001936").group("id") == "001936"
    assert DOC_NUMBER.search("Faktura číslo 2024095325").group("id") == "2024095325"
    assert label_says(Role("total"), "Celková cena:")


def test_item_heads_of_italian_and_spanish_letters_name_their_columns() -> None:
    """"Q.tà", "Cant." are the count, "Prezzo unit. netto", "Precio unit. sin IVA" the unit price,
    "Imponibile", "Base imponible" the line's amount (before, the unit price was taken for it)."""
    from pipelines.stages.extract.lexicon import item_gloss

    heads = ("Q.tà", "Cant.", "Prezzo unit. netto", "Precio unit. sin IVA", "Prix unit. HT", "Imponibile", "Base imponible")
    assert [item_gloss(h) for h in heads] == ["quantity"] * 2 + ["unit price"] * 3 + ["amount line total"] * 2
    texts = [(30, 40, "Tipografia Moretti s.r.l.", 14), (30, 120, "Fattura n. F-07228 del 05/06/2023", 10),
             (40, 160, "Q.tà", 9), (120, 160, "Descrizione", 9), (330, 160, "Aliquota IVA", 9),
             (420, 160, "Prezzo unit. netto", 9), (520, 160, "Imponibile", 9)]
    for k, (qty, desc, price, amount) in enumerate([("10", "Cartuccia toner nero", "82,15", "821,50"),
                                                   ("10", "Progettazione logo", "531,34", "5.313,40")]):
        y = 180 + 14 * k
        texts += [(48, y, qty, 9, "R"), (120, y, desc, 9), (380, y, "10,00%", 9, "R"), (470, y, price, 9, "R"),
                  (560, y, amount, 9, "R")]
    items = run(drawn_pdf(texts), SCHEMA)["data"]["line_items"]
    assert [(i["description"], i["unit_price"], i["amount"]) for i in items] == [
        ("Cartuccia toner nero", 82.15, 821.5), ("Progettazione logo", 531.34, 5313.4)]
