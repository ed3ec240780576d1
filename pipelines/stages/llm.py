"""A client for an OpenAI-compatible chat-completions endpoint (bring-your-own LLM).

Ollama, vLLM and llama.cpp's server all speak this protocol, so one small client serves them:
``POST {base_url}/chat/completions`` with ``model``, ``messages`` and ``temperature: 0``. A JSON
answer is asked for with ``response_format`` ``json_schema`` (``strict: false``: servers differ in
how much of JSON Schema they enforce); an endpoint that answers 400 to it is asked again with
``json_object``, then with no ``response_format`` at all (the prompt alone asks for JSON). The
fallback is remembered for the client's later requests.

Connection errors, timeouts, 5xx and 429 are retried ``retries`` times, waiting ``backoff_s``,
doubling (a 429's ``Retry-After`` is honoured, up to a minute). When the endpoint stays down, or
refuses the key, ``ProviderUnavailable`` names the endpoint (never the key) and the setting: the
job ends ``failure`` with that message. An answer that is not JSON is asked for once more, then
``ProviderError``. The answer is read leniently: a ```` ```json ```` fence, a ``<think>`` block
before it, or prose around one JSON object are stripped.

The key is only ever put in the ``Authorization`` header; messages and logs name
``display_url`` (no user info, no query) and any text that came back is scrubbed of the key.
"""

from __future__ import annotations

import json
import logging
import random
import re
import time
from collections.abc import Callable
from typing import Any

import httpx

from pipelines.core.errors import DocumentError
from pipelines.core.provider import ProviderConfig

log = logging.getLogger(__name__)

MODES = ("json_schema", "json_object", "none")
MAX_RETRY_AFTER_S = 60.0
MAX_BACKOFF_S = 30.0
ERROR_TEXT = 300  # characters of an endpoint's error body quoted in a message
NAME = re.compile(r"[^A-Za-z0-9_-]+")
FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
THINK = re.compile(r"<think>.*?</think>", re.S)


class ProviderError(DocumentError):
    """The LLM endpoint answered, but not usably (a request it refuses, an answer not JSON)."""

    code = "INTERNAL_ERROR"


class ProviderUnavailable(ProviderError):
    """The LLM endpoint cannot be reached, keeps failing, or refuses the key or the model."""


def parse_json(text: str) -> Any:
    """The JSON value in a model's answer: the whole text, a fenced block, or the outermost
    ``{…}`` / ``[…]`` in it (after any ``<think>`` block). ``ValueError`` when there is none."""
    text = THINK.sub("", text or "").strip()
    tries = [text, *(m.strip() for m in FENCE.findall(text))]
    for open_, close in (("{", "}"), ("[", "]")):
        i, j = text.find(open_), text.rfind(close)
        if 0 <= i < j:
            tries.append(text[i:j + 1])
    for t in tries:
        try:
            return json.loads(t)
        except ValueError:
            continue
    raise ValueError("no JSON value in the answer")


def _content(body: Any) -> str:
    """The first choice's text (a string, or a list of text parts as some servers send)."""
    try:
        content = body["choices"][0]["message"].get("content")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ProviderError("the LLM endpoint's answer has no choices[0].message (is it a chat-completions "
                            "endpoint?)") from None
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


class ChatClient:
    """Chat completions that answer JSON, with retries and ``response_format`` fallback."""

    def __init__(self, cfg: ProviderConfig, *, http: httpx.Client | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not cfg.configured:
            raise ProviderUnavailable("no LLM endpoint is configured (DOCKLAKE_LLM__BASE_URL)")
        self.cfg = cfg
        self.mode = MODES[0] if cfg.json_schema else MODES[1]
        self.requests = 0  # HTTP requests sent, retries included
        self._sleep = sleep
        key = cfg.api_key.get_secret_value()
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        timeout = httpx.Timeout(cfg.timeout_s, connect=min(cfg.timeout_s, 10.0))
        self._own = http is None
        self._http = http or httpx.Client(timeout=timeout)
        self._headers = headers

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._own:
            self._http.close()

    # ------------------------------------------------------------ requests

    def chat_json(self, messages: list[dict[str, Any]], *, schema: dict[str, Any] | None = None,
                  name: str = "answer") -> Any:
        """The model's answer to ``messages`` as a JSON value, ``schema`` describing it."""
        body = self._answer(messages, schema, name)
        try:
            return parse_json(_content(body))
        except ValueError:
            pass
        log.warning("llm answer is not JSON; asking again", extra={"endpoint": self.cfg.display_url})
        again = [*messages, {"role": "user", "content": "Answer with the JSON object only: no prose, no "
                             "code fence."}]
        text = _content(self._answer(again, schema, name))
        try:
            return parse_json(text)
        except ValueError:
            raise ProviderError(f"the model {self.cfg.model!r} at {self.cfg.display_url} did not answer JSON: "
                                f"{self._scrub(text)[:ERROR_TEXT]!r}") from None

    def _payload(self, messages: list[dict[str, Any]], schema: dict[str, Any] | None, name: str) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.cfg.model, "messages": messages, "temperature": 0}
        if self.mode == "json_schema" and schema is not None:
            payload["response_format"] = {"type": "json_schema", "json_schema": {
                "name": NAME.sub("_", name)[:64] or "answer", "schema": schema, "strict": False}}
        elif self.mode in ("json_schema", "json_object"):
            payload["response_format"] = {"type": "json_object"}
        return payload

    def _answer(self, messages: list[dict[str, Any]], schema: dict[str, Any] | None, name: str) -> Any:
        """The endpoint's 200 body, after retries and ``response_format`` fallbacks."""
        attempt = 0
        while True:
            payload = self._payload(messages, schema, name)
            self.requests += 1
            wait: float | None = None
            try:
                r = self._http.post(self.cfg.endpoint, json=payload, headers=self._headers)
            except httpx.TransportError as exc:
                reason = f"{type(exc).__name__}: {exc}".rstrip(": ")
            else:
                if r.status_code == 200:
                    try:
                        return r.json()
                    except ValueError:
                        raise ProviderError(f"the LLM endpoint {self.cfg.display_url} answered 200 with a body "
                                            "that is not JSON (is the base URL a chat-completions API?)") from None
                if r.status_code in (400, 422) and "response_format" in payload:
                    self._fall_back(r, payload["response_format"]["type"])
                    continue
                reason = f"HTTP {r.status_code}: {self._error_text(r)}"
                if r.status_code in (401, 403):
                    raise ProviderUnavailable(f"the LLM endpoint {self.cfg.display_url} refused the key "
                                              f"({reason}); check DOCKLAKE_LLM__API_KEY")
                if r.status_code == 404:
                    raise ProviderUnavailable(f"the LLM endpoint {self.cfg.display_url} answered {reason}; check "
                                              f"DOCKLAKE_LLM__BASE_URL (it usually ends in /v1) and that the model "
                                              f"{self.cfg.model!r} is available there (DOCKLAKE_LLM__MODEL)")
                if r.status_code != 429 and r.status_code < 500:
                    raise ProviderError(f"the LLM endpoint {self.cfg.display_url} refused the request ({reason})")
                wait = _retry_after(r)
            if attempt >= self.cfg.retries:
                raise ProviderUnavailable(
                    f"the LLM endpoint {self.cfg.display_url} is unavailable after {attempt + 1} attempt"
                    f"{'s' if attempt else ''} ({self._scrub(reason)}); check that it is running and that "
                    f"DOCKLAKE_LLM__BASE_URL points at it")
            delay = wait if wait is not None else min(MAX_BACKOFF_S, self.cfg.backoff_s * 2 ** attempt)
            delay += random.uniform(0, 0.1 * delay)
            log.warning("llm endpoint failed; retrying", extra={
                "endpoint": self.cfg.display_url, "reason": self._scrub(reason), "retry_in_s": round(delay, 2)})
            self._sleep(delay)
            attempt += 1

    def _fall_back(self, r: httpx.Response, refused: str) -> None:
        """The endpoint refused ``response_format`` of type ``refused``: use the next, plainer way
        to ask for JSON."""
        self.mode = MODES[MODES.index(refused) + 1]
        log.info("llm endpoint refused response_format; falling back", extra={
            "endpoint": self.cfg.display_url, "now": self.mode, "said": self._error_text(r)[:120]})

    def _error_text(self, r: httpx.Response) -> str:
        try:
            body = r.json()
            err = body.get("error", body) if isinstance(body, dict) else body
            text = err.get("message", json.dumps(err)) if isinstance(err, dict) else str(err)
        except ValueError:
            text = r.text
        return self._scrub(" ".join(str(text).split()))[:ERROR_TEXT] or r.reason_phrase

    def _scrub(self, text: str) -> str:
        key = self.cfg.api_key.get_secret_value()
        return text.replace(key, "***") if key else text


def _retry_after(r: httpx.Response) -> float | None:
    try:
        return min(MAX_RETRY_AFTER_S, max(0.0, float(r.headers.get("retry-after", ""))))
    except ValueError:
        return None
