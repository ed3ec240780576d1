"""What a parse, read, extract or classify request may ask, checked before any job exists: the
extraction schemas and classes (``check_structure``), and the options docklake does not serve
(refused with a 400 that names them, never accepted and dropped). Kept apart from ``documents``,
which runs the jobs, so each stays small; ``datasets`` checks a dataset's settings here too."""

from __future__ import annotations

from pipelines.core.errors import InvalidRequest
from pipelines.core.provider import ProviderConfig
from pipelines.core.requests import ParseRequest
from pipelines.stages import schema_check

# Options the Tensorlake API has and docklake does not implement yet: refused, never dropped.
# (``table_cell_grounding`` is served: every table fragment lists its cells with their boxes;
# ``key_value_extraction`` too: ``stages.key_values`` adds the page's label/value pairs.)
UNSUPPORTED_ENRICHMENT = ("table_summarization", "figure_summarization", "chart_extraction")
NEEDS_LLM = ("table_summarization",)  # served once an LLM endpoint is configured
LLM_SETTING = "DOCKLAKE_LLM__BASE_URL"


# ---------------------------------------------------------------- for the caller


PARTITIONS = ("none", "page")


def check_structure(req: ParseRequest, llm: ProviderConfig | None = None) -> None:
    """Refuse extraction and classification options that cannot be honoured, saying why:
    a schema that is not valid JSON Schema, has no properties or constrains with keywords the
    extractor cannot follow (``schema_check``), a partition strategy other than ``none``/``page``, a model
    provider other than the service's own when no LLM endpoint is configured (``llm``, from
    ``DOCKLAKE_LLM__*``; the message names the setting), page classes that no
    ``page_classifications`` entry defines, unnamed or repeated classes. (``skip_ocr`` is accepted
    and has no effect; ``prompt`` is read only by a configured LLM.)"""
    names = [c.name for c in req.page_classifications or []]
    if any(not n.strip() for n in names):
        raise InvalidRequest("every page_classifications entry needs a name", code="INVALID_PAGE_CLASSIFICATION")
    if len(set(names)) != len(names):
        raise InvalidRequest("page_classifications names must be unique", code="INVALID_PAGE_CLASSIFICATION")
    for opt in req.structured_extraction_options or []:
        if (wrong := schema_check.problem(opt.json_schema)) is not None:
            raise InvalidRequest(f"structured_extraction_options '{opt.schema_name}': {wrong}",
                                 code="INVALID_JSON_SCHEMA")
        strategy = opt.partition_strategy
        if strategy is not None and strategy not in PARTITIONS:
            raise InvalidRequest(f"structured_extraction_options '{opt.schema_name}': partition_strategy "
                                 f"{strategy!r} is not supported here; use 'none' or 'page'",
                                 code="INVALID_CONFIGURATION")
        if (why := (llm or ProviderConfig()).problem(opt.model_provider, opt.schema_name)) is not None:
            raise InvalidRequest(why, code="INVALID_CONFIGURATION")
        unknown = sorted(set(opt.page_classes or []) - set(names))
        if unknown:
            raise InvalidRequest(f"structured_extraction_options '{opt.schema_name}': page_classes "
                                 f"{', '.join(unknown)} are not among the page_classifications of the request",
                                 code="INVALID_PAGE_CLASSIFICATION")


def refuse_unsupported(req: ParseRequest, llm: ProviderConfig | None = None) -> None:
    check_structure(req, llm)
    missing = []
    if req.form_filling is not None:
        missing.append("form_filling (use the edit endpoint)")
    if req.enrichment_options is not None:
        for name in UNSUPPORTED_ENRICHMENT:
            if not getattr(req.enrichment_options, name):
                continue
            if name in NEEDS_LLM and llm is not None and llm.configured:
                continue  # written by the operator's LLM (stages.llm_summaries)
            missing.append(f"enrichment_options.{name}" + (f" (needs an LLM endpoint: set {LLM_SETTING}, see "
                                                             "docs/llm-provider.md)" if name in NEEDS_LLM else ""))
    if req.parsing_options is not None and req.parsing_options.table_parsing_format == "vlm":
        missing.append("parsing_options.table_parsing_format 'vlm' (no VLM provider is configured; use 'tsr')")
    if missing:
        raise InvalidRequest("not supported by this server yet: " + "; ".join(missing))
