"""Jobs from ``file_url``: downloaded by the worker, private addresses only when allowed."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.services import Services
from tests.helpers import A


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path == "/memo.md":
            body = b"# Memo\n\nfetched over http"
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/memo.md")
            self.end_headers()
        else:
            self.send_error(404)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def origin() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_file_url_fetch_when_private_addresses_are_allowed(client: TestClient, run_jobs,
                                                          services: Services, origin: str) -> None:
    refused = client.post("/documents/v2/parse", json={"file_url": f"{origin}/memo.md"}, headers=A)
    assert refused.status_code == 400 and "DOCKLAKE_ALLOW_PRIVATE_URLS" in refused.json()["message"]

    services.settings.allow_private_urls = True
    ids = {name: client.post("/documents/v2/parse", json={"file_url": f"{origin}/{name}"},
                             headers=A).json()["parse_id"] for name in ("memo.md", "missing.pdf", "moved")}
    run_jobs()
    ok = client.get(f"/documents/v2/parse/{ids['memo.md']}", headers=A).json()
    assert ok["status"] == "successful" and ok["chunks"][0]["content"] == "# Memo\n\nfetched over http"
    missing = client.get(f"/documents/v2/parse/{ids['missing.pdf']}", headers=A).json()
    assert missing["status"] == "failure" and "HTTP 404" in missing["error"]
    moved = client.get(f"/documents/v2/parse/{ids['moved']}", headers=A).json()
    assert moved["status"] == "failure" and "redirect" in moved["error"]
