"""A corpus of generated hostile documents through the whole service (API, dispatcher, Prefect,
conversion processes): no 5xx, no dead worker, every job terminal with a clear message, and
another tenant's small job done within seconds meanwhile."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from api.services import Services
from tests.support.helpers import A, B
from tests.support.hostile_docs import corpus

CORPUS = corpus()


def clear(message: str) -> bool:
    """One line a user can act on: not empty, no trace, no dangling colon, not a wall of repeats."""
    return (bool(message.strip()) and "Traceback" not in message and "\n" not in message
            and not message.rstrip().endswith(":") and len(message) <= 1000)


@pytest.mark.timeout(900)
def test_hostile_corpus_through_the_service(client: TestClient, services: Services, worker) -> None:
    s = services.settings
    s.limits.max_pages, s.limits.job_memory_mb, s.limits.job_timeout_s = 100, 1024, 120
    assert len(CORPUS) >= 100
    statuses: list[int] = []
    jobs: dict[str, tuple[str, str]] = {}  # parse id → (document, expectation)
    for name, data, expected in CORPUS:
        up = client.put("/documents/v2/files", files={"file": (name, data)}, headers=A)
        statuses.append(up.status_code)
        if up.status_code != 200:
            continue
        fid = up.json()["file_id"]
        for body, expect in (({"file_id": fid}, expected),
                             # the same bytes declared as a PDF, and a page range past most ends
                             ({"file_id": fid, "mime_type": "application/pdf", "page_range": "2-5"}, "any")):
            r = client.post("/documents/v2/parse", json=body, headers=A)
            statuses.append(r.status_code)
            if r.status_code == 200:
                jobs[r.json()["parse_id"]] = (name, expect)
    assert len(jobs) >= 200
    # another tenant's one-line job, submitted behind all of that
    t0 = time.monotonic()
    small = client.post("/documents/v2/parse", json={"raw_text": "hello", "mime_type": "text/plain"},
                        headers=B).json()["parse_id"]
    while client.get(f"/documents/v2/parse/{small}", headers=B).json()["status"] not in ("successful", "failure"):
        assert time.monotonic() - t0 < 60, "tenant b's small job waited behind tenant a's corpus"
        time.sleep(0.2)
    small_latency = time.monotonic() - t0
    assert client.get(f"/documents/v2/parse/{small}", headers=B).json()["status"] == "successful"

    deadline = time.monotonic() + 600
    while True:
        page = client.get("/documents/v2/parse", params={"limit": 1000}, headers=A)
        statuses.append(page.status_code)
        items = {i["parse_id"]: i for i in page.json()["items"]}
        if all(items[j]["status"] in ("successful", "failure") for j in jobs):
            break
        assert time.monotonic() < deadline, "jobs left unfinished"
        assert worker.thread.is_alive(), "the worker died"
        time.sleep(1)

    assert all(code < 500 for code in statuses), sorted(set(statuses))
    wrong = []
    for pid, (name, expect) in jobs.items():
        job = items[pid]
        if job["status"] == "failure" and not clear(job["error"] or ""):
            wrong.append((name, "unclear error", job["error"]))
        if expect == "ok" and job["status"] != "successful":
            wrong.append((name, "should parse", job["error"]))
        if expect == "fail" and job["status"] != "failure":
            wrong.append((name, "should fail", job["status"]))
        got = client.get(f"/documents/v2/parse/{pid}", headers=A)
        if got.status_code != 200:
            wrong.append((name, "GET", got.status_code))
    assert wrong == []
    assert worker.thread.is_alive()
    # the worker still works
    after = client.post("/documents/v2/parse", json={"raw_text": "after", "mime_type": "text/plain"},
                        headers=A).json()["parse_id"]
    deadline = time.monotonic() + 60
    while client.get(f"/documents/v2/parse/{after}", headers=A).json()["status"] != "successful":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    print(f"{len(jobs)} hostile jobs; tenant b's small job took {small_latency:.1f} s")
