"""What a field *is*, read from the schema's words, and where a document says it, read from layout.

A user's schema names fields in plain words: "Name of the business that issued the receipt (the
seller)", "the final total including tax", "date of purchase, copied as printed". Matching such a
field to the nearest label (``candidates`` + ``matching``) finds "Date: 25/12/2018", but not what
documents seldom label — the seller's name and address at the top of the page, the total among
subtotal, tax, rounding and line amounts — and takes a line amount as readily as the total. So a
field is given a **role** when its words say it clearly (the seller's or buyer's name or address,
the total, subtotal or tax amount, a date and which one), in the languages of Western Europe, and
each role has a finder that reads the page as a person would:

* **rows**: the page's text lines grouped into visual rows (top to bottom, left to right), so a
  receipt's ``TOTAL ........ RM 9.00`` is one row even when layout made it two blocks;
* **seller**: the first rows of the first page, skipping titles (``INVOICE``, ``Rechnung``…) and
  lines without capitals; a name continues onto the next row when that row is a legal form
  (``SDN BHD``, ``GmbH``…); the address is the rows under it up to the first telephone, e-mail,
  tax-number, date or title row (registration numbers are skipped);
* **buyer**: the rows under a ``Bill to`` / ``Rechnungsadresse`` / ``Client`` label;
* **amounts**: rows that say total (not sub-total, quantity or tax), the amount printed on the row
  or just below; a rounded or grand total wins over a plain one, a later total over an earlier;
* **dates**: every date-shaped text, the one whose row's label says which (due, invoice, delivery)
  first, else the first on the document.

A description that says "as printed" (or "verbatim", "wie gedruckt", "tel qu'imprimé"…) keeps the
text exactly as the document prints it; otherwise values are normalised by type as everywhere.
No rule names a vendor; every word list is a list of *kinds* of label, in several languages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.stages.extract.schema import Field, _type


def _words(*alts: str) -> re.Pattern[str]:
    """One pattern for the words of ``alts``, each whole; a space between words matches any run of
    spaces, as a label whose words a layout set apart prints them ("Total  with  tax:")."""
    spaced = [re.sub(r" (?![^\[]*\])", r"\\s+", a.replace(" ?", r"\s*")) for a in alts]
    return re.compile(r"(?<![a-zà-ÿ])(?:" + "|".join(spaced) + r")(?![a-zà-ÿ])", re.I)


SELLER = _words("bill(?:ed)? from", "invoice from", "sold by", "billed by", "invoiced by", "issued by",
                "remit(?:tance)? to", "(?:make )?(?:cheques?|checks?) payable to",
                # (the Swiss QR-bill's payee: "Konto / Zahlbar an", "Compte / Payable à", "Conto / Pagabile a")
                "(?:(?:konto|compte|conto|account) / )?(?:payable to|zahlbar an|payable [àa]|pagabile a)", "(?:service )?provider", "seller", "vendor", "supplier", "merchant", "company", "business", "store", "shop", "issuer",
                "sender", "from", "cedente", "prestatore", "venduto da", "vendu par", "verkauft von", "vendido por", "restaurant", "verkäufer", "lieferant", "anbieter", "firma",
                "fournisseur", "vendeur", "émetteur", "société", "leverancier", "verkoper", "bedrijf",
                "proveedor", "vendedor", "emisor", "empresa", "fornitore", "venditore", "emittente", "azienda",
                "sprzedawca", "sprzedający", "dodavatel", "leverandør", "leverantör", "säljare", "myyjä",
                "elad[óo]", "m[üu][üu]ja", "seljandi", "pardav[ėe]jas", "p[āa]rdev[ēe]js", "prodavatelj", "v[âa]nz[ăa]tor",
                "sat[ıi]c[ıi]")
BUYER = _words("buyer", "customer", "client", "issued to", "cobrar a", "env[ií](?:e|ar) a", "responsible party", "guarantor", "account holder", "policy ?holder", "bill(?:ed)? ?to", "ship(?:ped)? ?to", "sold ?to", "recipient",
               "purchaser", "kunde", "käufer", "empfänger", "rechnungsempfänger", "acheteur", "destinataire",
               "klant", "koper", "afnemer", "comprador", "destinatario(?! \\w)", "acquirente", "committente", "cessionario",
               "cliente", "receptor", "nabywca", "odbiorca", "kupujący", "odběratel", "kund", "köpare", "ostaja", "vev[őo]", "ostja", "kaupandi", "pirk[ėe]jas", "pirc[ēe]js",
               "kupac", "cump[ăa]r[ăa]tor", "al[ıi]c[ıi]",
               "billing address", "invoice(?:d)? to", "factur(?:ée?|er) [àa]", "adresse de facturation",
               "rechnungs(?:adresse|anschrift)", "factuuradres", "fakturerings?adressen?", "fakturaadress(?:en)?",
               "direcci[óo]n de facturaci[óo]n", "facturad[oa] a", "facturar a", "fatturat[oa] a", "fatturare a", "factu(?:ur|reren) aan", "rechnung an",
               "indirizzo di fatturazione", "intestat[oa] a", "credit(?:ed)? to", "(?:aan|to|an)(?=\\s*:)")
# "Buyer's Order No.", "Customer's PO", "Company's PAN": a field of the party's, not its label
SELLER, BUYER = (re.compile(p.pattern + r"(?!['’]s\b)", re.I) for p in (SELLER, BUYER))
# who is paid: a remittance stub's or a payment slip's label
PAYEE = re.compile(r"(?<![a-zà-ÿ])(?:remit(?:tance)? to|payable to|(?:cheques?|checks?) payable|zahlbar an|payable [àa]|"
                   r"pagabile a)(?![a-zà-ÿ])", re.I)
# a third party's label: the shipper, the consignee, a site the work was done at
THIRD = re.compile(r"(?<![a-zà-ÿ])(?:shipper|consignee|origin|destination|carrier|service (?:location|address)|"
                   r"job (?:site|address)|site address|chantier|baustelle|lieu d'intervention)(?![a-zà-ÿ])", re.I)
NAME = _words("name", "names", "company", "business", "firm", "firma", "nom", "raison sociale", "naam",
              "nombre", "razón social", "nome", "ragione sociale", "seller", "vendor", "supplier", "merchant",
              "issuer", "buyer", "customer", "client")
ADDRESS = _words("address", "addresses", "adresse", "anschrift", "adres", "dirección", "direccion", "domicilio",
                 "indirizzo", "street", "location")
TOTAL = _words("t[o0a][tl][a4][l1I]", "totals",  # OCR reads "Tatal", "T0tal", "TOTA1", "Tolal"
               "grand ?total", "(?:amount|amt\\.?) (?:due|paid|payable)", "balance due", "sum", "gesamt\\w*",
               "\\w*summe", "\\w*betrag", "\\w*beitrag", "zu zahlen", "montant", "net [àa] payer",
               "totaal", "te betalen", "importe", "totale", "importo", "betrag", "bedrag", "[åa] betale", "i alt",
               "att betala", "totalt", "celkem", "celková (?:cena|částka)", "k úhradě", "do zapłaty", "razem", "yhteensä", "maksettava",
               # Iceland, Hungary, Estonia, Lithuania, Latvia, Croatia/Slovenia, Romania, Turkey, Greece
               "samtals", "til greiðslu", "[öo]sszesen", "fizetend[őo]", "kokku", "tasuda", "tasumisele kuulub",
               "i[šs] viso", "mok[ėe]ti", "kop[āa]", "apmaksai", "ukupno", "za pla[ćc]anje", "skupaj", "za pla[čc]ilo",
               "total de plat[ăa]", "toplam", "σύνολο")
SUBTOTAL = _words("sub ?-?totals?", "net amount", "net total", "net(?=\\s*[:£$€(]|\\s*$|\\s+[£$€]?\\s*\\d[\\d,.]*[.,]\\d\\d\\b)", "exkl\\.?", "zwischensumme", "nettobetrag", "netto",
                  "sous-?total", "total ht", "hors taxes?", "subtotaal", "excl\\.?", "exclusive", "before tax",
                  "before (?:[\\w&]+ ){1,3}(?:tax|taxes|gst|vat)",
                  "base imponible", "imponibile", "untaxed", "without (?:vat|tax|gst)", "ohne (?:mwst|ust)",
                  "sans tva", "sin iva", "senza iva", "zonder btw", "\\w*grunnlag", "ekskl\\.?", "eks\\.", "ex\\.? (?:gst|vat|tax)", "before taxes", "total il[íi]quido",
                  "taxable (?:value|amount)", "z[áa]klad(?: dan[ěe])?", "bez dph", "summe positionen",
                  "(?:iva|vat|tva|mwst) esclusa", "esclusa iva", "warto[śs][ćc] netto",
                  "nett[óo](?: [öo]sszesen| [ée]rt[ée]k)?", "veroton(?: yhteensä)?", "k[äa]ibemaksuta", "summa km-ta",
                  "[áa]n vsk", "be pvm", "bez pvn", "osnovica", "ara toplam")
TAX = _words("tax(?:es)?", "vat", "gst", "[cisu]gst", "utgst", "hst", "pst", "qst", "sst", "mwst", "ust", "\\w*steuer", "tva", "taxe", "btw",
             "iva", "impuesto", "imposta", "mva", "moms", "dph", "alv", "kdv", "consumption tax",
             "[áa]fa", "vsk", "k[äa]ibemaks", "pvm", "pvn", "pdv", "ddv", "φπα")
TAX_ID = _words("id", "ident\\w*", "nr", "no", "n°", "intra\\w*", "siret", "siren", "number", "nummer", "numéro", "nummer", "número", "numero", "reg\\w*",
                "code")
NOT_TOTAL = _words("qty", "quantity", "items?", "pcs", "discount", "savings?", "saved", "weight", "points?",
                   "menge", "anzahl", "quantité", "aantal", "cantidad", "quantità", "rabatt\\w*", "remises?", "korting",
                   "abschl[äa]ge?", "zuschl[äa]ge?", "nachl[äa]ss\\w*", "skonto", "allowances?", "descuentos?",
                   "sconto")
# a running sum carried from one page to the next: neither the net total nor the total
CARRIED = _words("carried forward", "brought forward", "c/f", "b/f", "[üu]bertrag", "[àa] reporter", "[áa]tvitel", "[áa]thozat", "riporto", "suma y sigue", "a transportar")
# "IVA inclusa", "TVA comprise", "BTW inbegrepen": the tax included
INCLUDED = "(?:iva|tva|vat|btw) (?:inclus[ao]?|incluid[ao]|compres[ao]|comprise?|inbegrepen)"
BETTER_TOTAL = _words("grand", "rounded", "round(?:ing)?", "nett", "net total", "incl\\.?", "inkl\\.?", "inc\\.?", "inclusive",
                      "includes?", "including", "with (?:vat|tax|gst)", "con iva", INCLUDED, "v[čc]etn[ěe]",
                      "amount due", "due", "payable", "to pay", "brutto", "gesamtbetrag", "endbetrag", "ttc",
                      "[àa] payer", "te betalen", "a pagar", "da pagare")
# what makes a net or sub-total row the final one ("Net Total Rounded", "Total Incl. of GST")
FINAL = _words("grand", "rounded", "incl\\.?", "inkl\\.?", "inclusive", "includes?", "including", "payable", "with (?:vat|tax|gst)",
               "con iva", INCLUDED, "v[čc]etn[ěe]")
DATE_WORD = _words("date", "dated", "day", "datum", "fecha", "data", "tarikh", "jour", "issued", "ausgestellt",
                  "émise? le", "emitida", "emessa")
DUE = _words("due", "payable", "pay by", "fällig(?:keit)?", "zahlbar", "échéance", "à régler", "vervaldatum",
             "vervaldag", "vencimiento", "vencimento", "scadenza", "deadline", "pay(?:able)? before", "payer avant",
             "te betalen voor", "pagar antes", "pagare entro", "forfall\\w*", "forfald\\w*",
             "förfallo\\w*", "splatnost\\w*", "termin płatności", "eräpäivä", "date limite(?: de paiement)?",
             "fizet[ée]si hat[áa]rid[őo]", "(?:makse)?t[äa]htaeg", "gjalddagi", "eindagi", "apmaksas termi[ņn]š",
             "mok[ėe]jimo terminas", "rok pla[ćc]anja", "scaden[țt][ăa]")
OTHER_DATE = _words("delivery", "delivered", "shipped", "order", "period", "valid", "expiry", "expires",
                    # German compounds, written whole or hyphenated: "Leistungs-Datum", "Lieferschein-Datum"
                    "(?:liefer(?:schein)?|leistungs|vertrags|bestell|auftrags?)-?datum", "livraison", "commande", "levering", "entrega", "consegna", "pedido", "ordine")
AS_PRINTED = _words("as printed", "as written", "as shown", "as it appears", "verbatim", "exactly", "copied",
                    "original format", "own format", "wie gedruckt", "wörtlich", "tel qu'imprimé",
                    "tel quel", "zoals gedrukt", "letterlijk", "tal cual", "tal como", "come stampato")
TITLE = _words("invoice", "tax ?invoice", "receipt", "official receipt", "cash bill", "cash sales?", "bill",
               "quotation", "credit note", "delivery note", "statement", "rechnung", "quittung", "beleg",
               "gutschrift", "facture", "reçu", "ticket", "factuur", "bon", "kassabon", "factura", "recibo",
               "fattura", "ricevuta", "scontrino", "simplified tax invoice", "fatura", "faktura",
               # Northern and Eastern Europe's words for an invoice
               "reikningur", "sz[áa]mla", "arve", "lasku", "fakt[úu]ra", "factur[ăa]", "ra[čc]un", "s[ąa]skaita(?: fakt[ūu]ra)?",
               "r[ēe][kķ]ins", "faktura vat",
               "(?:votre|your|ihre|uw|su|tu|la sua|din|deres|twoja) (?:facture|invoice|bill|rechnung|factuur|factura|"
               "fattura|faktura)")
STOP = _words("tel", "tel\\.?no", "phone", "telephone", "telefon", "téléphone", "tél", "fax", "hp", "mobile",
              "e-?mail", "www", "http", "gst", "gstin", "nip", "vat", "sst", "tax ?id", "tin", "ust-?id", "ust-?idnr", "siret",
              "siren", "tva", "btw", "kvk", "cif", "nif", "p\\.? ?iva", "partita iva", "invoice", "receipt",
              "cashier", "date", "datum", "table", "order", "total", "cash", "qty", "amount", "reg(?:istration)?",
              "roc", "co\\.? ?no", "company no", "formerly", "licensee", "seite", "page", "pagina", "página",
              "blad", "trn", "rfc", "cnpj", "cpf", "r[ée]gimen fiscal", "abn", "acn", "ein", "uen", "di[čc]", "ičo",
              "org\\.? ?nr", "cvr", "uid", "steuer-?nr")  # tax and company numbers of more countries
# a company or tax registration number: "(867388-U)", "CO.REG: 933109-X", "(Co. No. 113825-W)"
REGISTRATION = re.compile(
    r"\s*\(?\s*(?:(?:co|company|roc|br|reg|rfg|registration|no)\b\.?\s*){0,3}[:.]?\s*\(?\s*"
    r"[A-Z]{0,3}\d[\dA-Z]{3,}(?:\s?-\s?[A-Z])?\s*\)?\s*\)?(?=\s|$)", re.I)
LEGAL = _words("sdn\\.? ?bhd\\.?", "bhd\\.?", "s/b", "berhad", "gmbh", "ag", "kg", "ohg", "e\\.?k\\.?", "ug", "ltd\\.?",
               "limited", "llc", "inc\\.?", "corp\\.?", "co\\.?", "plc", "llp", "s\\.?a\\.?", "s\\.?a\\.?s\\.?",
               "sarl", "eurl", "b\\.?v\\.?", "n\\.?v\\.?", "s\\.?l\\.?", "s\\.?p\\.?a\\.?", "s\\.?r\\.?l\\.?",
               "enterprise", "trading", "(?:pte|pty)\\.? ltd\\.?", "a\\.g\\.", "e\\.v\\.", "gbr", "kgaa", "sprl",
               "bvba", "ltda", "pvt\\.? ltd\\.?", "private limited", "a/s", "aps", "oy", "ab", "asa", "sp\\. z o\\.o\\.", "s\\.?n\\.?c\\.?",
               # more countries' forms (NL, HU, IS, EE, CZ, SK, FI, CH, FR, ES, PT, US, Québec, BR, the Balkans, PL, JP)
               "v\\.?o\\.?f\\.?", "c\\.v\\.", "comm\\.? ?v", "kft\\.?", "bt\\.?", "zrt\\.?", "nyrt\\.?", "ehf\\.?",
               "hf\\.?", "oü", "s\\.r\\.o\\.", "a\\.s\\.", "oyj", "s[àa]rl", "sasu", "s\\.?l\\.?u\\.?", "lda\\.?",
               "unipessoal", "pllc", "ltée", "eireli", "d\\.o\\.o\\.", "d\\.d\\.", "sp\\. j\\.", "k\\.k\\.",
               "s\\.? ?coop\\.?", "s\\.? ?com\\.?", "s\\.?l\\.?n\\.?e\\.?", "s\\.?a\\.?u\\.?")  # Spain: S.Coop., S.L.N.E.
LEGAL = re.compile(rf"(?<!\d){LEGAL.pattern}(?!\d)", LEGAL.flags)  # (not inside a postcode: "SA1 1AA", "BT1 5GS")
DATE = re.compile(r"\b(?:\d{4}([-/.])\d{1,2}\1\d{1,2}|\d{1,2}([-/.])\d{1,2}\2\d{2,4}"  # one separator: not "8.00-20"
    r"|\d{1,2}\. \d{1,2}\. \d{4}"  # "12. 3. 2024"
    r"|\d{1,2} de [A-Za-zÀ-ÿ]{3,10} de \d{4}"  # "14 de abril de 2024"
    r"|\d{1,2}(?:st|nd|rd|th|er|\.)?[ -]?[A-Za-zÀ-ÿ]{3,9}\.?,?[ -]?\d{2,4}"
    r"|[A-Za-z]{3,9}\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4})(?:\b|(?=\d{1,2}:\d{2})|(?=T\d))")  # a time glued on
# an amount as printed: a currency glued to it is part of it ("RM7.70"), one set apart is not
AMOUNT = re.compile(r"(?<![\w.,])(?:(?:RM|S\$|US\$|Rs\.?|Bs\.?|[$€£¥₹]|EUR|USD|GBP|CHF|INR|AED|SAR|QAR|MXN|BRL|CAD|AUD|NZD|SGD|"
                    r"HKD|JPY|CNY|ZAR)(?=\d))?-?"
                    r"(?:\d{1,2}(?:,\d{2})+,\d{3}|\d{1,3}(?:[.,'’ ]\d{3})+|\d{1,7})"  # lakh grouping: 1,03,900.00
                    r"[.,]\d{2}"
                    r"(?![\d]|[.,/-]\d)")  # not the start of a date (04.04.2013)
# a whole amount marked by its currency, as currencies without minor units and invoices in whole
# units print them ("730 484 Ft", "¥12,800", "EUR 1.250", "$ 450"); thousands grouped by a space,
# a dot, a comma or an apostrophe
_WHOLE = r"\d{1,3}(?:[ .,'\u00a0\u202f]\d{3})+|\d{1,7}"
_MARK = r"EUR|USD|GBP|CHF|HUF|JPY|ISK|KRW|CZK|PLN|SEK|NOK|DKK|[€$£¥₩]|Ft|Kč|zł|kr\.?"
WHOLE_AMOUNT = re.compile(rf"(?<![\w.,])-?(?:{_WHOLE})\s*(?:{_MARK})(?!\w)|"
                          rf"(?<!\w)(?:{_MARK})\s*-?(?:{_WHOLE})(?![\d%]|[.,]\d)")
PHONE = re.compile(r"^[\s()+\d/-]{7,}$|\(?\d{2,4}\)?[ -]?\d{3,4}[ -]\d{3,4}\b|\b0\d{1,3}-\d{6,8}\b")
MONTHS = re.compile(r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|janv|févr|mars|avr|mai|juin|juil|août|"
                    r"sept|set|déc|mär|mrt|okt|dez|ene|abr|ago|dic|gen|mag|giu|lug|ott|maa|mei|jän|feber", re.I)


def dated(text: str) -> bool:
    """A date in ``text``: figures, or a month's name (``23 BATU 10`` is a street's milestone)."""
    return any(not re.search(r"[^\W\d_]", m.group(0)) or MONTHS.search(m.group(0)) for m in DATE.finditer(text))


def priced(text: str) -> bool:
    """An amount ends ``text`` (a tax code may follow) or carries its currency: an address's
    house numbers written with a comma (``NO.53 55,57 & 59, JALAN SAGU``) are none."""
    return any(not m.group(0)[0].isdigit() and m.group(0)[0] != "-"
               or sum(ch.isalpha() for ch in text[m.end():]) <= 3 and not re.search(r"\d", text[m.end():])
               for m in AMOUNT.finditer(text))


CURRENCY_NAME = _words("currency", "currency code", "währung", "devise", "monnaie", "valuta", "munt", "moneda",
                      "divisa")
_SYMBOLS = {"€": "EUR", "$": "USD", "£": "GBP", "¥": "JPY", "₹": "INR", "RM": "MYR", "S$": "SGD", "US$": "USD", "Ft": "HUF",
            "CHF": "CHF", "Fr.": "CHF", "kr": "SEK", "Bs": "VES", "zł": "PLN", "Kč": "CZK"}
_CODES = re.compile(r"(?<![A-Za-z])(EUR|USD|GBP|CHF|JPY|CAD|AUD|INR|SEK|NOK|DKK|PLN|CZK|HUF|MYR|SGD|CNY|HKD|NZD|ZAR|"
                    r"MXN|BRL|AED|SAR|QAR|KRW|TRY|RON|BGN|ISK|THB|IDR|VND|ILS|EGP|NGN|KES|ARS|CLP|COP|TWD)"
                    r"(?![A-Za-z])")
_SYMBOL = re.compile(r"US\$|S\$|[€$£¥₹]|(?<![A-Za-z])RM(?=\s?\d)|Kč|zł|(?<=\d )Ft(?![A-Za-z])|"
                     r"(?<=\d )kr(?![A-Za-z])|(?<![A-Za-z])kr(?=\.?\s?\d)|(?<![A-Za-z])Bs(?=\.?\s?\d)")  # (kr: which crown, ``finders.currency``)


def currencies(text: str) -> list[str]:
    """The ISO codes of the currencies ``text`` names, by code or symbol, in order."""
    found = [(m.start(), m.group(1)) for m in _CODES.finditer(text)]
    found += [(m.start(), _yen(text) if m.group(0) == "¥" else _SYMBOLS[m.group(0)]) for m in _SYMBOL.finditer(text)]
    return [code for _, code in sorted(found)]


def _yen(text: str) -> str:
    """¥ is China's yuan on a page in Chinese (Han characters, no kana; 元, 人民币, RMB), else Japan's yen."""
    han = re.search(r"[\u4e00-\u9fff]", text) is not None
    kana = re.search(r"[\u3040-\u30ff]", text) is not None
    return "CNY" if (han and not kana) or re.search(r"人民币|(?<![A-Za-z])RMB(?![A-Za-z])", text) else "JPY"


def CURRENCY_OF(text: str) -> str | None:  # noqa: N802 - reads as the constant-like lookup it is
    found = currencies(text)
    return found[0] if found else None


NUMBER_NAME = re.compile(r"(?:invoice|receipt|bill|document|credit ?note|rechnung|facture|factuur|factura|fattura)"
                         r"[ _-]*(?:number|no|nr|num|id|#)|^(?:number|no|nr|num)$", re.I)
# an identifier after the document's own word and a number word: "Facture n°562044387",
# "Invoice # INV/2023/03/0008", "Rechnungsnummer: 471102", "Factuurnummer 16117778"
DOC_NUMBER = re.compile(
    r"(?<![A-Za-z])(?:tax ?invoice|invoice|receipt|bill|credit ?note|fee ?note|debit ?note|honorarnote|[a-zäöüß]*(?<![Bb]e)rechnung|[a-zäöüß]*gutschrift|(?<![a-zäöüß])beleg|"
    r"facture|avoir|factuur|factura|fattura|fatura|ricevuta|faktura|devis|quot(?:e|ation)|angebot|offerte|presupuesto|"
    r"preventivo|pro-?forma|laskun?|arve|r[ēe][kķ]ins|s[ąa]skaita|sz[áa]mla|factur[aă]|ra[čc]un|fakt[úu]ra|reikningur|"
    r"note d'honoraires|nota de honorarios)(?:\s+(?:vat|korygująca|simplificada|simplifiée)|\s+-?\s*da[ňn]ov[ýy] doklad)?(?:\s*\(\w{1,6}\))?(?:s?-?(?=nummer|nr))?\s*(?:number|nummer|no\.?|nr\.?|nro\.?|br\.?|n°|nº|n\.[º°]|n\.|num[ée]ro|número|numero|n[uú]m\.?|[čc][íi]slo|id|#)?\s*[:#.]?\s*"
    r"(?P<id>(?-i:[A-Z]{2,3} (?=[A-Za-z0-9_.-]*\d[A-Za-z0-9_.-]*/))?"  # a series before it: "FT 2024A/153"
    r"(?=[A-Za-z0-9/_.-]*\d)[A-Za-z0-9][A-Za-z0-9/_.-]{2,})", re.I)

# what makes a document number another document's: "zu Rechnung Nr. …", "against invoice …",
# "Ref. invoice …", "sur facture …" (a credit note names the invoice it corrects); not "to" or
# "for": "BILL TO  Invoice Number: 0031" is the invoice's own
_REFERENCE = (r"(?:zu|zur|zum|against|ref\.?|re:|bezüglich|betreffend|betr\.?|gem\.?|laut|lt\.?|sur|à la|op|bij|"
              r"concerning|regarding|corrects?|replaces?|storno)")
REFERENCE = re.compile(rf"(?<![a-zà-ÿ]){_REFERENCE}\s*$", re.I)  # just before a number
REFERENCE_LEAD = re.compile(rf"\s*{_REFERENCE}\s+", re.I)  # at the head of a label
# an e-mail or web address (never a party's name)
WEB = re.compile(r"\S+@\S+\.\w+|(?:https?://|www\.)\S+")


def own_numbers(text: str) -> list[re.Match[str]]:
    """``DOC_NUMBER``'s matches in ``text`` that are not another document's (``zu Rechnung …``)."""
    return [m for m in DOC_NUMBER.finditer(text) if not REFERENCE.search(text[:m.start()])]


CONTACT = _words("e-?mail", "mail", "phone", "tel", "telephone", "fax", "mobile", "web", "website", "url", "iban",
                 "bic", "swift", "vat", "tax", "id", "number", "no", "nr", "code", "reg\\w*", "account")


@dataclass
class Role:
    kind: str  # name | address | total | subtotal | tax | date | currency | number
    party: str = ""  # seller | buyer (names and addresses)
    which: str = ""  # due | issue (dates)


def role_of(f: Field) -> Role | None:
    """The field's role when its name, title and description say it clearly; ``None`` otherwise."""
    name = " ".join(f.path).replace("_", " ")
    words = f"{name} {f.schema.get('title') or ''} {f.schema.get('description') or ''}"
    t = _type(f.schema)
    if f.array or t in ("boolean", "object", "array"):
        return None
    if t == "string" and CURRENCY_NAME.search(name):
        return Role("currency")
    if t in ("string", "integer") and NUMBER_NAME.search(name):
        return Role("number")
    if t in ("number", "integer") or TOTAL.search(name) or SUBTOTAL.search(name):
        for kind, pat in (("subtotal", SUBTOTAL), ("tax", TAX), ("total", TOTAL)):
            if pat.search(name):
                return Role(kind)
        for kind, pat in (("subtotal", SUBTOTAL), ("total", TOTAL), ("tax", TAX)):
            if pat.search(words):
                return Role(kind)
        return None
    if f.schema.get("format") in ("date", "date-time") or DATE_WORD.search(name):
        return Role("date", which="due" if DUE.search(words) else "other" if OTHER_DATE.search(name) else "issue")
    if CONTACT.search(f.path[-1].replace("_", " ")):
        return None  # the seller's e-mail or tax id is not the seller's name
    party = "buyer" if BUYER.search(name) else "seller" if SELLER.search(name) else \
        "buyer" if BUYER.search(words) else "seller" if SELLER.search(words) else ""
    if ADDRESS.search(name) or (not NAME.search(name) and ADDRESS.search(words)):
        return Role("address", party or "seller")
    if party and (NAME.search(name) or SELLER.search(name) or BUYER.search(name)):
        return Role("name", party)
    return None


def label_says(role: Role, label: str) -> bool:
    """Does a label name the role's amount or date itself (``Rechnungssumme Brutto``, ``Due
    date``)? Then the value beside it is kept over what the role's finder reads elsewhere."""
    from pipelines.stages.extract.lexicon import gloss

    label = " ".join(label.split())  # ("Total  with  tax": words a layout set apart)
    text = f"{label} {gloss(label)}"
    if "%" in label and role.kind in ("total", "subtotal", "tax"):  # a rate, not an amount
        return False
    if role.kind == "total":
        return bool(TOTAL.search(text)) and not SUBTOTAL.search(text) and not NOT_TOTAL.search(text)
    if role.kind == "subtotal":  # (a "VAT subtotal" is the tax's own sum)
        own = [m.group().lower().startswith("sub") and bool((w := label[:m.start()].split()) and TAX.fullmatch(w[-1])) for m in SUBTOTAL.finditer(label)]
        return bool(SUBTOTAL.search(text)) and not (own and all(own))
    if role.kind == "tax":  # ("Total exkl. MWST" is the net, "Total con IVA" the total: neither the tax)
        return bool(TAX.search(text)) and not TOTAL.search(gloss(label)) and not TAX_ID.search(text) \
            and not SUBTOTAL.search(label) and not (TOTAL.search(label) and BETTER_TOTAL.search(label))
    if role.kind == "date":
        # a delivery or order date names another date than the one asked for
        return bool(DUE.search(text)) == (role.which == "due") and bool(DATE_WORD.search(text)) and \
            not OTHER_DATE.search(text)
    if role.kind == "number":  # the document's own number, not an order's or a customer's
        return bool(NUMBER_NAME.search(gloss(label)))
    if role.kind == "name":  # "Customer:", "Bill to:", "Vendor:" name the party itself
        party = BUYER if role.party == "buyer" else SELLER
        return (bool(party.search(label)) and not ADDRESS.search(label) and not CONTACT.search(label)
                and not LEGAL.search(label) and len(label.split()) <= 3)  # a label, not a company's name
    return False


def totals_row(text: str) -> bool:
    """Does a row say total, subtotal or tax (the end of a list of items)?"""
    return bool(TOTAL.search(text) or SUBTOTAL.search(text)) or (bool(TAX.search(text)) and bool(AMOUNT.search(text))
                                                                 and not TAX_ID.search(text))


# a form's field label alone ("Address", "Name", "Company"), which a guest folio prints before each value
FIELD_LABEL = re.compile(r"(?:address|name|company|adresse|anschrift|firma|nom|naam|adres|nombre|direcci[óo]n|"
                         r"indirizzo|nome|societ[àa]|soci[ée]t[ée]|empresa)\s*:?", re.I)


def fits(role: Role, text: str) -> bool:
    """Could ``text`` be a value of ``role`` at all (an amount for an amount, a date for a date)?"""
    if role.kind in ("total", "subtotal", "tax"):  # an amount, not an identifier's digits or a rate
        if "%" in text or re.fullmatch(r"\s*[\[(]\d{1,3}[\])]\s*", text):  # nor a note's mark, "[1]"
            return False
        # (or a whole amount, its thousands grouped: "¥1,161,600", "1,056,000" in a currency without cents)
        return bool(AMOUNT.search(text)) or bool(re.fullmatch(r"\s*\D{0,4}-?(?:\d{1,7}|\d{1,3}(?:,\d{3})+)\s*\D{0,4}",
                                                              text))
    if role.kind == "currency":
        return bool(CURRENCY_OF(text))
    if role.kind == "number":  # an identifier has a digit
        return any(ch.isdigit() for ch in text)
    if role.kind == "date":
        return bool(DATE.search(text))
    if role.kind in ("name", "address") and (_party_label(text) or TITLE.fullmatch(text.strip()) or _labels_only(text)
                                             or FIELD_LABEL.fullmatch(text.strip())):
        return False  # "Lieferant" beside "Käufer" (two labels), "Customer" beside "INVOICE" (a title)
    if role.kind == "address" and not re.search(r"[\d,]", text) and len(text.split()) <= 4:
        return False  # a job title or a person under the name ("Graphic Designer", "David C Wang"), not "Westlake Village, CA"
    if role.kind == "name" and re.fullmatch(r"\s*(?=\S*\d)[A-Z0-9/_.-]+\s*", text):
        return False  # a code ("M5UXCR1", "INV-0193"), not a name
    if role.kind == "name" and WEB.fullmatch(text.strip()):
        return False  # an e-mail or web address, not a name
    if role.kind == "name" and sum(ch.isdigit() for ch in text) >= 6 and sum(ch.isalpha() for ch in text) <= 4:
        return False  # an identifier with its label ("GLN 4304171000002", "VAT GB 391 2256 08")
    return sum(ch.isalpha() for ch in text) >= 2


def _labels_only(text: str) -> bool:
    """Is ``text`` another field's label, or labels with their values (``Status:``,
    ``Description: Reference:``, ``Invoice N°: INV-0007``), not a name or an address?"""
    from pipelines.stages.extract.lexicon import gloss
    from pipelines.stages.extract.lines import split_pairs

    t = text.strip()
    if t.endswith(":"):
        return True
    pairs = split_pairs(t)
    # (a value of several words after a short label is what it labels: "No: 28, Jalan Astana 1C")
    return bool(pairs) and t.startswith(pairs[0][0]) and all(len(lab.split()) <= 3 and len(v.split()) <= 1
                                                             for lab, v in pairs) and not any(
        gloss(lab) in ("customer bill to", "seller supplier", "ship to") or BUYER.search(lab) or SELLER.search(lab)
        or NAME.search(lab) or ADDRESS.search(lab) for lab, _ in pairs)


def _party_label(text: str) -> bool:
    """Is ``text`` a party's label alone (``Käufer``, ``Bill to:``), not a name or an address?"""
    from pipelines.stages.extract.lexicon import gloss

    t = text.strip().rstrip(":").strip()
    if len(t.split()) > 3 or LEGAL.search(t) or any(ch.isdigit() for ch in t) or ":" in t or CONTACT.search(t):
        return False  # "Vendor Email: billing@…" is a contact's label with its value
    if gloss(t) in ("customer bill to", "seller supplier", "ship to"):
        return True
    for pat in (BUYER, SELLER):  # the label word and nothing of a name after it ("Restaurant Jiawei" is a name)
        if (m := pat.match(t)) is not None:
            rest = t[m.end():].strip(" :-")
            return not rest or bool(re.fullmatch(r"(?:name|address|details|info(?:rmation)?|data)", rest, re.I))
    return False


def as_printed(f: Field) -> bool:
    return bool(AS_PRINTED.search(f"{f.schema.get('title') or ''} {f.schema.get('description') or ''}"))
