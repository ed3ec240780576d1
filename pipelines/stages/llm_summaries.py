"""Table summaries (``enrichment_options.table_summarization``) written by the operator's LLM.

No model that ships in a package here writes prose, so the option is refused unless an
OpenAI-compatible endpoint is configured (``DOCKLAKE_LLM__*``, see ``llm``). With one, each table
fragment's markdown (its HTML when there is no markdown), cut to ``MAX_TABLE_CHARS``, is sent
with the user's ``table_summarization_prompt`` if any, and the answer goes to the fragment's
``content.summary``, as the Tensorlake wire carries it. The model is told to use only what the
table says; a table it cannot summarise keeps no summary and its page says why.
"""

from __future__ import annotations

from typing import Any

from pipelines.core.models import DocumentResult
from pipelines.core.provider import ProviderConfig
from pipelines.stages.llm import ChatClient, ProviderError

MAX_TABLE_CHARS = 12_000
SYSTEM = ("You summarise tables taken from documents. Write one to three plain sentences in the table's own "
          "language saying what the table shows and its most important figures. Use only what the table says; "
          "never add facts. Answer as JSON: {\"summary\": \"...\"}.")
ANSWER = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}


def _table_text(content: dict[str, Any]) -> str:
    for key in ("markdown", "html", "content"):
        if isinstance(content.get(key), str) and content[key].strip():
            return content[key][:MAX_TABLE_CHARS]
    return ""


def summarize_tables(result: DocumentResult, cfg: ProviderConfig, client: Any = None) -> DocumentResult:
    """Set ``content.summary`` on every table fragment of ``result`` (the option must be on and
    ``cfg`` configured; otherwise nothing happens)."""
    inp = result.input
    if not inp.enrichment.table_summarization or not cfg.configured:
        return result
    tables = [(page, f) for page in result.pages for f in page.fragments if f.fragment_type == "table"]
    if not tables:
        return result
    chat = client or ChatClient(cfg)
    try:
        for page, f in tables:
            text = _table_text(f.content)
            if not text:
                continue
            asked = inp.enrichment.table_summarization_prompt
            user = (f"{asked.strip()}\n\n" if asked and asked.strip() else "") + f"The table:\n\n{text}"
            try:
                answer = chat.chat_json([{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
                                        schema=ANSWER, name="table_summary")
            except ProviderError as exc:
                if type(exc) is not ProviderError:  # the endpoint is down: the job fails saying so
                    raise
                page.warnings.append(f"table summary not written: {exc}")
                continue
            summary = answer.get("summary") if isinstance(answer, dict) else answer if isinstance(answer, str) else None
            if isinstance(summary, str) and summary.strip():
                f.content["summary"] = summary.strip()
            else:
                page.warnings.append("table summary not written: the model's answer held no summary")
    finally:
        if client is None:
            chat.close()
    return result
