"""The generators added on 2026-11-28: payloads and truth (imported by ``make.py``), and the
printing of the Python ones in a process of their own.

    PYTHONPATH=<cache>/site python more.py <cache>

Why a second process: ``dinbrief`` finds its German labels through Django's translation of the
apps in ``INSTALLED_APPS``, and ``make.py`` has already set Django up for ``invoice-generator``
(whose catalogue must stay as it was: the existing cases may not change). So ``make.py`` writes
the payloads of these generators to ``<cache>/pyjobs.json`` and this file prints them. The
HTML one (``@htmlbricks/hb-page-invoice``) is printed by ``render.mjs`` with headless Chromium.
The generators added on 2026-11-28, later are in ``more2.py``, those of 2026-11-29 in ``more3.py``; their
Python ones are printed here too.

Each ``job_*`` turns one fake invoice into (JSON payload, truth), the truth set to what that
generator prints: its own rounding (dinbrief truncates, zugferd-pdf rounds half-even, hb-page-invoice
prints JavaScript floats), its own address order, the currency it really prints.
"""

from __future__ import annotations

import json
import math
import re
import sys
from datetime import date
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import more2  # noqa: E402
import more3  # noqa: E402
from fakedata import LABELS, fmt_date, truth  # noqa: E402

SYMBOL = {"EUR": "€", "GBP": "£", "USD": "$"}


def num(x) -> str:
    return str(Decimal(x))


def split_city(locale: str, line: str) -> tuple[str, str]:
    """(postcode, city) out of a party's city line (US: "City, ST 12345"; GB: "City AB1 2CD")."""
    if locale == "en_US":
        city, _, rest = line.rpartition(" ")
        return rest, city
    if locale == "en_GB":
        parts = line.split()
        return " ".join(parts[-2:]), " ".join(parts[:-2])
    post, _, city = line.partition(" ")
    return post, city


def post_first(inv: dict, p: dict) -> str:
    """The party's address as generators that print "<postcode> <city>" show it."""
    post, city = split_city(inv["locale"], p["city_line"])
    return f"{p['street']}, {post} {city}"


def digits(text: str, n: int) -> str:
    """n digits that depend only on text (a fake tax or account number)."""
    return f"{sum(ord(c) * (i + 7) for i, c in enumerate(text)) * 7919 % 10**n:0{n}d}"


# --- erechnung (PyPI, reportlab, DIN 5008 + ZUGFeRD): its own German and English texts. We print
# the visible PDF only (``pdf_bytes``), not the Factur-X file: the embedded XML would give the
# answers away. It prints every amount in EUR, whatever the currency -------------------------------

def iban_de(seed: str) -> str:
    bban = "370400" + digits(seed, 12)
    check = 98 - int(bban + "131400") % 97
    return f"DE{check:02d}{bban}"


def vat_de(seed: str) -> str:
    body, p = "1" + digits(seed, 7), 10  # DE and nine digits, the last a check digit (ISO 7064)
    for d in body:
        p = (2 * ((int(d) + p) % 10 or 10)) % 11
    return f"DE{body}{(11 - p) % 10}"


def party_de(inv: dict, p: dict) -> dict:
    m = re.fullmatch(r"(.+?)\s+(\d[\w/.-]*)", p["street"])
    street, house = (m.group(1), m.group(2)) if m else (p["street"], "")
    post, city = split_city(inv["locale"], p["city_line"])
    return {"street": street, "house_number": house, "postal_code": post, "city": city,
            "country": inv["locale"][-2:], "email": p["email"]}


def job_erechnung(inv: dict) -> tuple[dict, dict]:
    s, b = inv["seller"], inv["buyer"]
    seller = {"name": s["name"], **party_de(inv, s), "phone": s["phone"], "vat_id": vat_de(s["name"]),
              "iban": iban_de(s["name"])}
    buyer = party_de(inv, b)
    buyer.update({"last_name": b["name"], "customer_type": "b2c"} if b["person"] else
                 {"company": b["name"], "customer_type": "b2b"})
    job = {"seller": seller, "customer": buyer, "number": inv["number"], "date": inv["date"].isoformat(),
           "due": inv["due"].isoformat(), "language": "de" if inv["lang"] == "de" else "en",
           "items": [[i["description"], num(i["quantity"]), num(i["unit_price"]), num(inv["tax_rate"])]
                     for i in inv["items"]]}
    return job, truth(inv, currency="EUR", seller_address=post_first(inv, s), buyer_address=post_first(inv, b))


def render_erechnung(job: dict, out: Path) -> None:
    import erechnung.generator  # noqa: F401  (adds Invoice.pdf_bytes)
    from erechnung.models import Customer, CustomerType, Invoice, Language, LineItem, Seller

    c = dict(job["customer"], customer_type=CustomerType(job["customer"]["customer_type"]))
    inv = Invoice(seller=Seller(**job["seller"]), customer=Customer(**c), invoice_number=job["number"],
                  line_items=[LineItem(t, Decimal(q), Decimal(p), tax_rate=Decimal(r)) for t, q, p, r in job["items"]],
                  issue_date=date.fromisoformat(job["date"]), service_date=date.fromisoformat(job["date"]),
                  due_date=date.fromisoformat(job["due"]), language=Language(job["language"]))
    out.write_bytes(inv.pdf_bytes())


# --- dinbrief (PyPI, reportlab): a DIN 5008 letter (window-envelope address, info box, subject),
# items and totals tables with its own English / German (Django catalogue) labels; we give the
# subject and the info box, in the locale's words. Django's number_format cuts decimals: truncated -

def job_dinbrief(inv: dict) -> tuple[dict, dict]:
    lab, loc = LABELS[inv["lang"]], inv["locale"]
    s, b = inv["seller"], inv["buyer"]
    job = {"lang": inv["lang"], "sender": [s["name"], s["street"], s["city_line"]],
           "recipient": [b["name"], b["street"], b["city_line"]], "date": fmt_date(inv["date"], loc),
           "info": [f"{lab['number']}: {inv['number']}", f"{lab['due']}: {fmt_date(inv['due'], loc)}"],
           "subject": f"{lab['invoice']} {inv['number']}", "currency": SYMBOL[inv["currency"]],
           "rate": num(inv["tax_rate"] / 100),
           "items": [[i["description"], num(i["quantity"]), num(i["unit_price"])] for i in inv["items"]]}
    vat = inv["subtotal"] * inv["tax_rate"] / 100
    cut = Decimal("0.01")
    return job, truth(inv, tax_amount=float(vat.quantize(cut, ROUND_DOWN)),
                      total_amount=float((inv["subtotal"] + vat).quantize(cut, ROUND_DOWN)))


def render_dinbrief(job: dict, out: Path) -> None:
    import django
    from django.conf import settings

    if not settings.configured:  # as in a Django project: the app installed, localised formats
        settings.configure(USE_I18N=True, USE_L10N=True, USE_TZ=False, INSTALLED_APPS=["dinbrief"])
        django.setup()
    from dinbrief.document import Document
    from dinbrief.invoice import Invoice, Item, ItemTable, TotalTable
    from dinbrief.styles import styles
    from dinbrief.template import BriefTemplate
    from django.utils import translation
    from reportlab.platypus import Paragraph

    with translation.override(job["lang"]):
        inv = Invoice(items=[Item(n + 1, t, price=Decimal(p), quantity=Decimal(q), vat_rate=Decimal(job["rate"]))
                             for n, (t, q, p) in enumerate(job["items"])], currency=job["currency"])
        template = BriefTemplate()
        doc = Document(sender=job["sender"], recipient=job["recipient"], date=job["date"],
                       infobox=[Paragraph(line, styles["Text"]) for line in job["info"]],
                       content=[Paragraph(job["subject"], styles["Subject"]), ItemTable(template, inv),
                                TotalTable(template, inv)])
        with open(out, "wb") as fh:
            template.render(doc, fh)


# --- yinv (PyPI, Jinja + WeasyPrint): a US consulting invoice from a YAML file, English only
# ("Aug 5, 2024"); needs a service month and bank details, which we make up; float amounts ------

def job_yinv(inv: dict) -> tuple[dict, dict]:
    s, b = inv["seller"], inv["buyer"]
    acct = digits(s["name"], 10)
    job = {"client": "client", "invoice_number": inv["number"], "service_month": f"{inv['date']:%Y-%m}",
           "date_of_issue": inv["date"].isoformat(), "due_date": inv["due"].isoformat(),
           "billed_to": {"name": b["name"], "address": [b["street"], b["city_line"]]},
           "from": {"name": s["name"], "address": [s["street"], s["city_line"]], "email": s["email"]},
           "purchase_order": None,
           "line_items": [{"description": i["description"], "unit_cost": float(i["unit_price"]),
                           "qty": int(i["quantity"])} for i in inv["items"]],
           "terms": "Thank you for your business.", "tax_rate": int(inv["tax_rate"]), "shipping": 0,
           "currency": inv["currency"],
           "bank_details": {"name": s["name"], "account_number": acct, "account_type": "Checking",
                            "routing_number": digits(b["name"], 9), "swift_bic": "FBNKUS33",
                            "bank_name": "First National Bank", "bank_address": [s["street"], s["city_line"]]}}

    def printed(x: Decimal) -> float:  # yinv: Decimal -> float, then "{:,.2f}"
        return float(f"{float(x):.2f}")
    tax = inv["subtotal"] * inv["tax_rate"] / 100
    return job, truth(inv, tax_amount=printed(tax), total_amount=printed(inv["subtotal"] + tax))


def render_yinv(job: dict, out: Path) -> None:
    from yinv.data import save_invoice
    from yinv.render import render

    data = dict(job, date_of_issue=date.fromisoformat(job["date_of_issue"]),
                due_date=date.fromisoformat(job["due_date"]))
    src = out.parent / "yinv" / f"{out.stem}.yaml"
    src.parent.mkdir(exist_ok=True)
    save_invoice(data, src)
    render(src).replace(out)


# --- larzpdf (PyPI, its own PDF writer): English only; the date is printed as we give it; no due
# date; the tax line's label is a parameter ("Sales tax" in the US, "VAT" in the UK) ----------------

def job_larzpdf(inv: dict) -> tuple[dict, dict]:
    s, b = inv["seller"], inv["buyer"]
    job = {"number": inv["number"], "date": fmt_date(inv["date"], inv["locale"]),
           "seller": {"name": s["name"], "address": s["address"], "email": s["email"], "phone": s["phone"]},
           "buyer": {"name": b["name"], "address": b["address"], "email": b["email"]},
           "currency": SYMBOL[inv["currency"]], "rate": num(inv["tax_rate"] / 100),
           "tax_label": "VAT" if inv["locale"] == "en_GB" else "Sales tax",
           "items": [[i["description"], num(i["quantity"]), num(i["unit_price"])] for i in inv["items"]]}
    return job, truth(inv, due_date=None)


def render_larzpdf(job: dict, out: Path) -> None:
    from larzpdf import Invoice

    inv = Invoice(job["number"], date=job["date"], seller=job["seller"], buyer=job["buyer"], currency=job["currency"])
    for t, q, p in job["items"]:
        inv.item(t, Decimal(q), Decimal(p))
    inv.tax(Decimal(job["rate"]), job["tax_label"])
    inv.save(str(out))


# --- zugferd-pdf (PyPI, reportlab): the visible invoice of a ZUGFeRD generator (its
# ``generate_invoice_pdf``, without the XML); English labels, dd.mm.yyyy, "1234.56 EUR" ----------

def job_zugferd(inv: dict) -> tuple[dict, dict]:
    def party(p: dict) -> dict:
        post, city = split_city(inv["locale"], p["city_line"])
        return {"name": p["name"], "postcode": post, "line_one": p["street"], "city_name": city,
                "country_id": inv["locale"][-2:], "contact_email": p["email"]}
    s, b = inv["seller"], inv["buyer"]
    job = {"number": inv["number"], "date": inv["date"].isoformat(), "due": inv["due"].isoformat(),
           "currency": inv["currency"], "seller": party(s), "buyer": party(b),
           "items": [[i["description"], num(i["quantity"]), num(i["unit_price"]), num(inv["tax_rate"])]
                     for i in inv["items"]]}
    tax = (inv["subtotal"] * inv["tax_rate"] / 100).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
    return job, truth(inv, seller_address=post_first(inv, s), buyer_address=post_first(inv, b),
                      tax_amount=float(tax), total_amount=float(inv["subtotal"] + tax))


def render_zugferd(job: dict, out: Path) -> None:
    from zugferd.models import Invoice, LineItem, PostalAddress, TradeParty
    from zugferd.pdf_builder import generate_invoice_pdf

    def party(p: dict) -> TradeParty:
        a = PostalAddress(postcode=p["postcode"], line_one=p["line_one"], city_name=p["city_name"],
                          country_id=p["country_id"])
        return TradeParty(name=p["name"], address=a, contact_email=p["contact_email"])
    inv = Invoice(invoice_number=job["number"], issue_date=date.fromisoformat(job["date"]),
                  due_date=date.fromisoformat(job["due"]), currency=job["currency"],
                  seller=party(job["seller"]), buyer=party(job["buyer"]),
                  items=[LineItem(str(n + 1), t, Decimal(q), "C62", Decimal(p), Decimal(r))
                         for n, (t, q, p, r) in enumerate(job["items"])])
    out.write_bytes(generate_invoice_pdf(inv))


# --- @htmlbricks/hb-page-invoice (npm, a Svelte web component; Chromium prints it): Italian labels
# built in, "DD/MM/YY" dates, amounts as JavaScript prints floats ("95.5€", "1526.4900000000002") --

def job_hb_invoice(inv: dict) -> tuple[dict, dict]:
    s, b = inv["seller"], inv["buyer"]

    def company(p: dict) -> dict:
        return {"piva": "IT" + digits(p["name"], 11), "name": p["name"], "address": p["address"],
                "email": p["email"], "phone": p["phone"]}
    rate = float(inv["tax_rate"])
    items = [{"desc": i["description"], "unitaryPrice": float(i["unit_price"]), "taxPercentage": rate,
              "quantity": int(i["quantity"])} for i in inv["items"]]
    headers = {"serial": inv["number"], "date": f"{inv['date'].isoformat()}T12:00:00.000Z", "country": "it",
               "from": {**company(s), "logo": "", "shortName": s["name"]}, "to": company(b)}
    def js_round(x: float) -> float:  # Math.round(x * 100) / 100
        return math.floor(x * 100 + 0.5) / 100
    nets = [it["unitaryPrice"] * it["quantity"] for it in items]  # the component's float arithmetic
    sub = sum(nets)
    tax = js_round(sum(n * rate * 0.01 for n in nets))
    gross = [it["unitaryPrice"] * it["quantity"] + js_round(rate * 0.01 * it["unitaryPrice"] * it["quantity"])
             for it in items]
    lines = []  # a line is shown net ("subtotal") and gross ("totale"): either counts, if printed without
    for i, n, g in zip(inv["items"], nets, gross):  # a float tail ("152.32999999999998€")
        amounts = [x for x in (n, g) if x == round(x, 2)] or [round(n, 2)]
        lines.append({"description": i["description"], "quantity": float(i["quantity"]),
                      "unit_price": float(i["unit_price"]), "amount": amounts if len(amounts) > 1 else amounts[0]})
    return ({"headers": headers, "items": items}, truth(inv, line_items=lines, due_date=None, subtotal=round(sub, 2),
                                                        tax_amount=tax, total_amount=round(sub + tax, 2)))


# generator -> payload and truth; those in RENDER are printed here, the others by render.mjs
JOBS = {"dinbrief": job_dinbrief, "larzpdf": job_larzpdf, "erechnung": job_erechnung, "yinv": job_yinv,
        "zugferd-pdf": job_zugferd, "hb-page-invoice": job_hb_invoice}
RENDER = {"dinbrief": render_dinbrief, "larzpdf": render_larzpdf, "erechnung": render_erechnung,
          "yinv": render_yinv, "zugferd-pdf": render_zugferd}
# and those added 2026-11-28 (more2.py) and 2026-11-29 (more3.py): their payloads, truth and printing
JOBS.update(more2.JOBS)
RENDER.update(more2.RENDER)
JOBS.update(more3.JOBS)
RENDER.update(more3.RENDER)


def main(cache: Path) -> None:
    for job in json.loads((cache / "pyjobs.json").read_text()):
        RENDER[job["generator"]](job["payload"], Path(job["out"]))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
