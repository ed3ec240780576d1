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
