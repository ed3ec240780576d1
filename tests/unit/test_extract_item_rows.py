"""Line items printed as rows of text that the parser does not take for a table: the header row
is known by its columns' words in any of the lexicon's languages, cell by cell."""

from __future__ import annotations

from tests.support.extract_pdf import pdf, run

SCHEMA = {"type": "object", "properties": {
    "invoice_number": {"type": "string"},
    "line_items": {"type": "array", "items": {"type": "object", "properties": {
        "description": {"type": "string"}, "quantity": {"type": "number"},
        "unit_price": {"type": "number"}, "amount": {"type": "number", "description": "Line total"}}}}}}


def test_a_norwegian_list_of_items_whose_prices_stand_apart_from_their_names() -> None:
    lines = [(40, 60, "Faktura", 16), (300, 90, "Fakturanummer: 38", 9),
             (40, 200, "Beskrivelse", 9), (300, 200, "Enhetspris MVA", 9), (480, 200, "Sum", 9),
             (40, 218, "Flere", 9), (300, 218, "5 000.00 kr 20 % 6 000.00 kr", 9),
             (40, 236, "Ulike", 9), (300, 236, "8 000.00 kr 20 % 9 600.00 kr", 9),
             (300, 300, "Å betale:", 9), (420, 300, "15 600.00 kr", 9)]
    items = run(pdf(lines), SCHEMA)["data"]["line_items"]
    assert [(i["description"], i["unit_price"], i["amount"]) for i in items] == [
        ("Flere", 5000.0, 6000.0), ("Ulike", 8000.0, 9600.0)]
