"""Table summaries: written by the operator's LLM into each table's ``content.summary``; refused
with the setting's name when no LLM endpoint is configured."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from pipelines.core.models import DocumentInput
from pipelines.core.provider import ProviderConfig
from pipelines.core.requests import EnrichmentOptions
from pipelines.engine.document import convert
from tests.support import docgen
from tests.support.chat_double import ChatDouble

A = {"Authorization": "Bearer key-a"}


def summarizer(body: dict[str, Any]) -> dict[str, Any]:
    """A model that reads the table it is sent and names its first row's first cell."""
    table = body["messages"][-1]["content"].split("The table:", 1)[1]
    cells = [c.strip() for line in table.splitlines() if line.startswith("|") and "---" not in line
             for c in line.strip("|").split("|") if c.strip()]
    return {"summary": f"A table of {len(cells)} cells starting with {cells[0]}."}


def table_pdf() -> bytes:
    return docgen.tables_pdf(seed=3).data


def test_each_table_gets_the_summary_the_endpoint_wrote_from_that_table() -> None:
    with ChatDouble(summarizer) as llm:
        cfg = ProviderConfig(base_url=llm.url, model="m", backoff_s=0.01)
        inp = DocumentInput(data=table_pdf(), llm=cfg,
                            enrichment=EnrichmentOptions(table_summarization=True,
                                                         table_summarization_prompt="Keep it short."))
        result = convert(inp)
        sent = llm.chat_requests
    tables = [f for p in result.pages for f in p.fragments if f.fragment_type == "table"]
    assert tables and len(sent) == len(tables)
    for f, req in zip(tables, sent):
        first = f.content["markdown"].splitlines()[0].strip("|").split("|")[0].strip()
        assert f.content["summary"].endswith(f"starting with {first}.")
        assert "Keep it short." in req.body["messages"][-1]["content"]


def test_without_the_option_no_request_is_sent() -> None:
    with ChatDouble(summarizer) as llm:
        result = convert(DocumentInput(data=table_pdf(), llm=ProviderConfig(base_url=llm.url, model="m")))
        assert llm.chat_requests == []
    assert all("summary" not in f.content for p in result.pages for f in p.fragments)


def test_without_an_endpoint_the_option_is_refused_naming_the_setting(client: TestClient) -> None:
    r = client.post("/documents/v2/parse", headers=A, json={
        "raw_text": "x", "mime_type": "text/plain", "enrichment_options": {"table_summarization": True}})
    assert r.status_code == 400
    assert "enrichment_options.table_summarization" in r.json()["message"]
    assert "DOCKLAKE_LLM__BASE_URL" in r.json()["message"]
