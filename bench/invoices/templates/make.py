"""Make the fake invoices: the Python generators print theirs here; the others get a job file.

    PYTHONPATH=<cache>/site python make.py <cache>

Run by ``bench/invoices/templates.py`` under the build's own site dir. Writes ``<cache>/out/<id>.pdf``
for the first Python generators, ``<cache>/jobs.json`` (payloads for ``render.mjs``: the npm and the
HTML ones), ``<cache>/pyjobs.json`` (payloads for ``more.py``: the Python generators added later)
and ``<cache>/made.json`` (each case's intended truth, before the check against the page).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
import sys
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fakedata import LABELS, fmt_amount, fmt_date, invoice, money, truth  # noqa: E402
from more import JOBS as MORE  # noqa: E402
from more import RENDER as MORE_PY  # noqa: E402

SEED = int(os.environ.get("INVOICE_SEED") or 20261127)  # another seed: the same layouts, other data
# generator -> locales of its cases, in order (one case each); the part is set in templates.py
PLAN = {
    "invoicegenerator": ("en_US", "en_GB", "de_DE", "fr_FR", "nl_NL", "es_ES", "it_IT", "de_DE", "en_US"),
    "pyinvoice": ("en_US", "en_GB", "en_US", "en_GB", "en_US", "en_GB", "en_US"),
    "jspdf-invoice-template": ("de_DE", "fr_FR", "nl_NL", "es_ES", "it_IT", "en_US", "en_GB", "de_DE", "fr_FR",
                               "it_IT"),
    "invoice-pdfgen": ("en_US",) * 6,
    "invoice-generator": ("de_DE", "fr_FR", "en_GB", "de_DE", "fr_FR", "en_US", "de_DE", "fr_FR"),
    "pdf-invoice": ("fr_FR", "de_DE", "es_ES", "it_IT", "nl_NL", "en_US", "en_GB", "fr_FR", "nl_NL", "es_ES"),
    # added 2026-11-28 (more.py), after the others so that their data stay as they were
    "dinbrief": ("de_DE", "en_GB", "de_DE", "de_DE", "en_US", "de_DE", "en_GB", "de_DE"),
    "larzpdf": ("en_US", "en_GB", "en_US", "en_GB", "en_US", "en_GB"),
    "erechnung": ("de_DE", "de_DE", "en_GB", "de_DE", "de_DE", "en_GB", "de_DE"),
    "yinv": ("en_US", "en_GB", "en_US", "en_GB", "en_US", "en_GB"),
    "zugferd-pdf": ("de_DE", "fr_FR", "nl_NL", "es_ES", "it_IT", "en_GB", "de_DE", "fr_FR"),
    "hb-page-invoice": ("it_IT",) * 7,
    # added 2026-11-28 (more2.py), after the others again
    "microinvoice": ("de_DE", "fr_FR", "nl_NL", "es_ES", "it_IT", "en_GB", "en_US", "de_DE"),
    "pybill": ("fr_FR", "de_DE", "nl_NL", "es_ES", "it_IT", "fr_FR", "en_GB"),
    # added 2026-11-29 (more3.py), after the others again; Swiss (German / English words) and Czech data
    "billwright": ("de_CH", "en_CH", "de_CH", "de_CH", "en_CH", "de_CH", "de_CH", "en_CH"),
    "billingyard": ("cs_CZ",) * 7,
}


# --- InvoiceGenerator (PyPI, reportlab): English labels (it ships cs and pt_BR only); dates and
# amounts in the locale's form through babel (INVOICE_LANG, currency_locale) ---------------------

def invoicegenerator(inv: dict, out: Path) -> dict:
    os.environ["INVOICE_LANG"] = inv["lang"]  # no such translation: English labels, babel's dates
    from InvoiceGenerator.api import Client, Creator, Invoice, Item, Provider
    from InvoiceGenerator.pdf import SimpleInvoice

    s, b = inv["seller"], inv["buyer"]
    loc = inv["locale"]
    account = f"{sum(map(ord, s['name'])) * 7919 % 10**8:08d}"
    ig = Invoice(Client(b["name"], address=b["street"], city=b["city_line"], phone=b["phone"], email=b["email"]),
                 Provider(s["name"], address=s["street"], city=s["city_line"], bank_account=account),
                 Creator(s["name"]))
    ig.number, ig.date, ig.payback = inv["number"], inv["date"], inv["due"]
    ig.currency, ig.currency_locale, ig.use_tax = inv["currency"], f"{loc}.UTF-8", True
    for i in inv["items"]:
        ig.add_item(Item(i["quantity"], i["unit_price"], description=i["description"], tax=inv["tax_rate"]))
    SimpleInvoice(ig).gen(str(out))
    vat = next(iter(ig.generate_breakdown_vat().values()))

    def even(x) -> float:  # babel rounds the unrounded sums half-even when it prints them
        return float(Decimal(x).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))
    return truth(inv, subtotal=even(vat["total"]), tax_amount=even(vat["tax"]), total_amount=even(ig.price_tax))


# --- PyInvoice (PyPI, reportlab): English only; prints amounts without a currency, ISO dates -------

def pyinvoice(inv: dict, out: Path) -> dict:
    from pyinvoice.models import ClientInfo, InvoiceInfo, Item, ServiceProviderInfo
    from pyinvoice.templates import SimpleInvoice

    s, b = inv["seller"], inv["buyer"]
    doc = SimpleInvoice(str(out))
    doc.invoice_info = InvoiceInfo(inv["number"], dt.datetime.combine(inv["date"], dt.time(9, 0)), inv["due"])
    city, post = split_city(inv, s)
    doc.service_provider_info = ServiceProviderInfo(name=s["name"], street=s["street"], city=city, post_code=post)
    city, post = split_city(inv, b)
    doc.client_info = ClientInfo(name=b["name"], street=b["street"], city=city, post_code=post, email=b["email"])
    for i in inv["items"]:
        doc.add_item(Item(i["description"], "", int(i["quantity"]), str(i["unit_price"])))
    doc.set_item_tax_rate(int(inv["tax_rate"]))
    doc.finish()
    return truth(inv, currency=None)


def split_city(inv: dict, p: dict) -> tuple[str, str]:
    """(city, postcode) out of the party's city line."""
    line = p["city_line"]
    if inv["locale"] == "en_US":
        city, _, rest = line.rpartition(", ")
        return f"{city}, {rest.split()[0]}", rest.split()[1]
    if inv["locale"] == "en_GB":
        parts = line.split()
        return " ".join(parts[:-2]), " ".join(parts[-2:])
    post, _, city = line.partition(" ")
    return city, post


# --- jobs for render.mjs (npm generators): payloads with the locale's labels and number forms --------

def jspdf_job(inv: dict) -> dict:
    lab, loc = LABELS[inv["lang"]], inv["locale"]
    s, b, cur = inv["seller"], inv["buyer"], inv["currency"]
    rows = [[n + 1, i["description"], fmt_amount(i["quantity"], loc, 0), fmt_amount(i["unit_price"], loc),
             fmt_amount(i["amount"], loc)] for n, i in enumerate(inv["items"])]
    return {"outputType": "arraybuffer", "fileName": inv["number"], "orientationLandscape": False, "compress": True,
            "business": {"name": s["name"], "address": s["address"], "phone": s["phone"], "email": s["email"]},
            "contact": {"label": lab["bill_to"] + ":", "name": b["name"], "address": b["address"],
                        "phone": b["phone"], "email": b["email"]},
            "invoice": {"label": lab["number"] + ": ", "num": inv["number"],
                        "invDate": f"{lab['due']}: {fmt_date(inv['due'], loc)}",
                        "invGenDate": f"{lab['date']}: {fmt_date(inv['date'], loc)}",
                        "headerBorder": False, "tableBodyBorder": False,
                        "header": [{"title": "#", "style": {"width": 10}}, {"title": lab["item"], "style": {"width": 80}},
                                   {"title": lab["qty"]}, {"title": lab["price"]}, {"title": lab["amount"]}],
                        "table": rows,
                        "additionalRows": [
                            {"col1": lab["subtotal"] + ":", "col2": fmt_amount(inv["subtotal"], loc), "col3": cur,
                             "style": {"fontSize": 10}},
                            {"col1": f"{lab['tax']} ({inv['tax_rate']}%):", "col2": fmt_amount(inv["tax"], loc),
                             "col3": cur, "style": {"fontSize": 10}},
                            {"col1": lab["total"] + ":", "col2": fmt_amount(inv["total"], loc), "col3": cur,
                             "style": {"fontSize": 14}}]},
            "footer": {"text": s["name"]}, "pageEnable": True, "pageLabel": lab["page"] + " "}


def pdf_invoice_job(inv: dict) -> dict:
    """@h1dd3nsn1p3r/pdf-invoice: it formats amounts itself (Intl, the payload's locale) and totals per line."""
    lab, loc = LABELS[inv["lang"]], inv["locale"]
    s, b = inv["seller"], inv["buyer"]
    buyer = {"name": b["name"], "address": b["street"] + "\n" + b["city_line"], "email": b["email"]}
    payload = {"company": {"name": s["name"], "address": s["street"] + "\n" + s["city_line"], "phone": s["phone"],
                           "email": s["email"]},
               "customer": buyer,
               "invoice": {"number": inv["number"], "date": fmt_date(inv["date"], loc),
                           "dueDate": fmt_date(inv["due"], loc), "status": lab["status"],
                           "locale": loc.replace("_", "-"), "currency": inv["currency"]},
               "items": [{"name": i["description"], "quantity": int(i["quantity"]), "price": float(i["unit_price"]),
                          "tax": float(inv["tax_rate"])} for i in inv["items"]]}
    short = {"en": ("Qty", "Discount", "Status"), "de": ("Anz.", "Rabatt", "Status"), "fr": ("Qté", "Remise", "Statut"),
             "nl": ("Aant.", "Korting", "Status"), "es": ("Cant.", "Dto.", "Estado"), "it": ("Qtà", "Sconto", "Stato")}
    qty, disc, status = short[inv["lang"]]
    strings = {"invoice": lab["invoice"].upper(), "refNumber": lab["number"], "date": lab["date"],
               "dueDate": lab["due"], "status": status, "discount": disc, "billTo": lab["bill_to"], "item": lab["item"],
               "quantity": qty, "price": lab["price"], "tax": lab["tax_short"], "total": lab["amount"],
               "subTotal": lab["subtotal"].replace(" HT", ""), "totalTax": lab["tax"], "grandTotal": lab["total"]}
    return {"payload": payload, "config": {"string": strings}}


def pdf_invoice_truth(inv: dict) -> dict:
    """Its line totals and "subtotal" include the tax (it adds each line's tax), so the net subtotal
    is not printed: left out (not scored)."""
    r = inv["tax_rate"] / 100
    gross = [i["quantity"] * i["unit_price"] * (1 + r) for i in inv["items"]]
    items = [{"description": i["description"], "quantity": float(i["quantity"]), "unit_price": float(i["unit_price"]),
              "amount": float(money(g))} for i, g in zip(inv["items"], gross)]
    t = truth(inv, line_items=items, tax_amount=float(money(sum(g * r / (1 + r) for g in gross))),
              total_amount=float(money(sum(gross))))
    del t["fields"]["subtotal"]
    return t


# --- invoice-generator (PyPI, Django template printed by WeasyPrint): its own en/de/fr catalogues;
# Django's localisation of dates and numbers (floatformat: no thousands separator) ----------------

def django_invoice(inv: dict, out: Path) -> dict:
    import django
    from django.conf import settings
    from django.utils import translation

    if not settings.configured:
        settings.configure(USE_I18N=True, USE_TZ=False, INSTALLED_APPS=["invoice_generator"],
                           TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates",
                                       "APP_DIRS": True}])
        django.setup()
    from invoice_generator.builder import generate_pdf
    from invoice_generator.models import Address, Executive, Invoice, Order, OrderItem, Vendor

    s, b = inv["seller"], inv["buyer"]
    city, post = split_city(inv, s)
    vendor = Vendor(Executive(s["name"], ""), Address(s["name"], s["street"], post, city), "", ())
    city, post = split_city(inv, b)
    order = Order(inv["number"], f"K{inv['date'].toordinal() % 99991:05d}", inv["date"], inv["due"], None,
                  int(inv["tax_rate"]), None, None, inv["tax"], inv["subtotal"], inv["total"])
    items = [OrderItem(order, n + 1, i["description"], int(i["quantity"]), i["unit_price"], i["amount"])
             for n, i in enumerate(inv["items"])]
    with translation.override(inv["lang"]):
        generate_pdf(inv["currency"], Invoice(order, vendor, Address(b["name"], b["street"], post, city),
                                              items)).write_pdf(str(out))
    return truth(inv)


# --- invoice-pdfgen (PyPI, fpdf): an Excel sheet named "<number>-<YYYY.M.D>.xlsx" in, a bare English
# invoice out (number, date, the sheet's columns, "Total Amount Due: $..."); no parties, no tax -------

def pdfgen(inv: dict, out: Path) -> dict:
    import pandas as pd
    from invoice_pdfgen import PDFInvoiceGenerator
    from PIL import Image

    number = re.sub(r"\W", "", inv["number"])  # the file name is split at "-"
    d = inv["date"]
    sheet = out.parent / "pdfgen" / f"{number}-{d.year}.{d.month}.{d.day}.xlsx"
    sheet.parent.mkdir(exist_ok=True)
    rows = [{"product_id": 1000 + n * 7, "product_name": i["description"], "amount_purchased": int(i["quantity"]),
             "price_per_unit": float(i["unit_price"]), "total_price": float(i["amount"])}
            for n, i in enumerate(inv["items"])]
    pd.DataFrame(rows).to_excel(sheet, index=False)
    logo = sheet.parent / "logo.png"
    Image.new("RGB", (64, 64), (40, 90, 160)).save(logo)
    PDFInvoiceGenerator(str(sheet), str(logo), str(sheet.parent)).generate()
    sheet.with_suffix(".pdf").replace(out)
    return truth(inv, invoice_number=number, due_date=None, seller_name=None, seller_address=None,
                 buyer_name=None, buyer_address=None, currency="USD", subtotal=None, tax_amount=None,
                 total_amount=float(inv["subtotal"]))


PY = {"invoicegenerator": invoicegenerator, "pyinvoice": pyinvoice, "invoice-generator": django_invoice,
      "invoice-pdfgen": pdfgen}
JOBS = {"jspdf-invoice-template": jspdf_job, "pdf-invoice": pdf_invoice_job}


def main(cache: Path) -> None:
    rng = random.Random(SEED)
    out = cache / "out"
    out.mkdir(parents=True, exist_ok=True)
    made, jobs, pyjobs = [], [], []
    for gen, locales in PLAN.items():
        for k, loc in enumerate(locales):
            cid = f"{gen}-{k + 1:02d}-{loc[:2]}"
            n_items = rng.choice((1, 2, 3, 3, 4, 5, 6, 8))
            inv = invoice(loc, rng, n_items, rng.randrange(10**9))
            pdf = out / f"{cid}.pdf"
            if gen in PY:
                t = PY[gen](inv, pdf)
            elif gen in MORE:  # printed by more.py (Python) or render.mjs (npm)
                payload, t = MORE[gen](inv)
                (pyjobs if gen in MORE_PY else jobs).append({"id": cid, "generator": gen, "out": str(pdf),
                                                             "payload": payload})
            else:
                t = pdf_invoice_truth(inv) if gen == "pdf-invoice" else truth(inv)
                jobs.append({"id": cid, "generator": gen, "out": str(pdf), **JOBS[gen](inv)})
            made.append({"id": cid, "generator": gen, "locale": loc, "path": str(pdf), **t})
    (cache / "jobs.json").write_text(json.dumps(jobs, ensure_ascii=False, indent=1))
    (cache / "pyjobs.json").write_text(json.dumps(pyjobs, ensure_ascii=False, indent=1))
    (cache / "made.json").write_text(json.dumps(made, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
