"""Download a ``file_url`` safely: http(s) only, bounded size and total time, and no loopback,
private, link-local or otherwise non-public target unless configured.

The host is resolved once; the download connects to that checked address (Host header and TLS
SNI keep the name), so a DNS answer that changes between the check and the connection (DNS
rebinding) cannot redirect it. IPv6 forms that embed an IPv4 address (mapped, 6to4, Teredo,
NAT64, IPv4-compatible) are judged by the embedded address too.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable
from urllib.parse import SplitResult, urlsplit

import httpx

from pipelines.core.errors import DocumentError, InvalidRequest, PayloadTooLarge

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _embedded_v4(ip: IP) -> ipaddress.IPv4Address | None:
    if isinstance(ip, ipaddress.IPv4Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64 or int(ip) < 2**32:  # NAT64, or the deprecated IPv4-compatible ::a.b.c.d
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_public(ip: IP) -> bool:
    inner = _embedded_v4(ip)
    # is_global alone lets some multicast ranges through (224.0.0.0/4 partly, ff0e::/16)
    return (ip.is_global and not ip.is_multicast
            and (inner is None or (inner.is_global and not inner.is_multicast)))


def _parse(url: str) -> tuple[SplitResult, int]:
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise InvalidRequest(f"file_url is not a valid URL: {exc}", code="INVALID_FILE") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidRequest("file_url must be an http(s) URL", code="INVALID_FILE")
    return parts, port


def resolve(url: str, allow_private: bool) -> tuple[SplitResult, int, IP | None]:
    """Check ``url`` and return its parts, port and the one address to connect to (``None``
    when private targets are allowed: then the client resolves as usual)."""
    parts, port = _parse(url)
    if allow_private:
        return parts, port, None
    try:
        infos = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise InvalidRequest(f"file_url host {parts.hostname!r} does not resolve",
                             code="INVALID_FILE") from exc
    addresses = [ipaddress.ip_address(info[4][0].split("%", 1)[0]) for info in infos]
    for ip in addresses:
        if not is_public(ip):
            raise InvalidRequest(
                f"file_url resolves to a non-public address ({ip}); set DOCKLAKE_LIMITS__ALLOW_PRIVATE_URLS=true "
                "to allow it", code="INVALID_FILE")
    return parts, port, addresses[0]


def check_url(url: str, allow_private: bool) -> None:
    resolve(url, allow_private)


def fetch(url: str, *, max_bytes: int, timeout_s: float, allow_private: bool,
          transport: httpx.BaseTransport | None = None) -> tuple[bytes, str | None, str | None]:
    """Return ``(data, content_type, file_name)``; ``timeout_s`` bounds the whole download."""
    parts, port, ip = resolve(url, allow_private)
    target, headers, extensions = url, {}, {}
    if ip is not None:
        host = f"[{ip}]" if ip.version == 6 else str(ip)
        target = parts._replace(netloc=f"{host}:{port}").geturl()
        headers["Host"] = parts.netloc.rsplit("@", 1)[-1]
        if parts.scheme == "https":
            extensions["sni_hostname"] = parts.hostname
    deadline = time.monotonic() + timeout_s
    try:
        with httpx.Client(transport=transport, timeout=timeout_s, follow_redirects=False) as client, \
                client.stream("GET", target, headers=headers, extensions=extensions) as resp:
            if resp.status_code >= 400:
                raise DocumentError(f"file_url answered HTTP {resp.status_code}")
            if resp.is_redirect:
                raise DocumentError("file_url redirects; give the final URL")
            chunks: list[bytes] = []
            size = 0
            for part in resp.iter_bytes():
                size += len(part)
                if size > max_bytes:
                    raise PayloadTooLarge(f"file_url content exceeds {max_bytes} bytes")
                if time.monotonic() > deadline:
                    raise DocumentError(f"file_url took longer than {timeout_s:g} s to download")
                chunks.append(part)
            name = parts.path.rsplit("/", 1)[-1] or None
            return b"".join(chunks), resp.headers.get("content-type"), name
    except httpx.HTTPError as exc:
        raise DocumentError(f"could not download file_url: {exc}") from exc


def fetch_into(write: Callable[[bytes], None], url: str, max_bytes: int, timeout_s: float,
               allow_private: bool) -> str | None:
    """Download ``url`` (as ``fetch``) and hand the bytes to ``write``; the file name the URL
    gives. Run in a limited process, so the download never sits in a worker's memory."""
    data, _ctype, name = fetch(url, max_bytes=max_bytes, timeout_s=timeout_s, allow_private=allow_private)
    write(data)
    return name
