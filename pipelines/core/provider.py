"""Where a bring-your-own LLM is: ``ProviderConfig``, the per-job copy of the ``llm`` settings.

The worker builds one from the settings (``LlmSettings.provider()``) and puts it in the job's
input; it travels, pickled, to the process that converts the document, since the stages never
read settings themselves. It is off (``configured`` false) while ``base_url`` is empty.

The API key is a ``SecretStr``: it is masked in ``repr``, ``str`` and JSON dumps, so logging the
config or the job's input never shows it; the base URL shows there without its user info and
query (``display_url``), which may hold credentials too. Pickling keeps both; a JSON round trip
keeps them only when asked (``model_dump(mode="json", context={"reveal_secrets": True})``).

``problem`` says, for the submit-time checks, why a request's ``model_provider`` cannot be served
(with the setting to set), so that options needing an LLM answer 400 rather than fail later.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    SerializationInfo,
    field_serializer,
    model_validator,
)

SERVICE_PROVIDER = "tensorlake"  # the service's own model: docklake's built-in extractor
SETTING = "DOCKLAKE_LLM__BASE_URL"


class ProviderConfig(BaseModel):
    """An OpenAI-compatible chat-completions endpoint (Ollama, vLLM, llama.cpp's server, …)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str = ""  # e.g. http://localhost:11434/v1 (``/chat/completions`` is appended)
    api_key: SecretStr = SecretStr("")  # sent as ``Authorization: Bearer …``; never logged
    model: str = ""
    timeout_s: float = Field(120.0, gt=0)  # one request
    retries: int = Field(3, ge=0)  # further attempts after a connection error, 5xx or 429
    backoff_s: float = Field(1.0, ge=0)  # wait before the first retry; it doubles each time
    use_for_tensorlake: bool = False  # the LLM also serves model_provider "tensorlake" (and none)
    json_schema: bool = True  # ask for ``response_format: json_schema`` first
    supports_images: bool = False  # reserved: no page images are sent yet

    @model_validator(mode="after")
    def _usable(self) -> ProviderConfig:
        if not self.base_url:
            return self
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"DOCKLAKE_LLM__BASE_URL must be an http(s) URL such as "
                             f"http://localhost:11434/v1, not {self.display_url!r}")
        if not self.model.strip():
            raise ValueError("DOCKLAKE_LLM__MODEL must name the model the endpoint serves "
                             "(e.g. qwen2.5:7b-instruct for Ollama)")
        return self

    @field_serializer("api_key", when_used="json")
    def _dump_key(self, key: SecretStr, info: SerializationInfo) -> str:
        return key.get_secret_value() if (info.context or {}).get("reveal_secrets") else str(key)

    @field_serializer("base_url", when_used="json")
    def _dump_url(self, url: str, info: SerializationInfo) -> str:
        return url if (info.context or {}).get("reveal_secrets") else self.display_url

    def __repr_args__(self) -> Any:  # the URL's user info and query may hold credentials too
        return [(k, self.display_url if k == "base_url" else v) for k, v in super().__repr_args__()]

    @property
    def configured(self) -> bool:
        """Whether an endpoint is set at all (off by default)."""
        return bool(self.base_url)

    @property
    def endpoint(self) -> str:
        """The chat-completions URL requests go to."""
        return self.base_url.rstrip("/") + "/chat/completions"

    @property
    def display_url(self) -> str:
        """The base URL as it may be shown in messages and logs: without user info or query."""
        try:
            p = urlsplit(self.base_url)
        except ValueError:
            return "<invalid URL>"
        host = p.netloc.rpartition("@")[2]
        return urlunsplit((p.scheme, host, p.path, "", "")) or self.base_url.partition("?")[0]

    def serves(self, model_provider: str | None) -> bool:
        """Whether an extraction with this ``model_provider`` goes to the LLM: any provider other
        than the service's own, and that one too (or none given) with ``use_for_tensorlake``."""
        if not self.configured:
            return False
        return self.use_for_tensorlake or model_provider not in (None, SERVICE_PROVIDER)

    def serves_classification(self, extraction_providers: list[str | None]) -> bool:
        """Page classification has no ``model_provider`` of its own: it goes to the LLM with
        ``use_for_tensorlake``, or when an extraction of the same request does."""
        return self.configured and (self.use_for_tensorlake or any(self.serves(p) for p in extraction_providers))

    def problem(self, model_provider: str | None, schema_name: str = "") -> str | None:
        """Why ``model_provider`` cannot be served here (naming the setting), or ``None``."""
        if model_provider in (None, SERVICE_PROVIDER) or self.configured:
            return None
        where = f"structured_extraction_options '{schema_name}': " if schema_name else ""
        return (f"{where}model_provider {model_provider!r} needs an LLM endpoint and none is configured: "
                f"set {SETTING} and DOCKLAKE_LLM__MODEL (see docs/llm-provider.md), or use "
                f"'{SERVICE_PROVIDER}', the service's own extractor")
