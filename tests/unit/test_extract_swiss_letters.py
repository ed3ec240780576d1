"""A Swiss invoice as a letter: the firm's name set large as its logo text (wrapped: ``BERGER &`` /
``CO.``), a sender line under it that names the owner first, and amounts grouped with a
typographic apostrophe (``7’155.21 CHF``)."""

from __future__ import annotations

import pytest

from pipelines.stages.extract.values import parse_number
from tests.support.extract_pdf import drawn_pdf, run
from tests.unit.test_extract_layouts import SCHEMA, _lines


def test_amounts_grouped_with_a_typographic_apostrophe() -> None:
    assert parse_number("7’155.21 CHF") == 7155.21
    assert parse_number("1'234.50") == 1234.5


@pytest.mark.parametrize("logo", [["BERGER & CO."], ["BERGER &", "CO."], ["WEHRLI", "HOLDING AG"]])
def test_the_firm_s_name_set_large_over_a_sender_line_naming_its_owner_is_the_seller(logo: list[str]) -> None:
    texts = [*((57, 64 + 16 * i, t, 18, "B") for i, t in enumerate(logo)),
             (438, 60, "info@berger.example", 9), (57, 64 + 16 * len(logo) + 14, "Theres Burri · Haasstrasse 511 · "
                                                                                "4457 Schwyz · Switzerland", 7),
             *_lines(57, 140, ["Audrey Kuhn Blaser", "Aebistrasse 10", "5471 Einsiedeln", "Switzerland"], 10),
             (363, 140, "Date", 10), (539, 140, "07.06.2023", 10, "R"),
             (363, 156, "Invoice number", 10), (539, 156, "INV202303425", 10, "R"),
             (57, 220, "Invoice", 14), (57, 240, "Dear Sir or Madam,", 10),
             (330, 330, "Net amount", 10), (539, 330, "6’619.07 CHF", 10, "R"),
             (330, 346, "VAT 8.10%", 10), (539, 346, "536.14 CHF", 10, "R"),
             (330, 362, "Total due", 10), (539, 362, "7’155.21 CHF", 10, "R")]
    data = run(drawn_pdf(texts), SCHEMA)["data"]
    assert data["seller_name"] == " ".join(logo)
    assert data["seller_address"] == "Haasstrasse 511, 4457 Schwyz, Switzerland"
    assert (data["buyer_name"], data["invoice_number"]) == ("Audrey Kuhn Blaser", "INV202303425")
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (6619.07, 536.14, 7155.21)


def test_the_logo_lines_over_a_sender_line_are_read_as_one_name_and_a_title_is_not() -> None:
    """Where the layout leaves the logo's lines apart (a header table: ``BERGER &`` / ``CO.`` beside
    the contact lines), the lines set large right over the sender line, flush with it, are the
    firm's name; a document title set large there is not."""
    from pipelines.stages.extract.lines import Line
    from pipelines.stages.extract.parties import _logo

    def line(text: str, y1: float, h: float, x1: float = 57) -> Line:
        return Line(1, text, {"x1": x1, "y1": y1, "x2": x1 + 200, "y2": y1 + h}, -1, 0, 1)

    sender = line("Theres Burri · Haasstrasse 511 · 4457 Schwyz · Switzerland", 96, 8.5)
    page = [line("BERGER &", 50, 18), line("ralfhofer@example.com", 50, 18, 438), line("CO.", 66, 18), sender]
    assert _logo(page, sender).text == "BERGER & CO."  # type: ignore[union-attr]
    assert _logo([line("RECHNUNG", 70, 18), sender], sender) is None
    assert _logo([line("Weber GmbH", 86, 9), sender], sender) is None  # (not set large: a line of the letter)
