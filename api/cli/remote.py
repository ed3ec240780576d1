"""A client of a running docklake's REST API, for the command line (``docklake submit``,
``docklake datasets …``, ``docklake jobs …``): the same endpoints the SDK uses, never a second
code path into the catalog."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

V2 = "/documents/v2"


class RemoteError(Exception):
    """The server refused a request (its message), or could not be reached."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def _raise_for(resp: httpx.Response) -> httpx.Response:
    if resp.status_code < 400:
        return resp
    try:
        body = resp.json()
        message = body.get("message") or json.dumps(body)
    except ValueError:
        message = resp.text.strip() or resp.reason_phrase
    raise RemoteError(f"{resp.request.method} {resp.request.url.path}: {resp.status_code} {message}", resp.status_code)


@dataclass
class Remote:
    url: str
    api_key: str
    timeout_s: float = 60.0

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url.rstrip("/") + V2, headers=self.headers, timeout=self.timeout_s)

    def aclient(self, connections: int = 8) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.url.rstrip("/") + V2, headers=self.headers, timeout=self.timeout_s,
                                 limits=httpx.Limits(max_connections=connections))

    def call(self, method: str, path: str, **kw: Any) -> Any:
        try:
            with self.client() as c:
                resp = _raise_for(c.request(method, path, **kw))
        except httpx.HTTPError as exc:
            raise RemoteError(f"cannot reach docklake at {self.url}: {exc}") from None
        return resp.json() if resp.content else None

    def pages(self, path: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Every item of a paginated listing."""
        cursor = None
        while True:
            page = self.call("GET", path, params={**params, **({"cursor": cursor} if cursor else {})})
            yield from page["items"]
            cursor = page.get("next_cursor")
            if not page.get("has_more") or not cursor:
                return

    def dataset_by_name(self, name: str) -> dict[str, Any] | None:
        found = self.call("GET", "/datasets", params={"name": name})["items"]
        return found[0] if found else None


async def apages(client: httpx.AsyncClient, path: str, **params: Any) -> AsyncIterator[dict[str, Any]]:
    cursor = None
    while True:
        resp = _raise_for(await client.get(path, params={**params, **({"cursor": cursor} if cursor else {})}))
        page = resp.json()
        for item in page["items"]:
            yield item
        cursor = page.get("next_cursor")
        if not page.get("has_more") or not cursor:
            return


async def acall(client: httpx.AsyncClient, method: str, path: str, **kw: Any) -> Any:
    resp = _raise_for(await client.request(method, path, **kw))
    return resp.json() if resp.content else None
