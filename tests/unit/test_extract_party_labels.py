"""Parties said by labels on the line (``Sold By: …``, ``Ship-from Address: …``) and two parties'
labels side by side on one line (``Billing Address   Shipping Address``), as marketplace and
retail invoices print them: the labels are not names, and an address ends at the gap before the
items."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.extract_pdf import pdf, run

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
