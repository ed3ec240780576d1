"""A job whose extraction names a model provider goes, through the whole service (API, catalog,
Prefect-run worker, conversion process), to the LLM endpoint the operator configured — and the
value it answers is kept only because the document says it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.services import Services
from pipelines.core.settings import Settings
from tests.conftest import API_KEYS, PREFECT_API
from tests.support.chat_double import ChatDouble, find_span, spans

A = {"Authorization": "Bearer key-a"}
TEXT = "ACME Tools Ltd\nInvoice No: INV-7781\nDate: 2025-03-12\nTotal due: 1,234.50 EUR\n"
SCHEMA = {"type": "object", "properties": {"invoice_number": {"type": "string"}, "total": {"type": "number"},
                                           "po_number": {"type": "string"}}}


def model(body: dict[str, Any]) -> dict[str, Any]:
    """Reads the spans it was sent; invents a purchase-order number the document does not hold."""
    return {"data": {"invoice_number": "INV-7781", "total": 1234.5, "po_number": "PO-555"},
            "citations": {"invoice_number": [find_span(body, "INV-7781")], "total": [find_span(body, "1,234.50")],
                          "po_number": [find_span(body, "ACME")]}}


@pytest.fixture
def llm() -> Iterator[ChatDouble]:
    with ChatDouble(model) as double:
        yield double


@pytest.fixture
def llm_services(tmp_path: Path, llm: ChatDouble) -> Iterator[Services]:
    settings = Settings(data_dir=tmp_path / "docklake", api_keys=API_KEYS, prefect={"api_url": PREFECT_API},
                        worker={"lease_s": 5}, llm={"base_url": llm.url, "model": "small-model",
                                                    "api_key": "sk-test-secret", "retries": 0})
    svc = Services.build(settings)
    yield svc
    svc.close()


def test_a_model_provider_job_is_answered_by_the_configured_endpoint(llm_services: Services, llm: ChatDouble,
                                                                     prefect_api: str) -> None:
    from pipelines.flows.dispatcher import Dispatcher
    from pipelines.usecases.runtime import Runtime, install

    with TestClient(create_app(services=llm_services)) as client:
        r = client.post("/documents/v2/extract", headers=A, json={
            "raw_text": TEXT, "mime_type": "text/plain",
            "structured_extraction_options": [{"schema_name": "inv", "json_schema": SCHEMA,
                                               "model_provider": "openai", "provide_citations": True}]})
        assert r.status_code == 200, r.text
        rt = Runtime(llm_services.settings, llm_services.engine, llm_services.storage)
        install(rt)

        async def drain() -> None:
            d = Dispatcher(rt)
            while await d.run_once():
                pass

        asyncio.run(drain())
        got = client.get(f"/documents/v2/parse/{r.json()['parse_id']}", headers=A).json()
    assert got["status"] == "successful", got
    (sd,) = got["structured_data"]
    assert sd["data"]["invoice_number"] == "INV-7781" and sd["data"]["total"] == 1234.5
    assert sd["data"]["po_number"] is None  # the endpoint's invention is not in the span it cited
    assert "INV-7781" in sd["citations"]["invoice_number"]["text"]
    (sent,) = llm.chat_requests
    assert sent.body["model"] == "small-model" and any("INV-7781" in t for t in spans(sent.body).values())
    assert sent.headers.get("authorization") == "Bearer sk-test-secret"
