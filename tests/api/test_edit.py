"""``POST /documents/v2/edit`` (form filling) as a user meets it: a fillable PDF uploaded, filled by
a job the worker runs (real Prefect flow runs), the filled PDF read back from the result's
``filled_pdf_base64`` with a PDF reader, kept as a new file of the caller and of no one else,
chained into a second edit; flat forms; the requests refused before a job exists; and the real
Tensorlake SDK's ``edit`` against the API served over HTTP."""

from __future__ import annotations

import base64
import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from tensorlake.documentai.models import ParseResult

from api.services import Services
from tests.support.helpers import KEY_A, A, B, sse_events
from tests.unit.test_form_fill import acroform_pdf, fields_of, flat_form_pdf, same_line

PROMPT = ("Full name: Ada Lovelace\nE-mail: ada@example.org\nDate of birth = 1815-12-10\n"
          "Previously a member: yes\nPlan: Family\nContact by: phone\nReferred by: Charles Babbage\n"
          "Shoe size: 38")
FLAGS = {"ignore_source_values": False, "no_acroform": False, "no_widget_detection": False}  # as the SDK sends


def upload(client: TestClient, name: str, data: bytes, headers: dict = A) -> str:
    r = client.put("/documents/v2/files", files={"file": (name, data)}, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["file_id"]


def edit(client: TestClient, prompt: str, headers: dict = A, **source: object) -> str:
    flags = {**FLAGS, **source.pop("flags", {})}  # type: ignore[dict-item]
    r = client.post("/documents/v2/edit", headers=headers,
                    json={**source, "form_filling": {"fill_prompt": prompt, **flags}})
    assert r.status_code == 200, r.text
    assert r.json()["edit_id"] == r.json()["parse_id"] and r.json()["created_at"]
    return r.json()["parse_id"]


def result(client: TestClient, parse_id: str, headers: dict = A) -> dict:
    r = client.get(f"/documents/v2/parse/{parse_id}", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


def filled(res: dict) -> bytes:
    pdf = base64.b64decode(res["filled_pdf_base64"])
    assert pdf.startswith(b"%PDF-")
    return pdf


def files_of(client: TestClient, headers: dict = A) -> dict[str, dict]:
    return {f["file_id"]: f for f in client.get("/documents/v2/files", headers=headers).json()["items"]}


def test_a_fillable_pdf_is_filled_kept_as_a_file_and_edited_again(client: TestClient, run_jobs) -> None:
    source = upload(client, "membership.pdf", acroform_pdf())
    pid = edit(client, PROMPT, file_id=source, labels={"case": "42"})
    assert result(client, pid)["status"] == "pending"
    assert run_jobs() == 1

    res = result(client, pid)
    assert res["status"] == "successful" and res["error"] is None and res["labels"] == {"case": "42"}
    pdf = filled(res)
    values = fields_of(pdf)
    assert (values["applicant.fullName"], values["topmostSubform[0].Page1[0].f1_02[0]"], values["dob"]) == (
        "Ada Lovelace", "ada@example.org", "1815-12-10")
    assert (values["prevMember"], values["plan"], values["contact"]) == ("/Yes", "Family", "/phone")
    assert same_line(pdf, "Referred by:", "Charles Babbage")  # a blank line beside the fields
    meta = res["form_filling_metadata"]
    assert meta["unmatched"] == ["Shoe size"]
    assert meta["warnings"] == ["'Shoe size' matches no field of the form; it was not filled"]
    assert {f["key"]: f["target"] for f in meta["filled"]}["E-mail"] == "topmostSubform[0].Page1[0].f1_02[0]"
    # the result's pages are the filled PDF, parsed: its fields read with their new values
    kv = {f["content"]["key"]: f["content"]["value"] for p in res["pages"] for f in p["page_fragments"]
          if f["fragment_type"] == "key_value_region"}
    assert kv["Applicant's full name"] == "Ada Lovelace" and kv["Previously a member"] == "checked"
    assert ParseResult.model_validate(res).filled_pdf_base64 == res["filled_pdf_base64"]  # the SDK's model

    # the filled PDF is a new file of the caller, and the result points to it
    fid = res["filled_file_id"]
    assert fid and meta["filled_file_id"] == fid and fid != source
    f = files_of(client)[fid]
    assert (f["file_name"], f["mime_type"], f["file_size"], f["labels"]) == (
        "membership-filled.pdf", "application/pdf", len(pdf), {"parse_id": pid})
    # the event stream ends with the same result
    with client.stream("GET", f"/documents/v2/parse/{pid}", headers={**A, "accept": "text/event-stream"}) as s:
        events = sse_events("".join(s.iter_text()))
    assert events[-1][0] == "parse_done"
    assert json.loads(events[-1][1])["filled_pdf_base64"] == res["filled_pdf_base64"]
    listed = {i["parse_id"]: i for i in client.get("/documents/v2/parse", headers=A).json()["items"]}
    assert listed[pid]["status"] == "successful"

    # another organization sees neither the job nor the file, and cannot edit it
    assert client.get(f"/documents/v2/parse/{pid}", headers=B).status_code == 404
    assert fid not in files_of(client, B)
    r = client.post("/documents/v2/edit", headers=B, json={"file_id": fid, "form_filling": {"fill_prompt": "a: b"}})
    assert r.status_code == 404

    # the filled file is edited again: its values are kept, unless ignore_source_values
    kept = edit(client, "Full name: Grace Hopper\nPlan: Student", file_id=fid)
    replaced = edit(client, "Full name: Grace Hopper\nPlan: Student", file_id=fid,
                    flags={"ignore_source_values": True})
    assert run_jobs() == 2
    res2 = result(client, kept)
    assert fields_of(filled(res2))["applicant.fullName"] == "Ada Lovelace"
    assert [k["target"] for k in res2["form_filling_metadata"]["kept"]] == ["applicant.fullName", "plan"]
    assert "already holds 'Ada Lovelace'" in res2["form_filling_metadata"]["warnings"][0]
    values = fields_of(filled(result(client, replaced)))
    assert (values["applicant.fullName"], values["plan"], values["dob"]) == ("Grace Hopper", "Student", "1815-12-10")
    assert files_of(client)[result(client, replaced)["filled_file_id"]]["file_name"] == "membership-filled-filled.pdf"

    # deleting the file leaves the result its PDF; deleting the job leaves the caller the file
    assert client.delete(f"/documents/v2/files/{fid}", headers=A).status_code == 204
    res = result(client, pid)
    assert res["filled_file_id"] is None and filled(res) == pdf
    other = result(client, kept)["filled_file_id"]
    assert client.delete(f"/documents/v2/parse/{kept}", headers=A).status_code == 204
    assert other in files_of(client)


def test_a_flat_form_is_written_on_its_blank_lines(client: TestClient, run_jobs) -> None:
    fid = upload(client, "visitor.pdf", flat_form_pdf())
    prompt = json.dumps({"name": "Ada Lovelace", "home address": "12 Crescent Road, Bath", "badge": "B-17",
                         "favourite colour": "green"})
    pid = edit(client, prompt, file_id=fid)
    off = edit(client, prompt, file_id=fid, flags={"no_widget_detection": True})
    run_jobs()
    res = result(client, pid)
    pdf = filled(res)
    assert same_line(pdf, "Name:", "Ada Lovelace") and same_line(pdf, "Home address:", "12 Crescent Road, Bath")
    text = " ".join(f["content"].get("content", "") for p in res["pages"] for f in p["page_fragments"])
    assert "Ada Lovelace" in text and "B-17" in text  # the parse of the filled PDF reads them
    meta = res["form_filling_metadata"]
    assert meta["fields_found"] == 0 and meta["unmatched"] == ["favourite colour"]
    assert {f["target"]: f["kind"] for f in meta["filled"]} == {
        "line 'Name'": "line", "line 'Home address'": "line", "line 'Badge number'": "line"}
    res = result(client, off)
    assert res["status"] == "successful" and res["form_filling_metadata"]["filled"] == []
    assert "no fillable field was found in the document" in res["form_filling_metadata"]["warnings"]
    assert "Ada" not in " ".join(f["content"].get("content", "") for p in res["pages"] for f in p["page_fragments"])


def test_requests_that_could_fill_nothing_are_refused_before_a_job_exists(client: TestClient) -> None:
    pdf_id = upload(client, "form.pdf", acroform_pdf())
    text_id = upload(client, "notes.md", b"# Notes\n\nName: ____\n")
    ok = {"fill_prompt": "name: Ada", **FLAGS}
    for body, status, words in (
        ({"file_id": pdf_id}, 400, "form filling needs form_filling"),
        ({"file_id": pdf_id, "form_filling": {}}, 400, "no field to fill"),
        ({"file_id": pdf_id, "form_filling": {"fill_prompt": "  "}}, 400, "no field to fill"),
        ({"file_id": pdf_id, "form_filling": {"fill_prompt": "Please fill in my details, I am Ada"}}, 400,
         "no language model"),
        ({"file_id": pdf_id, "form_filling": {"fill_prompt": "{bad json"}}, 400, "not valid JSON"),
        ({"file_id": pdf_id, "form_filling": {**ok, "no_acroform": True, "no_widget_detection": True}}, 400,
         "nothing to fill"),
        ({"raw_text": "Name: ____", "mime_type": "text/plain", "form_filling": ok}, 400, "needs a PDF"),
        ({"file_id": text_id, "form_filling": ok}, 400, f"file {text_id} is text/markdown"),
        ({"file_id": pdf_id, "mime_type": "text/csv", "form_filling": ok}, 400, "needs a PDF, not text/csv"),
        ({"file_id": pdf_id, "page_range": "1", "form_filling": ok}, 400, "whole document"),
        ({"file_id": pdf_id, "parsing_options": {"chunking_strategy": "page"}, "form_filling": ok}, 400,
         "takes no parsing_options"),
        ({"file_id": "file_nope", "form_filling": ok}, 404, "not found"),
        ({"form_filling": ok}, 400, "exactly one of"),
    ):
        r = client.post("/documents/v2/edit", headers=A, json=body)
        assert r.status_code == status and words in r.json()["message"], (body, r.status_code, r.text)
    # form_filling stays refused where it does not belong
    r = client.post("/documents/v2/parse", headers=A, json={"file_id": pdf_id, "form_filling": ok})
    assert r.status_code == 400 and "use the edit endpoint" in r.json()["message"]
    assert client.get("/documents/v2/parse", headers=A).json()["items"] == []


class _Origin(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = b"Name: ________\n"
        self.send_response(200)
        self.send_header("Content-Type", "application/pdf")  # says PDF; the content decides
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_url_that_is_no_pdf_ends_the_job_saying_so(client: TestClient, run_jobs, services: Services) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Origin)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    services.settings.limits.allow_private_urls = True
    try:
        pid = edit(client, "name: Ada", file_url=f"http://127.0.0.1:{server.server_address[1]}/form.pdf")
        run_jobs()
    finally:
        server.shutdown()
    res = result(client, pid)
    assert res["status"] == "failure" and res["error"] == "form filling needs a PDF; this document is text/plain"
    assert res["filled_pdf_base64"] is None and res["filled_file_id"] is None
    assert files_of(client) == {}


@pytest.fixture
def served(services: Services) -> Iterator[str]:
    """The app over real HTTP (the SDK's client cannot use the in-process one)."""
    import uvicorn

    from api.app import create_app
    from tests.support.helpers import free_port

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(services=services), host="127.0.0.1", port=port,
                                           log_config=None, access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive()
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def test_the_tensorlake_sdk_fills_a_form(served: str, run_jobs, tmp_path: Path) -> None:
    from tensorlake.documentai import DocumentAI
    from tensorlake.documentai.models import FormFillingOptions

    doc = tmp_path / "membership.pdf"
    doc.write_bytes(acroform_pdf())
    ai = DocumentAI(api_key=KEY_A, server_url=served)
    file_id = ai.upload(doc)
    edit_id = ai.edit(FormFillingOptions(fill_prompt='{"full name": "Ada Lovelace", "plan": "student", '
                                                     '"previously a member": true, "shoe size": 38}'),
                      file_id=file_id)
    assert run_jobs() == 1
    res = ai.wait_for_completion(edit_id)  # the event stream
    assert res.status.value == "successful" and res.parse_id == edit_id
    values = fields_of(base64.b64decode(res.filled_pdf_base64))
    assert (values["applicant.fullName"], values["plan"], values["prevMember"]) == ("Ada Lovelace", "Student", "/Yes")
    assert res.form_filling_metadata["unmatched"] == ["shoe size"]
    again = ai.get_parsed_result(edit_id)  # plain JSON
    assert again.filled_pdf_base64 == res.filled_pdf_base64
    assert res.form_filling_metadata["filled_file_id"] in {f.id for f in ai.files().items}
    with httpx.Client(base_url=served, headers=A) as http_client:  # the extension field beside the SDK's
        assert http_client.get(f"/documents/v2/parse/{edit_id}").json()["filled_file_id"] == \
            res.form_filling_metadata["filled_file_id"]
