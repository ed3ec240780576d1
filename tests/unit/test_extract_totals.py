"""The total, net total and tax where the page does not say them plainly: a total's label OCR
misread or missing, a slip that prints no total at all, whole amounts of currencies printed
without minor units, a running sum carried from page to page, and labels of two columns that
the layout joined into one row."""

from __future__ import annotations

from tests.support.extract_pdf import RECEIPT_SCHEMA, TOTALS_SCHEMA, drawn_pdf, pages_pdf, pdf, run

HEAD = [(200, 60, "KEDAI RUNCIT MAJU JAYA SDN BHD", 14), (190, 90, "NO. 12, JALAN MERANTI 3,", 10),
        (190, 104, "TAMAN SRI MUDA, 40400 SHAH ALAM.", 10), (100, 200, "Date: 25/12/2018  20:13", 10),
        (100, 240, "SUGAR 1KG          2 x 2.80      5.60", 10)]


def total_of(rows: list[tuple[float, float, str, float]]) -> str | None:
    return run(pdf([*HEAD, *rows]), RECEIPT_SCHEMA)["data"]["total"]


def test_a_misread_total_label_and_a_total_that_is_the_net_plus_its_tax() -> None:
    assert total_of([(100, 280, "Tolal Amcunt: $8.20", 10), (100, 294, "GST @6%. S0 46", 10),
                     (100, 308, "Payment Mode Amount", 10), (100, 322, "ASH $8.20", 10)]) == "$8.20"
    # the total's label misread past knowing: the amount under the net total and its tax that is their sum
    assert total_of([(100, 280, "Sub Total   RM 68.87", 10), (100, 294, "Service Charge   RM 0.00", 10),
                     (100, 308, "GST/TAX 6%   RM 4.13", 10), (100, 322, "TOR RM 73.00", 10),
                     (100, 336, "CA. RM 73.00", 10)]) == "73.00"


def test_a_slip_without_a_total_gives_what_was_paid_less_the_change_where_it_is_printed() -> None:
    assert total_of([(100, 280, "OPT.05     RM 149.00", 10), (100, 294, "CASH", 10),
                     (100, 308, "RM 170.00", 10)]) == "170.00"
    assert total_of([(100, 280, "OPT.05     RM 149.00", 10), (100, 294, "CASH     RM 200.00", 10),
                     (100, 308, "CHANGE   RM 51.00", 10)]) == "149.00"
    assert total_of([(100, 280, "OPT.05     RM 149.00", 10), (100, 294, "CASH     RM 200.00", 10),
                     (100, 308, "CHANGE   RM 50.00", 10)]) is None  # 150.00 is printed nowhere
    # the sum due unlabelled under a rounding, its label misread ("RH")
    assert total_of([(100, 280, "TABLE LAMP     55.90", 10), (100, 294, "60.31", 10),
                     (100, 308, "ROUNDING ADJ.......  -0.01", 10), (100, 322, "RH 60.30", 10),
                     (100, 336, "CASH RM 70.30", 10), (100, 350, "CHANGE...  10.00", 10)]) == "60.30"


def test_whole_forints_a_carried_sum_and_labels_of_two_columns_on_one_row() -> None:
    schema = {"type": "object", "properties": {
        **TOTALS_SCHEMA["properties"], "currency": {"type": "string", "description": "Currency code (ISO 4217)."}}}
    first = [(60, 60, "Alföldi Gasztro Kft.", 14), (420, 60, "SZÁMLA", 16), (420, 80, "Sorszám: AGN-2025/08814", 9),
             (60, 140, "Megnevezés", 9), (300, 140, "Menny.", 9), (380, 140, "Nettó érték", 9),
             (60, 160, "Sertéskaraj csont nélkül", 9), (300, 160, "18,5", 9), (380, 160, "53 465", 9),
             (380, 760, "Átvitel (nettó): 485 011 Ft", 9)]
    second = [(60, 60, "Áthozat (nettó): 485 011 Ft", 9),
              (60, 200, "ÁFA-kulcs", 9), (150, 200, "Nettó", 9), (220, 200, "ÁFA", 9), (290, 200, "Bruttó", 9),
              (360, 200, "ÁFA összesen", 9), (480, 200, "105 793 Ft", 9),
              (360, 185, "Nettó összesen", 9), (480, 185, "624 691 Ft", 9),
              (360, 215, "Bruttó összesen", 9), (480, 215, "730 484 Ft", 9)]
    data = run(pages_pdf([first, second]), schema)["data"]
    assert data["currency"] == "HUF"
    assert data["total_amount"] == 730484
    assert data["tax_amount"] == 105793
    assert data["subtotal"] == 624691  # not the sum carried over, nor the tax beside it


def test_a_count_read_into_the_total_s_cell_does_not_hide_the_total() -> None:
    assert total_of([(100, 280, "Item 2 Total with GST @6%", 10), (300, 280, "77.20", 10),
                     (100, 294, "Total Saving 0.00", 10), (100, 308, "Cash 100.00", 10),
                     (100, 322, "Change 22.80", 10)]) == "77.20"


def test_a_tax_breakdown_of_small_blocks_labels_over_amounts() -> None:
    """"VAT rate Tax" / "Without VAT" / "With VAT" over "7.00% 38,72 €" / "553,11 €" / "591,83 €":
    the net is under "Without VAT" (no tax's own subtotal for the "Tax" beside it), the tax under
    "Tax", not under "With VAT"; the euro sign after every amount is no column."""
    for sign in ("", " €"):
        lines = [(60, 60, "Provider", 12), (60, 76, "Harbour Tools Ltd", 9), (400, 60, "Invoice num.: 002411", 14),
                 (60, 300, "Breakdown VAT", 8), (60, 312, "VAT rate Tax", 7), (140, 312, "Without VAT", 7),
                 (200, 312, "With VAT", 7), (60, 320, f"7.00% 38,72{sign}", 7), (140, 320, f"553,11{sign}", 7),
                 (200, 320, f"591,83{sign}", 7), (340, 350, f"Total with tax: 591,83{sign}", 12)]
        data = run(pdf(lines), TOTALS_SCHEMA)["data"]
        assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (553.11, 38.72, 591.83)



def test_a_net_total_without_a_label_is_the_amount_that_is_the_total_less_the_tax() -> None:
    """An insurer's notice prints the premium without a net label over its tax and the total:
    the amount that is the total less the tax is the subtotal; with no such amount, none."""
    def notice(premium: str) -> dict:
        texts = [(60, 60, "Nordsee Versicherung AG", 14), (60, 80, "Hafenstraße 4, 20457 Hamburg", 9),
                 (60, 140, "Beitragsrechnung Nr. 2024-1181", 11),
                 (60, 200, "Privathaftpflicht, Tarif Komfort", 9), (480, 200, premium, 9, "R"),
                 (60, 220, "Versicherungsteuer 19 %", 9), (480, 220, "9,50", 9, "R"),
                 (60, 240, "Gesamtbeitrag", 9), (480, 240, "59,50", 9, "R")]
        return run(drawn_pdf(texts), TOTALS_SCHEMA)["data"]
    data = notice("50,00")
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (50.0, 9.5, 59.5)
    assert notice("48,00")["subtotal"] is None  # (no amount adds up: none is taken for the net)



def test_a_total_whose_label_words_are_set_apart_and_an_italian_due_month() -> None:
    """"Total  with  tax:", its words set wider apart than a space by the layout, labels the
    total as "Total with tax:" does; "21 set 2023" is a date, the 21st of September (Italian)."""
    from pipelines.core.models import DocumentInput
    from pipelines.engine.document import convert
    from pipelines.stages.extract import finders, roles

    texts = [(40, 40, "Provider", 9), (40, 52, "Scaduto-Biagiotti s.r.l.", 9), (40, 64, "Strada Gioacchino, 16", 9),
             (40, 76, "06046 Ruffano", 9), (330, 40, "Taxable invoice num.: FT-03110", 9),
             (330, 52, "Date of exposure taxable invoice: 22 ago 2023", 9), (330, 64, "Due date: 21 set 2023", 9),
             (40, 226, "Net 4 096,68 €", 8), (40, 238, "VAT 10 % 409,67 €", 8),
             (330, 260, "Total", 9), (380, 260, "with", 9), (425, 260, "tax:", 9), (540, 260, "4 506,35 €", 9, "R")]
    data = run(drawn_pdf(texts), TOTALS_SCHEMA)["data"]
    assert (data["subtotal"], data["total_amount"]) == (4096.68, 4506.35)
    pages = convert(DocumentInput(data=drawn_pdf(texts))).pages
    assert finders.date(pages, roles.Role("date", which="due")).text == "21 set 2023"


def test_a_vat_breakdown_whose_heads_stand_over_no_column_is_read_by_its_arithmetic() -> None:
    """"VAT rate Tax Without VAT With VAT" over "10.00% 510,46 € 5 104,57 € 5 615,03 €", set as
    tightly as one line of text: the net times the rate is the tax, the two make the gross, and
    the gross is the total. An item whose unit price is by chance its net's 10 % is no breakdown."""
    texts = [(40, 40, "Provider", 9), (40, 52, "Lenoir Guyot SARL", 9), (40, 64, "12 rue de la Paix", 9),
             (40, 76, "75002 Paris", 9), (330, 40, "Taxable invoice num.: 2024-0042", 9),
             (40, 150, "Description", 8), (200, 150, "Units", 8), (250, 150, "Price per one", 8), (330, 150, "Total price", 8),
             (400, 150, "Tax", 8), (450, 150, "Total price with tax", 8),
             (40, 164, "Hébergement cloud", 8), (200, 164, "10", 8), (250, 164, "35,18 €", 8), (330, 164, "351,80 €", 8),
             (400, 164, "10 %", 8), (450, 164, "386,98 €", 8),
             (40, 178, "Licence logicielle", 8), (200, 178, "1", 8), (250, 178, "4 752,77 €", 8), (330, 178, "4 752,77 €", 8),
             (400, 178, "10 %", 8), (450, 178, "5 228,05 €", 8),
             (40, 220, "Breakdown VAT", 9), (40, 234, "VAT rate Tax Without VAT With VAT", 8),
             (40, 246, "10.00% 510,46 € 5 104,57 € 5 615,03 €", 8),
             (330, 280, "Total with tax: 5 615,03 €", 9)]
    data = run(drawn_pdf(texts), TOTALS_SCHEMA)["data"]
    assert (data["subtotal"], data["tax_amount"], data["total_amount"]) == (5104.57, 510.46, 5615.03)


def test_a_tax_read_by_its_label_that_is_the_whole_total_yields_to_the_tax_the_totals_print() -> None:
    """A "Tax" head over a column of gross amounts (a table's head cells run together) gives the
    tax field the total; no tax is as much as the total, so the tax the breakdown prints is kept."""
    from pipelines.core.models import Citation, DocumentInput
    from pipelines.engine.document import convert
    from pipelines.stages.extract import _tax_past_total
    from pipelines.stages.extract.matching import Found
    from pipelines.stages.extract.roles import Role

    pages = convert(DocumentInput(data=pdf([(100, 100, "VAT rate  Tax  Without VAT  With VAT", 10),
                                            (100, 114, "10.00%  5,43 €  54,34 €  59,77 €", 10),
                                            (300, 140, "Total with tax: 59,77 €", 10)]))).pages
    cite = Citation(page_number=1, bbox={"x1": 0, "y1": 0, "x2": 1, "y2": 1}, text="59,77 €")
    assert _tax_past_total(Role("tax"), Found(59.77, cite, label="Tax"), pages)
    assert not _tax_past_total(Role("tax"), Found(5.43, cite, label="Tax"), pages)
    assert not _tax_past_total(Role("subtotal"), Found(59.77, cite, label="Subtotal"), pages)


def test_words_of_another_cell_after_the_tax_s_amount_do_not_unmake_its_row() -> None:
    """"VAT 20.0%  €400.00  Qty  Unit Price": a two-template page's rows joined across the page;
    the count's word after the amount is another cell's, not this row's (a "Total Qty" row is a
    count's, before its amount)."""
    from pipelines.core.models import DocumentInput
    from pipelines.engine.document import convert
    from pipelines.stages.extract.amounts import amount
    from pipelines.stages.extract.roles import Role

    pages = convert(DocumentInput(data=pdf([(100, 100, "Subtotal   €2,000.00", 10),
                                            (100, 114, "VAT 20.0%   €400.00      Qty   Unit Price", 10),
                                            (100, 128, "Total   €2,400.00", 10)]))).pages
    hit = amount(pages, Role("tax"))
    assert hit is not None and hit.text == "€400.00"
