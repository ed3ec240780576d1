"""The generators added on 2026-11-29: payloads and truth (imported by ``more.py``, which prints them too).

Why a file of their own: ``more.py`` and ``more2.py`` are near their size limits, and these two bring
data in locales the set did not have (``fakedata``: de_CH, en_CH, cs_CZ; new entries only, so the
earlier cases keep their data), each with their own rules for what a party, a number or an amount is.

* ``billwright`` (PyPI, Jinja + WeasyPrint): a Swiss invoice letter with the Swiss QR-bill payment
  part (Zahlteil / Empfangsschein) at the foot. Its own German (de-CH) and English texts; CHF is
  hard-coded; amounts "1’234.50 CHF" (RIGHT SINGLE QUOTATION MARK), "CHF 5 094.75" in the payment part;
  no due date, only "within N days". We give a company profile (the packaged example's colours, the
  seller's name as the wordmark), a client and the lines.
* ``billingyard`` (PyPI, Jinja + WeasyPrint): a Czech *faktura – daňový doklad* (or, for a supplier
  who is not a VAT payer, a plain *faktura*, "neplátce DPH"), Czech labels built in, "1 234,50 Kč",
  "05. 03. 2024", a QR platba code. Driven as its CLI does it: three JSON files (sender, receiver,
  invoice), its ``BillingYard`` class. Its sums are floats (line VAT not rounded), which the truth copies.
"""

from __future__ import annotations

import json
import os
import re
from datetime import date
from pathlib import Path

from fakedata import truth


def digits(text: str, n: int) -> str:
    """n digits that depend only on text (a fake registration or account number)."""
    return f"{sum(ord(c) * (i + 7) for i, c in enumerate(text)) * 7919 % 10**n:0{n}d}"


def iban(country: str, bban: str) -> str:
    """A checksum-valid IBAN for a BBAN of digits."""
    check = 98 - int(bban + str(int(country[0], 36)) + str(int(country[1], 36)) + "00") % 97
    return f"{country}{check:02d}{bban}"


def street_house(street: str) -> tuple[str, str]:
    m = re.fullmatch(r"(.+?)\s+(\d[\w/.-]*)", street)
    return (m.group(1), m.group(2)) if m else (street, "")


def post_city(line: str) -> tuple[str, str]:
    """(postcode, city) of a Swiss ("8001 Zürich") or Czech ("507 48 Horní Benešov") city line."""
    m = re.fullmatch(r"(\d{3} \d{2}|\d+)\s+(.+)", line)
    return (m.group(1), m.group(2)) if m else ("", line)


# --- billwright (PyPI, WeasyPrint): de-CH / en texts of its own, CHF, the QR-bill payment part -----

def job_billwright(inv: dict) -> tuple[dict, dict]:
    from faker import Faker

    s, b = inv["seller"], inv["buyer"]

    def address(p: dict) -> dict:
        street, house = street_house(p["street"])
        post, city = post_city(p["city_line"])
        return {"name": p["name"], "street": street, "house_number": house, "postal_code": post, "city": city,
                "country": "CH"}
    fake = Faker("de_CH")  # who signs: a person of the seller's (not in the data: drawn from its name)
    fake.seed_instance(int(digits(s["name"], 9)))
    uid = digits(s["name"] + "uid", 8)
    check = 11 - sum(int(d) * w for d, w in zip(uid, (5, 4, 3, 2, 7, 6, 5, 4))) % 11
    uid = f"{uid[:7]}{(int(uid[7]) + 1) % 10}" if check == 10 else uid  # a UID whose check digit exists
    check = 11 - sum(int(d) * w for d, w in zip(uid, (5, 4, 3, 2, 7, 6, 5, 4))) % 11
    company = {"name": s["name"], "person": fake.name(), "address": address(s), "email": s["email"],
               "phone": s["phone"], "iban": iban("CH", "00" + digits(s["name"], 3) + digits(s["street"], 12)),
               "uid": f"CHE-{uid[:3]}.{uid[3:6]}.{uid[6:]}{check % 11} MWST", "vat_registered": True,
               "vat_rate": str(inv["tax_rate"]), "default_language": inv["lang"]}

    def unit(desc: str) -> str:
        return "hours" if re.search(r"stunden|hours", desc, re.I) else "items"
    job = {"company": company, "client": {"key": "client", "address": address(b), "language": inv["lang"]},
           "number": inv["number"], "date": inv["date"].isoformat(), "language": inv["lang"],
           "terms_days": (inv["due"] - inv["date"]).days,
           "items": [{"description": i["description"], "quantity": str(i["quantity"]), "unit": unit(i["description"]),
                      "unit_price": str(i["unit_price"])} for i in inv["items"]]}
    return job, {**truth(inv, due_date=None), "currency": "CHF"}


def render_billwright(job: dict, out: Path) -> None:
    from billwright.load import load_brand
    from billwright.model import Bill, Client, Company, LineItem
    from billwright.paths import DEFAULT_ASSETS, PACKAGED_EXAMPLE
    from billwright.render import render_bill

    brand = load_brand(PACKAGED_EXAMPLE)  # its colours and type; our name as the wordmark, no logo
    brand = brand.model_copy(update={"wordmark": {"line2": job["company"]["name"], "dot": ""}, "mark": ""})
    bill = Bill(number=job["number"], date=date.fromisoformat(job["date"]), client=Client(**job["client"]),
                items=tuple(LineItem(**i) for i in job["items"]), language=job["language"],
                terms_days=job["terms_days"])
    render_bill(bill, Company(**job["company"]), brand, DEFAULT_ASSETS, out)


# --- billingyard (PyPI, WeasyPrint): Czech, built in; float sums ------------------------------------

BANKS = (("Komerční banka", "0100"), ("Česká spořitelna", "0800"), ("ČSOB", "0300"), ("Fio banka", "2010"),
         ("Raiffeisenbank", "5500"), ("Moneta Money Bank", "0600"))
COURTS = ("Městským soudem v Praze", "Krajským soudem v Brně", "Krajským soudem v Ostravě",
          "Krajským soudem v Plzni", "Krajským soudem v Hradci Králové", "Krajským soudem v Českých Budějovicích")


def ico(seed: str) -> str:
    """A Czech company number (IČO): seven digits and a mod-11 check digit."""
    body = digits(seed, 7)
    c = (11 - sum(int(d) * w for d, w in zip(body, range(8, 1, -1))) % 11) % 10
    return body + str(c)


def job_billingyard(inv: dict) -> tuple[dict, dict]:
    s, b = inv["seller"], inv["buyer"]
    vat_payer = inv["tax_rate"] > 0
    number = re.sub(r"\D", "", inv["number"])[-10:]  # the variable symbol: digits only

    def subject(p: dict, vat: bool) -> dict:
        post, city = post_city(p["city_line"])
        return {"company": p["name"], "street": p["street"], "city": city, "zip_code": post,
                "country": "Česká republika", "company_id": ico(p["name"]),
                "vat_id": f"CZ{ico(p['name'])}" if vat else None}
    bank, code = BANKS[int(digits(s["name"], 2)) % len(BANKS)]
    account = digits(s["street"], 10).lstrip("0") or "1"
    rate = float(inv["tax_rate"]) / 100

    def unit(desc: str) -> str:
        return "hod" if "hodin" in desc else "měs" if "měsíčně" in desc else "m" if "metr" in desc else "ks"
    invoice = {"invoice_number": number, "issue_date": f"{inv['date']:%d. %m. %Y}",
               "supply_date": f"{inv['date']:%d. %m. %Y}", "due_date": f"{inv['due']:%d. %m. %Y}",
               "currency": "Kč", "bank": bank, "bank_account": f"{account}/{code}",
               "iban": iban("CZ", code + account.zfill(16)), "payment_method": "Převodem",
               "register_info": f"Zapsáno v obchodním rejstříku vedeném {COURTS[int(digits(s['name'], 3)) % 6]}, "
                                f"oddíl C, vložka {int(digits(s['email'], 5))}",
               "invoice_lines": [{"description": i["description"], "quantity": int(i["quantity"]),
                                  "unit": unit(i["description"]), "unit_price": float(i["unit_price"]),
                                  **({"vat_rate": rate} if vat_payer else {})} for i in inv["items"]]}
    job = {"vat": vat_payer, "sender": subject(s, vat_payer), "receiver": subject(b, not b["person"]),
           "invoice": invoice}
    # its arithmetic (models.py): float line prices, VAT per line unrounded, sums in order; "{:,.2f}"
    lines = invoice["invoice_lines"]
    nets = [ln["quantity"] * ln["unit_price"] for ln in lines]
    vats = [n * rate for n in nets]
    gross = [n + v for n, v in zip(nets, vats)]
    net_sum, vat_sum, gross_sum = 0.0, 0.0, 0.0
    for n, v, g in zip(nets, vats, gross):
        net_sum, vat_sum, gross_sum = net_sum + n, vat_sum + v, gross_sum + g

    def printed(x: float) -> float:
        return float(f"{x:.2f}")
    items = [{"description": i["description"], "quantity": float(i["quantity"]), "unit_price": float(i["unit_price"]),
              "amount": [printed(n), printed(g)] if vat_payer else printed(n)}
             for i, n, g in zip(inv["items"], nets, gross)]
    post_s, city_s = post_city(s["city_line"])
    post_b, city_b = post_city(b["city_line"])
    return job, truth(inv, line_items=items, invoice_number=number, currency="CZK",
                       seller_address=f"{s['street']}, {post_s}, {city_s}",
                       buyer_address=f"{b['street']}, {post_b}, {city_b}",
                       subtotal=printed(net_sum) if vat_payer else None,
                       tax_amount=printed(vat_sum) if vat_payer else None,
                       total_amount=printed(gross_sum) if vat_payer else printed(net_sum))


def render_billingyard(job: dict, out: Path) -> None:
    from billingyard.billingyard import BillingYard

    work = out.parent / "billingyard" / out.stem
    work.mkdir(parents=True, exist_ok=True)
    for name in ("sender", "receiver", "invoice"):
        (work / f"{name}.json").write_text(json.dumps(job[name], ensure_ascii=False), encoding="utf-8")
    here = os.getcwd()
    os.chdir(work)  # it writes "<number>.pdf" into the working directory
    try:
        yard = BillingYard(str(work / "sender.json"), None)
        if job["vat"]:
            yard.set_vat_invoice_processor()
        yard.print_invoice(yard.create_invoice(str(work / "invoice.json"), str(work / "receiver.json")))
    finally:
        os.chdir(here)
    (work / f"{job['invoice']['invoice_number']}.pdf").replace(out)


# generator -> payload and truth; both printed by more.py
JOBS = {"billwright": job_billwright, "billingyard": job_billingyard}
RENDER = {"billwright": render_billwright, "billingyard": render_billingyard}
