"""Words that mean something else inside an address: a UK postcode's "HP" is no handphone
label, and a US ZIP code wrapped under its state still makes the dates month first."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines.stages.extract.roles import Role, label_says
from pipelines.stages.extract.values import month_first
from tests.support.extract_pdf import RECEIPT_SCHEMA, drawn_pdf, pdf, run

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "bench" / "invoices" / "schema.json").read_text())


def test_a_uk_postcode_that_begins_with_hp_ends_the_buyer_s_address() -> None:
    texts = [(250, 40, "Invoice", 14), (250, 60, "Invoice No.: 2023-07-6470", 9), (250, 72, "Invoice date: 11/07/2023", 9),
             (40, 110, "Bill to:", 9, "B"), (250, 110, "From:", 9, "B"),
             (40, 124, "Samuel Wilson", 9), (40, 136, "15 Beverley Ways", 9), (40, 148, "South Samchester HP3A 8EB", 9),
             (40, 160, "saunders@example.org", 9),
             (250, 124, "Jennings PLC", 9), (250, 136, "3 Diane Radial", 9), (250, 148, "South Helenville M3 8BN", 9),
             (40, 220, "Cloud hosting plan", 9), (560, 220, "976.40 GBP", 9, "R"),
             (400, 250, "Total", 9, "B"), (560, 250, "976.40 GBP", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["buyer_name"], data["buyer_address"]) == ("Samuel Wilson", "15 Beverley Ways South Samchester HP3A 8EB")


def test_a_zip_code_wrapped_under_its_state_makes_the_dates_month_first() -> None:
    texts = [(300, 40, "Invoice No.: S-04218", 9), (300, 52, "Due date: 01/04/2025", 9),
             (40, 100, "Golden-Washington - 950 Nancy Causeway - Harrischester, NE", 7), (40, 110, "34925", 7),
             (40, 130, "Robert Williams", 9), (40, 142, "940 Kelly Parkways", 9),
             (40, 200, "Invoice S-04218", 12), (560, 200, "12/05/2024", 9, "R"),
             (40, 240, "Website maintenance", 9), (560, 240, "3402.96 $", 9, "R"),
             (400, 270, "Total", 9, "B"), (560, 270, "3402.96 $", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["invoice_date"], data["due_date"]) == ("2024-12-05", "2025-01-04")
    # an Italian province over its CAP is no state over a ZIP code ("Cantù CO" / "22063")
    assert not month_first("Via Verdi 12 - Cantù CO\n22063\nData fattura: 05/03/2024")


def test_a_net_price_s_head_and_a_tax_s_own_subtotal_are_not_the_labels_they_resemble() -> None:
    """"Precio unit. sin IVA" heads a column of net prices, not of taxes; "VAT subtotal" is the
    tax's sum, not the net amount. Beside such a label the amount found by the document's own
    totals is kept (a label that names its field itself would win over it)."""
    assert not label_says(Role("tax"), "Precio unit. sin IVA")
    assert not label_says(Role("tax"), "Prezzo unitario senza IVA")
    assert label_says(Role("tax"), "IVA 21%") is False and label_says(Role("tax"), "IVA")  # (a rate is no amount)
    assert not label_says(Role("subtotal"), "VAT subtotal")
    assert label_says(Role("subtotal"), "Total GST exclusive") and label_says(Role("subtotal"), "VAT net amount")
    assert label_says(Role("subtotal"), "Item subtotal (excl. VAT)") and label_says(Role("subtotal"), "Subtotal")


def test_a_uk_postcode_with_ug_in_it_is_no_german_legal_form() -> None:
    """"SR6V 1UG South Melaniefort": "UG" inside a postcode does not make the line a firm's name
    (a German UG's) over the letterhead; the name set apart above the address is the seller."""
    texts = [(28, 40, "Bird, Sinclair and Rowley", 16), (480, 36, "2023/9238 - Page 1", 8),
             (28, 90, "36 Fuller Loaf", 9), (28, 102, "SR6V 1UG South Melaniefort", 9), (28, 114, "Tel: (0161) 4960445", 8),
             (278, 126, "Andrews-Sharpe", 10), (278, 138, "Flat 42, Austin Shores", 9), (278, 150, "IG1 5HR Port Natalie", 9),
             (28, 200, "Invoice no. 2023/9238 dated 23/08/2023", 11),
             (28, 240, "Consulting", 9), (560, 240, "2,304.79", 9, "R"), (400, 270, "Total", 9, "B"), (560, 270, "2,765.75", 9, "RB")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert (data["seller_name"], data["buyer_name"]) == ("Bird, Sinclair and Rowley", "Andrews-Sharpe")


def test_a_telephone_after_a_number_still_ends_an_address() -> None:
    """Only a UK postcode's letters are passed over when a line is looked at for a telephone
    or tax label: "Postfach 1234 Tel. 089 12345" is the shop's contact line, not its address."""
    lines = [(200, 60, "BAECKEREI MUELLER GMBH", 14), (190, 90, "Hauptstrasse 5", 10), (190, 104, "80331 Muenchen", 10),
             (190, 118, "Postfach 1234 Tel. 089 12345", 10), (100, 200, "Datum: 25.12.2018  20:13", 10),
             (100, 240, "BROT 1KG          2 x 2.80      5.60", 10), (100, 260, "SUMME EUR      5.60", 10)]
    assert run(pdf(lines), RECEIPT_SCHEMA)["data"]["address"] == "Hauptstrasse 5 80331 Muenchen"


def test_a_legal_form_is_never_read_inside_a_postcode() -> None:
    from pipelines.stages.extract.roles import LEGAL

    assert not any(LEGAL.search(t) for t in ("SA1 1AA Swansea", "BT1 5GS Belfast", "SR6V 1UG South Melaniefort"))
    assert all(LEGAL.search(t) for t in ("Swansea Print S.A.", "KEDAI MAJU SDN BHD(1234-X)", "Weber UG"))
