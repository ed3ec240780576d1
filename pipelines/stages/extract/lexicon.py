"""Labels of Western European documents in English words, for an English embedding model.

The embedding model (MiniLM, English) places ``Rechnungsnummer``, ``Facture n°`` or
``Factuurnummer`` nowhere near "invoice number", so a German, French or Dutch invoice matched
none of a user's fields. ``gloss`` turns a label that names a common *kind* of field — in
German, French, Dutch, Spanish, Italian or English — into the English words for it before
it is embedded; other labels are left as they are. The list names kinds of label, not vendors.
"""

from __future__ import annotations

import functools
import re

_R = r"(?:[\s.:#°º_-]*)"  # what separates the words of a label: spaces, dots, "n°", "Nr.", "_"

GLOSSES: list[tuple[str, str]] = [
    # numbers of the document
    (r"[a-zäöüß]*rechnungs?(?:\s*\(\w{1,6}\))?" + _R + r"(?:nummer|nr|no)|beleg" + _R + r"(?:nummer|nr)|facture" + _R + r"(?:n|no|num[ée]ro)"
     + r"|n(?:°|o|um[ée]ro)" + _R + r"(?:de )?facture|factuur" + _R + r"(?:nummer|nr|no)|n[uú]mero de factura|"
     r"(?:n[uú]m|n[º°o])" + _R + r"(?:de )?factura|"
     r"factura" + _R + r"(?:n|no|n[uú]m)|(?:numero|n\.?) (?:di )?fattura|fattura" + _R + r"(?:n|nr|numero)|"
     r"(?:invoice|fee note|debit note|honorarnote)" + _R + r"(?:number|num|no|n°|nº|nr|#)|faktura(?: vat| korygująca)?" + _R + r"(?:nummer|nr|no)|"
     r"fatura(?:-recibo)?" + _R + r"(?:n\.?[º°]?|no|nr|n[uú]mero)|"
     r"(?:pi|proforma(?: invoice)?)" + _R + r"(?:number|no|nr|#)|serie ?(?:y|/) ?folio|[čc]íslo faktury|"
     # Northern and Eastern Europe: Finnish, Estonian, Latvian, Lithuanian, Hungarian, Romanian,
     # Croatian/Serbian/Slovene, Slovak, Icelandic, Turkish; a fee note in French and Spanish
     r"(?:laskun?|arve|r[ēe][kķ]ins|s[ąa]skaitos?(?: fakt[ūu]ros?)?|sz[áa]ml[aá]|factur[aă]|ra[čc]un[a]?|fakt[úu]ry?|"
     r"reiknings?|fatura|note d'honoraires|nota de honorarios)" + _R + r"(?:numero|nro|number|nr|no|n°|br|sorsz[áa]ma|sz[áa]ma|"
     r"seria|nummer|numer|[čc]íslo|numarasi|numarası)|sorsz[áa]m|"
     r"gutschrift(?:s)?" + _R + r"(?:nummer|nr|no)|credit ?note" + _R + r"(?:number|no|nr|#)|avoir" + _R + r"(?:n|no|n°)",
     "invoice number"),  # Mexico's invoices
    # a hotel's bill: its folio's number, the invoice's where no "Invoice No." is printed
    (r"folio" + _R + r"(?:number|no|nr|#)", "folio number invoice"),
    (r"kunden?" + _R + r"(?:nummer|nr)|customer" + _R + r"(?:number|no|nr|#|id)|(?:n|num[ée]ro)" + _R + r"(?:de )?client|client" + _R + r"(?:n|no)|"
     r"klant" + _R + r"(?:nummer|nr)|n[uú]mero de cliente|codice cliente", "customer number"),
    (r"bestell" + _R + r"(?:nummer|nr)|(?:n|num[ée]ro)" + _R + r"(?:de )?commande|bestel" + _R + r"(?:nummer|nr)|"
     r"n[uú]mero de pedido|numero (?:d')?ordine", "order number"),
    # dates
    (r"rechnungsdatum|date de (?:la )?facture|date de facturation|factuurdatum|fecha de (?:la )?factura|"
     r"data (?:della )?fattura|ausstellungsdatum|date d'[ée]mission|fecha de emisi[oó]n|data di emissione|"
     r"fakturadato|fakturadatum|issue date|date of issue|date issued|issued on|data de emiss[ãa]o|"
     r"datum vystaven[íi]|data wystawienia|laskun p[äa]iv[äa]m[äa][äa]r[äa]|sz[áa]mla kelte|kelt|arve kuup[äa]ev|kuup[äa]ev|"
     r"dagsetning|reikningsdagur|i[šs]ra[šs]ymo data|izrakst[īi][šs]anas datums|datum ra[čc]una|data emiterii",
     "invoice date"),
    (r"f[äa]llig(?:keit)?(?:sdatum|stag)?(?: am)?|zahlbar bis|zahlungsziel|date d'[ée]ch[ée]ance|[ée]ch[ée]ance|"
     r"vervaldatum|vervaldag|fecha de vencimiento|vencimiento|(?:data de )?vencimento|(?:data di )?scadenza|forfalls?dato|forfaldsdato|"
     r"f[öo]rfallodatum|betalingsfrist|(?:payment )?deadline|pay(?:able)? (?:by|before)|[àa] payer avant(?: le)?|"
     r"pagar antes de(?:l)?|te betalen voor|da pagare entro(?: il)?|datum splatnosti|termin p[łl]atno[śs]ci|"
     r"er[äa]p[äa]iv[äa]|date limite(?: de paiement)?|fizet[ée]si hat[áa]rid[őo]|(?:makse)?t[äa]htaeg|gjalddagi|eindagi|"
     r"apmaksas termi[ņn]š|mok[ėe]jimo terminas|rok pla[ćc]anja", "due date"),
    (r"liefer(?:datum|tag)|leistungsdatum|date de livraison|leverdatum|fecha de entrega|data di consegna",
     "delivery date"),
    (r"datum|fecha|data", "date"),
    # amounts
    (r"zwischensumme|nettobetrag|summe netto|netto(?:summe|betrag)?|rechnungssumme netto|gesamt netto|"
     r"(?:rechnungs)?summe (?:ohne|exkl\.?) (?:ust|mwst)\.?|mva-?grunnlag|momsgrundlag|nettobel[øo]p|"
     r"sous-?total|total ht|montant ht|total hors taxes?|subtotaal|totaal excl\.?(?: btw)?|bedrag excl\.?|"
     r"base imponible|subtotal|imponibile|totale imponibile|"
     r"(?:bel[øo]b|totalt|summa|sum|betrag|bedrag) (?:ekskl|eks|exkl|excl|ohne)\.? ?(?:moms|mva|mwst|ust|btw)?|"
     r"(?:ekskl|eks|exkl)\.? (?:moms|mva|mwst|ust|btw)|nett[óo](?: [öo]sszesen| [ée]rt[ée]k)?|veroton(?: yhteensä)?|"
     r"k[äa]ibemaksuta|summa km-ta|(?:upph[æa]e[ðd] )?[áa]n vsk|be pvm|bez pvn|osnovica", "subtotal net amount"),  # (English labels: the model's)
    (r"aliquota(?: iva)?|(?:mwst|ust|steuer|mva)-?satz|taux(?: de)?(?: tva)?|tax ?rate|vat ?rate|gst ?rate|"
     r"btw-?tarief|tipo(?: de)? iva|% ?(?:iva|tva|vat|mwst|ust|btw)", "tax rate percent"),
    (r"(?:mwst|ust|[a-zäöüß]*steuer)(?:betrag)?|steuerbetrag|mva|moms|montant (?:de la )?tva|tva|btw(?:[- ]bedrag)?|"
     r"iva|importe (?:del )?iva|imposta|[áa]fa(?: [öo]sszesen| [ée]rt[ée]k)?|vsk|virðisaukaskattur|k[äa]ibemaks|alv|pvm|pvn|pdv|ddv|kdv",
     "tax amount vat"),
    # the sum of the discounts or of the charges is not the document's total
    (r"(?:gesamtbetrag|summe|total|montant total) (?:der|des|of(?: the)?) (?:zuschl[äa]ge|abschl[äa]ge|rabatte|"
     r"nachl[äa]sse|remises|frais|discounts|charges|allowances)|rabatt|nachlass|skonto|remise|discount|allowance",
     "discount charge"),
    (r"gesamtbetrag|rechnungsbetrag|endbetrag|bruttobetrag|summe brutto|rechnungssumme brutto|gesamt brutto|"
     r"bruttosumme|gesamtsumme|endsumme|rechnungssumme|(?:sum )?[åa] betale|att betala|at betale|totalt|"
     r"zu zahlen(?:der betrag)?|zahlbetrag|total ttc|montant ttc|net [àa] payer|montant total|totaal(?: incl\.?)?"
     r"(?: btw)?|te betalen|totaalbedrag|importe total|total a pagar|totale(?: fattura| documento)?|"
     r"importo totale|da pagare|samtals|til greiðslu|(?:brutt[óo] )?[öo]sszesen|fizetend[őo](?: [öo]sszeg)?|kokku|tasuda|"
     r"tasumisele kuulub|yhteensä|i[šs] viso|kop[āa]|ukupno|skupaj|toplam|total \(?(?:inkl|incl|inc|ink|including)\.?(?: (?:moms|mva|mwst|ust|btw|vat|gst|tax))?\)?",
     "total amount"),
    (r"w[äa]hrung|devise|monnaie|valuta|moneda|divisa|betr[äa]ge in|montants en|bedragen in|importes en|"
     r"importi in", "currency"),
    # parties
    (r"rechnungs(?:empf[äa]nger|adresse)|kunde|vev[őo]|ostja|kaupandi|pirk[ėe]jas|pirc[ēe]js|kupac|empf[äa]nger|destinataire|adresse de facturation|factur[ée] [àa]|"
     r"klant|factuuradres|cliente|facturar a|destinatario|intestatario|k[äa]ufer|acheteur|koper|comprador|"
     r"acquirente|fakturerings?adressen?|fakturaadress|faktureringsadress|nabywca|odbiorca|odb[ěe]ratel|kund|"
     r"k[öo]pare", "customer bill to"),
    (r"waren" + _R + r"empf[äa]nger|liefer(?:adresse|anschrift)|adresse de livraison|livr[ée] [àa]|afleveradres|"
     r"leveringsadres(?:sen?)?|leveransadress|direcci[oó]n de entrega|indirizzo di consegna|ship(?:ped)? ?to|deliver(?:y|ed)? to|"
     r"(?:delivery|shipping) address",
     "ship to"),
    (r"rechnungs(?:steller|aussteller|ersteller)|(?:service )?provider|dienstleister|auftragnehmer|prestataire|lieferant|verk[äa]ufer|fournisseur|vendeur|leverancier|verkoper|"
     r"proveedor|vendedor|emisor|fornitore|venditore|cedente|sprzedawca|dodavatel|leverand[øo]r|leverant[öo]r|"
     r"s[äa]ljare", "seller supplier"),
    (r"(?:e-?mail|courriel)", "email"),
    (r"telefon|t[ée]l[ée]phone|tel[eé]fono|telefoon", "phone"),
    (r"steuer" + _R + r"(?:nummer|nr)|ust" + _R + r"id(?:nr)?|n(?:°|o)? (?:de )?tva|btw" + _R + r"(?:nummer|nr)|"
     r"partita iva|p\.? ?iva|nif|cif", "vat id"),
    (r"menge|anzahl|quantit[ée]|aantal|cantidad|quantit[àa]|qt[ée]|qty", "quantity"),
    (r"einzelpreis|st[üu]ckpreis|preis ?/ ?einheit|preis pro einheit|prix unitaire|prix par unit[ée]|p\.?u\.?|"
     r"prijs per stuk|eenheidsprijs|precio unitario|prezzo unitario", "unit price"),
    (r"beschreibung|bezeichnung|artikel(?:beschreibung)?|d[ée]signation|description|omschrijving|descripci[oó]n|"
     r"concepto|descrizione|beskrivelse|beskrivning|varebeskrivelse", "description"),
    (r"betrag|entgelt|montant|bedrag|importe|importo", "amount"),
]
# the columns of a list of items: in a header over items, "Prix HT" or "Gesamtpreis" is the line's
# amount (the same words under the items name the document's net total)
ITEM_GLOSSES: list[tuple[str, str]] = [
    (r"(?:prix|montant|total)" + _R + r"(?:ht|ttc|net)|montant|gesamt(?:preis|betrag|wert)?|netto(?:wert|betrag)?|"
     r"betrag|entgelt|bedrag|totaal|importe|importo|line ?total|ext(?:ended|\.)? ?(?:price|amount)|total|amount|"
     r"net amount|sum|imponibile|base imponible|(?:precio|prezzo|prix|pre[çc]o)" + _R + r"(?:t\.|total[e]?)", "amount line total"),
    # ("Price" or "Rate" alone may be the line's total or a tax rate: left to the model)
    (r"(?:prix|tarif)" + _R + r"unit(?:aire)?|p\.?u\.?(?: ht)?|einzelpreis|st[üu]ckpreis|preis ?/ ?einheit|"
     r"unit ?(?:price|cost)|eenheidsprijs|precio unitario|prezzo unitario|(?:netto|brutto)preis|enhetspris|"
     r"enhedspris|[àa]-?pris|styckpris|(?:prezzo|precio|prix)" + _R + r"unit(?:ario|aire)?\.?"
     r"(?: (?:netto|neto|sin iva|ht|hors taxes))?|(?:precio|prezzo|prix|pre[çc]o)" + _R + r"u\.", "unit price"),  # "Precio U."
    (r"qt[ée]s?|q\.t[àaée]|cant\.?|quantit[ée]s?|menge|anzahl|qty|quantity|hours|hrs|aantal|cantidad|quantit[àa]|antall|antal|"
     r"m[äa]ngd", "quantity"),
]
_ITEM = [(re.compile(rf"^\s*(?:{pat})\s*[:.]?\s*(?:\(\w{{1,4}}\.?\)|[€$£])?\s*$", re.I), g) for pat, g in ITEM_GLOSSES]  # "(Bs.)"


@functools.lru_cache(maxsize=8192)
def item_gloss(header: str) -> str:
    """The English words for an items table's column header (``Prix HT`` → "amount line
    total"); else what ``gloss`` says."""
    for pat, words in _ITEM:
        if pat.match(header):
            return words
    return gloss(header)


_COMPILED = [(re.compile(rf"^\s*(?:{pat})\s*[:.]?\s*$", re.I), gloss) for pat, gloss in GLOSSES]
_INSIDE = [(re.compile(rf"(?<![a-zà-ÿ])(?:{pat})(?![a-zà-ÿ])", re.I), gloss) for pat, gloss in GLOSSES]


def known_label(text: str) -> bool:
    """Is ``text`` a whole label of a known kind (``Date of Issue``, ``Rechnungsnummer:``), not
    a value that only contains such words (``MUSTER-KUNDE GMBH``)?"""
    return any(pat.match(text) for pat, _ in _COMPILED)


@functools.lru_cache(maxsize=8192)
def gloss(label: str) -> str:
    """The English words for ``label`` when it is a known kind of label (whole, or the first kind
    it contains: ``Rechnungssumme Brutto (inkl. USt.)`` → "total amount"), else ``label``."""
    for pat, words in _COMPILED:
        if pat.match(label):
            return words
    # a short label's kind is the one it names first ("Rechnungssumme Brutto (inkl. USt.)"); a
    # long one is mostly a neighbouring column's words before the label itself, so its kind is
    # the one named last ("MUSTER-KUNDE GMBH Beleg-Nr")
    last = len(label.split()) > 4
    best: tuple[int, str] | None = None
    for pat, words in _INSIDE:
        for m in pat.finditer(label):
            key = -m.end() if last else m.start()
            if best is None or key < best[0]:
                best = (key, words)
    return best[1] if best else label


# a payment taken at a shop's counter, and the change given back: the words of a till slip, for
# its total (``amounts``) and its class (``classify``)
COUNTER_PAYMENT = r"cash|tunai|tendered|card|visa|master\s?card|bargeld|bar|esp[èe]ces|contant|efectivo|contanti"
CHANGE_GIVEN = r"change(?: due)?|baki|r[üu]ckgeld|wechselgeld|monnaie(?: rendue)?|rendu|wisselgeld|cambio|vuelto|resto"

# kinds of document, named in a page's own language, in English words (for page classification)
DOCUMENTS: list[tuple[str, str]] = [
    # German and Dutch name a kind of invoice by a compound ending in the word (Beitragsrechnung,
    # Stromrechnung, Eindfactuur); "Berechnung" is a calculation
    (r"[a-zäöüß]*(?<!be)rechnung|[a-zäöüß]*gutschrift|facture|avoir|[a-z]*factuur|creditnota|factura|fattura|"
     r"nota di credito", "invoice bill"),
    (r"quittung|kassenbon|kassenbeleg|kassazettel|re[çc]u|ticket de caisse|kassabon|kassabon|bon|recibo|ticket|"
     r"ricevuta|scontrino", "receipt"),
    (r"lieferschein|bon de livraison|pakbon|albar[áa]n|bolla|ddt", "delivery note"),
    (r"vertrag|contrat|overeenkomst|contrato|contratto", "contract agreement"),
    (r"kontoauszug|relev[ée] de compte|rekeningafschrift|extracto|estratto conto", "bank statement"),
]
_DOCS = [(re.compile(rf"(?<![a-zà-ÿ])(?:{pat})(?![a-zà-ÿ])", re.I), words) for pat, words in DOCUMENTS]


def glosses_in(text: str) -> list[str]:
    """English words for the kinds of document and label a page's text names in any lexicon
    language (``Rechnung`` → "invoice bill", ``Gesamtbetrag`` → "total amount"), each once."""
    out: list[str] = []
    for pat, words in [*_DOCS, *_INSIDE]:
        if words not in out and pat.search(text):
            out.append(words)
    return out

