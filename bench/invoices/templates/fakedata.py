"""Fake invoice data (Faker, fixed seed) and its printing in each locale's conventions.

Runs under the build's own site dir (``~/.cache/docklake-bench/invoice-templates/site``), not the
project venv: ``bench/invoices/templates.py`` starts ``make.py``, which imports this file.
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import ROUND_HALF_UP, Decimal

from faker import Faker

LOCALES = ("en_US", "en_GB", "de_DE", "fr_FR", "nl_NL", "es_ES", "it_IT")
# added later (more3.py): Swiss data in German or English (en_CH: English words, de_CH's Faker), Czech
LOCALES_LATER = ("de_CH", "en_CH", "cs_CZ")
FAKER = {"en_CH": "de_CH"}  # the Faker locale, where it is not the data's own
CURRENCY = {"en_US": "USD", "en_GB": "GBP", "de_CH": "CHF", "en_CH": "CHF", "cs_CZ": "CZK"}  # the others: EUR
TAX_RATES = {"en_US": (0, 6, 7, 8), "en_GB": (20,), "de_DE": (19, 7), "fr_FR": (20, 10), "nl_NL": (21, 9),
             "es_ES": (21, 10), "it_IT": (22, 10),
             "de_CH": ("8.1", "8.1", "2.6"), "en_CH": ("8.1",), "cs_CZ": (21, 21, 12, 0)}  # 0: a non-VAT payer

# the words a real invoice in each language uses, for templates that take their labels as parameters
LABELS = {
    "en": dict(invoice="Invoice", number="Invoice No.", date="Invoice date", due="Due date", bill_to="Bill to",
               seller="From", item="Description", qty="Quantity", price="Unit price", amount="Amount",
               subtotal="Subtotal", tax="VAT", total="Total", status="Due", page="Page", tax_short="Tax"),
    "de": dict(invoice="Rechnung", number="Rechnungsnummer", date="Rechnungsdatum", due="Fälligkeitsdatum",
               bill_to="Rechnungsempfänger", seller="Rechnungssteller", item="Beschreibung", qty="Menge",
               price="Einzelpreis", amount="Betrag", subtotal="Zwischensumme", tax="MwSt.", total="Gesamtbetrag",
               status="Offen", page="Seite", tax_short="MwSt."),
    "fr": dict(invoice="Facture", number="N° de facture", date="Date", due="Échéance", bill_to="Facturé à",
               seller="Émetteur", item="Désignation", qty="Quantité", price="Prix unitaire", amount="Montant",
               subtotal="Sous-total HT", tax="TVA", total="Total TTC", status="À payer", page="Page",
               tax_short="TVA"),
    "nl": dict(invoice="Factuur", number="Factuurnummer", date="Factuurdatum", due="Vervaldatum",
               bill_to="Factuur aan", seller="Afzender", item="Omschrijving", qty="Aantal", price="Prijs per stuk",
               amount="Bedrag", subtotal="Subtotaal", tax="btw", total="Totaal", status="Openstaand",
               page="Pagina", tax_short="btw"),
    "es": dict(invoice="Factura", number="N.º de factura", date="Fecha", due="Fecha de vencimiento",
               bill_to="Facturar a", seller="Emisor", item="Descripción", qty="Cantidad", price="Precio unitario",
               amount="Importe", subtotal="Base imponible", tax="IVA", total="Total", status="Pendiente",
               page="Página", tax_short="IVA"),
    "it": dict(invoice="Fattura", number="Fattura n.", date="Data", due="Scadenza", bill_to="Destinatario",
               seller="Mittente", item="Descrizione", qty="Quantità", price="Prezzo unitario", amount="Importo",
               subtotal="Imponibile", tax="IVA", total="Totale", status="Da pagare", page="Pagina",
               tax_short="IVA"),
}

# (description, typical unit price) per language: goods and services a small business bills
ITEMS = {
    "en": [("Website maintenance (monthly)", 250), ("Consulting hours", 95), ("Office chair, ergonomic", 189),
           ("Printer toner cartridge", 64), ("Logo design", 480), ("Cloud hosting plan", 39),
           ("On-site installation", 150), ("USB-C docking station", 129), ("Translation of user manual", 320),
           ("Annual software licence", 599), ("Delivery and handling", 25), ("Network cabling per metre", 3)],
    # Czech (cs_CZ, added later): the same goods and services, prices in CZK
    "cs": [("Správa webových stránek (měsíčně)", 6000), ("Konzultace (hodiny)", 1500), ("Kancelářská židle",
           4500), ("Tonerová kazeta černá", 1600), ("Návrh loga", 12000), ("Cloudový hosting", 950),
           ("Instalace na místě", 3500), ("Dokovací stanice USB-C", 3200), ("Překlad uživatelské příručky", 8000),
           ("Roční softwarová licence", 15000), ("Poštovné a balné", 150), ("Síťový kabel (metr)", 40)],
    "de": [("Wartung Website (monatlich)", 250), ("Beratung (Stunden)", 95), ("Bürostuhl, ergonomisch", 189),
           ("Tonerkartusche schwarz", 64), ("Gestaltung Firmenlogo", 480), ("Cloud-Hosting Tarif M", 39),
           ("Montage vor Ort", 150), ("Dockingstation USB-C", 129), ("Übersetzung Bedienungsanleitung", 320),
           ("Softwarelizenz Jahresabo", 599), ("Versandkosten", 25), ("Netzwerkkabel Cat 6 pro Meter", 3)],
    "fr": [("Maintenance du site web (mensuel)", 250), ("Heures de conseil", 95), ("Fauteuil de bureau ergonomique",
           189), ("Cartouche de toner noir", 64), ("Création de logo", 480), ("Hébergement cloud", 39),
           ("Installation sur site", 150), ("Station d'accueil USB-C", 129), ("Traduction du manuel utilisateur",
           320), ("Licence logicielle annuelle", 599), ("Frais de port", 25), ("Câble réseau au mètre", 3)],
    "nl": [("Onderhoud website (maandelijks)", 250), ("Advieswerk per uur", 95), ("Ergonomische bureaustoel", 189),
           ("Tonercartridge zwart", 64), ("Ontwerp logo", 480), ("Cloudhosting pakket", 39),
           ("Installatie op locatie", 150), ("USB-C dockingstation", 129), ("Vertaling handleiding", 320),
           ("Jaarlicentie software", 599), ("Verzendkosten", 25), ("Netwerkkabel per meter", 3)],
    "es": [("Mantenimiento web (mensual)", 250), ("Horas de consultoría", 95), ("Silla de oficina ergonómica", 189),
           ("Cartucho de tóner negro", 64), ("Diseño de logotipo", 480), ("Alojamiento en la nube", 39),
           ("Instalación in situ", 150), ("Base de conexión USB-C", 129), ("Traducción del manual de usuario",
           320), ("Licencia de software anual", 599), ("Gastos de envío", 25), ("Cable de red por metro", 3)],
    "it": [("Manutenzione sito web (mensile)", 250), ("Ore di consulenza", 95), ("Sedia da ufficio ergonomica",
           189), ("Cartuccia toner nero", 64), ("Progettazione logo", 480), ("Hosting cloud", 39),
           ("Installazione in sede", 150), ("Docking station USB-C", 129), ("Traduzione manuale utente", 320),
           ("Licenza software annuale", 599), ("Spese di spedizione", 25), ("Cavo di rete al metro", 3)],
}

NUMBER_FORMATS = ("{p}-{y}-{n:04d}", "{p}{y}{n:05d}", "{n:06d}", "{y}/{n:04d}", "{p}-{n:05d}", "{y}-{m:02d}-{n:03d}")
PREFIX = {"en": ("INV", "IN", "S"), "de": ("RE", "R", "RG"), "fr": ("FA", "F", "FAC"), "nl": ("F", "FAC", "INV"),
          "es": ("FV", "F", "A"), "it": ("FT", "F", "FPR"), "cs": ("FV", "F", "VF")}


def lang(locale: str) -> str:
    return locale[:2]


def money(x) -> Decimal:
    return Decimal(x).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def fmt_amount(x, locale: str, decimals: int = 2) -> str:
    """1,234.56 (en), 1.234,56 (de, nl, es, it), 1 234,56 (fr)."""
    s = f"{Decimal(x):,.{decimals}f}"
    if lang(locale) == "en":
        return s
    sep = " " if lang(locale) == "fr" else "."
    return s.replace(",", "\0").replace(".", ",").replace("\0", sep)


def fmt_date(d: dt.date, locale: str) -> str:
    return d.strftime({"en_US": "%m/%d/%Y", "de_DE": "%d.%m.%Y", "nl_NL": "%d-%m-%Y"}.get(locale, "%d/%m/%Y"))


def party(fake: Faker, locale: str, person: bool) -> dict:
    name = fake.name() if person else fake.company()
    street = fake.street_address().replace("\n", ", ")
    if locale == "en_US":
        city_line = f"{fake.city()}, {fake.state_abbr()} {fake.postcode()}"
    elif locale == "en_GB":
        city_line = f"{fake.city()} {fake.postcode()}"
    else:
        city_line = f"{fake.postcode()} {fake.city()}"
    return {"name": name, "street": street, "city_line": city_line, "address": f"{street}, {city_line}",
            "email": fake.email(), "phone": fake.phone_number(), "person": person}


def invoice(locale: str, rng: random.Random, n_items: int, seed: int) -> dict:
    """One fake invoice: parties, number, dates, items; amounts as Decimal, computed line by line."""
    fake = Faker(FAKER.get(locale, locale))
    fake.seed_instance(seed)
    lg = lang(locale)
    date = dt.date(2023, 1, 1) + dt.timedelta(days=rng.randrange(0, 900))
    num = rng.choice(NUMBER_FORMATS).format(p=rng.choice(PREFIX[lg]), y=date.year, m=date.month,
                                            n=rng.randrange(1, 9999))
    items = []
    for desc, base in rng.sample(ITEMS[lg], n_items):
        qty = Decimal(rng.choice((1, 1, 1, 2, 3, 4, 5, 8, 10, 12, 20)) if base >= 10 else rng.choice((25, 50, 120)))
        price = money(Decimal(base) * Decimal(rng.uniform(0.7, 1.4)))
        items.append({"description": desc, "quantity": qty, "unit_price": price, "amount": money(qty * price)})
    rate = Decimal(rng.choice(TAX_RATES[locale]))
    subtotal = sum((i["amount"] for i in items), Decimal(0))
    tax = money(subtotal * rate / 100)
    return {"locale": locale, "lang": lg, "currency": CURRENCY.get(locale, "EUR"), "number": num, "date": date,
            "due": date + dt.timedelta(days=rng.choice((14, 30, 30, 45))), "seller": party(fake, locale, False),
            "buyer": party(fake, locale, rng.random() < 0.3), "items": items, "tax_rate": rate,
            "subtotal": subtotal, "tax": tax, "total": subtotal + tax}


def truth(inv: dict, **override) -> dict:
    """The truth shape of ``bench/invoices/truth/*.json`` (fields + line_items); ``override`` sets
    fields to what the template really prints (``None``: the template does not print it)."""
    f = {"invoice_number": inv["number"], "invoice_date": inv["date"].isoformat(),
         "due_date": inv["due"].isoformat(), "seller_name": inv["seller"]["name"],
         "seller_address": inv["seller"]["address"], "buyer_name": inv["buyer"]["name"],
         "buyer_address": inv["buyer"]["address"], "currency": inv["currency"], "subtotal": float(inv["subtotal"]),
         "tax_amount": float(inv["tax"]), "total_amount": float(inv["total"])}
    items = [{"description": i["description"], "quantity": float(i["quantity"]), "unit_price": float(i["unit_price"]),
              "amount": float(i["amount"])} for i in inv["items"]]
    for k, v in override.items():
        if k == "line_items":
            items = v
        else:
            f[k] = v
    return {"fields": f, "line_items": items}
