"""What an address's lines look like: postcodes with their towns in the countries the extractor
reads, and street lines (a house number first or last, or a street named by its kind). Shared by
the party blocks of invoices (``parties``), a receipt's head (``blocks``) and forms (``forms``).
"""

from __future__ import annotations

import re

# postcodes outside the Continent's "80333 München" and the UK's "EC1A 1BB" (shared with
# ``blocks.POSTCODE``, which reads a receipt's head)
ABROAD = (r"[A-Z]{2}\s\d{5}(?:-\d{4})?"  # US: WA 98109-5210
          r"|[A-Z]\d[A-Z]\s?\d[A-Z]\d"  # Canada: M8V 1K3
          r"|(?:NSW|VIC|QLD|WA|SA|TAS|ACT|NT)\s\d{4}"  # Australia: VIC 3191
          r"|\d{4}-\d{3}\s+[A-ZÀ-Ý][\w'’.-]+"  # Portugal: 4050-107 Porto
          r"|\d{3}\s\d{2}\s+[A-ZÅÄÖ][\w'’.-]+"  # Sweden: 432 45 Varberg
          r"|\d{4}[A-Z]{2}\s+(?:['’]s-)?[A-Z][\w'’.-]+"  # the Netherlands, the letters set close: 7232WP Beilen
          r"|[A-Z]\d{2}\s[A-Z0-9]{4}")  # Ireland: P85 YK30
# a UK postcode, whose letters can spell a label's or a legal form's word ("HP3A 8EB", "SR6V 1UG")
UK = re.compile(r"(?<![\w-])[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}(?![\w-])")
POSTCODE = re.compile(
    r"(?:^|[\s,])(?:(?:[A-Z]{1,2}-)?\d{4,5}\s+(?:['’]s-)?[A-ZÀ-Ý][\w'’.-]+"  # 80333 München, 27301 Ávila
    r"|[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}"  # EC1A 1BB
    rf"|{ABROAD}"
    r"|(?<=[A-Za-z])[\s,-]+\d{6}(?=\s*$)"  # India: Surat, Gujarat - 394221
    r"|(?:[A-Z][a-z]+\s){1,2}\d{5}(?:-\d{4})?(?=\s*$))(?=$|[\s,])")  # California 94104
# a street's line, whose house number can look like a postcode: "2210 Alder St", "3050 Lake Shore Blvd W"
STREET_LINE = re.compile(r"^\s*\d{1,5}[A-Za-z]?\s+.*\b(?:st|street|ave|avenue|rd|road|blvd|boulevard|dr|drive|ln|"
                         r"lane|way|ct|court|pl|place|hwy|highway|pkwy|parkway|ter|terrace|cres|crescent)\.?"
                         r"(?:\s+(?:[NSEW]|NE|NW|SE|SW))?,?\s*(?:(?:suite|ste|unit|apt)\.?\s*#?\w+)?,?\s*$", re.I)


# a street as Continental Europe writes it: its name, then the number (``Wilgenlaan 17``,
# ``Mühlweg 3a``, ``Via Emilia Est 214``, ``Calle Mayor 12-14``)
STREET_NUMBER_LAST = re.compile(r"^\s*[^\W\d_][^\d,:@]{2,40}\s\d{1,4}\s?[a-zA-Z]?(?:\s?[-/]\s?\d{1,4}[a-zA-Z]?)?,?\s*$")


# a street named by its kind first, with no house number ("rue Emmanuel Boulanger", "Calle Mayor")
STREET_WORD = re.compile(r"(?i:rue|avenue|boulevard|chemin|all[ée]e|impasse|quai|route|calle|avenida|via|viale|"
                         r"piazza|corso|strada|rua|travessa)\s+\S")


# the US states' codes (and the territories')
US_STATE = (r"(?:A[LKZR]|C[AOT]|D[EC]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI|"
            r"S[CD]|T[NX]|UT|V[AT]|W[AIVY]|PR|VI|GU|AS|MP)")
# a US town and its state with no ZIP code: "Scranton, PA", "Westlake Village, CA"
US_TOWN = re.compile(rf"^\s*[A-Z][\w.'’-]+(?: [A-Z][\w.'’-]+){{0,3}}, {US_STATE}\s*$")


def postcode_line(text: str) -> bool:
    """Does ``text`` hold a postcode with its town (``80333 München``, ``Springfield, IL 62704``),
    not a street line whose number looks like one (``2210 Alder St``), or a US town and state?"""
    return bool(POSTCODE.search(text)) and not STREET_LINE.match(text) or bool(US_TOWN.match(text))
