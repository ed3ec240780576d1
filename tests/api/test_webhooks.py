"""Webhooks as a receiver sees them: one signed event per finished job, retried with backoff when
the receiver fails and until it recovers, every attempt recorded; scoped to a tenant, a dataset
and the events asked for."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import json
import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.services import Services
from pipelines.usecases import webhooks
from pipelines.usecases.runtime import Runtime
from tests.support.helpers import A, B

W = "/documents/v2/webhooks"


class Receiver:
    """A local HTTP receiver answering the status codes in ``script`` in turn (then 200)."""

    def __init__(self, script: list[int]) -> None:
        self.script, self.got = list(script), []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.got.append(({k.lower(): v for k, v in self.headers.items()}, body.decode()))
                code = outer.script.pop(0) if outer.script else 200
                self.send_response(code)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"


@pytest.fixture
def receiver() -> Iterator[type[Receiver]]:
    made: list[Receiver] = []

    def make(script: list[int] | None = None) -> Receiver:
        r = Receiver(script or [])
        made.append(r)
        return r

    yield make  # type: ignore[misc]
    for r in made:
        r.server.shutdown()


def verify(secret: str, headers: dict[str, str], body: str) -> bool:
    """The Standard Webhooks check a receiver runs."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.{body}".encode()
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(hmac.compare_digest(expected, s.removeprefix("v1,")) for s in headers["webhook-signature"].split())


def deliver_until_settled(services: Services, timeout: float = 20) -> None:
    rt = Runtime(services.settings, services.engine, services.storage)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        webhooks.deliver_due(rt, "test")
        with services.engine.connect() as conn:
            pending = conn.exec_driver_sql("select count(*) from webhook_deliveries where status = 'pending'").scalar()
        if not pending:
            return
        time.sleep(0.05)
    raise AssertionError("deliveries still pending")


def test_a_signed_event_is_retried_until_the_receiver_recovers(client: TestClient, run_jobs, services: Services,
                                                              receiver) -> None:  # type: ignore[no-untyped-def]
    services.settings.limits.allow_private_urls = True
    services.settings.webhooks.backoff_s = 0.1
    flaky = receiver([500, 503])  # fails twice, then recovers
    made = client.post(W, json={"url": flaky.url}, headers=A)
    assert made.status_code == 200, made.text
    hook = made.json()
    assert hook["secret"].startswith("whsec_") and hook["events"] == ["parse.completed", "parse.failed"]
    pid = client.post("/documents/v2/parse", json={"raw_text": "hello", "mime_type": "text/plain",
                                                   "labels": {"batch": 7}}, headers=A).json()["parse_id"]
    run_jobs()  # the job finishes and the first attempt is made at once
    deliver_until_settled(services)

    assert len(flaky.got) == 3
    ids = {h["webhook-id"] for h, _ in flaky.got}
    assert len(ids) == 1  # the same message on every retry: a receiver can deduplicate
    for headers, body in flaky.got:
        assert verify(hook["secret"], headers, body)
        assert not verify("whsec_" + base64.b64encode(b"x" * 24).decode(), headers, body)
        assert abs(int(headers["webhook-timestamp"]) - time.time()) < 60
    event = json.loads(flaky.got[-1][1])
    assert event["type"] == "parse.completed"
    assert event["data"]["parse_id"] == pid and event["data"]["status"] == "successful"
    assert event["data"]["labels"] == {"batch": 7} and event["data"]["finished_at"]

    page = client.get(f"{W}/{hook['webhook_id']}/deliveries", headers=A).json()
    (delivery,) = page["items"]
    assert delivery["status"] == "delivered" and delivery["attempts"] == 3 and delivery["parse_id"] == pid
    assert [a["status_code"] for a in delivery["history"]] == [500, 503, 200]
    assert "HTTP 500" in delivery["history"][0]["error"] and delivery["history"][2]["error"] is None
    gaps = [b["at"] > a["at"] for a, b in zip(delivery["history"], delivery["history"][1:])]
    assert all(gaps)


def test_a_receiver_that_never_recovers_gets_a_failed_delivery(client: TestClient, run_jobs, services: Services,
                                                              receiver) -> None:  # type: ignore[no-untyped-def]
    services.settings.limits.allow_private_urls = True
    services.settings.webhooks.backoff_s = 0.05
    services.settings.webhooks.max_attempts = 3
    down = receiver([500] * 10)
    hook = client.post(W, json={"url": down.url, "events": ["parse.failed"]}, headers=A).json()
    client.post("/documents/v2/parse", json={"raw_text": "fine", "mime_type": "text/plain"}, headers=A)
    bad = client.post("/documents/v2/parse", json={"raw_text": "  ", "mime_type": "text/plain"},
                      headers=A).json()["parse_id"]
    run_jobs()
    deliver_until_settled(services)
    (delivery,) = client.get(f"{W}/{hook['webhook_id']}/deliveries", headers=A).json()["items"]
    assert delivery["event"] == "parse.failed" and delivery["parse_id"] == bad  # only the failure was wanted
    assert delivery["status"] == "failed" and delivery["attempts"] == 3 and len(down.got) == 3
    assert delivery["last_error"].startswith("HTTP 500") and delivery["next_attempt_at"] is None


def test_webhooks_are_scoped_to_their_tenant_and_dataset(client: TestClient, run_jobs, services: Services,
                                                        receiver) -> None:  # type: ignore[no-untyped-def]
    refused = client.post(W, json={"url": "http://127.0.0.1:9/x"}, headers=A)
    assert refused.status_code == 400 and "DOCKLAKE_LIMITS__ALLOW_PRIVATE_URLS" in refused.json()["message"]
    services.settings.limits.allow_private_urls = True
    assert client.post(W, json={"url": "ftp://example.org/x"}, headers=A).status_code == 400
    bad_event = client.post(W, json={"url": "http://127.0.0.1:9/x", "events": ["parse.started"]}, headers=A)
    assert bad_event.status_code == 400 and "parse.started" in bad_event.json()["message"]
    assert client.post(W, json={"url": "http://127.0.0.1:9/x", "dataset_id": "dataset_nope"},
                       headers=A).status_code == 404

    ds = client.post("/documents/v2/datasets", json={"name": "watched"}, headers=A).json()["dataset_id"]
    mine, theirs = receiver(), receiver()
    scoped = client.post(W, json={"url": mine.url, "dataset_id": ds}, headers=A).json()
    other = client.post(W, json={"url": theirs.url}, headers=B).json()
    in_ds = client.post(f"/documents/v2/datasets/{ds}/parse", json={"raw_text": "a", "mime_type": "text/plain"},
                        headers=A).json()["parse_id"]
    client.post("/documents/v2/parse", json={"raw_text": "b", "mime_type": "text/plain"}, headers=A)
    run_jobs()
    deliver_until_settled(services)
    assert [json.loads(b)["data"]["parse_id"] for _, b in mine.got] == [in_ds]
    assert theirs.got == []  # the other tenant's hook hears nothing of this tenant's jobs

    listed = client.get(W, headers=A).json()["items"]
    assert [h["webhook_id"] for h in listed] == [scoped["webhook_id"]] and listed[0]["secret"] is None
    assert client.get(f"{W}/{other['webhook_id']}", headers=A).status_code == 404
    assert client.get(f"{W}/{other['webhook_id']}/deliveries", headers=A).status_code == 404
    assert client.delete(f"{W}/{other['webhook_id']}", headers=A).status_code == 404
    assert client.delete(f"{W}/{scoped['webhook_id']}", headers=A).status_code == 204
    assert client.get(W, headers=A).json()["items"] == []


def test_a_running_worker_sends_events_as_jobs_finish(client: TestClient, services: Services, worker,
                                                      receiver) -> None:  # type: ignore[no-untyped-def]
    services.settings.limits.allow_private_urls = True
    got = receiver()
    client.post(W, json={"url": got.url}, headers=A)
    pid = client.post("/documents/v2/parse", json={"raw_text": "live", "mime_type": "text/plain"},
                      headers=A).json()["parse_id"]
    deadline = time.monotonic() + 30
    while not got.got and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [json.loads(b)["data"]["parse_id"] for _, b in got.got] == [pid]
