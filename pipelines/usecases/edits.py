"""Edit jobs (form filling): what an edit request may ask before a job exists, and the job's
output — the filled PDF and its report beside the result, and the filled PDF kept as a new file
of the caller (one per job, so an attempt that runs again replaces an earlier one's). Kept apart
from ``documents``, which runs every kind of job, so each stays small."""

from __future__ import annotations

import hashlib
import json

from assets.catalog import files as files_repo
from assets.catalog.db import now_us
from pipelines.core.errors import InvalidMimeType, InvalidPageRange, InvalidRequest
from pipelines.core.models import EditOutput, FormFillingReport
from pipelines.core.records import FileRecord, Job, JobKind, Principal
from pipelines.core.requests import ParseRequest
from pipelines.stages import form_fill
from pipelines.stages.detect import OCTET, PDF, normalize_mime
from pipelines.usecases.runtime import Runtime

EDIT_REFUSES = ("parsing_options", "enrichment_options", "structured_extraction_options", "page_classifications")


def refuse_edit(req: ParseRequest) -> None:
    """Refuse an edit request that could fill nothing, saying why, before a job exists: no
    ``form_filling``, a prompt without ``field: value`` pairs, both ways of finding fields
    switched off, a document that is text, or options of the other endpoints."""
    ff = req.form_filling
    if ff is None:
        raise InvalidRequest("form filling needs form_filling: {\"fill_prompt\": \"field: value\" lines or a JSON "
                             "object, \"ignore_source_values\", \"no_acroform\", \"no_widget_detection\"}")
    if req.raw_text is not None:
        raise InvalidMimeType("form filling needs a PDF: raw_text has no form to fill (upload the PDF and give "
                              "its file_id, or its file_url)")
    given = [name for name in EDIT_REFUSES if getattr(req, name) not in (None, [])]
    if given:
        raise InvalidRequest(f"form filling takes no {', '.join(given)}: the filled PDF is parsed with the defaults")
    if req.page_range is not None:
        raise InvalidPageRange("form filling works on the whole document: page_range is not taken")
    if ff.no_acroform and ff.no_widget_detection:
        raise InvalidRequest("form filling with both no_acroform and no_widget_detection has nothing to fill: "
                             "no_acroform leaves the AcroForm fields alone, no_widget_detection the blank lines")
    try:
        form_fill.parse_prompt(ff.fill_prompt)
    except InvalidRequest as exc:
        raise InvalidRequest(f"form filling: {exc.message}") from None


def needs_pdf(rt: Runtime, p: Principal, req: ParseRequest) -> None:
    """A stored file that is not a PDF is refused at once (a URL's type is known once fetched:
    such a job ends ``failure`` saying so)."""
    declared = normalize_mime(req.mime_type)
    if declared not in (None, OCTET, PDF):
        raise InvalidMimeType(f"form filling needs a PDF, not {req.mime_type}")
    if req.file_id is not None and declared in (None, OCTET):
        rec = files_repo.get_file(rt.engine, p, req.file_id)
        if rec is not None and rec.mime_type != PDF:
            raise InvalidMimeType(f"form filling needs a PDF; file {req.file_id} is {rec.mime_type}")


# ---------------------------------------------------------------- edit jobs' output

FILLED_PDF, FILLING_REPORT = "filled.pdf", "form_filling.json"


def filled_file_id(job_id: str) -> str:
    """The id of the file an edit job's filled PDF is kept as: one per job, so an attempt that
    runs again replaces what an earlier one left."""
    return "file_" + hashlib.sha256(f"filled:{job_id}".encode()).hexdigest()[:24]


def _filled_name(job: Job) -> str:
    name = job.file_name or job.id
    stem = name[:-4] if name.lower().endswith(".pdf") else name
    return f"{stem}-filled.pdf"


def keep_filled(rt: Runtime, job: Job, key: str, pdf: bytes, report: FormFillingReport) -> FileRecord:
    """Store the filled PDF beside the result and as a new file of the job's caller (labelled
    with the job's id); the report, naming that file, beside the result."""
    p = job.principal
    file_id = filled_file_id(job.id)
    drop_file(rt, p, file_id)  # an earlier attempt's
    rec = FileRecord(file_id, _filled_name(job), PDF, len(pdf), hashlib.sha256(pdf).hexdigest(), now_us(),
                     files_repo.storage_key(p, file_id), {"parse_id": job.id})
    rt.storage.put_bytes(rec.storage_key, pdf)
    try:
        files_repo.insert_file(rt.engine, p, rec)
    except Exception:
        rt.storage.delete(rec.storage_key)
        raise
    rt.storage.put_bytes(f"{key}/{FILLED_PDF}", pdf)
    rt.storage.put_bytes(f"{key}/{FILLING_REPORT}",
                         json.dumps({"filled_file_id": file_id, **report.model_dump()}).encode())
    return rec


def drop_file(rt: Runtime, p: Principal, rec_or_id: FileRecord | str) -> None:
    file_id = rec_or_id if isinstance(rec_or_id, str) else rec_or_id.id
    rec = files_repo.delete_file(rt.engine, p, file_id)
    if rec is not None:
        rt.storage.delete(rec.storage_key)


def edit_output(rt: Runtime, job: Job) -> EditOutput | None:
    """An edit job's filled PDF, the file it is kept as (``None`` once the caller deleted that
    file) and its report; ``None`` for other jobs and edit jobs without a result. A filled PDF
    too large for one answer is refused as a result over ``api.max_response_bytes`` is."""
    if job.kind != JobKind.edit or not job.result_key:
        return None
    try:
        report = json.loads(rt.storage.read_bytes(f"{job.result_key}/{FILLING_REPORT}"))
        pdf = rt.storage.read_bytes(f"{job.result_key}/{FILLED_PDF}")
    except FileNotFoundError:
        return None
    cap = rt.settings.api.max_response_bytes
    if len(pdf) * 4 // 3 > cap:
        raise InvalidRequest(f"the filled PDF is about {len(pdf) / 2**20:,.0f} MiB, over the {cap / 2**20:,.0f} MiB "
                             "one response may carry (DOCKLAKE_API__MAX_RESPONSE_BYTES); it is kept as file "
                             f"{report.get('filled_file_id')}", code="INVALID_QUERY_PARAMS")
    file_id = report.pop("filled_file_id", None)
    if file_id and files_repo.get_file(rt.engine, job.principal, file_id) is None:
        file_id = None
    return EditOutput(filled_pdf=pdf, filled_file_id=file_id, report=FormFillingReport.model_validate(report))
