"""Download a ``file_url`` safely: http(s) only, no loopback/private/link-local targets unless
configured, bounded size and time."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

import httpx

from pipelines.errors import DocumentError, InvalidRequest, PayloadTooLarge


def check_url(url: str, allow_private: bool) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidRequest("file_url must be an http(s) URL", code="INVALID_FILE")
    if allow_private:
        return
    try:
        infos = socket.getaddrinfo(parts.hostname, parts.port or 443, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise InvalidRequest(f"file_url host {parts.hostname!r} does not resolve",
                             code="INVALID_FILE") from exc
    for info in infos:
        ip = ipaddress.ip_address(info[4][0])
        if not ip.is_global:
            raise InvalidRequest(
                f"file_url resolves to a non-public address ({ip}); set DOCKLAKE_ALLOW_PRIVATE_URLS=true "
                "to allow it", code="INVALID_FILE")


def fetch(url: str, *, max_bytes: int, timeout_s: float, allow_private: bool) -> tuple[bytes, str | None, str | None]:
    """Return ``(data, content_type, file_name)``."""
    check_url(url, allow_private)
    try:
        with httpx.stream("GET", url, timeout=timeout_s, follow_redirects=False) as resp:
            if resp.status_code >= 400:
                raise DocumentError(f"file_url answered HTTP {resp.status_code}")
            if resp.is_redirect:
                raise DocumentError("file_url redirects; give the final URL")
            buf = bytearray()
            for part in resp.iter_bytes():
                buf += part
                if len(buf) > max_bytes:
                    raise PayloadTooLarge(f"file_url content exceeds {max_bytes} bytes")
            name = urlsplit(url).path.rsplit("/", 1)[-1] or None
            return bytes(buf), resp.headers.get("content-type"), name
    except httpx.HTTPError as exc:
        raise DocumentError(f"could not download file_url: {exc}") from exc
