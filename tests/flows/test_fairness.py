"""One tenant's big documents never stall another tenant's small job (the real dispatcher, the
real Prefect server, real conversion processes)."""

from __future__ import annotations

import io
import time

from fastapi.testclient import TestClient

from pipelines.flows.dispatcher import Dispatcher
from tests.support.docgen import render_png, scanify, text_pdf
from tests.support.helpers import A, B


def scanned_tiff(frames: int) -> bytes:
    page = scanify(render_png(text_pdf(seed=21, pages=1).data, dpi=150), skew_deg=1.0)
    buf = io.BytesIO()
    page.save(buf, "TIFF", save_all=True, append_images=[page] * (frames - 1), compression="tiff_deflate")
    return buf.getvalue()


def wait_done(client: TestClient, headers: dict, ids: list[str], timeout: float) -> dict[str, dict]:
    deadline = time.monotonic() + timeout
    while True:
        got = {i: client.get(f"/documents/v2/parse/{i}", headers=headers).json() for i in ids}
        if all(g["status"] in ("successful", "failure") for g in got.values()):
            return got
        assert time.monotonic() < deadline, {i: g["status"] for i, g in got.items()}
        time.sleep(0.2)


def test_a_small_job_of_another_tenant_is_not_held_behind_big_ones(client: TestClient, worker: Dispatcher) -> None:
    tiff = scanned_tiff(24)  # each scan takes several seconds of OCR, the small job well under one
    fid = client.put("/documents/v2/files", files={"file": ("scan.tiff", tiff)}, headers=A).json()["file_id"]
    big = [client.post("/documents/v2/parse", json={"file_id": fid}, headers=A).json()["parse_id"]
           for _ in range(3)]
    deadline = time.monotonic() + 60
    while not any(client.get(f"/documents/v2/parse/{i}", headers=A).json()["status"] == "processing"
                  for i in big):
        assert time.monotonic() < deadline, "the big jobs never started"
        time.sleep(0.1)
    small = client.post("/documents/v2/parse", json={"raw_text": "hello", "mime_type": "text/plain"},
                        headers=B).json()["parse_id"]
    done_small = wait_done(client, B, [small], timeout=120)[small]
    done_big = wait_done(client, A, big, timeout=300)
    assert done_small["status"] == "successful"
    assert all(b["status"] == "successful" for b in done_big.values()), done_big
    # the one-line job of tenant b did not wait for tenant a's three scans
    assert done_small["finished_at"] < min(b["finished_at"] for b in done_big.values())


def test_jobs_arriving_one_at_a_time_join_the_open_flow_run_of_their_dataset(
        client: TestClient, worker: Dispatcher, services) -> None:
    """A job claimed while a flow run of its organization and dataset is running becomes a task
    run of that run, not a flow run of its own; another dataset's job gets a run of its own."""
    from assets.catalog import jobs as jobs_repo

    ds = {name: client.post("/documents/v2/datasets", json={"name": name}, headers=A).json()["dataset_id"]
          for name in ("inbox", "archive")}
    fid = client.put("/documents/v2/files", files={"file": ("scan.tiff", scanned_tiff(6))},
                     headers=A).json()["file_id"]
    slow = client.post(f"/documents/v2/datasets/{ds['inbox']}/parse", json={"file_id": fid},
                       headers=A).json()["parse_id"]
    deadline = time.monotonic() + 60
    while client.get(f"/documents/v2/parse/{slow}", headers=A).json()["status"] != "processing":
        assert time.monotonic() < deadline, "the scan never started"
        time.sleep(0.05)

    def text(dataset: str, i: int) -> str:
        fid = client.put("/documents/v2/files", files={"file": (f"note-{i}.txt", f"note {i}".encode())},
                         headers=A).json()["file_id"]
        return client.post(f"/documents/v2/datasets/{ds[dataset]}/parse", json={"file_id": fid},
                           headers=A).json()["parse_id"]

    later = []
    for i in range(3):  # one at a time, each claimed on its own while the scan runs
        later.append(text("inbox", i))
        while client.get(f"/documents/v2/parse/{later[-1]}", headers=A).json()["status"] == "pending":
            time.sleep(0.02)
    other = text("archive", 9)
    done = wait_done(client, A, [slow, *later, other], timeout=180)
    assert all(d["status"] == "successful" for d in done.values()), done
    runs = {i: jobs_repo.get_job_by_id(services.engine, i).flow_run_id for i in [slow, *later, other]}
    assert all(runs[i] == runs[slow] for i in later), runs
    assert runs[other] and runs[other] != runs[slow]
    # the three joined while the scan ran: they ended before it did
    assert max(done[i]["finished_at"] for i in later) < done[slow]["finished_at"]
