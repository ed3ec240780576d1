"""Jobs from ``file_url``: downloaded by the worker, private addresses only when allowed."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.services import Services
from tests.support.helpers import A


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
    assert refused.status_code == 400 and "DOCKLAKE_LIMITS__ALLOW_PRIVATE_URLS" in refused.json()["message"]

    services.settings.limits.allow_private_urls = True
    ids = {name: client.post("/documents/v2/parse", json={"file_url": f"{origin}/{name}"},
                             headers=A).json()["parse_id"] for name in ("memo.md", "missing.pdf", "moved")}
    run_jobs()
    ok = client.get(f"/documents/v2/parse/{ids['memo.md']}", headers=A).json()
    assert ok["status"] == "successful" and ok["chunks"][0]["content"] == "# Memo\n\nfetched over http"
    missing = client.get(f"/documents/v2/parse/{ids['missing.pdf']}", headers=A).json()
    assert missing["status"] == "failure" and "HTTP 404" in missing["error"]
    moved = client.get(f"/documents/v2/parse/{ids['moved']}", headers=A).json()
    assert moved["status"] == "failure" and "redirect" in moved["error"]


def test_the_download_connects_to_the_address_that_was_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """DNS rebinding: the name resolves to a public address when checked and to loopback
    afterwards; the download must go to the checked address, with the name kept in Host/SNI."""
    import socket

    import httpx

    from pipelines.engine import fetch

    answers = iter(["93.184.216.34", "127.0.0.1", "127.0.0.1"])

    def fake_getaddrinfo(host, port, *a, **kw):  # type: ignore[no-untyped-def]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers), port))]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b"public bytes")

    data, _, name = fetch.fetch("https://files.example.com:8443/a/report.pdf", max_bytes=100,
                                timeout_s=5, allow_private=False, transport=httpx.MockTransport(handler))
    assert data == b"public bytes" and name == "report.pdf"
    (req,) = seen
    assert req.url.host == "93.184.216.34" and req.url.port == 8443
    assert req.headers["host"] == "files.example.com:8443"
    assert req.extensions["sni_hostname"] == "files.example.com"


@pytest.mark.parametrize("address", ["::ffff:127.0.0.1", "2002:7f00:1::1", "64:ff9b::a9fe:a9fe", "::127.0.0.1",
                                     "169.254.169.254", "10.0.0.1", "fd00::1", "::1"])
def test_non_public_addresses_in_every_form_are_refused(address: str) -> None:
    import ipaddress

    from pipelines.engine.fetch import is_public

    assert not is_public(ipaddress.ip_address(address))
    assert is_public(ipaddress.ip_address("93.184.216.34"))


@pytest.mark.parametrize("url", ["http://example.com:99999/x.pdf", "http://[::1/x.pdf", "file:///etc/passwd"])
def test_malformed_file_urls_are_400(client: TestClient, url: str) -> None:
    r = client.post("/documents/v2/parse", json={"file_url": url}, headers=A)
    assert r.status_code == 400 and r.json()["code"] == "INVALID_FILE"


def test_a_slow_drip_download_stops_at_its_time_limit() -> None:
    import time

    import httpx

    from pipelines.core.errors import DocumentError
    from pipelines.engine.fetch import fetch

    def drip():  # type: ignore[no-untyped-def]
        for _ in range(100):
            time.sleep(0.05)
            yield b"x"

    transport = httpx.MockTransport(lambda r: httpx.Response(200, content=drip()))
    t0 = time.monotonic()
    with pytest.raises(DocumentError, match="longer than 0.3 s"):
        fetch("http://127.0.0.1:9/slow", max_bytes=1000, timeout_s=0.3, allow_private=True, transport=transport)
    assert time.monotonic() - t0 < 2
