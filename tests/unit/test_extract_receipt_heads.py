"""The head of a receipt as scans print it: a shop's name in large type over several rows, a
brand or logo text above the legal name, the trade words before a legal form, a tax number
between the name and the address, a branch's name over the street and under the country; and
the total printed under the rounding."""

from __future__ import annotations

from pipelines.core.models import Fragment, PageResult
from pipelines.stages.extract.lines import lines_of
from tests.support.extract_pdf import RECEIPT_SCHEMA, pdf, run

FOOT = [
    (100, 260, "Date: 03/04/2019  11:02", 10),
    (100, 280, "TEA 2 x 1.50                3.00", 10),
    (100, 300, "TOTAL                       3.00", 10),
    (100, 320, "CASH                        5.00", 10),
]


def _word(text: str, x1: float, y1: float, x2: float, y2: float) -> dict:
    return {"text": text, "bbox": {"x1": x1, "y1": y1, "x2": x2, "y2": y2}}


def test_a_heading_over_three_rows_is_read_as_three_lines_with_their_own_boxes() -> None:
    """OCR's heading joins a name set over two rows and the address under it into one line, its
    words out of order; extraction reads its rows again from the words' boxes."""
    words = [_word("ENTERPRISE", 300, 50, 420, 80), _word("KEDAI", 100, 10, 160, 40), _word("BESI", 170, 10, 230, 40),
             _word("NO.7,", 120, 90, 170, 115), _word("JALAN", 180, 90, 240, 115), _word("SERAI", 250, 90, 310, 115),
             _word("MAJU", 240, 10, 300, 40), _word("JAYA", 200, 50, 290, 80)]
    frag = Fragment(fragment_type="section_header", bbox={"x1": 100, "y1": 10, "x2": 420, "y2": 115},
                    content={"content": " ".join(w["text"] for w in words), "level": 1, "words": words})
    lines = lines_of(PageResult(page_number=1, width=600, height=800, fragments=[frag]))
    assert [ln.text for ln in lines] == ["KEDAI BESI MAJU", "JAYA ENTERPRISE", "NO.7, JALAN SERAI"]
    assert lines[1].box == {"x1": 200, "y1": 50, "x2": 420, "y2": 80}
    # a heading whose words are not its text (another engine's words) stays one line
    frag.content["words"] = words[:3]
    assert len(lines_of(PageResult(page_number=1, fragments=[frag]))) == 1


def test_a_name_goes_on_after_an_ampersand_and_over_trade_words_before_its_legal_form() -> None:
    head = [(150, 40, "KEDAI BESI MAJU HARDWARE &", 12), (200, 56, "ELECTRICAL", 12),
            (150, 76, "NO. 7, JALAN SERAI 2,", 10), (150, 90, "41050 KLANG, SELANGOR.", 10)]
    assert run(pdf(head + FOOT), RECEIPT_SCHEMA)["data"]["company"] == "KEDAI BESI MAJU HARDWARE & ELECTRICAL"
    head = [(130, 40, "SRI WANGI KELAPA VEGETARIAN", 12), (170, 58, "RESTAURANT SDN BHD", 12),
            (200, 74, "(1234567-X)", 10),
            (150, 90, "NO. 7, JALAN SERAI 2,", 10), (150, 104, "41050 KLANG, SELANGOR.", 10)]
    assert run(pdf(head + FOOT), RECEIPT_SCHEMA)["data"]["company"] == "SRI WANGI KELAPA VEGETARIAN RESTAURANT SDN BHD"


def test_the_legal_name_under_a_brand_is_the_company_and_its_address_skips_a_branch_line() -> None:
    head = [(220, 30, "KELAPA", 20), (222, 54, "Mall", 20),
            (150, 100, "KELAPA HOLDINGS SDN BHD", 10), (170, 114, "(No. 765432-W)", 10),
            (150, 128, "Kelapa Mall Ampang", 10),
            (150, 142, "No 3, Jalan Wangi 5,", 10), (150, 156, "68000 Ampang, Selangor", 10),
            (150, 176, "TEL: 03-4251 1234", 10)]
    data = run(pdf(head + FOOT), RECEIPT_SCHEMA)["data"]
    assert data["company"] == "KELAPA HOLDINGS SDN BHD"
    assert data["address"] == "No 3, Jalan Wangi 5, 68000 Ampang, Selangor"  # not the branch's name
    # a maker's name among the items, under the tax line and the title, is not the seller
    head = [(150, 40, "PERNIAGAAN SRI WANGI", 12), (150, 56, "NO 7 JALAN SERAI 2", 10),
            (150, 70, "41050 KLANG", 10), (150, 86, "GST NO: 000123456789", 10),
            (150, 100, "SIMPLIFIED TAX INVOICE", 10), (150, 114, "KILAT ENGINEERING (M) SDN BHD", 10)]
    assert run(pdf(head + FOOT), RECEIPT_SCHEMA)["data"]["company"] == "PERNIAGAAN SRI WANGI"


def test_a_tax_number_between_name_and_address_is_passed_and_the_country_ends_the_address() -> None:
    head = [(150, 40, "BUKU WANGI CO. SDN BHD", 12), (170, 56, "(GST Reg No. 001234567000)", 10),
            (150, 72, "No 8, Jalan 7/12A, Desa Wangi", 10), (150, 86, "56000 Kuala Lumpur, Malaysia", 10),
            (190, 104, "WANGI CENTRAL", 10)]
    data = run(pdf(head + FOOT), RECEIPT_SCHEMA)["data"]
    assert data["company"] == "BUKU WANGI CO. SDN BHD"
    assert data["address"] == "No 8, Jalan 7/12A, Desa Wangi 56000 Kuala Lumpur, Malaysia"


def test_a_receipt_whose_trade_name_stands_over_its_owner_keeps_the_address_as_the_sellers() -> None:
    """One block: a trade name, the firm that owns it with its legal form, its numbers and its
    address. Nobody else is named, so the address is the seller's, not a buyer's window."""
    head = [(60, 40, "KOPI TAPAK", 11), (60, 54, "Owner by Kelapa Biru S/B", 11), (60, 68, "(1122334-T)", 11),
            (60, 82, "GST No : 000111222333", 11), (60, 96, "Plaza Wangi, Lot B-2-11, Block B", 11),
            (60, 110, "No 1, Jalan PJU 9/1, Bandar Wangi", 11), (60, 124, "52000 Kuala Lumpur", 11),
            (60, 138, "TEL: +603-6262 1234", 11)]
    data = run(pdf(head + FOOT), RECEIPT_SCHEMA)["data"]
    assert data["address"] == "Plaza Wangi, Lot B-2-11, Block B No 1, Jalan PJU 9/1, Bandar Wangi 52000 Kuala Lumpur"


def test_the_total_under_a_rounding_adjustment_is_the_total_paid() -> None:
    """"Total incl. GST" says it is final, but a total printed under the rounding is the one paid."""
    head = [(150, 40, "KEDAI WANGI SDN BHD", 12), (150, 56, "NO. 7, JALAN SERAI 2,", 10),
            (150, 70, "41050 KLANG, SELANGOR.", 10), (100, 100, "Date: 03/04/2019", 10),
            (100, 120, "NOODLES 2 x 10.63          21.26", 10),
            (100, 140, "Total (Inclusive of GST):  23.26", 10), (100, 154, "Rounding Adj:              -0.01", 10),
            (100, 168, "TOTAL:                     23.25", 10), (100, 182, "CASH                       50.00", 10),
            (100, 196, "CHANGE                     26.75", 10)]
    assert run(pdf(head), RECEIPT_SCHEMA)["data"]["total"] == "23.25"


def test_a_total_beside_a_count_in_its_row_is_read_and_a_zero_total_does_not_win() -> None:
    head = [(150, 40, "KEDAI WANGI SDN BHD", 12), (150, 56, "NO. 7, JALAN SERAI 2,", 10),
            (150, 70, "41050 KLANG, SELANGOR.", 10), (100, 100, "Date: 03/04/2019", 10),
            (100, 120, "NOODLES 4 x 19.30          77.20", 10),
            (100, 140, "Item 2", 10), (200, 140, "Total with GST @6%", 10), (400, 140, "77.20", 10),
            (100, 154, "Qty 4", 10), (200, 154, "Rounding", 10), (400, 154, "0.00", 10),
            (100, 168, "Total Saving", 10), (200, 168, "Total", 10), (300, 168, "0.00", 10),
            (100, 182, "CASH", 10), (400, 182, "100.00", 10)]
    assert run(pdf(head), RECEIPT_SCHEMA)["data"]["total"] == "77.20"


def test_a_name_printed_only_as_a_logo_is_the_shop_the_slip_thanks_not_an_item() -> None:
    """The name is a script logo OCR cannot read: the first name-like line, under the address
    and the sale's date, is an item. The shop is the one the slip thanks for shopping there."""
    lines = [(150, 60, "191 E 3RD AVE", 10), (150, 74, "SAN MATEO, CA 94401", 10), (150, 88, "650-342-2723", 10),
             (60, 110, "117   4782   0022   05/24/2022 1:10 PM", 10),
             (60, 140, "CA REDMP VAL", 10), (60, 154, "00000007211               0.30", 10),
             (60, 180, "TOTAL                     29.53", 10),
             (60, 220, "THANK YOU FOR SHOPPING AT WALGREENS", 10)]
    data = run(pdf(lines), RECEIPT_SCHEMA)["data"]
    assert data["company"] == "WALGREENS"
    assert data["total"] == "29.53"
    lines[-1] = (60, 220, "PLEASE COME AGAIN", 10)
    assert run(pdf(lines), RECEIPT_SCHEMA)["data"]["company"] is None  # not "CA REDMP VAL"


def test_a_registration_number_closes_a_name_over_two_rows_and_a_short_town_ends_the_address() -> None:
    """A name without its legal form goes on over a second row of words when the firm's
    registration number follows on a line of its own; a postcode line with a town of two
    letters ("57000 KL") is the address's last line, not a title."""
    head = [(150, 40, "KEDAI KOPI SERAI", 10), (160, 56, "SERAI HOUSE", 10), (170, 72, "001234567-K", 10),
            (150, 88, "13, JLN TASIK UTAMA 8", 10), (150, 102, "MEDAN NIAGA DAMAI", 10), (150, 116, "57000 KL", 10),
            (150, 136, "INVOICE", 10)]
    data = run(pdf(head + FOOT), RECEIPT_SCHEMA)["data"]
    assert data["company"] == "KEDAI KOPI SERAI SERAI HOUSE"
    assert data["address"] == "13, JLN TASIK UTAMA 8 MEDAN NIAGA DAMAI 57000 KL"
    # a second row over the street, with no number after it, is not the name's
    head = [head[0], (160, 56, "Kedai Serai Ampang", 10), *head[3:]]
    data = run(pdf(head + FOOT), RECEIPT_SCHEMA)["data"]
    assert data["company"] == "KEDAI KOPI SERAI"


def test_house_numbers_with_commas_and_a_milestone_are_address_lines_not_amounts_or_dates() -> None:
    head = [(150, 40, "KEDAI BESI SERAI SDN BHD", 10), (170, 56, "(1234567-X)", 10),
            (150, 72, "NO.53 55,57 & 59, JALAN SAGU 18,", 10), (150, 86, "NO.23 BATU 10, TAMAN SENTOSA,", 10),
            (150, 100, "81100 JOHOR BAHRU, JOHOR.", 10), (150, 120, "TEL: 07-355 2616", 10)]
    data = run(pdf(head + FOOT), RECEIPT_SCHEMA)["data"]
    assert data["address"] == "NO.53 55,57 & 59, JALAN SAGU 18, NO.23 BATU 10, TAMAN SENTOSA, 81100 JOHOR BAHRU, JOHOR."
