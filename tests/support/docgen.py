"""Generate test documents together with their ground truth (no fixture files in the repo).

Every generator returns the document bytes plus what a perfect parser would read from it:
the page text in reading order, table cells, barcode values, and so on. Text comes from a
seeded word list, so documents are reproducible and never match a hard-coded answer by luck.

This module is the one place tests and benchmarks import the generators from; they are written
in docgen_core.py (words, ``Doc``, drawing helpers, metrics), docgen_pdf.py, docgen_tables.py,
docgen_scans.py and docgen_office.py, each small enough to read in one go.
"""

from __future__ import annotations

from tests.support.docgen_core import _WORDS as _WORDS
from tests.support.docgen_core import (
    FONT,
    MARGIN,
    PAGE_H,
    PAGE_W,
    Doc,
    cell_accuracy,
    cer,
    normalize,
    paragraph,
    sentence,
    table_rows,
    words,
)
from tests.support.docgen_core import _draw_table as _draw_table
from tests.support.docgen_core import _header_footer as _header_footer
from tests.support.docgen_core import _wrap as _wrap
from tests.support.docgen_office import _png_chart as _png_chart
from tests.support.docgen_office import docx_doc, pptx_doc, xlsx_doc
from tests.support.docgen_pdf import (
    chart_pdf,
    encrypted_pdf,
    form_pdf,
    justified_pdf,
    raw_pdf,
    structured_pdf,
    text_pdf,
    toc_and_list_pdf,
    two_column_pdf,
    zero_page_pdf,
)
from tests.support.docgen_scans import image_bytes, images_pdf, render_png, scanify, searchable_scan_pdf
from tests.support.docgen_tables import (
    dense_table_pdf,
    drawn_rules_table_pdf,
    sideways_table_pdf,
    split_table_pdf,
    tables_pdf,
    wide_table_pdf,
)

# every public name the generators had here; the private helpers are re-exported by the
# ``name as name`` imports above (tests/support/formgen.py draws with _wrap and _draw_table)
__all__ = [
    "Doc", "FONT", "MARGIN", "PAGE_H", "PAGE_W", "cell_accuracy", "cer", "chart_pdf", "dense_table_pdf",
    "docx_doc", "drawn_rules_table_pdf", "encrypted_pdf", "form_pdf", "image_bytes", "images_pdf",
    "justified_pdf", "normalize", "paragraph", "pptx_doc", "raw_pdf", "render_png", "scanify",
    "searchable_scan_pdf", "sentence", "sideways_table_pdf", "split_table_pdf", "structured_pdf",
    "table_rows", "tables_pdf", "text_pdf", "toc_and_list_pdf", "two_column_pdf", "wide_table_pdf",
    "words", "xlsx_doc", "zero_page_pdf",
]
