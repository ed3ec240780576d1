"""A method a path does not serve is 405 with the methods it does serve in ``Allow``
(RFC 9110 §15.5.6), for every router the app includes."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.support.helpers import A


def test_a_wrong_method_names_the_right_ones(client: TestClient) -> None:
    for method, path, allowed in [("PATCH", "/healthz", "GET"),
                                  ("PUT", "/documents/v2/datasets", "GET, POST"),
                                  ("POST", "/documents/v2/parse/parse_123", "GET, DELETE")]:
        r = client.request(method, path, headers=A)
        assert r.status_code == 405, (method, path, r.status_code, r.text)
        assert r.headers.get("allow") == allowed, (method, path, r.headers.get("allow"))
