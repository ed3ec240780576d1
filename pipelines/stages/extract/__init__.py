"""Structured extraction without an LLM: label/value geometry, embedding match, type validators.

For each ``structured_extraction_options`` item:

1. **Candidates** from the parsed fragments of the pages in play (every value keeps its page
   and box): ``Label: value`` inside a line; a label line (``Label:``, or a short line of a few
   words) with its value to the right on the same band or just below it; a label block whose
   lines pair with the lines of a value block to its right (``Subtotal:`` / ``Total:`` beside
   the amounts); two-cell table rows (key, value); table header → the cells of its column;
   PDF form fields (their name and value).
2. **Fields**: the JSON schema's leaf properties (nested objects are walked; an array of
   scalars is one field that takes a whole table column or an inline list). An array of objects
   (line items) takes the rows of the table whose header row fits the item's properties best,
   each header matched to a property like a label to a field.
3. **Match**: each field's ``"parent name: description"`` is embedded with MiniLM and compared
   with each candidate label (cosine), plus exact and fuzzy name matches; a candidate whose
   value does not pass the field's type (number, integer, boolean, date, enum, pattern, email)
   is not a candidate for it. Field ↔ label pairs are taken greedily, best first, each label
   once, above ``MIN_SCORE``.
4. **Values** are coerced to the schema types (``"EUR 1.234,50"`` → 1234.5, ``"18 May 2025"``
   → ``"2025-05-18"`` for ``format: date``, ``Yes``/``Unpaid`` → booleans); fields not found
   are ``null``. With ``provide_citations`` every value carries page number and box.

``partition_strategy`` ``none`` gives one answer for the document, ``page`` one per page;
``page_classes`` keeps only the pages classified into those classes. ``prompt`` and
``model_provider`` are not used (no LLM runs here).
"""

from __future__ import annotations

from pipelines.core.models import Citation, DocumentResult, PageResult, StructuredData
from pipelines.core.requests import StructuredExtractionOptions
from pipelines.stages import (
    embed,  # noqa: F401 - tests and benches reach the model through here
    schema_check,
)
from pipelines.stages.extract import arithmetic, finders, items, names, parties, roles, rows, summed, values
from pipelines.stages.extract.candidates import LETTERHEAD, candidates, letterhead  # noqa: F401
from pipelines.stages.extract.lines import (  # noqa: F401
    MIN_SCORE,
    Box,
    Candidate,
    Line,
    _line_box,
    _text,
    lines_of,
    split_pairs,
)
from pipelines.stages.extract.matching import Found, _put, match, match_records, name_score  # noqa: F401
from pipelines.stages.extract.schema import Field, Records, _resolve, _type, fields_of, skeleton, walk  # noqa: F401
from pipelines.stages.extract.tables import Section, _cell_boxes, _table_rows, sections_of  # noqa: F401
from pipelines.stages.extract.values import (  # noqa: F401
    CURRENCY,
    DATE_FORMATS,
    EMAIL,
    FALSE,
    TRUE,
    coerce,
    parse_date,
    parse_number,
)


def by_role(pages: list[PageResult], fields: list[Field]) -> dict[str, Found]:
    """Values of the fields whose words give them a role (``roles``), found where a reader
    would look for them; they take precedence over the nearest label's value."""
    out: dict[str, Found] = {}
    for f in fields:
        role = roles.role_of(f)
        hit = finders.find(pages, role) if role is not None else None
        if hit is None or (role is not None and role.kind in ("name", "address") and not roles.fits(role, hit.text)):
            continue
        value = hit.text if roles.as_printed(f) and _type(f.schema) == "string" else coerce(hit.text, f)
        if value is not None:
            out[f.dotted()] = Found(value, Citation(page_number=hit.page, bbox=hit.box, text=hit.text))
    return out


def extract_pages(pages: list[PageResult], opt: StructuredExtractionOptions) -> StructuredData:
    rows._ROWS.clear()  # rows and lines are remembered within one extraction only
    parties._LINES.clear()
    # how this document writes its dates (03/05/2026: 3 May, or 5 March in a US document)
    token = values.MONTH_FIRST.set(values.month_first("\n".join(r.text for p in pages for r in rows.rows_of(p))))
    try:
        return _extract_pages(pages, opt)
    finally:
        values.MONTH_FIRST.reset(token)


def _extract_pages(pages: list[PageResult], opt: StructuredExtractionOptions) -> StructuredData:
    fields, records = walk(opt.json_schema)
    cands = [c for p in pages for c in candidates(p)]
    found = match(fields, cands)
    for f in fields:  # a value taken by label that is not of the field's role is no value
        got, role = found.get(f.dotted()), roles.role_of(f)
        if isinstance(got, Found) and role is not None and (not roles.fits(role, got.citation.text or "") or (
                role.party == "buyer" and got.label == LETTERHEAD)):  # (the letterhead is the sender's)
            del found[f.dotted()]
        elif isinstance(got, Found) and role is not None and isinstance(got.value, str):
            cut = names.tidy(role, got.value)
            if cut is None:
                del found[f.dotted()]
            else:
                got.value = cut
    role_by_name = {f.dotted(): r for f in fields if (r := roles.role_of(f)) is not None}
    for name, value in by_role(pages, fields).items():
        had = found.get(name)
        role = role_by_name[name]  # the total's finder weighs every total row; others yield to their label
        if not (isinstance(had, Found) and (had.strong or (role.kind != "total" and roles.label_says(role, had.label)
                                                           and not _sections_summed(role, had.label, pages)
                                                           and not _tax_past_total(role, had, pages)))):
            found[name] = value
    data = skeleton(opt.json_schema)
    if not isinstance(data, dict):
        data = {}
    citations: dict[str, Citation] = {}
    used: set[int] = set()
    for f in fields:
        got = found.get(f.dotted())
        if got is None:
            continue
        if isinstance(got, list):
            _put(data, f.path, [g.value for g in got])
            for i, g in enumerate(got):
                citations[f"{f.dotted()}[{i}]"] = g.citation
                used.add(g.citation.page_number)
        else:
            _put(data, f.path, got.value)
            citations[f.dotted()] = got.citation
            used.add(got.citation.page_number)
    if records:
        sections = [sec for p in pages for sec in sections_of(p)]
        for rec in records:
            rows = match_records(rec, sections)
            if not rows or not any(len(cites) >= 2 for _, cites in rows):  # no table of items found
                rows = items.read_items(rec, pages) or summed.read_summed(rec, pages) \
                    or summed.read_priced(rec, pages) or rows
            elif not {"description", "amount"} <= _kinds(rec, rows) and \
                    {"description", "amount"} <= _kinds(rec, listed := items.read_items(rec, pages)):
                rows = listed  # the table found was part of the list (its number columns only)
            rows = arithmetic.without_sum(rec, rows)  # (a sum's row under the items, unlabelled as one)
            if rows:
                _put(data, rec.path, [obj for obj, _ in rows])
            for i, (_, cites) in enumerate(rows):
                for name, cite in cites.items():
                    citations[f"{rec.dotted()}[{i}].{name}"] = cite
                    used.add(cite.page_number)
    data = _valid(data, citations, opt, pages)
    numbers = sorted(used) or [p.page_number for p in pages]
    return StructuredData(schema_name=opt.schema_name, data=data, page_numbers=numbers,
                          citations=citations if opt.provide_citations else None)


def _sections_summed(role: roles.Role, label: str | None, pages: list[PageResult]) -> bool:
    """Do several rows say a subtotal (each section's, ``Parts subtotal`` / ``Labour subtotal``,
    then the whole list's)? Then the finder, which takes the last, is right rather than the
    first label."""
    return role.kind == "subtotal" and bool(label) and \
        sum(bool(roles.SUBTOTAL.search(r.text)) for p in pages for r in rows.rows_of(p)) >= 2


def _tax_past_total(role: roles.Role, had: Found, pages: list[PageResult]) -> bool:
    """Is a tax read beside its label as much as the total, or more? No tax is: the label's
    value is another column's (a table's "Tax" head over the gross amounts)."""
    if role.kind != "tax" or not isinstance(had.value, (int, float)):
        return False
    total = finders.find(pages, roles.Role("total"))
    return total is not None and 0 < (parse_number(total.text) or 0.0) <= had.value


def _kinds(rec: Records, rows: list) -> set[str]:
    """The item columns (description, amount…) a reading of the items found values for."""
    names = {f.name: k for f in rec.fields if (k := items.kind_of(f)) is not None}
    return {names[n] for _, cites in rows for n in cites if n in names}


def _key(path: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(path))


def _valid(data: dict, citations: dict[str, Citation], opt: StructuredExtractionOptions,
           pages: list[PageResult]) -> dict:
    """The answer made valid against the schema (``minimum``, ``maxLength``, ``pattern``… that
    the value readers do not check): a value that does not fit is ``null``, with a warning on
    the page it was read from."""
    fixed, ok = schema_check.made_valid(data, opt.json_schema)
    for path, message in fixed:
        key = _key(path)
        cite = citations.get(key)
        page = next((p for p in pages if cite is not None and p.page_number == cite.page_number),
                    pages[0] if pages else None)
        if page is not None:
            page.warnings.append(f"extraction '{opt.schema_name}': {key or 'the answer'}: {message}; left null")
        for k in [k for k in citations if k == key or k.startswith((key + ".", key + "["))]:
            del citations[k]
    if ok:
        return data
    citations.clear()
    return skeleton(opt.json_schema) or {}


def pages_for(result: DocumentResult, opt: StructuredExtractionOptions) -> list[PageResult]:
    if not opt.page_classes:
        return result.pages
    wanted = set(opt.page_classes)
    numbers = {n for pc in result.page_classes or [] if pc.page_class in wanted for n in pc.page_numbers}
    return [p for p in result.pages if p.page_number in numbers]


def partition(opt: StructuredExtractionOptions) -> str:
    return opt.partition_strategy if isinstance(opt.partition_strategy, str) else "none"


def extract(result: DocumentResult) -> DocumentResult:
    """Set ``result.structured_data`` from ``input.extraction`` (run after ``classify``)."""
    opts = result.input.extraction
    if not opts:
        return result
    out: list[StructuredData] = []
    for opt in opts:
        pages = pages_for(result, opt)
        if partition(opt) == "page":
            out += [extract_pages([p], opt) for p in pages]
        elif pages or not opt.page_classes:
            out.append(extract_pages(pages, opt))
    result.structured_data = out
    return result
