"""The document result: ``DocumentResult``, the one object that flows through every document stage
(detect → load → fragments → chunks → write), in the style of docling's ``ConversionResult``, with its
pages, fragments, chunks, structured data, page classes and errors.

The request side (``ParseRequest`` and the options) lives in ``pipelines.core.requests``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipelines.core.provider import ProviderConfig
from pipelines.core.requests import (
    EnrichmentOptions,
    FormFillingOptions,
    FragmentType,
    PageClassConfig,
    ParsingOptions,
    StructuredExtractionOptions,
)


class Fragment(BaseModel):
    fragment_type: FragmentType
    content: dict[str, Any]
    reading_order: int | None = None
    bbox: dict[str, float] | None = None


class PageResult(BaseModel):
    page_number: int
    width: int | None = None
    height: int | None = None
    fragments: list[Fragment] = Field(default_factory=list)
    # Measured skew of a scanned page in degrees (counter-clockwise positive), reported when
    # ``skew_detection`` is on; the page was rotated back before OCR.
    skew_angle: float | None = None
    # The whole page as a base64 PNG (``enrichment_options.include_full_page_image``).
    page_image: str | None = None
    # What the parser had to work around on this page, in words a person can act on (e.g. text
    # the layout could not place, added as plain text blocks). Empty on a clean page.
    warnings: list[str] = Field(default_factory=list)


class Chunk(BaseModel):
    page_number: int
    content: str


class Citation(BaseModel):
    """Where an extracted value was read: the page, the box of the words (PDF points, top-left
    origin, like fragments' boxes) and the words themselves."""

    page_number: int
    bbox: dict[str, float] | None = None
    text: str = ""


class StructuredData(BaseModel):
    """One ``structured_extraction_options`` item's answer for one partition (the whole document,
    or one page with ``partition_strategy: page``): ``data`` has the shape of the item's JSON
    schema, with ``null`` for what was not found; ``citations`` (with ``provide_citations``) maps
    each found field's path (``total``, ``buyer.name``, ``items[0]``) to where it was read."""

    schema_name: str
    data: dict[str, Any]
    page_numbers: list[int]
    citations: dict[str, Citation] | None = None


class PageClass(BaseModel):
    """The pages given one of the request's ``page_classifications``; ``reasons`` says, per page,
    why (similarity and the words that matched)."""

    page_class: str
    page_numbers: list[int]
    reasons: dict[int, str] = Field(default_factory=dict)


class FilledItem(BaseModel):
    """One ``fill_prompt`` key and where it went: ``target`` is the AcroForm field's name or
    ``line 'Label'`` (a blank line of a flat form), ``matched`` the label, tooltip or name it
    matched with ``score`` (0-1), ``value`` what the field holds now."""

    key: str
    value: str
    target: str = ""
    kind: str = ""  # text, checkbox, radio, choice or line
    page_number: int = 0
    score: float = 0.0
    matched: str = ""


class FormFillingReport(BaseModel):
    """What form filling did (wire ``form_filling_metadata``): the fields and blank lines it
    found, what it filled, the fields that kept their own value, the keys that matched nothing."""

    fields_found: int = 0
    blanks_found: int = 0
    filled: list[FilledItem] = Field(default_factory=list)
    kept: list[FilledItem] = Field(default_factory=list)
    unmatched: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class EditOutput(BaseModel):
    """What an edit job's result carries beside its pages: the filled PDF, the file it was
    stored as (``None`` once that file is deleted) and the report."""

    filled_pdf: bytes
    filled_file_id: str | None = None
    report: FormFillingReport = Field(default_factory=FormFillingReport)


class ErrorItem(BaseModel):
    stage: str
    message: str
    page_number: int | None = None


class ConversionStatus(str, Enum):
    pending = "pending"
    success = "success"
    partial_success = "partial_success"
    failure = "failure"


class EngineLimits(BaseModel):
    """What the stages may spend and where they find their data, from the settings (the stages
    never read settings or the environment themselves)."""

    max_page_pixels: int = 100_000_000
    max_pages: int = 5_000
    max_table_columns: int = 1_000
    max_result_bytes: int = 256 * 1024 * 1024
    tessdata_dir: str | None = None  # None: where Debian's tesseract-ocr-* packages put it


class DocumentInput(BaseModel):
    """What a job hands to the stages: the bytes (or where to read them) and everything known
    about them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    data: bytes = b""
    # Where the bytes are when ``data`` is empty: a picklable ``() -> bytes`` (a stored object),
    # called by the limited process that converts the document, so a worker never holds them.
    source: Callable[[], bytes] | None = Field(None, exclude=True)
    file_name: str | None = None
    declared_mime_type: str | None = None
    mime_type: str | None = None
    page_range: str | None = None
    parsing: ParsingOptions = Field(default_factory=ParsingOptions)
    enrichment: EnrichmentOptions = Field(default_factory=EnrichmentOptions)
    # structured extraction and page classification (``stages.extract``, ``stages.classify``)
    extraction: list[StructuredExtractionOptions] = Field(default_factory=list)
    classification: list[PageClassConfig] = Field(default_factory=list)
    # an edit job's options (``engine.document.fill_and_convert``); None for every other kind
    form_filling: FormFillingOptions | None = None
    limits: EngineLimits = Field(default_factory=EngineLimits)
    # bring-your-own LLM (stages.llm_extract); off unless DOCKLAKE_LLM__BASE_URL is set
    llm: ProviderConfig = Field(default_factory=ProviderConfig)

    def loaded(self) -> DocumentInput:
        """This input with its bytes read from ``source`` (itself if it has them already)."""
        if self.data or self.source is None:
            return self
        return self.model_copy(update={"data": self.source(), "source": None})

    def without_data(self) -> DocumentInput:
        """This input without its bytes (what was learnt about them is kept)."""
        return self.model_copy(update={"data": b"", "source": None})


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 5]`` → ``"1-3, 5"``."""
    out: list[str] = []
    start = prev = numbers[0]
    for n in numbers[1:] + [None]:  # type: ignore[list-item]
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(out)


class DocumentResult(BaseModel):
    """The one object every stage takes and returns."""

    input: DocumentInput = Field(exclude=True)
    status: ConversionStatus = ConversionStatus.pending
    total_pages: int = 0
    pages: list[PageResult] = Field(default_factory=list)
    chunks: list[Chunk] = Field(default_factory=list)
    errors: list[ErrorItem] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)
    # Tables continued across pages, joined (``table_merging``); wire ``merged_tables`` entries:
    # {merged_table_id, merged_table_html, start_page, end_page, pages_merged,
    #  merge_actions: {pages, target_columns}} (+ merged_table_markdown).
    merged_tables: list[dict[str, Any]] | None = None
    # ``structured_extraction_options`` / ``page_classifications`` answers; None when not asked.
    structured_data: list[StructuredData] | None = None
    page_classes: list[PageClass] | None = None
    # An edit job's filled PDF and what filling did; kept by ``store`` (the worker files the PDF).
    filled_pdf: bytes | None = Field(None, exclude=True)
    form_filling: FormFillingReport | None = None
    # The converting process already wrote the result where it belongs; what is left here is its
    # summary (pages without their fragments).
    stored: bool = Field(False, exclude=True)
    # Not converted: the document is large enough to be converted in these page ranges instead
    # (``split.convert_unless_large``).
    split_into: list[str] = Field(default_factory=list, exclude=True)
    # Fragments by type, counted before a stored result's pages were emptied (see ``store``).
    stored_fragment_types: dict[str, int] = Field(default_factory=dict, exclude=True)

    def store(self, sink: Callable[[DocumentResult], None]) -> DocumentResult:
        """Hand the result to ``sink`` (which writes it where it belongs) and keep only its
        summary: pages without fragments, no chunks or merged tables, ``stored`` set."""
        if self.pages:
            sink(self)
            self.stored_fragment_types = self.fragment_types()
            self.pages = [PageResult(page_number=p.page_number, width=p.width, height=p.height,
                                     warnings=p.warnings) for p in self.pages]
            self.chunks, self.merged_tables = [], None
            self.structured_data = self.page_classes = None
            self.stored = True
        return self

    def fragment_types(self) -> dict[str, int]:
        """How many fragments of each type the result has (also once it is stored)."""
        if self.stored:
            return dict(self.stored_fragment_types)
        counts: dict[str, int] = {}
        for p in self.pages:
            for f in p.fragments:
                counts[f.fragment_type] = counts.get(f.fragment_type, 0) + 1
        return counts

    @property
    def parsed_pages_count(self) -> int:
        failed = {e.page_number for e in self.errors if e.page_number is not None}
        return sum(1 for p in self.pages if p.page_number not in failed)

    def error_message(self) -> str | None:
        """Every distinct error once, with the pages it happened on as ranges
        ("pages 1-40, 42: the image cannot be read: …")."""
        if not self.errors:
            return None
        pages: dict[str, list[int]] = {}
        for e in self.errors:
            pages.setdefault(e.message, [])
            if e.page_number is not None:
                pages[e.message].append(e.page_number)
        parts = []
        for message, numbers in pages.items():
            if not numbers:
                parts.append(message)
                continue
            spans = _ranges(sorted(set(numbers)))
            label = "page" if spans == str(numbers[0]) else "pages"
            parts.append(f"{label} {spans}: {message}")
        return "; ".join(parts)
