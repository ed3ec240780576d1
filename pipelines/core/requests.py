"""The request side of the Tensorlake wire format, as the use cases take it: what to parse
(``DocumentSource``), how (``ParsingOptions`` and the other options objects), the requests of
parse, extract and classify, and datasets' settings.

Unknown keys are ignored, as the real SDK sends keys newer than the public OpenAPI. These are the
typed requests the use cases validate once at submit and the catalog stores.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

FragmentType = Literal[
    "section_header", "title", "text", "table", "figure", "formula", "form", "key_value_region",
    "document_index", "list_item", "table_caption", "figure_caption", "formula_caption",
    "page_footer", "page_header", "page_number", "signature", "strikethrough", "barcode", "chart",
]


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


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
    """``POST edit``'s options. ``fill_prompt``: ``field: value`` lines or a JSON object;
    ``ignore_source_values``: overwrite values the form already holds; ``no_acroform``: leave
    the PDF's AcroForm fields alone and write only on blank lines; ``no_widget_detection``: do
    not look for blank lines of flat forms (only AcroForm fields are filled)."""

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


class EditRequest(ParseRequest):
    """``POST edit``: a PDF and ``form_filling`` (required, with a ``fill_prompt``). The other
    options of a parse are refused: the filled PDF is parsed with the defaults."""

    form_filling: FormFillingOptions | None = Field(
        None, description="Required: what to fill (fill_prompt) and how; a 400 says what is missing.")


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


class IngestRequest(BaseModel):
    """``POST datasets/{id}/ingest`` (a docklake extension): take every document under ``source``
    (an fsspec URL prefix or a local folder, within ``DOCKLAKE_INGEST__ROOTS``) whose file name
    matches ``pattern``, by reference, without uploading them."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(min_length=1, max_length=2048)
    pattern: str = Field("*", min_length=1, max_length=255)
