"""Ground truth from e-invoice XML: Cross-Industry-Invoice (ZUGFeRD 1.0, Factur-X / CII D16B)
and UBL 2.1. Elements are found by local name, so one reader serves every namespace version.

Each reader returns the header fields of ``schema.json`` (``subtotal`` as a list: the tax basis,
then the sum of the lines) and ``line_items`` (description, quantity, unit_price, amount).
Dates come out as ISO strings, amounts as floats, as the XML states them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET


def _ln(el) -> str:
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


def _first(el, *names, skip=()):
    """First descendant whose local name is names[0] (not inside a ``skip`` element), then its
    descendants named names[1], ... in turn."""
    if el is None:
        return None
    stack = list(el)[::-1]
    while stack:
        cur = stack.pop()
        if _ln(cur) in skip:
            continue
        if _ln(cur) == names[0]:
            return cur if len(names) == 1 else _first(cur, *names[1:], skip=skip)
        stack.extend(list(cur)[::-1])
    return None


def _either(a, b):
    return a if a is not None else b


def _all(el, name):
    return [e for e in el.iter() if _ln(e) == name]


def _text(el) -> str | None:
    return re.sub(r"\s+", " ", el.text).strip() if el is not None and el.text and el.text.strip() else None


def _num(el) -> float | None:
    t = _text(el)
    return float(t) if t else None


def _date(el) -> str | None:
    t = _text(el)
    if not t:
        return None
    if re.fullmatch(r"\d{8}", t):
        return f"{t[:4]}-{t[4:6]}-{t[6:]}"
    return t[:10]


def _address(el, parts) -> str | None:
    if el is None:
        return None
    vals = [_text(_first(el, p)) for p in parts]
    street = ", ".join(v for v in vals[:-2] if v)
    city = " ".join(v for v in vals[-2:] if v)
    return ", ".join(v for v in (street, city) if v) or None


def cii_truth(xml: bytes) -> dict:
    """Header fields and line items of a ZUGFeRD 1.0 or Factur-X (CII D16B) invoice."""
    root = ET.fromstring(xml)
    line = ("IncludedSupplyChainTradeLineItem",)
    head = _either(_first(root, "HeaderExchangedDocument"), _first(root, "ExchangedDocument"))
    addr = ("LineOne", "LineTwo", "LineThree", "PostcodeCode", "CityName")
    seller, buyer = _first(root, "SellerTradeParty"), _first(root, "BuyerTradeParty")
    summ = _either(_first(root, "SpecifiedTradeSettlementMonetarySummation", skip=line),
                   _first(root, "SpecifiedTradeSettlementHeaderMonetarySummation", skip=line))
    t = {
        "invoice_number": _text(_first(head, "ID")),
        "invoice_date": _date(_first(head, "IssueDateTime", "DateTimeString")),
        "due_date": _date(_first(root, "SpecifiedTradePaymentTerms", "DueDateDateTime", "DateTimeString")),
        "seller_name": _text(_first(seller, "Name")),
        "seller_address": _address(_first(seller, "PostalTradeAddress"), addr),
        "buyer_name": _text(_first(buyer, "Name")),
        "buyer_address": _address(_first(buyer, "PostalTradeAddress"), addr),
        "currency": _text(_first(root, "InvoiceCurrencyCode")),
        "subtotal": [_num(_first(summ, "TaxBasisTotalAmount")), _num(_first(summ, "LineTotalAmount"))],
        "tax_amount": _num(_first(summ, "TaxTotalAmount")),
        "total_amount": _num(_first(summ, "GrandTotalAmount")),
    }
    items = []
    for li in _all(root, "IncludedSupplyChainTradeLineItem"):
        items.append({"description": _text(_first(li, "SpecifiedTradeProduct", "Name")),
                      "quantity": _num(_first(li, "BilledQuantity")),
                      "unit_price": _num(_first(li, "NetPriceProductTradePrice", "ChargeAmount")),
                      "amount": _num(_first(li, "LineTotalAmount"))})
    t["line_items"] = items
    return t


def ubl_truth(xml: bytes) -> dict:
    """Header fields and line items of a UBL 2.1 invoice."""
    root = ET.fromstring(xml)
    kids = {_ln(c): c for c in root}
    addr = ("StreetName", "AdditionalStreetName", "PostalZone", "CityName")

    def party(key):
        p = _first(kids.get(key), "Party")
        name = _text(_first(p, "PartyName", "Name")) or _text(_first(p, "RegistrationName"))
        return name, _address(_first(p, "PostalAddress"), addr)

    money = kids.get("LegalMonetaryTotal")
    t = {"invoice_number": _text(kids.get("ID")), "invoice_date": _date(kids.get("IssueDate")),
         "due_date": _date(kids.get("DueDate")) or _date(_first(root, "PaymentDueDate")),
         "currency": _text(kids.get("DocumentCurrencyCode")),
         "subtotal": _num(_first(money, "TaxExclusiveAmount")),
         "tax_amount": _num(_first(kids.get("TaxTotal"), "TaxAmount")),
         "total_amount": _num(_first(money, "TaxInclusiveAmount"))}
    t["seller_name"], t["seller_address"] = party("AccountingSupplierParty")
    t["buyer_name"], t["buyer_address"] = party("AccountingCustomerParty")
    t["line_items"] = [{"description": _text(_first(li, "Item", "Name")) or _text(_first(li, "Item", "Description")),
                        "quantity": _num(_either(_first(li, "InvoicedQuantity"), _first(li, "CreditedQuantity"))),
                        "unit_price": _num(_first(li, "Price", "PriceAmount")),
                        "amount": _num(_first(li, "LineExtensionAmount"))}
                       for li in root if _ln(li) in ("InvoiceLine", "CreditNoteLine")]
    return t
