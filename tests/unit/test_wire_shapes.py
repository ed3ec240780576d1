"""The wire's shapes are declared once, by the response models in ``api/wire/``; the functions that
write responses without building those models (the parse result, written a page at a time) are
held to them here, key for key, so a field added on one side and not the other fails."""

from __future__ import annotations

import json
import types
import typing
from typing import Any

from pydantic import BaseModel

from api.wire import datasets, documents, files, webhooks
from assets.results import ResultReader, write_result
from assets.storage import Storage
from pipelines.core.models import (
    Chunk,
    Citation,
    DocumentInput,
    DocumentResult,
    EditOutput,
    FilledItem,
    FormFillingReport,
    Fragment,
    PageClass,
    PageResult,
    StructuredData,
)
from pipelines.core.records import (
    Dataset,
    Delivery,
    DeliveryStatus,
    FileRecord,
    Job,
    JobKind,
    JobStatus,
    JobSummary,
    Webhook,
)


def conforms(value: Any, annotation: Any, path: str = "$") -> None:
    """``value`` has exactly the keys the model in ``annotation`` declares (no stray key, no
    missing required one), recursively through lists and dicts, and validates against it."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (types.UnionType, typing.Union):
        if value is None:
            assert type(None) in args, f"{path} is null"
            return
        (annotation,) = [a for a in args if a is not type(None)]
        args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin is list:
        assert isinstance(value, list), f"{path} is not a list"
        for i, v in enumerate(value):
            conforms(v, args[0], f"{path}[{i}]")
    elif origin is dict:
        assert isinstance(value, dict), f"{path} is not an object"
        for k, v in value.items():
            conforms(v, args[1], f"{path}.{k}")
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        assert isinstance(value, dict), f"{path} is not an object"
        fields = annotation.model_fields
        assert set(value) <= set(fields), f"{path}: keys the model does not declare: {set(value) - set(fields)}"
        missing = {k for k, f in fields.items() if f.is_required()} - set(value)
        assert not missing, f"{path}: required keys missing: {missing}"
        for k, v in value.items():
            conforms(v, fields[k].annotation, f"{path}.{k}")
        annotation.model_validate(value)


def _result() -> DocumentResult:
    page = PageResult(page_number=1, width=612, height=792, skew_angle=0.5, warnings=["a word kept as text"],
                      fragments=[Fragment(fragment_type="text", content={"content": "Total 9.30"}, reading_order=0,
                                          bbox={"x1": 1.0, "y1": 2.0, "x2": 3.0, "y2": 4.0})])
    return DocumentResult(
        input=DocumentInput(), total_pages=2, pages=[page, PageResult(page_number=2)],
        chunks=[Chunk(page_number=1, content="Total 9.30")], merged_tables=[],
        structured_data=[StructuredData(schema_name="receipt", data={"total": "9.30"}, page_numbers=[1],
                                        citations={"total": Citation(page_number=1, text="9.30")})],
        page_classes=[PageClass(page_class="receipt", page_numbers=[1], reasons={1: "total"})])


def test_a_parse_result_has_the_declared_shape_whole_and_streamed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    job = Job(id="parse_1", organization_id="o", project_id="p", kind=JobKind.parse, status=JobStatus.successful,
              created_us=1_700_000_000_000_000, finished_us=1_700_000_001_000_000, total_pages=2,
              parsed_pages_count=2)
    result = _result()
    whole = documents.parse_result(job, result, with_options=True)
    conforms(whole, documents.ParseResult)
    assert whole["pages"][0]["warnings"] == ["a word kept as text"] and "warnings" not in whole["pages"][1]

    storage = Storage(f"file://{tmp_path}")
    write_result(storage, "results/o/p/_/parse_1/1", "parse_1", result)
    reader = ResultReader(storage, "results/o/p/_/parse_1/1", 2)
    streamed = json.loads(b"".join(documents.stream_parse_result(job, reader, None, with_options=True)))
    conforms(streamed, documents.ParseResult)
    assert streamed["pages"] == json.loads(json.dumps(whole["pages"]))
    assert streamed["structured_data"] == json.loads(json.dumps(whole["structured_data"]))

    pending = documents.parse_result(JobSummary(id="parse_2", organization_id="o", project_id="p",
                                                kind=JobKind.parse, status=JobStatus.pending, created_us=1))
    conforms(pending, documents.ParseResult)
    assert pending["pages"] is None and pending["finished_at"] is None


def test_an_edit_result_has_the_declared_shape_whole_and_streamed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    job = Job(id="parse_3", organization_id="o", project_id="p", kind=JobKind.edit, status=JobStatus.successful,
              created_us=1_700_000_000_000_000, finished_us=1_700_000_001_000_000, total_pages=2,
              parsed_pages_count=2)
    report = FormFillingReport(fields_found=3, filled=[FilledItem(key="name", value="Ada", target="applicant.name",
                                                                  kind="text", page_number=1, score=1.0,
                                                                  matched="Name")],
                               unmatched=["shoe size"], warnings=["'shoe size' matches no field"])
    edit = EditOutput(filled_pdf=b"%PDF-1.7 filled", filled_file_id="file_abc", report=report)
    whole = documents.parse_result(job, _result(), with_options=True, edit=edit)
    conforms(whole, documents.ParseResult)
    assert whole["filled_pdf_base64"] == "JVBERi0xLjcgZmlsbGVk" and whole["filled_file_id"] == "file_abc"
    assert whole["form_filling_metadata"] == {"filled_file_id": "file_abc", **report.model_dump()}

    storage = Storage(f"file://{tmp_path}")
    write_result(storage, "results/o/p/_/parse_3/1", "parse_3", _result())
    reader = ResultReader(storage, "results/o/p/_/parse_3/1", 2)
    streamed = json.loads(b"".join(documents.stream_parse_result(job, reader, None, True, edit)))
    conforms(streamed, documents.ParseResult)
    assert {k: streamed[k] for k in ("filled_pdf_base64", "form_filling_metadata", "filled_file_id")} == \
        {k: whole[k] for k in ("filled_pdf_base64", "form_filling_metadata", "filled_file_id")}
    # other jobs carry the keys too, empty
    plain = documents.parse_result(job, _result())
    assert (plain["filled_pdf_base64"], plain["form_filling_metadata"], plain["filled_file_id"]) == (None, None, None)
    conforms({"parse_id": "parse_3", "created_at": "2026-01-01T00:00:00Z", "edit_id": "parse_3"},
             documents.EditCreated)


def test_the_other_builders_write_their_models() -> None:
    rec = FileRecord(id="file_1", file_name=None, mime_type="application/pdf", file_size=3, checksum_sha256="ab",
                     created_us=1, storage_key="k", labels={"a": 1})
    conforms(files.file_metadata(rec), files.FileMetadata)
    assert files.file_metadata(rec)["name"] == ""

    ds = Dataset(id="dataset_1", organization_id="o", project_id="p", name="n", created_us=1, updated_us=2,
                 job_counts={"pending": 2, "successful": 1})
    plain, full = datasets.dataset(ds), datasets.dataset(ds, analytics=True, configuration=True)
    conforms(plain, datasets.Dataset)
    conforms(full, datasets.Dataset)
    assert "analytics" not in plain and full["analytics"]["total_jobs"] == 3 and full["status"] == "processing"

    hook = Webhook(id="wh_1", organization_id="o", project_id="p", url="https://example.org/h", secret="s",
                   events=["parse.failed"], created_us=1)
    conforms(webhooks.webhook(hook), webhooks.WebhookInfo)
    assert webhooks.webhook(hook)["secret"] is None and webhooks.webhook(hook, with_secret=True)["secret"] == "s"
    d = Delivery(id="dl_1", webhook_id="wh_1", event="parse.failed", job_id="parse_1", payload="{}",
                 status=DeliveryStatus.pending, attempts=1, created_us=1, next_attempt_us=2, last_error="503",
                 history=[{"attempt": 1, "at_us": 1, "status_code": 503, "error": None, "duration_ms": 4}])
    conforms(webhooks.delivery(d), webhooks.DeliveryInfo)
