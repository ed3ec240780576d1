"""Bring-your-own LLM, as a user meets it: extraction and classification by an OpenAI-compatible
endpoint (``tests.support.chat_double``, a real HTTP server with a deterministic "model"), every
value checked against the document, citations on the right page and box, the answer valid
against the schema, retries, fallbacks, and a clear error without the key when the endpoint is
down."""

from __future__ import annotations

import logging
import pickle
import re
from typing import Any

import jsonschema
import pytest

from pipelines.core.errors import DocumentError, describe
from pipelines.core.models import DocumentInput, DocumentResult, Fragment, PageResult
from pipelines.core.provider import ProviderConfig
from pipelines.core.requests import PageClassConfig, StructuredExtractionOptions
from pipelines.core.settings import Settings
from pipelines.engine.document import convert
from pipelines.stages import llm_check, llm_extract
from pipelines.stages.llm import ChatClient, ProviderError, ProviderUnavailable, parse_json
from tests.support import formgen
from tests.support.chat_double import ChatDouble, find_span, pages, spans
from tests.support.helpers import free_port

KEY = "sk-docklake-test-0123456789"


def box(x1: float, y1: float, x2: float, y2: float) -> dict[str, float]:
    return {"x1": x1, "y1": y1, "x2": x2, "y2": y2}


def invoice_pages() -> list[PageResult]:
    """Two pages: a letterhead and labelled values on page 1, a table and the total on page 2."""
    p1 = PageResult(page_number=1, width=612, height=792, fragments=[
        Fragment(fragment_type="title", content={"content": "Globex Corporation"}, bbox=box(50, 40, 260, 60)),
        Fragment(fragment_type="text", content={"content": "Invoice No: INV-20417\nIssued: 18.05.2025\n"
                                                           "Contact: billing@globex.example"},
                 bbox=box(50, 100, 350, 160)),
    ])
    cells = [{"text": t, "bounding_box": b} for t, b in [
        ("Description", box(50, 200, 250, 215)), ("Qty", box(250, 200, 300, 215)), ("Amount", box(300, 200, 400, 215)),
        ("Steel brackets", box(50, 215, 250, 230)), ("4", box(250, 215, 300, 230)), ("1.234,50", box(300, 215, 400, 230)),
        ("Cable reels", box(50, 230, 250, 245)), ("2", box(250, 230, 300, 245)), ("310,00", box(300, 230, 400, 245)),
    ]]
    p2 = PageResult(page_number=2, width=612, height=792, fragments=[
        Fragment(fragment_type="table", content={
            "rows": [["Description", "Qty", "Amount"], ["Steel brackets", "4", "1.234,50"], ["Cable reels", "2", "310,00"]],
            "cells": cells}, bbox=box(50, 200, 400, 245)),
        Fragment(fragment_type="text", content={"content": "Total due: EUR 1.544,50"}, bbox=box(300, 600, 560, 620)),
    ])
    return [p1, p2]


SCHEMA = {
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string", "pattern": "^INV-\\d+$"},
        "issued": {"type": "string", "format": "date"},
        "seller": {"type": "string"},
        "email": {"type": "string"},
        "total": {"type": "number"},
        "po_number": {"type": "string"},
        "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}},
    },
    "$defs": {"line": {"type": "object", "properties": {
        "description": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}, "amount": {"type": "number"}}}},
}


FACTS = [("invoice_number", "INV-20417", "INV-20417"), ("issued", "2025-05-18", "Issued"),
         ("seller", "Globex Corporation", "Globex"), ("total", 1544.5, "Total due")]
LINES = [("Steel brackets", 4, 1234.5), ("Cable reels", 2, 310)]


def honest_model(body: dict[str, Any]) -> dict[str, Any]:
    """Reads the values off the spans it was sent and cites them (the e-mail it does not cite);
    writes dates ISO and numbers as numbers."""
    sent = spans(body)

    def cite(text: str) -> list[int]:
        return [n for n, t in sent.items() if text in t][:1]

    data: dict[str, Any] = {"po_number": None, "lines": []}
    cites: dict[str, list[int]] = {}
    for key, value, where in FACTS:
        if cite(where):
            data[key], cites[key] = value, cite(where)
    if any("billing@" in t for t in sent.values()):
        data["email"] = "billing@globex.example"
    for d, q, a in LINES:
        if cite(d):
            cites[f"lines[{len(data['lines'])}]"] = cite(d)
            data["lines"].append({"description": d, "quantity": q, "amount": a})
    return {"data": data, "citations": cites}


def opt(**kw: Any) -> StructuredExtractionOptions:
    return StructuredExtractionOptions(**{"schema_name": "invoice", "json_schema": SCHEMA, "provide_citations": True,
                                          "model_provider": "openai", **kw})


def cfg_for(llm: ChatDouble, **kw: Any) -> ProviderConfig:
    return ProviderConfig(**{"base_url": llm.url, "model": "qwen2.5:7b-instruct", "api_key": KEY,
                             "backoff_s": 0.01, **kw})


@pytest.fixture()
def llm() -> Any:
    with ChatDouble(honest_model) as double:
        yield double


# ---------------------------------------------------------------- what is kept, and where it was read


def test_values_found_in_the_cited_spans_are_kept_with_page_and_box(llm: ChatDouble) -> None:
    warnings: list = []
    with ChatClient(cfg_for(llm)) as client:
        sd = llm_extract.extract_pages_llm(invoice_pages(), opt(), client, warnings)
    assert sd.data == {"invoice_number": "INV-20417", "issued": "2025-05-18", "seller": "Globex Corporation",
                       "email": "billing@globex.example", "total": 1544.5, "po_number": None,
                       "lines": [{"description": "Steel brackets", "quantity": 4, "amount": 1234.5},
                                 {"description": "Cable reels", "quantity": 2, "amount": 310}]}
    assert warnings == []
    c = sd.citations
    assert c is not None and sd.page_numbers == [1, 2]
    # a line of a three-line block: its third of the block's box
    assert (c["invoice_number"].page_number, c["invoice_number"].bbox) == (1, box(50, 100, 350, 120))
    assert c["issued"].text == "Issued: 18.05.2025" and c["issued"].bbox == box(50, 120, 350, 140)
    # not cited by the model, found in the text: cited where it was found
    assert (c["email"].page_number, c["email"].bbox) == (1, box(50, 140, 350, 160))
    assert (c["total"].page_number, c["total"].bbox) == (2, box(300, 600, 560, 620))
    # a table row: the union of its cells' boxes, each field of the row cited
    assert c["lines[0].amount"].page_number == 2 and c["lines[0].amount"].bbox == box(50, 215, 400, 230)
    assert c["lines[1].quantity"].bbox == box(50, 230, 400, 245)
    assert "po_number" not in c


def test_what_was_sent_spans_schema_prompt_and_response_format(llm: ChatDouble) -> None:
    with ChatClient(cfg_for(llm)) as client:
        llm_extract.extract_pages_llm(invoice_pages(), opt(prompt="Amounts are in euros."), client)
    (req,) = llm.chat_requests
    assert req.path == "/v1/chat/completions" and req.body["model"] == "qwen2.5:7b-instruct"
    assert req.body["temperature"] == 0 and req.headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in str(req.body)
    text = req.user_text
    assert "[1] Globex Corporation" in text and "--- page 2 ---" in text
    assert re.search(r"^\[\d+\] Steel brackets \| 4 \| 1\.234,50$", text, re.M)
    assert "Instructions: Amounts are in euros." in text and '"pattern": "^INV-\\\\d+$"' in text
    rf = req.body["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["strict"] is False
    sent = rf["json_schema"]["schema"]
    # the user's $defs moved to the top, where the user's refs point: the honest answer fits it
    jsonschema.validate(honest_model(req.body), sent)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"data": {"lines": [{"quantity": "four"}]}, "citations": {}}, sent)


def test_a_hallucinated_value_becomes_null_with_a_warning_on_its_page() -> None:
    def liar(body: dict[str, Any]) -> dict[str, Any]:
        return {"data": {"invoice_number": "INV-99999",  # cited, but the span says INV-20417
                         "seller": "Initech GmbH",  # nowhere in the document
                         "total": 1600.0,  # a number the document does not write
                         "issued": "2025-05-18", "lines": [{"description": "Gold bars", "quantity": 1}]},
                "citations": {"invoice_number": [find_span(body, "INV-20417")], "issued": [find_span(body, "Issued")]}}

    with ChatDouble(liar) as double:
        doc = DocumentResult(input=DocumentInput(extraction=[opt()]), pages=invoice_pages())
        out = llm_extract.structure(doc, cfg_for(double))
    (sd,) = out.structured_data or []
    assert sd.data["invoice_number"] is None and sd.data["seller"] is None and sd.data["total"] is None
    assert sd.data["lines"] == []  # an item none of whose values is in the document is dropped
    assert sd.data["issued"] == "2025-05-18"  # the one true value stays
    first, second = out.pages[0].warnings, out.pages[1].warnings
    assert any("invoice_number" in w and "'INV-99999'" in w and "spans it cited" in w for w in first)
    assert any("seller" in w and "Initech GmbH" in w and "not in the document text" in w for w in first)
    assert any("total: the model's value 1600.0" in w for w in first)
    assert second == []


def test_a_citation_off_by_one_line_is_forgiven_a_far_one_is_not() -> None:
    def model(body: dict[str, Any]) -> dict[str, Any]:
        label = find_span(body, "Issued")  # the value is on the line after its label... or far away
        return {"data": {"invoice_number": "INV-20417", "seller": "Globex Corporation"},
                "citations": {"invoice_number": [label], "seller": [find_span(body, "Total due")]}}

    with ChatDouble(model) as double, ChatClient(cfg_for(double)) as client:
        warnings: list = []
        sd = llm_extract.extract_pages_llm(invoice_pages(), opt(), client, warnings)
    assert sd.data["invoice_number"] == "INV-20417" and sd.citations["invoice_number"].text == "Invoice No: INV-20417"
    assert sd.data["seller"] is None and any("seller" in w for _, w in warnings)


def test_an_answer_without_the_wrapper_or_citations_is_looked_for_in_the_whole_text() -> None:
    def model(body: dict[str, Any]) -> dict[str, Any]:  # ignores the asked shape, cites nothing
        return {"invoice_number": "INV-20417", "seller": "GLOBEX  corporation", "total": "EUR 1.544,50",
                "po_number": "PO-4471", "lines": [{"quantity": 4}]}

    with ChatDouble(model) as double, ChatClient(cfg_for(double)) as client:
        warnings: list = []
        sd = llm_extract.extract_pages_llm(invoice_pages(), opt(), client, warnings)
    assert sd.data["invoice_number"] == "INV-20417" and sd.citations["invoice_number"].page_number == 1
    assert sd.data["seller"] == "GLOBEX  corporation" and sd.citations["seller"].text == "Globex Corporation"
    assert sd.data["total"] == 1544.5 and sd.citations["total"].page_number == 2
    assert sd.data["po_number"] is None  # not in the document
    assert sd.data["lines"] == []  # "4" is in the document, but too short to count without a citation
    assert any("lines[0].quantity" in w and "too short" in w for _, w in warnings)


def test_the_answer_validates_against_the_schema() -> None:
    schema = {"type": "object", "required": ["code", "status", "count", "tags"], "properties": {
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"}, "status": {"enum": ["open", "closed"]},
        "count": {"type": "integer", "minimum": 10}, "ratio": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}}}
    page = PageResult(page_number=1, fragments=[Fragment(fragment_type="text", bbox=box(0, 0, 100, 40), content={
        "content": "Code: abcd Status: Closed\nCount 4, ratio 2.5, tags red green blue"})])

    def model(body: dict[str, Any]) -> dict[str, Any]:
        return {"data": {"code": "abcd", "status": "CLOSED", "count": 4, "ratio": "2.5", "tags": ["red", "green", "blue"],
                         "extra": "Code"}, "citations": {"status": [1]}}

    with ChatDouble(model) as double, ChatClient(cfg_for(double)) as client:
        warnings: list = []
        sd = llm_extract.extract_pages_llm([page], StructuredExtractionOptions(
            schema_name="s", json_schema=schema, provide_citations=True), client, warnings)
    # an enum value in another case is the schema's; a number given as text is a number
    assert sd.data["status"] == "closed" and sd.data["ratio"] == 2.5
    assert sd.data["code"] is None and sd.data["count"] is None  # found, but against the pattern / minimum
    assert sd.data["tags"] is None  # three tags where two at most are allowed
    assert "extra" not in sd.data  # not a property of the schema
    jsonschema.validate(sd.data, llm_check.nullable(schema))
    messages = " ".join(w for _, w in warnings)
    assert "code" in messages and "does not match" in messages and "count" in messages and "tags" in messages


def test_an_answer_found_whole_validates_against_the_schema_itself(llm: ChatDouble) -> None:
    with ChatClient(cfg_for(llm)) as client:
        sd = llm_extract.extract_pages_llm(invoice_pages(), opt(), client)
    sd.data.pop("po_number")  # null: not found, as the built-in extractor says it too
    jsonschema.validate(sd.data, SCHEMA)


# ---------------------------------------------------------------- the endpoint


def test_retries_with_backoff_then_success(llm: ChatDouble) -> None:
    llm.fail(2, status=503)
    llm.drop(1)
    llm.fail(1, status=429, headers={"Retry-After": "0.05"})
    waits: list[float] = []
    with ChatClient(cfg_for(llm, retries=4, backoff_s=0.1), sleep=waits.append) as client:
        sd = llm_extract.extract_pages_llm(invoice_pages(), opt(), client)
    assert sd.data["invoice_number"] == "INV-20417"
    assert len(llm.chat_requests) == 5 and client.requests == 5
    assert 0.1 <= waits[0] <= 0.11 and 0.2 <= waits[1] <= 0.22 and 0.4 <= waits[2] <= 0.44  # doubling
    assert 0.05 <= waits[3] <= 0.056  # the 429's Retry-After


def test_endpoint_down_is_a_clear_error_naming_it_without_the_key(caplog: pytest.LogCaptureFixture) -> None:
    port = free_port()  # nothing listens there
    cfg = ProviderConfig(base_url=f"http://admin:{KEY}@127.0.0.1:{port}/v1?token={KEY}", model="m", api_key=KEY,
                         retries=2, backoff_s=0.01)
    doc = DocumentResult(input=DocumentInput(extraction=[opt()]), pages=invoice_pages())
    with caplog.at_level(logging.DEBUG), pytest.raises(ProviderUnavailable) as caught:
        llm_extract.structure(doc, cfg)
    message = describe(caught.value)  # what the failed job says
    assert isinstance(caught.value, DocumentError)
    assert f"http://127.0.0.1:{port}/v1" in message and "after 3 attempts" in message
    assert "DOCKLAKE_LLM__BASE_URL" in message and "ConnectError" in message
    assert KEY not in message and "admin" not in message
    assert KEY not in caplog.text and "retrying" in caplog.text
    assert KEY not in repr(cfg) and KEY not in str(cfg) and KEY not in cfg.model_dump_json()


def test_an_endpoint_that_keeps_failing_or_hangs_ends_in_the_same_error() -> None:
    with ChatDouble(honest_model) as double:
        double.fail(10, status=500)
        with ChatClient(cfg_for(double, retries=2)) as client, pytest.raises(ProviderUnavailable, match="HTTP 500"):
            client.chat_json([{"role": "user", "content": "hi"}])
        assert len(double.chat_requests) == 3
        double.delay_s = 1.0
        with ChatClient(cfg_for(double, retries=0, timeout_s=0.2)) as client, \
                pytest.raises(ProviderUnavailable, match="ReadTimeout"):
            client.chat_json([{"role": "user", "content": "hi"}])


def test_a_refused_key_or_unknown_model_is_not_retried() -> None:
    with ChatDouble() as double:
        double.fail(1, status=401, body={"error": {"message": f"invalid api key {KEY}"}})
        with ChatClient(cfg_for(double)) as client, pytest.raises(ProviderUnavailable) as caught:
            client.chat_json([{"role": "user", "content": "hi"}])
        assert "DOCKLAKE_LLM__API_KEY" in caught.value.message and KEY not in caught.value.message
        double.fail(1, status=404, body={"error": {"message": 'model "nope" not found, try pulling it first'}})
        with ChatClient(cfg_for(double)) as client, pytest.raises(ProviderUnavailable, match="try pulling it"):
            client.chat_json([{"role": "user", "content": "hi"}])
        assert len(double.chat_requests) == 2


def test_response_format_falls_back_when_the_server_refuses_it() -> None:
    with ChatDouble(honest_model, fence=True) as double:
        double.reject_formats = {"json_schema"}
        with ChatClient(cfg_for(double)) as client:
            sd = llm_extract.extract_pages_llm(invoice_pages(), opt(), client)
            llm_extract.extract_pages_llm(invoice_pages(), opt(), client)
        assert sd.data["total"] == 1544.5  # the fenced answer is read
        # refused once, then json_object, remembered for the next request
        assert [r.response_format for r in double.chat_requests] == ["json_schema", "json_object", "json_object"]
        double.requests.clear()
        double.reject_formats = {"json_schema", "json_object"}
        with ChatClient(cfg_for(double)) as client:
            sd = llm_extract.extract_pages_llm(invoice_pages(), opt(), client)
        assert [r.response_format for r in double.chat_requests] == ["json_schema", "json_object", None]
        assert "response_format" not in double.chat_requests[-1].body and sd.data["seller"] == "Globex Corporation"


def test_an_answer_that_is_not_json_is_asked_again_then_refused() -> None:
    answers = iter(["Sure! The invoice number is INV-20417.", "<think>json only</think>\n{\"data\": {}}",
                    "I cannot help with that.", "Still no."])
    with ChatDouble(lambda body: next(answers)) as double, ChatClient(cfg_for(double)) as client:
        assert client.chat_json([{"role": "user", "content": "a"}]) == {"data": {}}
        with pytest.raises(ProviderError, match="did not answer JSON: 'Still no.'"):
            client.chat_json([{"role": "user", "content": "b"}])
        assert "JSON object only" in double.chat_requests[-1].user_text
    assert parse_json('Here:\n```json\n{"a": [1, 2]}\n```\nDone.') == {"a": [1, 2]}
    assert parse_json('The answer is {"a": 1} as asked') == {"a": 1}


def test_the_key_is_only_sent_as_a_bearer_header_and_travels_pickled() -> None:
    with ChatDouble() as double:
        with ChatClient(cfg_for(double, api_key="")) as client:
            client.chat_json([{"role": "user", "content": "hi"}])
        assert "authorization" not in double.chat_requests[0].headers
    cfg = ProviderConfig(base_url="http://llm:8000/v1", model="m", api_key=KEY)
    assert pickle.loads(pickle.dumps(cfg)).api_key.get_secret_value() == KEY
    revealed = cfg.model_dump(mode="json", context={"reveal_secrets": True})
    assert ProviderConfig.model_validate(revealed) == cfg and KEY not in cfg.model_dump_json()


# ---------------------------------------------------------------- long documents, classification, the stage


def test_a_long_document_goes_in_bounded_parts_and_the_answers_merge() -> None:
    lines = [f"Note {i}: nothing to see here" for i in range(700)]
    lines[650] = "Reference: REF-77"
    page = PageResult(page_number=1, fragments=[Fragment(fragment_type="text", content={"content": "\n".join(lines)},
                                                         bbox=box(0, 0, 100, 700))])
    schema = {"type": "object", "properties": {"reference": {"type": "string"},
                                               "notes": {"type": "array", "items": {"type": "string"}}}}

    def model(body: dict[str, Any]) -> dict[str, Any]:
        spans = llm_check.spans_of([page])  # the real numbering, to check the part's
        sent = {n: t for n, t in re.findall(r"^\[(\d+)\] (.*)$", body["messages"][1]["content"], re.M)}
        assert all(spans[int(n) - 1].text == t for n, t in sent.items())
        ref = next((int(n) for n, t in sent.items() if "REF-77" in t), None)
        first = min(int(n) for n in sent)
        return {"data": {"reference": "REF-77" if ref else None, "notes": [f"Note {first - 1}: nothing to see here"]},
                "citations": {"reference": [ref] if ref else [], "notes[0]": [first]}}

    with ChatDouble(model) as double, ChatClient(cfg_for(double)) as client:
        sd = llm_extract.extract_pages_llm([page], StructuredExtractionOptions(
            schema_name="s", json_schema=schema, provide_citations=True), client)
    sizes = [len(re.findall(r"^\[\d+\] ", r.user_text, re.M)) for r in double.chat_requests]
    assert len(sizes) == 3 and sum(sizes) == 700 and max(sizes) <= llm_check.MAX_SPANS
    assert sd.data["reference"] == "REF-77" and sd.citations["reference"].bbox == box(0, 650, 100, 651)
    assert sd.data["notes"] == ["Note 0: nothing to see here", "Note 300: nothing to see here",
                                "Note 600: nothing to see here"]
    assert sd.citations["notes[2]"].text == "Note 600: nothing to see here"


CLASSES = [PageClassConfig(name="invoice", description="a bill with amounts due"),
           PageClassConfig(name="letter", description="correspondence"),
           PageClassConfig(name="form", description="fields to fill in")]


def classifier(body: dict[str, Any]) -> dict[str, Any]:
    out = []
    for n, text in pages(body).items():
        name = "invoice" if "Total due" in text else "Letter" if "Dear" in text else "recipe" if "flour" in text else None
        out.append({"page": n, "class": name, "reason": f"page {n} reads like one"})
    return {"pages": out}


def test_classification_via_the_llm() -> None:
    docs = [*invoice_pages(), PageResult(page_number=3, fragments=[Fragment(fragment_type="text", content={
        "content": "Dear Ms Keller, thank you for your order."})]),
        PageResult(page_number=4, fragments=[Fragment(fragment_type="text", content={"content": "200 g flour"})])]
    with ChatDouble(classifier) as double:
        doc = DocumentResult(input=DocumentInput(classification=CLASSES), pages=docs)
        out = llm_extract.structure(doc, cfg_for(double, use_for_tensorlake=True))
    (req,) = double.chat_requests
    assert "- invoice: a bill with amounts due" in req.user_text and "--- page 4 ---" in req.user_text
    got = {c.page_class: c.page_numbers for c in out.page_classes or []}
    assert [c.page_class for c in out.page_classes or []] == ["invoice", "letter", "form"]
    assert got == {"invoice": [2], "letter": [3], "form": []}  # "Letter" is the request's "letter"
    assert out.page_classes[0].reasons == {2: "LLM: page 2 reads like one"}
    assert any("'recipe'" in w and "unclassified" in w for w in out.pages[3].warnings)


def test_the_stage_routes_each_option_by_model_provider() -> None:
    with ChatDouble(honest_model) as double:
        cfg = cfg_for(double)
        inp = DocumentInput(extraction=[opt(partition_strategy="page"), opt(schema_name="builtin", model_provider=None)],
                            classification=CLASSES)
        out = llm_extract.structure(DocumentResult(input=inp, pages=invoice_pages()), cfg)
        assert len(double.chat_requests) == 3  # classification, then one extraction per page
        assert "Classify" in double.chat_requests[0].user_text
        llm_pages = [sd for sd in out.structured_data or [] if sd.schema_name == "invoice"]
        assert [sd.page_numbers for sd in llm_pages] == [[1], [2]]
        assert llm_pages[0].data["invoice_number"] == "INV-20417" and llm_pages[1].data["total"] == 1544.5
        builtin = [sd for sd in out.structured_data or [] if sd.schema_name == "builtin"]
        assert len(builtin) == 1  # read by the service's own extractor, not the LLM
        double.requests.clear()
        # off: nothing is sent anywhere
        inp = DocumentInput(extraction=[opt(model_provider=None)], classification=CLASSES)
        llm_extract.structure(DocumentResult(input=inp, pages=invoice_pages()), ProviderConfig())
        assert double.requests == []


def test_a_generated_invoice_pdf_end_to_end() -> None:
    """A real PDF, parsed by docklake, read by a model that copies the truth: dates come back ISO
    whatever the PDF writes, amounts as numbers, every value cited on page 1 inside the page."""
    sample = formgen.invoice_pdf(701, layout=0)
    t = sample.truth
    parsed = convert(DocumentInput(data=sample.data))

    keys = ["invoice_number", "po_number", "invoice_date", "due_date", "subtotal", "tax", "total", "currency", "paid"]

    def model(body: dict[str, Any]) -> dict[str, Any]:
        def at(text: str) -> int:
            return find_span(body, text)

        cites = {"invoice_number": [at(t["invoice_number"])], "po_number": [at(t["po_number"])],
                 "invoice_date": [at("Invoice Date")], "due_date": [at("Due Date")], "currency": [at("Currency")],
                 "paid": [at("Status")],  # "Unpaid": a judgement on the cited words
                 # the label and the amount beside it, as models often cite
                 **{k: [at(label), at(f"{t[k]:,.2f}")] for k, label in
                    (("subtotal", "Subtotal"), ("tax", "Tax"), ("total", "Total Due"))},
                 **{f"line_items[{i}]": [at(line["description"])] for i, line in enumerate(t["line_items"])}}
        lines = [{k: line[k] for k in ("description", "quantity", "amount")} for line in t["line_items"]]
        return {"data": {**{k: t[k] for k in keys}, "seller": {"name": t["seller"]["name"]}, "line_items": lines},
                "citations": cites}  # the seller's name not cited: looked for in the whole text

    with ChatDouble(model) as double:
        inp = DocumentInput(extraction=[StructuredExtractionOptions(
            schema_name="invoice", json_schema=formgen.INVOICE_SCHEMA, provide_citations=True, model_provider="openai")])
        out = llm_extract.structure(DocumentResult(input=inp, pages=parsed.pages), cfg_for(double))
    (sd,) = out.structured_data or []
    assert out.pages[0].warnings == []
    for k in keys:
        assert sd.data[k] == t[k], k
        c = sd.citations[k]
        assert c.page_number == 1 and 0 <= c.bbox["x1"] < c.bbox["x2"] <= 612 and 0 <= c.bbox["y1"] < c.bbox["y2"] <= 792
    # the model cited the label and the amount: the citation is the amount's words alone
    assert sd.citations["total"].text == f"{t['currency']} {t['total']:,.2f}"
    assert sd.data["seller"]["name"] == t["seller"]["name"] and sd.citations["seller.name"].bbox["y1"] < 100
    assert [line["amount"] for line in sd.data["line_items"]] == [line["amount"] for line in t["line_items"]]
    assert sd.citations["line_items[2].quantity"].text.startswith(t["line_items"][2]["description"])


# ---------------------------------------------------------------- settings


def test_settings_are_off_by_default_and_name_themselves(monkeypatch: pytest.MonkeyPatch) -> None:
    off = Settings().llm.provider()
    assert not off.configured and not off.serves("openai")
    assert "DOCKLAKE_LLM__BASE_URL" in (off.problem("openai", "invoice") or "")
    assert off.problem("tensorlake") is None and off.problem(None) is None
    for k, v in {"BASE_URL": "http://localhost:11434/v1/", "API_KEY": KEY, "MODEL": "llama3.1:8b",
                 "TIMEOUT_S": "30", "RETRIES": "5", "FOR_TENSORLAKE": "true"}.items():
        monkeypatch.setenv(f"DOCKLAKE_LLM__{k}", v)
    s = Settings()
    cfg = s.llm.provider()
    assert cfg.endpoint == "http://localhost:11434/v1/chat/completions" and cfg.model == "llama3.1:8b"
    assert (cfg.timeout_s, cfg.retries, cfg.api_key.get_secret_value()) == (30.0, 5, KEY)
    assert cfg.serves("tensorlake") and cfg.serves(None) and cfg.problem("openai") is None
    assert KEY not in repr(s) and s.environment()["DOCKLAKE_LLM__API_KEY"] == KEY  # children get it, logs do not
    monkeypatch.setenv("DOCKLAKE_LLM__BASE_URL", "localhost:11434")
    with pytest.raises(ValueError, match="DOCKLAKE_LLM__BASE_URL must be an http"):
        Settings().llm.provider()
    monkeypatch.setenv("DOCKLAKE_LLM__BASE_URL", "http://localhost:11434/v1")
    monkeypatch.setenv("DOCKLAKE_LLM__MODEL", "")
    with pytest.raises(ValueError, match="DOCKLAKE_LLM__MODEL"):
        Settings().llm.provider()
