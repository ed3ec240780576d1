"""Business documents with ground truth for extraction and page classification: invoices in four
layouts (``Label: value`` lines, labels left of values, labels above values in boxes, a
key/value table), a letter, a table report and a registration form. Values are drawn from a seed,
so no answer matches by luck; ``INVOICE_SCHEMA`` / ``FORM_SCHEMA`` are what a user would send.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from reportlab.pdfgen import canvas

from tests.support.docgen import FONT, MARGIN, PAGE_H, PAGE_W, _draw_table, _wrap, paragraph, words

INVOICE_SCHEMA = {
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string", "description": "the invoice's number or id"},
        "invoice_date": {"type": "string", "format": "date", "description": "date the invoice was issued"},
        "due_date": {"type": "string", "format": "date", "description": "payment due date"},
        "po_number": {"type": "string", "description": "purchase order number"},
        "currency": {"type": "string", "enum": ["USD", "EUR", "GBP", "CHF"]},
        "subtotal": {"type": "number", "description": "amount before tax"},
        "tax": {"type": "number", "description": "VAT or sales tax amount"},
        "total": {"type": "number", "description": "total amount due"},
        "paid": {"type": "boolean", "description": "whether the invoice is already paid"},
        "seller": {"type": "object", "properties": {
            "name": {"type": "string", "description": "the seller's company name (from, vendor)"},
            "email": {"type": "string", "pattern": "^[^@ ]+@[^@ ]+$", "description": "seller e-mail"},
        }},
        "customer": {"type": "object", "properties": {
            "name": {"type": "string", "description": "the customer's name (bill to)"},
        }},
        "items": {"type": "array", "items": {"type": "string"}, "description": "line item descriptions"},
        "line_items": {"type": "array", "description": "the invoice's lines", "items": {
            "type": "object", "properties": {
                "description": {"type": "string", "description": "what was sold"},
                "quantity": {"type": "integer"},
                "unit_price": {"type": "number"},
                "amount": {"type": "number", "description": "line total"},
            }}},
    },
}

FORM_SCHEMA = {
    "type": "object",
    "properties": {
        "full_name": {"type": "string", "description": "applicant's full name"},
        "date_of_birth": {"type": "string", "format": "date"},
        "phone": {"type": "string", "description": "telephone number"},
        "member_id": {"type": "integer", "description": "membership number"},
        "country": {"type": "string"},
        "newsletter": {"type": "boolean", "description": "subscribe to the newsletter"},
    },
}

CLASSES = [
    {"name": "invoice", "description": "an invoice or bill: invoice number, amounts due, tax, total, payment terms"},
    {"name": "letter", "description": "a business letter: dear sir or madam, correspondence, sincerely, signature"},
    {"name": "table_report", "description": "a report page of data tables: rows and columns of figures, statistics"},
    {"name": "form", "description": "an application or registration form with fields to fill in: name, date of "
                                    "birth, address, signature"},
]

_COMPANIES = ["Northwind Traders", "Contoso Ltd", "Globex Corporation", "Initech GmbH", "Umbrella Supplies",
              "Acme Tools Inc", "Stark Logistics", "Wayne Fabrics", "Hooli Services", "Vandelay Imports"]
_PEOPLE = ["Maria Keller", "John Smith", "Aiko Tanaka", "Pedro Alvarez", "Fatima Noor", "Lars Berg",
           "Chloe Martin", "Samuel Osei", "Ingrid Holm", "Ravi Sharma"]
_ITEMS = ["Steel brackets", "Packing crates", "Consulting hours", "Cable reels", "Safety gloves",
          "Printer toner", "Pallet wrap", "Laptop stand", "Desk lamps", "Storage boxes"]
_COUNTRIES = ["Germany", "Canada", "Japan", "Brazil", "Kenya", "Norway", "France", "India"]


@dataclass
class Sample:
    data: bytes
    kind: str  # the page class of every page
    truth: dict = field(default_factory=dict)  # the expected structured data (empty: none)
    name: str = ""


def _fmt_date(d: date, style: int) -> str:
    return [d.isoformat(), d.strftime("%d.%m.%Y"), d.strftime("%B %d, %Y"), d.strftime("%d %b %Y")][style % 4]


def _money(x: float) -> str:
    return f"{x:,.2f}"


def invoice_truth(rng: random.Random) -> dict:
    issued = date(2025, 1, 1) + timedelta(days=rng.randint(0, 600))
    items = rng.sample(_ITEMS, rng.randint(2, 4))
    amounts = [round(rng.uniform(20, 2000), 2) for _ in items]
    quantities = [rng.randint(1, 5) for _ in items]
    subtotal = round(sum(amounts), 2)
    tax = round(subtotal * 0.19, 2)
    seller = rng.choice(_COMPANIES)
    return {
        "invoice_number": f"INV-{rng.randint(10000, 99999)}",
        "invoice_date": issued.isoformat(),
        "due_date": (issued + timedelta(days=30)).isoformat(),
        "po_number": f"PO-{rng.randint(1000, 9999)}",
        "currency": rng.choice(["USD", "EUR", "GBP", "CHF"]),
        "subtotal": subtotal, "tax": tax, "total": round(subtotal + tax, 2),
        "paid": rng.random() < 0.5,
        "seller": {"name": seller, "email": f"billing@{seller.split()[0].lower()}.example"},
        "customer": {"name": rng.choice(_PEOPLE)},
        "items": items,
        "line_items": [{"description": d, "quantity": q, "unit_price": round(a / q, 2), "amount": a}
                       for d, q, a in zip(items, quantities, amounts)],
    }


def invoice_pdf(seed: int, layout: int) -> Sample:
    """One invoice page; ``layout`` 0: ``Label: value`` lines, 1: label column left of a value
    column, 2: labels above values in boxes, 3: key/value pairs in a ruled two-column table."""
    rng = random.Random(seed)
    t = invoice_truth(rng)
    ds = rng.randint(0, 3)
    pairs = [
        ("Invoice No", t["invoice_number"]),
        ("Invoice Date", _fmt_date(date.fromisoformat(t["invoice_date"]), ds)),
        ("Due Date", _fmt_date(date.fromisoformat(t["due_date"]), ds)),
        ("PO Number", t["po_number"]),
        ("Currency", t["currency"]),
        ("Bill To", t["customer"]["name"]),
        ("Status", "Paid" if t["paid"] else "Unpaid"),
        ("Vendor Email", t["seller"]["email"]),
    ]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    c.setFont("Helvetica-Bold", 16)
    c.drawString(MARGIN, PAGE_H - 60, t["seller"]["name"])
    c.setFont(FONT, 9)
    c.drawString(MARGIN, PAGE_H - 74, f"{rng.randint(1, 99)} {words(rng, 1).title()} Street, {rng.choice(_COUNTRIES)}")
    c.setFont("Helvetica-Bold", 20)
    c.drawRightString(PAGE_W - MARGIN, PAGE_H - 60, "INVOICE")
    y = PAGE_H - 120
    if layout == 0:
        c.setFont(FONT, 10)
        for label, value in pairs:
            c.drawString(MARGIN, y, f"{label}: {value}")
            y -= 16
    elif layout == 1:
        for label, value in pairs:
            c.setFont("Helvetica-Bold", 10)
            c.drawString(MARGIN, y, label)
            c.setFont(FONT, 10)
            c.drawString(MARGIN + 150, y, value)
            y -= 18
    elif layout == 2:
        for i, (label, value) in enumerate(pairs):
            x = MARGIN + (i % 3) * 170
            if i and i % 3 == 0:
                y -= 52
            c.rect(x, y - 30, 160, 44)
            c.setFont(FONT, 7)
            c.drawString(x + 4, y + 4, label.upper())
            c.setFont(FONT, 11)
            c.drawString(x + 4, y - 16, value)
        y -= 60
    else:
        y = _draw_table(c, [["Field", "Value"], *[[k, v] for k, v in pairs]], MARGIN, y, [160, 200], ruled=True)
    y -= 30
    rows = [["Description", "Qty", "Unit Price", "Amount"]]
    for line in t["line_items"]:
        rows.append([line["description"], str(line["quantity"]), _money(line["unit_price"]), _money(line["amount"])])
    y = _draw_table(c, rows, MARGIN, y, [200, 60, 100, 100], ruled=layout != 1)
    y -= 24
    c.setFont(FONT, 10)
    for label, value in (("Subtotal", t["subtotal"]), ("Tax (19%)", t["tax"]), ("Total Due", t["total"])):
        c.drawString(PAGE_W - MARGIN - 220, y, label + ":")
        c.drawRightString(PAGE_W - MARGIN, y, f"{t['currency']} {_money(value)}")
        y -= 16
    y -= 20
    _wrap(c, "Payment terms: 30 days net. " + paragraph(rng, 1), MARGIN, y, PAGE_W - 2 * MARGIN, size=8)
    c.showPage()
    c.save()
    return Sample(buf.getvalue(), "invoice", t, f"invoice-{seed}-layout{layout}")


def form_pdf(seed: int) -> Sample:
    """A filled-in registration form: labels above values, a checkbox-like yes/no, a signature line."""
    rng = random.Random(seed)
    born = date(1950, 1, 1) + timedelta(days=rng.randint(0, 18000))
    truth = {"full_name": rng.choice(_PEOPLE), "date_of_birth": born.isoformat(),
             "phone": f"+{rng.randint(1, 49)} {rng.randint(100, 999)} {rng.randint(1000000, 9999999)}",
             "member_id": rng.randint(100000, 999999), "country": rng.choice(_COUNTRIES),
             "newsletter": rng.random() < 0.5}
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    c.setFont("Helvetica-Bold", 16)
    c.drawString(MARGIN, PAGE_H - 60, "Membership Registration Form")
    _wrap(c, "Please fill in every field in block capitals and sign below.", MARGIN, PAGE_H - 80, 400, size=9)
    fields = [("Full name", truth["full_name"]), ("Date of birth", born.strftime("%d/%m/%Y")),
              ("Phone", truth["phone"]), ("Member ID", str(truth["member_id"])),
              ("Country", truth["country"]), ("Newsletter", "Yes" if truth["newsletter"] else "No")]
    y = PAGE_H - 130
    for i, (label, value) in enumerate(fields):
        x = MARGIN + (i % 2) * 260
        if i and i % 2 == 0:
            y -= 56
        c.setFont(FONT, 8)
        c.drawString(x, y + 14, label)
        c.rect(x, y - 10, 240, 20)
        c.setFont(FONT, 11)
        c.drawString(x + 4, y - 4, value)
    y -= 80
    c.setFont(FONT, 9)
    c.drawString(MARGIN, y, "Signature: ______________________        Date: ______________")
    c.showPage()
    c.save()
    return Sample(buf.getvalue(), "form", truth, f"form-{seed}")


def letter_pdf(seed: int) -> Sample:
    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    sender, person = rng.choice(_COMPANIES), rng.choice(_PEOPLE)
    c.setFont(FONT, 10)
    c.drawString(MARGIN, PAGE_H - 60, sender)
    c.drawString(MARGIN, PAGE_H - 74, f"{rng.randint(1, 99)} Harbour Road, {rng.choice(_COUNTRIES)}")
    c.drawRightString(PAGE_W - MARGIN, PAGE_H - 110, _fmt_date(date(2025, 3, 1) + timedelta(days=seed), 2))
    y = _wrap(c, f"Dear {person},", MARGIN, PAGE_H - 150, 480, size=11)
    for _ in range(3):
        y = _wrap(c, "Thank you for your letter regarding our recent meeting. " + paragraph(rng, 3),
                  MARGIN, y - 10, PAGE_W - 2 * MARGIN, size=11)
    y = _wrap(c, "We look forward to hearing from you.", MARGIN, y - 10, 480, size=11)
    _wrap(c, "Yours sincerely,", MARGIN, y - 20, 480, size=11)
    c.drawString(MARGIN, y - 70, rng.choice(_PEOPLE) + ", Managing Director")
    c.showPage()
    c.save()
    return Sample(buf.getvalue(), "letter", {}, f"letter-{seed}")


def table_report_pdf(seed: int) -> Sample:
    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    c.setFont("Helvetica-Bold", 14)
    c.drawString(MARGIN, PAGE_H - 60, f"Table {rng.randint(1, 9)}. Quarterly {words(rng, 2)} statistics")
    y = PAGE_H - 90
    for _ in range(2):
        head = ["Region", "Q1", "Q2", "Q3", "Q4", "Change %"]
        rows = [head] + [[rng.choice(_COUNTRIES)] + [f"{rng.randint(100, 9999):,}" for _ in range(4)]
                         + [f"{rng.uniform(-9, 9):.1f}"] for _ in range(rng.randint(8, 12))]
        y = _draw_table(c, rows, MARGIN, y, [110, 70, 70, 70, 70, 80], ruled=rng.random() < 0.5) - 30
    _wrap(c, "Source: " + words(rng, 6) + ".", MARGIN, y, 480, size=8)
    c.showPage()
    c.save()
    return Sample(buf.getvalue(), "table_report", {}, f"report-{seed}")


def corpus(n_invoices: int = 8, n_forms: int = 3, n_other: int = 2, seed: int = 100) -> list[Sample]:
    """Invoices in every layout, forms, letters and table reports, all different."""
    out = [invoice_pdf(seed + i, i % 4) for i in range(n_invoices)]
    out += [form_pdf(seed + 50 + i) for i in range(n_forms)]
    out += [letter_pdf(seed + 70 + i) for i in range(n_other)]
    out += [table_report_pdf(seed + 90 + i) for i in range(n_other)]
    return out


# Classes of the real pages in tests/realworld (LaTeX package manuals from Debian's texlive
# documentation), by hand from the rendered pages.
REAL_CLASSES = [
    {"name": "slide", "description": "a presentation slide: a title and a few bullet points in large type"},
    {"name": "table", "description": "a page dominated by a table of rows and columns"},
    {"name": "manual", "description": "a software manual page: running text explaining commands, options "
                                      "and examples"},
]

# Truth for REAL_CLASSES, by hand from the rendered pages: "table" where tables fill about half
# the page or more; the pages of the booktabs and ctable manuals are running text *about* tables
# with small examples, so "manual". (microtype-p6 is a borderline case: a table over ~40% of it.)
REAL_TRUTH = {"beamer-talk-p5": "slide", "fontspec-p40": "table", "fontspec-p45": "table",
              "memman-p36": "table", "memman-p40": "table"}
REAL_DEFAULT = "manual"


def flat(data: dict, prefix: str = "") -> dict:
    """``{"a": {"b": 1}}`` → ``{"a.b": 1}`` (lists stay values)."""
    out: dict = {}
    for k, v in data.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def field_score(got: dict, truth: dict) -> tuple[int, int, dict]:
    """Fields equal to the truth (numbers within a cent), fields in the truth, and the misses
    as ``{field: (got, want)}``."""
    g, t = flat(got), flat(truth)
    misses = {}
    for k, want in t.items():
        have = g.get(k)
        same = have == want or (isinstance(want, float) and isinstance(have, int | float)
                                and not isinstance(have, bool) and abs(have - want) < 0.005)
        if not same:
            misses[k] = (have, want)
    return len(t) - len(misses), len(t), misses


def schema_for(sample: Sample) -> dict:
    return INVOICE_SCHEMA if sample.kind == "invoice" else FORM_SCHEMA
