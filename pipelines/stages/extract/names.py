"""A value read for a role, cut to what the role takes: the amount itself, or a party's name
without the labels, titles and streets read with it.

Kept apart from ``roles`` (which words say which role) because it is the last step on a value,
after a finder or a label found it.
"""

from __future__ import annotations

import re

from pipelines.stages.extract.roles import AMOUNT, BUYER, DATE, LEGAL, SELLER, TITLE, Role

# which copy of the document this is: "(ORIGINAL FOR RECIPIENT)", "DUPLICATE FOR TRANSPORTER"
COPY_LINE = re.compile(r"^\(?\s*(?:original|duplicate|triplicate|copy|copie|kopie|copia|duplicado)\b[^()]*\)?$", re.I)
THANKED = re.compile(r"\b(?:thank you|thanks) for (?:shopping|dining|visiting|choosing) (?:at|with)\s+"
                     r"(?P<name>[A-Za-z][\w&'’.-]*(?: [A-Za-z][\w&'’.-]*){0,4}?)[\s.!]*$", re.I)


def thanked(text: str) -> str | None:
    """The shop a slip thanks the customer for choosing ("THANK YOU FOR SHOPPING AT WALGREENS")."""
    m = THANKED.search(text)
    return m.group("name").strip(" .!") if m else None


def tidy(role: Role, text: str) -> str | None:
    """A value read by label, cut to what the role takes: the amount itself for an amount
    (``Total incl. GST 52.00`` → ``52.00``), the name alone for a name (``bare_name``), a
    document's number without the date read after it; ``None`` when there is none."""
    if role.kind in ("total", "subtotal", "tax"):
        found = AMOUNT.findall(text)
        return found[-1].strip() if found else None
    if role.kind == "name":
        return bare_name(text) or None
    if role.kind == "number" and len(words := text.split()) > 1:
        dates = [k for k, w in enumerate(words) if k and DATE.fullmatch(w) and len(re.findall(r"\d+", w)) == 3]
        if dates:
            return " ".join(words[:dates[0]])  # "2023/2210 08/10/2023": the date's cell read with it
        if re.search(r"\d", words[0]) and not any(re.search(r"\d", w) for w in words[1:]):
            return words[0]  # "INV-04260 Prijs per stuk": a column head the layout read with it
    return text


# the words for "from" and "to" that head a party's block on their own ("Van" / "Aan")
FROM_TO = re.compile(r"(?:from|to|van|aan|von|à|para|fra|til|shipper|consignee|origin|destination)", re.I)
ADDRESSED = re.compile(r"^(?:messrs\.?|m/s\.?|attn\.?:?)\s+", re.I)


def party_words(text: str) -> bool:
    """Only a party's label, in one language or two ("FACTURER À / BILL TO")."""
    parts = [p for p in re.split(r"\s*/\s*", text.strip(" :")) if p]
    return bool(parts) and all(FROM_TO.fullmatch(p) or BUYER.fullmatch(p) or SELLER.fullmatch(p) for p in parts)


NEXT_LABEL = re.compile(r"\s(?:bill(?:ed)? to|ship(?:ped)? to|sold to|to|from|attn|client|customer)\s*:", re.I)


def bare_name(text: str) -> str:
    """A name without what was read with it: a label in capitals before it ("FACTURER À / BILL
    TO Groupe …"), the address's "Messrs.", a title set on its row ("… ehf.  REIKNINGUR"), a
    street after the legal form ("Tidepool Analytics, Inc. 548 Market Street")."""
    text = ADDRESSED.sub("", text.strip())
    if (m := NEXT_LABEL.search(text)) and m.start() >= 3:
        text = text[:m.start()].strip()  # "Company ABC  TO: John Doe": the next party's label ends it
    words = text.split()
    lead = 0
    while lead < len(words) and (words[lead].isupper() or words[lead] in ("/", ":")) and lead < 6:
        lead += 1
    for k in range(lead, 0, -1):  # the longest run of capitals that is a label, the name after it
        if len(words) - k >= 2 and party_words(" ".join(words[:k])) and not " ".join(words[k:]).isupper():
            words = words[k:]
            break
    if len(words) > 1 and words[-1].isupper() and TITLE.fullmatch(words[-1]):
        words = words[:-1]
    text = " ".join(words)
    for m in LEGAL.finditer(text):
        if re.match(r"\s+\d+\w?\s+[^\W\d]", text[m.end():]):
            return text[:m.end()].strip()
    return text
