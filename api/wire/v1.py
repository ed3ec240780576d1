"""The legacy v1 wire shapes (camelCase), translated to and from the v2 model the use cases take.

v1 ``Settings`` map onto v2 options: ``chunkStrategy`` → ``parsing_options.chunking_strategy``,
``tableOutputMode``, ``tableParsingMode`` → ``table_parsing_format``, ``detectSignature``,
``skewCorrection``, ``disableLayoutDetection``, ``detectStrikethrough`` →
``remove_strikethrough_lines``; the summarisation and structured-extraction keys map to their v2
options (and are refused, as in v2, where docklake cannot honour them). ``formDetectionMode`` and
``deliverWebhook`` are kept and echoed (webhooks registered for the project hear every job).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipelines.core.records import Dataset, FileRecord, JobSummary, rfc3339
from pipelines.core.requests import EnrichmentOptions, ParseConfiguration, ParseRequest, ParsingOptions

ANALYTICS_KEYS = {"totalProcessingJobs": "processing", "totalPendingJobs": "pending",
                  "totalErrorJobs": "failure", "totalSuccessfulJobs": "successful"}


class Settings(BaseModel):
    """v1 dataset and job settings."""

    model_config = ConfigDict(extra="ignore")

    chunkStrategy: str | None = None  # noqa: N815 - wire names
    tableOutputMode: str = "markdown"  # noqa: N815
    tableParsingMode: str = "tsr"  # noqa: N815
    tableSummarization: bool = False  # noqa: N815
    tableSummarizationPrompt: str | None = None  # noqa: N815
    figureSummarization: bool = False  # noqa: N815
    figureSummarizationPrompt: str | None = None  # noqa: N815
    formDetectionMode: str = "vlm"  # noqa: N815
    jsonSchema: Any | None = None  # noqa: N815
    structuredExtractionPrompt: str | None = None  # noqa: N815
    modelProvider: str | None = None  # noqa: N815
    structuredExtractionSkipOcr: bool = False  # noqa: N815
    deliverWebhook: bool = False  # noqa: N815
    detectSignature: bool = False  # noqa: N815
    skewCorrection: bool = False  # noqa: N815
    disableLayoutDetection: bool = False  # noqa: N815
    detectStrikethrough: bool = False  # noqa: N815

    def configuration(self) -> ParseConfiguration:
        extraction = None
        if self.jsonSchema is not None:
            extraction = [{"schema_name": "default", "json_schema": self.jsonSchema,
                           "prompt": self.structuredExtractionPrompt, "skip_ocr": self.structuredExtractionSkipOcr,
                           **({"model_provider": self.modelProvider} if self.modelProvider else {})}]
        return ParseConfiguration.model_validate({
            "parsing_options": ParsingOptions.model_validate({
                "chunking_strategy": self.chunkStrategy or "none", "table_output_mode": self.tableOutputMode,
                "table_parsing_format": "vlm" if self.tableParsingMode == "vlm" else "tsr",
                "signature_detection": self.detectSignature, "skew_detection": self.skewCorrection,
                "disable_layout_detection": self.disableLayoutDetection,
                "remove_strikethrough_lines": self.detectStrikethrough,
            }),
            "enrichment_options": EnrichmentOptions(
                table_summarization=self.tableSummarization,
                table_summarization_prompt=self.tableSummarizationPrompt,
                figure_summarization=self.figureSummarization,
                figure_summarization_prompt=self.figureSummarizationPrompt),
            "structured_extraction_options": extraction,
        })

    @classmethod
    def of(cls, c: ParseConfiguration | ParseRequest, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        po, eo = c.parsing_options or ParsingOptions(), c.enrichment_options or EnrichmentOptions()
        sx = (c.structured_extraction_options or [None])[0]
        out = cls(
            chunkStrategy=None if po.chunking_strategy == "none" else po.chunking_strategy,
            tableOutputMode=po.table_output_mode, tableParsingMode=po.table_parsing_format,
            tableSummarization=eo.table_summarization, tableSummarizationPrompt=eo.table_summarization_prompt,
            figureSummarization=eo.figure_summarization, figureSummarizationPrompt=eo.figure_summarization_prompt,
            jsonSchema=sx.json_schema if sx else None, structuredExtractionPrompt=sx.prompt if sx else None,
            detectSignature=po.signature_detection, skewCorrection=po.skew_detection,
            disableLayoutDetection=po.disable_layout_detection, detectStrikethrough=po.remove_strikethrough_lines,
        ).model_dump()
        return {**out, **(extra or {})}


class CreateDataset(BaseModel):
    name: str
    settings: Settings
    description: str | None = None


class UpdateDataset(BaseModel):
    name: str | None = None
    settings: Settings | None = None


class ParseV1(BaseModel):
    model_config = ConfigDict(extra="ignore")

    file: str | None = Field(None, description="A file id (file_…) or a URL.")
    content: str | None = Field(None, description="Text to parse, when there is no file.")
    mimeType: str | None = None  # noqa: N815
    pages: str | None = None
    settings: Settings = Field(default_factory=Settings)
    labels: dict[str, Any] | None = None


class Webhook(BaseModel):
    url: str


def page(items: list[dict[str, Any]], p: Any) -> dict[str, Any]:
    return {"items": items, "hasMore": p.has_more, "nextCursor": p.next_cursor, "prevCursor": p.prev_cursor}


def dataset_item(ds: Dataset) -> dict[str, Any]:
    return {"id": ds.id, "name": ds.name, "created_at": rfc3339(ds.created_us),
            "job_count": sum((ds.job_counts or {}).values()), "status": ds.status.value}


def dataset(ds: Dataset) -> dict[str, Any]:
    n = ds.job_counts or {}
    return {"id": ds.id, "name": ds.name, "settings": Settings.of(ds.configuration), "status": ds.status.value,
            "createdAt": rfc3339(ds.created_us),
            "analytics": {"totalJobs": sum(n.values()), **{k: n.get(v, 0) for k, v in ANALYTICS_KEYS.items()}}}


def dataset_job(j: JobSummary, base_url: str) -> dict[str, Any]:
    return {"id": j.id, "datasetId": j.dataset_id, "fileId": j.file_id, "fileName": j.file_name,
            "outputsUrl": f"{base_url}/documents/v1/jobs/{j.id}" if j.result_key else None,
            "status": j.status.value, "errorMessage": j.error, "createdAt": rfc3339(j.created_us),
            "updatedAt": rfc3339(j.finished_us or j.started_us or j.created_us)}


def job_item(j: JobSummary) -> dict[str, Any]:
    return {"id": j.id, "status": j.status.value, "fileName": j.file_name, "fileId": j.file_id, "traceId": None,
            "datasetId": j.dataset_id, "message": j.error, "pagesParsed": j.parsed_pages_count,
            "createdAt": rfc3339(j.created_us), "updatedAt": rfc3339(j.finished_us or j.started_us or j.created_us),
            "finishedAt": rfc3339(j.finished_us)}


def file_item(rec: FileRecord) -> dict[str, Any]:
    at = rfc3339(rec.created_us)
    return {"id": rec.id, "name": rec.file_name or "", "fileSize": rec.file_size, "mimeType": rec.mime_type,
            "createdAt": at, "updatedAt": at}
