"""Typed models shared by every stage, the job store and the API.

Two families live here:

* the request side of the Tensorlake wire format (``ParseRequest`` and the options objects);
  unknown keys are ignored, as the real SDK sends keys newer than the public OpenAPI;
* ``DocumentResult``: the one result object that flows through every document stage
  (detect → load → fragments → chunks → write), in the style of docling's ``ConversionResult``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


FragmentType = Literal[
    "section_header", "title", "text", "table", "figure", "formula", "form", "key_value_region",
    "document_index", "list_item", "table_caption", "figure_caption", "formula_caption",
    "page_footer", "page_header", "page_number", "signature", "strikethrough", "barcode", "chart",
]


# ---------------------------------------------------------------- request options (wire)


class ParsingOptions(_Lenient):
    chunking_strategy: Literal["none", "page", "section", "fragment"] = "none"
    table_output_mode: Literal["markdown", "html"] = "html"
    table_parsing_format: Literal["tsr", "vlm"] = "tsr"
    ocr_model: str | None = None
    signature_detection: bool = False
    remove_strikethrough_lines: bool = False
    skew_detection: bool = False
    disable_layout_detection: bool = False
    cross_page_header_detection: bool = False
    include_images: bool = False
    barcode_detection: bool = False
    table_merging: bool = False
    ignore_sections: list[FragmentType] = Field(default_factory=list)


class EnrichmentOptions(_Lenient):
    table_summarization: bool = False
    table_summarization_prompt: str | None = None
    figure_summarization: bool = False
    figure_summarization_prompt: str | None = None
    include_full_page_image: bool = False
    chart_extraction: bool = False
    key_value_extraction: bool = False
    table_cell_grounding: bool = False


class StructuredExtractionOptions(_Lenient):
    schema_name: str
    json_schema: Any
    partition_strategy: Any = None
    model_provider: str | None = None
    page_classes: list[str] | None = None
    prompt: str | None = None
    provide_citations: bool = False
    skip_ocr: bool = False


class PageClassConfig(_Lenient):
    name: str
    description: str = ""


class FormFillingOptions(_Lenient):
    fill_prompt: str | None = None
    ignore_source_values: bool = False
    no_acroform: bool = False
    no_widget_detection: bool = False


MAX_LABELS = 100
MAX_LABELS_BYTES = 64 * 1024
MAX_LABEL_DEPTH = 8


def text_problem(value: str) -> str | None:
    """What makes ``value`` unusable as text, if anything (a lone surrogate: JSON lets a client
    send one, but it is not a character and cannot be stored or sent back)."""
    if value.isascii():
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (\\ud800–\\udfff), which is not a character"
    return None


def labels_problem(labels: dict[str, Any]) -> str | None:
    """Labels are small JSON: at most ``MAX_LABELS`` keys, ``MAX_LABEL_DEPTH`` levels and
    ``MAX_LABELS_BYTES`` bytes; finite numbers; text without lone surrogates."""
    if len(labels) > MAX_LABELS:
        return f"at most {MAX_LABELS} labels are allowed, got {len(labels)}"
    size = 0
    stack: list[tuple[Any, int]] = [(labels, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_LABEL_DEPTH and isinstance(value, dict | list):
            return f"labels are nested more than {MAX_LABEL_DEPTH} levels deep"
        if isinstance(value, dict):
            for k, v in value.items():
                if (p := text_problem(k)) is not None:
                    return f"a label key {p}"
                size += len(k) + 4
                stack.append((v, depth + 1))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
            size += 2
        elif isinstance(value, str):
            if (p := text_problem(value)) is not None:
                return f"a label value {p}"
            size += len(value) + 2
        elif isinstance(value, float) and not math.isfinite(value):
            return "label values must be finite numbers (NaN and Infinity are not JSON)"
        else:
            size += 8
        if size > MAX_LABELS_BYTES:
            return f"labels are larger than {MAX_LABELS_BYTES // 1024} KiB"
    return None


class DocumentSource(_Lenient):
    """Which document a job parses (and the labels it carries)."""

    file_id: str | None = None
    file_url: str | None = None
    raw_text: str | None = None
    file_name: str | None = None
    mime_type: str | None = None
    page_range: str | None = None
    labels: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _storable(self) -> DocumentSource:
        """Refuse what could not be stored or sent back: lone surrogates, unbounded labels."""
        for name in ("file_id", "file_url", "raw_text", "file_name", "mime_type", "page_range"):
            value = getattr(self, name)
            if value is not None and (p := text_problem(value)) is not None:
                raise ValueError(f"{name} {p}")
        if self.labels is not None and (p := labels_problem(self.labels)) is not None:
            raise ValueError(p)
        return self


class ParseRequest(DocumentSource):
    """The body of every job endpoint (parse, read, extract, classify, edit)."""

    parsing_options: ParsingOptions | None = None
    enrichment_options: EnrichmentOptions | None = None
    structured_extraction_options: list[StructuredExtractionOptions] | None = None
    page_classifications: list[PageClassConfig] | None = None
    form_filling: FormFillingOptions | None = None

    def options_dump(self) -> dict[str, Any]:
        """The processing configuration echoed by ``with_options``."""
        return self.model_dump(
            include={"parsing_options", "enrichment_options", "structured_extraction_options",
                     "page_classifications", "form_filling", "page_range", "mime_type"},
            exclude_none=True,
        )


class ExtractRequest(ParseRequest):
    """``POST extract``: a document and at least one schema to extract."""

    structured_extraction_options: list[StructuredExtractionOptions] = Field(min_length=1)  # type: ignore[assignment]


class ClassifyRequest(ParseRequest):
    """``POST classify``: a document and at least one page class."""

    page_classifications: list[PageClassConfig] = Field(min_length=1)  # type: ignore[assignment]


class ParseConfiguration(_Lenient):
    """How a dataset processes every document submitted to it (the ``ParseRequest`` options)."""

    parsing_options: ParsingOptions | None = None
    enrichment_options: EnrichmentOptions | None = None
    structured_extraction_options: list[StructuredExtractionOptions] | None = None
    page_classifications: list[PageClassConfig] | None = None


DATASET_NAME = re.compile(r"[A-Za-z0-9_-]{1,255}")
MAX_DESCRIPTION = 4096


def _description_problem(value: str | None) -> str | None:
    if value is None:
        return None
    if len(value) > MAX_DESCRIPTION:
        return f"description is longer than {MAX_DESCRIPTION} characters"
    p = text_problem(value)
    return f"description {p}" if p else None


class DatasetUpdate(ParseConfiguration):
    """``PUT datasets/{id}``: the keys given replace the dataset's; later jobs use them."""

    description: str | None = None

    @model_validator(mode="after")
    def _storable(self) -> DatasetUpdate:
        if (p := _description_problem(self.description)) is not None:
            raise ValueError(p)
        return self

    def configuration(self) -> ParseConfiguration:
        return ParseConfiguration.model_validate(self.model_dump(include=set(ParseConfiguration.model_fields)))


class DatasetCreate(DatasetUpdate):
    name: str


class DatasetParseRequest(DocumentSource):
    """``POST datasets/{id}/parse``: what to parse; how comes from the dataset."""


# ---------------------------------------------------------------- the document result


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
    limits: EngineLimits = Field(default_factory=EngineLimits)

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
