"""A real HTTP server that speaks the OpenAI chat-completions protocol, for the LLM provider's tests.

docklake's bring-your-own-LLM client is tested against this rather than a mocked transport, so
that what crosses the wire (URL, ``Authorization`` header, JSON body, status codes, a dropped
connection) is what Ollama, vLLM or llama.cpp's server would see. It runs on 127.0.0.1 on a free
port in a thread (standard library only). The "model" is a function the test gives: it gets the
request body and returns the answer's content (a string as is, anything else as JSON). The server
records every request, and can be told to fail: answer a status (500, 429…) for the next
requests, drop the next connections without an answer, refuse some ``response_format`` types
with 400 (as servers that do not know ``json_schema`` do), or answer slowly.

``spans`` and ``pages`` read the document back out of a request, so a test's model can find
the span that holds a value and cite it.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Model = Callable[[dict[str, Any]], Any]


@dataclass
class Recorded:
    """One request the double received."""

    method: str
    path: str
    headers: dict[str, str]  # names in lower case
    body: Any

    @property
    def response_format(self) -> str | None:
        rf = self.body.get("response_format") if isinstance(self.body, dict) else None
        return rf.get("type") if isinstance(rf, dict) else None

    @property
    def user_text(self) -> str:
        return "\n".join(m.get("content") or "" for m in self.body.get("messages", []) if m.get("role") == "user")


@dataclass
class _Failure:
    status: int | None  # None: drop the connection
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


def spans(body: dict[str, Any]) -> dict[int, str]:
    """The ``[n] text`` spans docklake sent in a request's user messages."""
    text = "\n".join(m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user")
    return {int(n): t for n, t in re.findall(r"^\[(\d+)\] (.*)$", text, re.M)}


def pages(body: dict[str, Any]) -> dict[int, str]:
    """The pages' text of a classification request (``--- page n ---`` sections)."""
    text = "\n".join(m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user")
    parts = re.split(r"^--- page (\d+) ---$", text, flags=re.M)
    return {int(parts[i]): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def find_span(body: dict[str, Any], text: str) -> int:
    """The number of the first span that contains ``text`` (a test's model citing it)."""
    for n, t in spans(body).items():
        if text in t:
            return n
    raise AssertionError(f"no span contains {text!r}")


class ChatDouble:
    """``with ChatDouble(model) as llm: ... llm.url ... llm.requests``."""

    def __init__(self, model: Model | None = None, *, fence: bool = False) -> None:
        self.model: Model = model or (lambda body: {"data": {}, "citations": {}})
        self.fence = fence  # wrap JSON answers in a ```json fence, as chatty models do
        self.requests: list[Recorded] = []
        self.reject_formats: set[str] = set()  # response_format types answered 400
        self.delay_s = 0.0
        self._failures: list[_Failure] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # ------------------------------------------------------------ control

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """The base URL to configure (``…/v1``, as Ollama's and vLLM's)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def fail(self, times: int, status: int = 500, body: Any = None, headers: dict[str, str] | None = None) -> None:
        """Answer ``status`` to the next ``times`` chat requests."""
        with self._lock:
            self._failures += [_Failure(status, body, headers or {}) for _ in range(times)]

    def drop(self, times: int) -> None:
        """Close the next ``times`` connections without answering."""
        with self._lock:
            self._failures += [_Failure(None) for _ in range(times)]

    @property
    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def start(self) -> ChatDouble:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ChatDouble:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------ serving

    def _answer(self, body: Any) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            failure = self._failures.pop(0) if self._failures else None
        if failure is not None:
            return failure.status or 0, failure.body or {"error": {"message": "the double was told to fail"}}, \
                failure.headers
        rf = body.get("response_format") if isinstance(body, dict) else None
        if isinstance(rf, dict) and rf.get("type") in self.reject_formats:
            return 400, {"error": {"message": f"response_format type {rf['type']!r} is not supported",
                                   "type": "invalid_request_error"}}, {}
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body.get("model"):
            return 400, {"error": {"message": "model and messages are required"}}, {}
        try:
            content = self.model(body)
        except Exception as exc:  # noqa: BLE001 - a test's model that breaks answers 500, saying why
            return 500, {"error": {"message": f"the double's model raised {type(exc).__name__}: {exc}"}}, {}
        if not isinstance(content, str):
            content = json.dumps(content)
            if self.fence:
                content = f"Here is the JSON:\n```json\n{content}\n```"
        return 200, {"id": "chatcmpl-double", "object": "chat.completion", "created": int(time.time()),
                     "model": body["model"], "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
                     "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}, {}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        double = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                double.requests.append(Recorded("GET", self.path, {k.lower(): v for k, v in self.headers.items()},
                                                None))
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "double", "object": "model"}]}, {})
                else:
                    self._send(404, {"error": {"message": "not found"}}, {})

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                double.requests.append(Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()},
                                                body))
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                    return
                if double.delay_s:
                    time.sleep(double.delay_s)
                status, answer, headers = double._answer(body)
                if status == 0:  # drop: close the connection with no answer at all
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return
                self._send(status, answer, headers)

        return Handler
