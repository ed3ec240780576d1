"""Routes that can answer with server-sent events say so in the OpenAPI document, beside their
JSON: a client generated from the document (or a contract test, like the fuzz module's) then
accepts the stream. Schemathesis found the logs route's stream undeclared."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_each_streaming_route_declares_its_event_stream_beside_its_json(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/documents/v2/parse/{parse_id}", "/sandboxes/{sandbox_id}/logs"):
        content = paths[path]["get"]["responses"]["200"]["content"]
        assert {"application/json", "text/event-stream"} <= set(content), path
    logs = paths["/sandboxes/{sandbox_id}/logs"]["get"]["responses"]["200"]["content"]["application/json"]
    assert logs["schema"]["$ref"].endswith("/LogsPage")
