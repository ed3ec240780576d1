"""The generators added on 2026-11-28, later: payloads and truth (imported by ``make.py``); the Python one
is printed by ``more.py`` (``RENDER``), the npm one by ``render.mjs``.

Why a file of their own: ``more.py`` is near its size limit, and these two take every label as a
parameter, so they need the locale's words for far more labels than ``fakedata.LABELS`` has.

* ``microinvoice`` (npm, PDFKit): a header band (title and our "label: value" lines), two columns of
  "label: lines" (buyer, seller), a table whose last two columns sit at fixed places, "label value"
  totals. Every word is ours; it appends the currency code to amounts it is told are prices.
* ``pybill`` (PyPI, Logilab, reportlab platypus): a French business letter (company block top left,
  window address, "<place>, <on-date> <date>", "<bill> <number> <dated> <date>", items table, payment
  terms and a totals box). Its words and number separators come from a config file (``localisation``),
  which we write in the locale's language; it computes its totals itself (float, rounded per line).
"""

from __future__ import annotations

import re
from pathlib import Path

from fakedata import LABELS, fmt_amount, fmt_date, truth

# --- microinvoice (npm, PDFKit) ------------------------------------------------------------------

def job_microinvoice(inv: dict) -> tuple[dict, dict]:
    lab, loc, cur = LABELS[inv["lang"]], inv["locale"], inv["currency"]
    s, b = inv["seller"], inv["buyer"]
    rows = [[{"value": i["description"]}, {"value": fmt_amount(i["unit_price"], loc), "price": True},
             {"value": fmt_amount(i["quantity"], loc, 0)}, {"value": fmt_amount(i["amount"], loc), "price": True}]
            for i in inv["items"]]
    data = {"invoice": {
        "name": lab["invoice"], "currency": cur,
        "header": [{"label": lab["number"], "value": inv["number"]},
                   {"label": lab["date"], "value": fmt_date(inv["date"], loc)},
                   {"label": lab["due"], "value": fmt_date(inv["due"], loc)}],
        "customer": [{"label": lab["bill_to"], "value": [b["name"], b["street"], b["city_line"], b["email"]]}],
        "seller": [{"label": lab["seller"], "value": [s["name"], s["street"], s["city_line"], s["phone"],
                                                     s["email"]]}],
        "legal": [],
        "details": {"header": [{"value": lab["item"]}, {"value": lab["price"]}, {"value": lab["qty"]},
                               {"value": lab["amount"]}],
                    "parts": rows,
                    "total": [{"label": lab["subtotal"], "value": fmt_amount(inv["subtotal"], loc), "price": True},
                              {"label": f"{lab['tax']} {inv['tax_rate']} %", "value": fmt_amount(inv["tax"], loc),
                               "price": True},
                              {"label": lab["total"], "value": fmt_amount(inv["total"], loc), "price": True}]}}}
    return {"data": data}, truth(inv)


# --- pybill (PyPI, reportlab): the config's ``localisation`` words, per language ------------------

# (en, de, fr, nl, es, it) for the words a bill prints; the others (credit notes, down payments,
# holdbacks, pro forma) keep the English of pybill's example config (never printed on a bill)
WORDS = {
    "colon": (":", ":", "\u00a0:", ":", ":", ":"),
    "phone-kw": ("Tel", "Tel.", "Tél", "Tel.", "Tel.", "Tel."),
    "fax-kw": ("Fax", "Fax", "Fax", "Fax", "Fax", "Fax"),
    "web-kw": ("Web", "Web", "Web", "Web", "Web", "Web"),
    "email-kw": ("E-mail", "E-Mail", "Courriel", "E-mail", "Correo", "E-mail"),
    "doc-ref-kw": ("Our ref", "Unser Zeichen", "N/Réf", "Ons kenmerk", "N/Ref", "Ns. rif."),
    "receiver-kw": ("For the attention of", "z. Hd.", "À l'attention de", "T.a.v.", "A la atención de",
                    "Alla c.a. di"),
    "sender-kw": ("Contact", "Ansprechpartner", "Affaire suivie par", "Contactpersoon", "Contacto", "Referente"),
    "on-date": ("on", "den", "le", "d.d.", "a", "lì"),
    "bill": ("Invoice", "Rechnung", "Facture", "Factuur", "Factura", "Fattura"),
    "number": ("no.", "Nr.", "n°", "nr.", "n.º", "n."),
    "dated": ("dated", "vom", "en date du", "van", "de fecha", "del"),
    "quantity": ("Qty", "Menge", "Qté", "Aantal", "Cant.", "Q.tà"),
    "description": ("Description", "Bezeichnung", "Désignation", "Omschrijving", "Descripción", "Descrizione"),
    "vat-rate": ("VAT rate", "USt.-Satz", "Taux TVA", "Btw-tarief", "Tipo IVA", "Aliquota IVA"),
    "unit-price": ("Unit price", "Einzelpreis", "Prix unit.", "Prijs per stuk", "Precio unit.", "Prezzo unit."),
    "tf-unit-price": ("Unit price excl. VAT", "Einzelpreis netto", "Prix unit. HT", "Prijs excl. btw",
                      "Precio unit. sin IVA", "Prezzo unit. netto"),
    "price": ("Price", "Preis", "Prix", "Prijs", "Importe", "Importo"),
    "tf-price": ("Price excl. VAT", "Netto", "Prix HT", "Bedrag excl. btw", "Base imponible", "Imponibile"),
    "it-price": ("Price incl. VAT", "Brutto", "Prix TTC", "Bedrag incl. btw", "Importe con IVA", "Importo IVA incl."),
    "total": ("Total", "Summe", "Total", "Totaal", "Total", "Totale"),
    "tf-total": ("Total excl. VAT", "Nettobetrag", "Total HT", "Totaal excl. btw", "Base imponible", "Imponibile"),
    "vat-amount": ("VAT", "USt.", "TVA", "Btw", "IVA", "IVA"),
    "it-total": ("Total incl. VAT", "Gesamtbetrag", "Total TTC", "Totaal incl. btw", "Total con IVA",
                 "Totale IVA inclusa"),
    "including": ("including", "davon", "dont", "waarvan", "de los cuales", "di cui"),
    "to-be-paid": ("To be paid", "Zu zahlen", "À payer", "Te betalen", "A pagar", "Da pagare"),
    "payment-terms": ("Terms of payment", "Zahlungsbedingungen", "Conditions de règlement", "Betalingsvoorwaarden",
                      "Condiciones de pago", "Condizioni di pagamento"),
    "to-bring-forward": ("Carried forward", "Übertrag", "À reporter", "Transport", "Suma y sigue", "A riportare"),
    "carry-forward": ("Brought forward", "Übertrag", "Report", "Transport", "Suma anterior", "Riporto"),
    "intro-detail": ("All amounts in {cur}.", "Alle Beträge in {cur}.", "Tous les montants sont en {cur}.",
                     "Alle bedragen in {cur}.", "Todos los importes en {cur}.", "Tutti gli importi in {cur}."),
}
ENGLISH = {"claim-form": "Claim form", "debit": "Credit note", "downpayment": "Down payment",
           "pro-forma": "Pro forma", "valid-until": "valid until", "holdback-on": "Holdback on", "ita-est": "i.e.",
           "holdback": "Holdback", "on-tf": "on tax free amounts", "on-vat": "on VAT amounts",
           "debit-total": "Credit total", "charged-downpayment": "Down payment", "charged-on": "charged on",
           "issued-debit": "Credit note", "issued-on": "issued on"}
ORDER = ("colon phone-kw fax-kw web-kw email-kw doc-ref-kw receiver-kw sender-kw on-date bill claim-form debit "
         "downpayment pro-forma number dated valid-until intro-detail quantity description vat-rate unit-price "
         "tf-unit-price price tf-price it-price holdback-on ita-est total tf-total vat-amount it-total including "
         "holdback on-tf on-vat debit-total charged-downpayment charged-on issued-debit issued-on to-be-paid "
         "payment-terms to-bring-forward carry-forward").split()  # the order of pybill-config-1_0.xsd
SEPARATORS = {"en": (",", "."), "fr": ("\u00a0", ",")}  # (thousands, decimals); the others "." and ","


def esc(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def split_post(locale: str, line: str) -> tuple[str, str]:
    """(postcode, city) out of a party's city line (GB: "City AB1 2CD"; NL: "1234 AB City"; the others
    "12345 City")."""
    parts = line.split()
    if locale == "en_GB":
        return " ".join(parts[-2:]), " ".join(parts[:-2])
    n = 2 if locale == "nl_NL" and len(parts) > 2 and re.fullmatch(r"[A-Z]{2}", parts[1]) else 1  # "5970WO" too
    return " ".join(parts[:n]), " ".join(parts[n:])


def el(tag: str, value) -> str:
    return f"<{tag}>{esc(value)}</{tag}>"


def job_pybill(inv: dict) -> tuple[dict, dict]:
    lab, loc, lg = LABELS[inv["lang"]], inv["locale"], inv["lang"]
    k = "en de fr nl es it".split().index(lg)
    s, b = inv["seller"], inv["buyer"]
    s_post, s_city = split_post(loc, s["city_line"])
    b_post, b_city = split_post(loc, b["city_line"])
    thousands, digits = SEPARATORS.get(lg, (".", ","))
    words = {w: WORDS[w][k].format(cur=inv["currency"]) if w in WORDS else ENGLISH[w] for w in ORDER}
    iban = f"{loc[-2:]}{sum(map(ord, s['name'])) % 89 + 10} {sum(map(ord, s['street'])) * 7919 % 10**8:08d}"
    config = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<pbc:config xmlns:pbc="http://www.logilab.org/2010/PyBillConfig" pbc:name="docklake" '
        'pbc:format-version="PBC-1.0">'
        f"<pbc:company>{el('pbc:orgname', s['name'])}<pbc:address>{el('pbc:street', s['street'])}"
        f"{el('pbc:postcode', s_post)}{el('pbc:city', s_city)}{el('pbc:phone', s['phone'])}"
        f"{el('pbc:email', s['email'])}</pbc:address></pbc:company>"
        f"<pbc:bank-data>{el('pbc:line', 'IBAN: ' + iban)}</pbc:bank-data><pbc:agreement-intro/>"
        f"<pbc:footer>{el('pbc:line', s['name'] + ' - ' + s['address'])}</pbc:footer>"
        f"<pbc:number-separators>{el('pbc:sign', '')}{el('pbc:thousands', thousands)}"
        f"{el('pbc:digits', digits)}</pbc:number-separators>"
        f"<pbc:localisation>{''.join(el('pbc:' + w, words[w]) for w in ORDER)}</pbc:localisation></pbc:config>")
    items = "".join(
        f"<pbd:item>{el('pbd:qty', i['quantity'])}<pbd:description>{el('pbd:title', i['description'])}"
        f"</pbd:description>{el('pbd:unit-price', i['unit_price'])}{el('pbd:vat-rate', inv['tax_rate'])}</pbd:item>"
        for i in inv["items"])
    doc = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<pbd:accounting-document xmlns:pbd="http://www.logilab.org/2010/PyBillDocument" pbd:type="bill" '
        'pbd:format-version="PBD-1.0">'
        f"<pbd:metadata>{el('pbd:id', inv['number'])}{el('pbd:doc-ref', inv['number'])}{el('pbd:place', s_city)}"
        f"{el('pbd:date', fmt_date(inv['date'], loc))}</pbd:metadata>"
        f"<pbd:address pbd:role=\"to\"><pbd:affiliation>{el('pbd:orgname', b['name'])}<pbd:address>"
        f"{el('pbd:street', b['street'])}{el('pbd:postcode', b_post)}{el('pbd:city', b_city)}</pbd:address>"
        f"</pbd:affiliation></pbd:address><pbd:items-list>{items}</pbd:items-list>"
        f"{el('pbd:payment-terms', lab['due'] + ': ' + fmt_date(inv['due'], loc))}</pbd:accounting-document>")
    # its arithmetic: floats, each line's price and VAT rounded, then the sums rounded
    prices = [round(float(i["quantity"]) * float(i["unit_price"]), 2) for i in inv["items"]]
    vats = [round(p * (round(float(inv["tax_rate"]), 2) / 100.0), 2) for p in prices]
    gross = [round(p + v, 2) for p, v in zip(prices, vats)]
    items_t = [{"description": i["description"], "quantity": float(i["quantity"]), "unit_price": float(i["unit_price"]),
                "amount": p} for i, p in zip(inv["items"], prices)]
    return {"config": config, "doc": doc}, truth(
        inv, line_items=items_t, seller_address=f"{s['street']}, {s_post} {s_city}",
        buyer_address=f"{b['street']}, {b_post} {b_city}", subtotal=round(sum(prices), 2),
        tax_amount=round(sum(vats), 2), total_amount=round(sum(gross), 2))


def render_pybill(job: dict, out: Path) -> None:
    from pybill.lib.controller import PyBillController

    src = out.parent / "pybill"
    src.mkdir(exist_ok=True)
    (src / f"{out.stem}.config.xml").write_text(job["config"], encoding="utf-8")
    (src / f"{out.stem}.xml").write_text(job["doc"], encoding="utf-8")
    ctl = PyBillController()
    entities = ctl.build_entities_from_files([str(src / f"{out.stem}.xml")], str(src / f"{out.stem}.config.xml"))
    ctl.write_pdf_to_files([(entities[0][0], str(out))])


# generator -> payload and truth; those in RENDER are printed by more.py, the others by render.mjs
JOBS = {"microinvoice": job_microinvoice, "pybill": job_pybill}
RENDER = {"pybill": render_pybill}
