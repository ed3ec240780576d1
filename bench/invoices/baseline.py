"""A plain regex baseline for the invoice benchmark: labels in EN/DE/FR/NL/ES/IT over the PDF's
text (pypdfium2), no layout, no vendor rules.

    python -m bench.invoices.baseline [--part dev|test] [--out PREDICTIONS.json] [--cache DIR]

Per field, the label lists below are tried in order; the value is read after the label on the
same line, else on the next line. Dates: the first date there (day-first unless impossible).
Amounts: the last amount on that line that is not a percentage. Currency: the most frequent
code or symbol. Line items: lines ending in an amount that carry a word and are no total/tax
line; description = the words, amount = the last number, quantity and unit price = the first
and second-to-last numbers when the line has three or more. Names and addresses: not tried.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.invoices import norm  # noqa: E402

LABELS = {
    "invoice_number": [
        r"invoice\s*(?:no\.?|number|num\.?|#|n°)", r"inv\.?\s*no\.?", r"rechnungs?-?\s*(?:nummer|nr\.?)",
        r"beleg-?\s*nr\.?", r"facture\s*(?:n°|no\.?|num[ée]ro)", r"n°\s*de\s*facture", r"num[ée]ro\s*de\s*facture",
        r"factuur\s*(?:nummer|nr\.?|no\.?)", r"factuurnummer", r"n[úu]mero\s*de\s*factura", r"factura\s*(?:n[º°o]\.?)",
        r"fattura\s*(?:n\.?|num(?:ero)?\.?)", r"numero\s*(?:di\s*)?fattura", r"invoice", r"rechnung", r"facture",
        r"factuur", r"factura", r"fattura", r"nr\.?", r"n°"],
    "invoice_date": [
        r"invoice\s*date", r"date\s*of\s*invoice", r"rechnungsdatum", r"beleg-?\s*datum", r"date\s*de\s*(?:la\s*)?facture",
        r"factuurdatum", r"fecha\s*de\s*(?:la\s*)?factura", r"data\s*(?:della\s*)?fattura", r"facture\s*n°?\s*\S+\s*du",
        r"date", r"datum", r"fecha", r"data"],
    "due_date": [
        r"due\s*date", r"payment\s*due", r"due\s*on", r"due", r"f[äa]lligkeits?(?:datum|tag)?", r"f[äa]llig\s*am",
        r"zahlbar\s*bis", r"zahlungsziel", r"netto\s*bis", r"date\s*d'[ée]ch[ée]ance", r"[ée]ch[ée]ance",
        r"date\s*limite\s*de\s*paiement", r"vervaldatum", r"te\s*betalen\s*v[óo][óo]r", r"fecha\s*de\s*vencimiento",
        r"vencimiento", r"data\s*(?:di\s*)?scadenza", r"scadenza"],
    "total_amount": [
        r"grand\s*total", r"total\s*amount", r"invoice\s*total", r"amount\s*due", r"total\s*due", r"total\s*ttc",
        r"montant\s*ttc", r"net\s*[àa]\s*payer", r"total\s*[àa]\s*payer", r"somme\s*[àa]\s*payer",
        r"rechnungssumme\s*brutto", r"rechnungsbetrag", r"gesamtbetrag", r"endbetrag", r"bruttobetrag", r"zu\s*zahlen",
        r"totaal\s*(?:bedrag\s*)?incl", r"te\s*betalen", r"total\s*factura", r"importe\s*total", r"total\s*a\s*pagar",
        r"totale\s*(?:documento|fattura)", r"importo\s*totale", r"total\s*facture", r"total\s*for\s*this\s*invoice",
        r"totaal", r"totale", r"total", r"summe", r"brutto"],
    "subtotal": [
        r"sub-?\s*total", r"net\s*amount", r"total\s*(?:excl|net)", r"amount\s*excl", r"rechnungssumme\s*netto",
        r"nettobetrag", r"summe\s*netto", r"netto", r"total\s*ht", r"montant\s*ht", r"sous-?\s*total", r"subtotaal",
        r"totaal\s*(?:bedrag\s*)?excl", r"base\s*imponible", r"(?:totale\s*)?imponibile"],
    "tax_amount": [
        r"total\s*tax", r"tax\s*amount", r"vat\s*amount", r"summe\s*(?:umsatzsteuer|mwst|ust)", r"mwst-?\s*betrag",
        r"total\s*tva", r"montant\s*tva", r"(?:totaal\s*)?(?:bedrag\s*)?btw", r"cuota\s*iva", r"totale\s*iva",
        r"imposta", r"umsatzsteuer", r"mwst", r"ust\.?", r"tva", r"iva", r"vat", r"gst", r"tax"],
}
CURRENCIES = {"EUR": r"€|\beur\b|\beuros?\b", "USD": r"\$|\busd\b|us\s*dollars?", "GBP": r"£|\bgbp\b",
              "INR": r"₹|\brs\.?(?=\s*\d)|\binr\b", "CHF": r"\bchf\b|\bsfr\b"}
_NOT_ITEM = re.compile("|".join(LABELS["total_amount"] + LABELS["subtotal"] + LABELS["tax_amount"]), re.I)
_LABEL_RE = {f: [re.compile(rf"(?<!\w){lab}(?!\w)\s*[:#.]?", re.I) for lab in labs] for f, labs in LABELS.items()}


def _amounts(s: str) -> list[float]:
    """The amounts in a line, percentages left out."""
    out = []
    for m in norm.AMOUNT_RE.finditer(s):
        if re.match(r"\s*%", s[m.end():]):
            continue
        v = norm.parse_amount(m.group())
        if v is not None:
            out.append(v)
    return out


def _after_label(field: str, lines: list[str], read):
    """First label hit (in label order) whose rest of line, or next line, gives a value."""
    for rx in _LABEL_RE[field]:
        for i, line in enumerate(lines):
            for m in rx.finditer(line):
                for rest in (line[m.end():], lines[i + 1] if i + 1 < len(lines) else ""):
                    v = read(rest)
                    if v is not None:
                        return v
    return None


def _number_token(rest: str):
    m = re.match(r"\s*[:#.]?\s*(?:n°|no\.?|nr\.?)?\s*[:#]?\s*([A-Za-z0-9][\w/.\-]*\d[\w/\-]*)", rest)
    return m.group(1) if m else None


def _first_date(rest: str):
    d = norm.parse_date(rest[:60])
    return d.isoformat() if d else None


def _last_amount(rest: str):
    vals = _amounts(rest)
    return vals[-1] if vals else None


def line_items(lines: list[str]) -> list[dict]:
    items = []
    for line in lines:
        vals = list(norm.AMOUNT_RE.finditer(line))
        if not vals or not re.search(r"[.,]\d{2}\s*(?:€|\$|£|eur|usd)?\s*$", line.strip(), re.I):
            continue
        words = re.sub(r"\s+", " ", norm.AMOUNT_RE.sub(" ", line)).strip(" €$£%:-")
        if not re.search(r"[^\W\d_]{3,}", words) or _NOT_ITEM.search(line) or norm.parse_date(line):
            continue
        nums = [norm.parse_amount(m.group()) for m in vals]
        item = {"description": words, "amount": nums[-1]}
        if len(nums) >= 3:
            item["quantity"], item["unit_price"] = nums[0], nums[-2]
        items.append(item)
    return items


def extract(text: str) -> dict:
    """The baseline's prediction for one document's text."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    low = text.lower()
    cur = Counter({c: len(re.findall(rx, low)) for c, rx in CURRENCIES.items()})
    pred = {
        "invoice_number": _after_label("invoice_number", lines, _number_token),
        "invoice_date": _after_label("invoice_date", lines, _first_date),
        "due_date": _after_label("due_date", lines, _first_date),
        "currency": cur.most_common(1)[0][0] if cur and cur.most_common(1)[0][1] else None,
        "total_amount": _after_label("total_amount", lines, _last_amount),
        "subtotal": _after_label("subtotal", lines, _last_amount),
        "tax_amount": _after_label("tax_amount", lines, _last_amount),
        "line_items": line_items(lines),
    }
    if pred["invoice_date"] is None:
        d = norm.parse_date(text)
        pred["invoice_date"] = d.isoformat() if d else None
    return {k: v for k, v in pred.items() if v not in (None, [])}


def predict(cases: list[dict]) -> dict:
    from bench.invoices.corpus import pdf_info

    return {c["id"]: extract(pdf_info(Path(c["path"]).read_bytes())[0]) for c in cases}


def main(argv: list[str] | None = None) -> None:
    from bench.invoices import corpus, score

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("dev", "test"))
    ap.add_argument("--cache", default=str(corpus.cache_default()))
    ap.add_argument("--out", help="also write the predictions here (JSON)")
    args = ap.parse_args(argv)
    cases = corpus.load(Path(args.cache), args.part)
    preds = predict(cases)
    if args.out:
        Path(args.out).write_text(json.dumps(preds, indent=1, ensure_ascii=False))
    for part in [args.part] if args.part else ["dev", "test"]:
        truth = {c["id"]: c["truth"] for c in cases if c["part"] == part}
        print(score.table(score.score(truth, preds), f"regex baseline, {part}") + "\n")


if __name__ == "__main__":
    main()
