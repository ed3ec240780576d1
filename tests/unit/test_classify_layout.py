"""The words page classification adds from a page's layout and language (``classify.layout_caption``,
``lexicon.glosses_in``), on real and generated pages: a manual page set with code reads as
technical text, a till roll's text reads as a slip wherever it lies on the sheet, and German
compounds name their kind of document. No model is needed: captions are plain text."""

from __future__ import annotations

import io
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from pipelines.core.models import DocumentInput
from pipelines.core.requests import PageClassConfig
from pipelines.engine.document import convert
from pipelines.stages import classify
from pipelines.stages.extract.lexicon import glosses_in

REAL = Path(__file__).resolve().parents[1] / "realworld"


def _page(lines: list[str], x: float = 200, size: float = 9) -> classify.PageResult:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setFont("Courier", size)
    for i, line in enumerate(lines):
        c.drawString(x, 780 - 14 * i, line)
    c.save()
    return convert(DocumentInput(data=buf.getvalue())).pages[0]


def test_a_manual_page_with_code_reads_as_technical_text() -> None:
    page = convert(DocumentInput(data=(REAL / "listings-p56.pdf").read_bytes())).pages[0]
    assert "technical text with code" in classify.layout_caption(page)


def test_a_numbered_code_listing_reads_as_code_not_as_labelled_fields_and_amounts() -> None:
    # a manual's listing: short numbered lines, as in a package's documented source
    listing = [f"{300 + i} {line}" for i, line in enumerate([
        "indent = \\parindent,", "aftertitle = {},", "numbering = true,", "beforeskip = 10bp,",
        "afterskip = 10bp,", "fixskip = true,", "},", "appendix = {%", "numbering = false,", "name = {},",
        "},", "paragraph = {", "runin = true,", "aftertitle = {\\ClassError{x}%", "},"])]
    caption = classify.layout_caption(_page(listing, x=50))
    assert "technical text with code" in caption
    assert "labelled fields" not in caption and "amounts" not in caption
    form = ["Name: Jane Doe", "Date: 03/04/2024", "Account: 12345", "Amount: 120.00", "Tax: 24.00",
            "Total: 144.00", "Due: 30/04/2024"]
    assert "short labelled fields" in classify.layout_caption(_page(form, x=50))


def test_a_till_rolls_text_on_a_sheet_reads_as_a_slip_and_a_letter_does_not() -> None:
    roll = ["CORNER SHOP LTD", "12 High Street", "RECEIPT 0042", "Bread        1   2.10", "Milk         2   1.80",
            "Apples       1   3.25", "Eggs         1   2.95", "Butter       1   2.40", "Cheese       1   4.10",
            "Tea          1   3.05", "Coffee       1   5.20", "Rice         2   2.60", "Pasta        1   1.30",
            "Soap         1   1.10", "SUBTOTAL         29.85", "TOTAL            29.85",
            "CASH             40.00", "CHANGE           10.15", "Thank you, come again"]
    assert "slip" in classify.layout_caption(_page(roll))  # an A4 sheet: only the text is narrow
    letter = ["Dear Ms Smith, thank you for your letter of 3 March about the delivery of our order.",
              "We have looked into the matter and found that the parcel left our warehouse late.",
              "Please accept our apologies; a voucher for your next order is enclosed with this letter.",
              *["We remain at your disposal for any question you may have about your account with us."] * 9]
    caption = classify.layout_caption(_page(letter, x=50))
    assert "slip" not in caption and "code" not in caption
    # a manual's narrow column of short lines prints no prices: no till roll
    column = ["The colours of the", "material palette are", "named after their hue", "and their shade, from",
              "50 (lightest) to 900", "(darkest). Accent", "shades carry an A:", "MaterialRedA200 is", "an accent of red.",
              "Each is defined with", "its RGB values as", "given by the design", "guidelines of 2014.",
              "Load the package with", "the option named on", "page 3 to get them", "all, or with a list", "of the hues you use;",
              "the others are left", "undefined."]
    assert "slip" not in classify.layout_caption(_page(column))


def test_german_compounds_name_an_invoice_and_a_calculation_does_not() -> None:
    assert "invoice bill" in glosses_in("Beitragsrechnung\n24. Januar 2014")
    assert "invoice bill" in glosses_in("Stromrechnung Nr. 4711")
    assert "invoice bill" not in glosses_in("Berechnung der Zinsen")


def test_german_compound_taxes_and_a_due_day_are_glossed_and_a_tax_number_is_not_a_tax() -> None:
    # an insurer's premium bill names its tax "Versicherungsteuer" and its due date "Fälligkeitstag"
    assert "tax amount vat" in glosses_in("vierteljährlicher Beitrag inklusive 19 % Versicherungsteuer 220,00 €")
    assert "due date" in glosses_in("Fälligkeitstag: 01.04.2014")
    assert "tax amount vat" not in glosses_in("Steuernummer 123/456/78901")


def test_a_till_slip_that_calls_itself_a_tax_invoice_is_glossed_as_a_receipt_and_a_manual_is_not() -> None:
    slip = "TAX INVOICE\nInvoice #: OR1803\nNoodles 2.00\nTotal Amount: 6.90\nPayment Mode\nCASH\nChange\n6.90\n0.00"
    assert "receipt" in classify.glossed(slip)
    assert "receipt" in classify.glossed("Total 12.40\nVisa ****1234 12.40\nChange Due: 0.00")
    assert "receipt" in classify.glossed("Total Amount $8.20\nPayment Mode\nCASH Change\n$8.20")
    # a manual speaks of change and of payment in sentences, not as a till's lines
    manual = "Change the options below to suit your payment settings.\nCash flow is explained in chapter 3."
    assert "receipt" not in classify.glossed(manual)
    assert "receipt" not in classify.glossed("INVOICE 2024-17\nTotal due 120.00\nPayment: bank transfer")


def test_a_restaurant_check_headed_invoice_no_on_a_till_roll_is_classed_a_receipt() -> None:
    """A till roll's shape outweighs an "Invoice no:" line among its words."""
    classes = [PageClassConfig(name="invoice", description="An invoice or bill from a supplier: invoice number, "
                                                           "billing address, amounts, VAT and the total due."),
               PageClassConfig(name="receipt", description="A shop receipt or till slip: items bought, total paid, "
                                                           "cash and change.")]
    words = ["Timeless Kitchen Sdn Bhd", "Company no : 1174703-K", "Lot 50, Sky Avenue", "69000 Pahang",
             "Guest Check", "Invoice no: 000039121", "Date: 2018-03-23", "Cashier : Mizan", "Table: 25  Pax: 6",
             "Ribs Platter     SR 259.90", "Apple 350ml      SR 13.90", "Sour Apple Mojito  18.90",
             "Rib-eye Steak      77.80", *[f"Side dish {k}        {k}.50" for k in range(1, 10)],
             "Sub-total:        370.50", "GST 6%             22.23", "Total :           392.73"]
    page = _page(words)
    assert classify.assign([page], classes)[1][0] == "receipt"


def test_few_words_read_as_large_type_only_when_the_type_is_large_for_the_page() -> None:
    # the end of a manual's section on A4 in 10 pt: a short page, not a slide
    short = _page(["Version 1.1", "General: name change from lex to keyparse.", "Version 1.0",
                   "General: initial version."], x=50, size=10)
    assert classify.layout_caption(short).startswith("a short page of text")
    buf = io.BytesIO()  # a notice on an A6 card, its points in 16 pt
    c = canvas.Canvas(buf, pagesize=(298, 420))
    c.setFont("Helvetica", 16)
    for i, line in enumerate(["Expected utility", "Let Z be a set of outcomes", "u represents preferences"]):
        c.drawString(30, 360 - 28 * i, line)
    c.save()
    assert "few words in large type" in classify.layout_caption(convert(DocumentInput(data=buf.getvalue())).pages[0])


def _prose_page(paragraphs: list[str]) -> classify.PageResult:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    text = c.beginText(60, 790)
    text.setFont("Times-Roman", 10)
    for para in paragraphs:
        words, line = para.split(), ""
        for w in words:
            if len(line) + len(w) > 95:
                text.textLine(line)
                line = ""
            line = f"{line} {w}".strip()
        text.textLine(line)
        text.textLine("")
    c.drawText(text)
    c.save()
    return convert(DocumentInput(data=buf.getvalue())).pages[0]


def test_a_page_of_running_prose_from_a_guide_is_the_documentation_class() -> None:
    """A guide's page of paragraphs names no command, option or example: its layout (set as
    books are) speaks for it, where its words alone resemble no description well enough."""
    classes = [PageClassConfig(name="invoice", description="An invoice or bill from a supplier: invoice number, "
                                                           "billing address, amounts, VAT and the total due."),
               PageClassConfig(name="receipt", description="A shop receipt or till slip: items bought, total paid, "
                                                           "cash and change."),
               PageClassConfig(name="manual", description="A page of technical documentation: explanations, "
                                                          "commands, options and examples.")]
    paragraphs = [
        "When the archive of the previous release has been unpacked, the installer looks for the disks of the "
        "machine and asks which one of them should hold the new system. If more than one disk is present, the "
        "first one found is offered, but any other may be chosen; the choice can be changed later in the same "
        "dialogue until the partitions are written, after which the old contents of the disk are lost.",
        "Partitioning divides a disk into sections that the system treats as separate devices. Most people are "
        "well served by the guided method, which proposes a layout suited to the size of the disk and the amount "
        "of memory of the machine. Those who keep data of their own on the same disk, or who share it with "
        "another system, will want to look at the proposal closely before they accept it, and may prefer to "
        "set out the sections by hand.",
        "The size of the swap area has been the subject of much advice over the years. On a machine with plenty "
        "of memory it is rarely used, yet it is still worth having, since the system can move pages that are "
        "seldom touched out of the way and keep more room for files it reads often. Laptops that are suspended "
        "to disk need an area at least as large as their memory.",
        "Encryption of the disk protects its contents when the machine is lost or stolen. The installer sets it "
        "up before the sections are formatted and asks for a passphrase, which has to be typed each time the "
        "machine starts. Losing the passphrase means losing the data, so it should be kept somewhere safe, "
        "apart from the machine itself. The cost in speed is small on recent processors.",
        "Once the layout is settled, the base system is copied to the disk from the installation medium or from "
        "a mirror on the network. This takes some minutes, during which the progress of each package is shown. "
        "The remaining steps concern the software to be added, the language and the time zone, and the loader "
        "that starts the system when the machine is switched on."]
    page = _prose_page(paragraphs)
    assert classify.assign([page], classes)[1][0] == "manual"
