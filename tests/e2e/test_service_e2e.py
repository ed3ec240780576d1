"""The running service, as a user starts it (`docklake serve`), driven over HTTP: the real
Tensorlake SDK, first-start keys, and a kill -9 in the middle of work."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.helpers import free_port

pytestmark = pytest.mark.e2e


@dataclass
class Service:
    base: str
    data_dir: Path
    proc: subprocess.Popen
    log: Path
    env: dict

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def start_service(data_dir: Path, prefect_api: str, port: int | None = None, **env: str) -> Service:
    port = port or free_port()
    log = data_dir.with_suffix(f".{port}.log")
    data_dir.mkdir(parents=True, exist_ok=True)
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCKLAKE_", "PREFECT_"))}
    full_env.update({"DOCKLAKE_PREFECT__API_URL": prefect_api, "DOCKLAKE_WORKER__LEASE_S": "3", **env})
    proc = subprocess.Popen(
        [sys.executable, "-m", "api.cli.main", "serve", "--port", str(port), "--data-dir", str(data_dir)],
        stdout=open(log, "wb"), stderr=subprocess.STDOUT, env=full_env, start_new_session=True,
    )
    svc = Service(f"http://127.0.0.1:{port}", data_dir, proc, log, full_env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"docklake serve exited:\n{svc.output()}")
        try:
            if httpx.get(svc.base + "/healthz", timeout=1).status_code == 200:
                return svc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"docklake serve did not start:\n{svc.output()}")


def kill(svc: Service, sig: int = signal.SIGKILL) -> None:
    """A host crash: the worker (its own session) and serve die at once, no cleanup runs. The
    worker goes first, so it cannot hand its jobs back when serve's death signals it."""
    for pid in worker_pids(svc.data_dir):
        os.kill(pid, sig)
    try:
        os.killpg(svc.proc.pid, sig)
    except ProcessLookupError:
        pass
    svc.proc.wait(30)
    deadline = time.monotonic() + 15
    while worker_pids(svc.data_dir) and time.monotonic() < deadline:
        time.sleep(0.05)


def worker_pids(data_dir: Path) -> list[int]:
    out = subprocess.run(["pgrep", "-f", "api.cli.main worker"], capture_output=True, text=True).stdout
    pids = []
    for pid in out.split():
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if f"DOCKLAKE_DATA_DIR={data_dir}".encode() in env:
            pids.append(int(pid))
    return pids


def stop(svc: Service) -> None:
    """SIGTERM, as a user stopping ``docklake serve``; it must take its workers with it."""
    svc.proc.send_signal(signal.SIGTERM)
    try:
        svc.proc.wait(40)
    except subprocess.TimeoutExpired:
        os.killpg(svc.proc.pid, signal.SIGKILL)
        raise
    deadline = time.monotonic() + 30
    while worker_pids(svc.data_dir) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = worker_pids(svc.data_dir)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "docklake serve left its workers running"


@pytest.fixture
def service(tmp_path: Path, prefect_api: str) -> Iterator[Service]:
    svc = start_service(tmp_path / "svc", prefect_api)
    yield svc
    stop(svc)


def first_key(svc: Service) -> str:
    m = re.search(r"(dl_[A-Za-z0-9_\-]{20,})", svc.output())
    assert m, svc.output()
    return m.group(1)


def wait_terminal(base: str, key: str, ids: list[str], timeout: float = 120) -> dict[str, dict]:
    h = {"Authorization": f"Bearer {key}"}
    deadline = time.monotonic() + timeout
    done: dict[str, dict] = {}
    while time.monotonic() < deadline and len(done) < len(ids):
        for i in ids:
            if i not in done:
                r = httpx.get(f"{base}/documents/v2/parse/{i}", headers=h, timeout=10).json()
                if r["status"] in ("successful", "failure"):
                    done[i] = r
        time.sleep(0.3)
    assert len(done) == len(ids), f"{len(ids) - len(done)} jobs did not finish"
    return done


def test_first_start_prints_one_key_that_works_and_keys_create(service: Service, tmp_path: Path) -> None:
    key = first_key(service)
    assert httpx.get(service.base + "/documents/v2/files",
                     headers={"Authorization": f"Bearer {key}"}).status_code == 200
    assert key not in (service.data_dir / "catalog.db").read_bytes().decode("latin-1")  # hash only
    out = subprocess.run([sys.executable, "-m", "api.cli.main", "keys", "create", "--org", "acme",
                          "--project", "p1", "--data-dir", str(service.data_dir)],
                         capture_output=True, text=True, env=service.env, check=True).stdout.strip()
    other = {"Authorization": f"Bearer {out}"}
    r = httpx.put(service.base + "/documents/v2/files", files={"file": ("a.txt", b"acme")}, headers=other)
    assert r.status_code == 200
    assert httpx.get(service.base + "/documents/v2/files",
                     headers={"Authorization": f"Bearer {key}"}).json()["items"] == []
    ready = httpx.get(service.base + "/readyz", timeout=30).json()  # it asks the engine and Prefect
    assert (ready["ready"], ready["checks"]) == (True, {"catalog": "ok", "storage": "ok", "prefect": "ok"})
    assert ready["sandboxes"]["engine"] is True and ready["sandboxes"]["image"] is True


def test_real_tensorlake_sdk_round_trip(service: Service, tmp_path: Path) -> None:
    from tensorlake.documentai import DocumentAI
    from tensorlake.documentai.models import ChunkingStrategy, MimeType, ParsingOptions

    ai = DocumentAI(api_key=first_key(service), server_url=service.base)
    doc = tmp_path / "memo.md"
    doc.write_text("# Memo\n\nShip the release on Friday.\n\n## Risks\n\n- none known\n")
    file_id = ai.upload(doc)
    assert file_id.startswith("file_")
    parse_id = ai.parse(file_id=file_id, labels={"team": "docs"},
                        parsing_options=ParsingOptions(chunking_strategy=ChunkingStrategy.SECTION))
    result = ai.wait_for_completion(parse_id)  # SSE
    assert result.status.value == "successful"
    assert result.parse_id == parse_id and result.parsed_pages_count == 1
    assert result.labels == {"team": "docs"}
    assert [c.content.splitlines()[0] for c in result.chunks] == ["# Memo", "## Risks"]
    frags = result.pages[0].page_fragments
    assert frags[0].fragment_type.value == "section_header"
    assert "Friday" in frags[1].content.content
    again = ai.get_parsed_result(parse_id)
    assert again.chunks == result.chunks
    read = ai.parse_and_wait(raw_text="plain words", mime_type=MimeType.TEXT)
    assert read.status.value == "successful" and read.chunks[0].content == "plain words"
    listing = ai.files(filename="memo")
    assert [f.id for f in listing.items] == [file_id]
    assert listing.items[0].name == "memo.md" and listing.items[0].file_size == doc.stat().st_size
    ai.delete_file(file_id)
    assert ai.files().items == []


def test_real_tensorlake_sdk_datasets(service: Service, tmp_path: Path) -> None:
    from tensorlake.documentai import DocumentAI
    from tensorlake.documentai.models import ChunkingStrategy, DatasetDataFilter, ParsingOptions

    ai = DocumentAI(api_key=first_key(service), server_url=service.base)
    ds = ai.create_dataset(name="sdk-memos", description="memos",
                           parsing_options=ParsingOptions(chunking_strategy=ChunkingStrategy.SECTION))
    assert ds.name == "sdk-memos" and ds.dataset_id.startswith("dataset_") and ds.status.value == "idle"
    doc = tmp_path / "memo.md"
    doc.write_text("# Memo\n\nShip on Friday.\n\n## Risks\n\n- none known\n")
    file_id = ai.upload(doc)
    # the SDK sends this file id as raw_text; it is parsed as the file, with the dataset's settings
    result = ai.parse_dataset_file(ds, file_id, labels={"team": "docs"}, wait_for_completion=True)
    assert result.status.value == "successful" and result.labels == {"team": "docs"}
    assert [c.content.splitlines()[0] for c in result.chunks] == ["# Memo", "## Risks"]
    data = ai.get_dataset_data(ds, DatasetDataFilter())
    assert [r.parse_id for r in data.items] == [result.parse_id]
    assert [d.name for d in ai.list_datasets(name="sdk-memos").items] == ["sdk-memos"]
    updated = ai.update_dataset(ds, description="all memos")
    assert updated.description == "all memos" and ai.get_dataset(ds.dataset_id).description == "all memos"
    ai.delete_dataset(ds)
    assert ai.list_datasets().items == []
    assert [f.id for f in ai.files().items] == [file_id]  # files are not the dataset's to delete


def test_kill_9_loses_no_job_and_finishes_none_twice(tmp_path: Path, prefect_api: str) -> None:
    data = tmp_path / "crash"
    svc = start_service(data, prefect_api, DOCKLAKE_WORKER__BATCH_SIZE="4")
    key = first_key(svc)
    h = {"Authorization": f"Bearer {key}"}
    ids = []
    with httpx.Client(base_url=svc.base, headers=h, timeout=10) as c:
        for i in range(40):
            ids.append(c.post("/documents/v2/parse", json={"raw_text": f"document {i}",
                                                          "mime_type": "text/plain"}).json()["parse_id"])
        deadline = time.monotonic() + 30
        while not c.get("/documents/v2/parse", params={"status": "processing"}).json()["items"]:
            assert time.monotonic() < deadline, "the worker never started"
            time.sleep(0.05)
        unfinished = [i for i in c.get("/documents/v2/parse", params={"limit": 100}).json()["items"]
                      if i["status"] != "successful"]
    kill(svc)  # the API and the worker die at once, mid-stream, leases held
    assert unfinished  # work was in flight when it died
    assert worker_pids(data) == []
    svc2 = start_service(data, prefect_api, port=int(svc.base.rsplit(":", 1)[1]),
                         DOCKLAKE_WORKER__BATCH_SIZE="4")
    try:
        done = wait_terminal(svc2.base, key, ids, timeout=180)
    finally:
        stop(svc2)
    assert {r["status"] for r in done.values()} == {"successful"}
    assert [done[i]["chunks"][0]["content"] for i in ids] == [f"document {n}" for n in range(40)]
    # exactly one stored result (one attempt's folder of tables) per job: nobody finished a job twice
    results = [p for p in (data / "storage" / "results").rglob("*.parquet")]
    per_job: dict[str, set] = {}
    for p in results:  # results/<org>/<project>/<dataset>/<job>/<attempt>/<table>.parquet
        per_job.setdefault(p.parent.parent.name, set()).add(p.parent)
    assert sorted(per_job) == sorted(ids)
    assert all(len(v) == 1 for v in per_job.values())
    from assets.results import OPTIONAL_TABLES, TABLES

    # every table a parse writes, whole (no extraction or classification was asked for: those
    # optional tables are not written)
    written = {f"{t}.parquet" for t in TABLES if t not in OPTIONAL_TABLES}
    assert all({p.name for p in next(iter(v)).glob("*.parquet")} == written for v in per_job.values())


def test_client_that_hangs_up_mid_upload_leaves_nothing(service: Service) -> None:
    import socket

    key = first_key(service)
    host, port = service.base.removeprefix("http://").split(":")
    head = (b"--B\r\nContent-Disposition: form-data; name=\"file_bytes\"; filename=\"big.bin\"\r\n\r\n")
    body_len = len(head) + 10_000_000
    with socket.create_connection((host, int(port))) as s:
        s.sendall((f"PUT /documents/v2/files HTTP/1.1\r\nHost: {host}\r\n"
                   f"Authorization: Bearer {key}\r\n"
                   "Content-Type: multipart/form-data; boundary=B\r\n"
                   f"Content-Length: {body_len}\r\n\r\n").encode() + head + b"x" * 200_000)
        time.sleep(0.5)
    h = {"Authorization": f"Bearer {key}"}
    deadline = time.monotonic() + 10
    spool = service.data_dir / "spool"
    while time.monotonic() < deadline and spool.exists() and any(spool.iterdir()):
        time.sleep(0.1)
    assert not spool.exists() or list(spool.iterdir()) == []
    assert httpx.get(service.base + "/documents/v2/files", headers=h).json()["items"] == []
    assert not (service.data_dir / "storage" / "files").exists() or \
        list((service.data_dir / "storage" / "files").rglob("*")) == []
    metrics = httpx.get(service.base + "/metrics").text
    assert 'docklake_http_requests_total{method="PUT",route="/documents/v2/files",status="499"} 1.0' in metrics


def test_workers_follow_serve_when_it_is_killed(tmp_path: Path, prefect_api: str) -> None:
    svc = start_service(tmp_path / "orphan", prefect_api)
    deadline = time.monotonic() + 90  # generous: the suite's other services share the two CPUs
    while not worker_pids(svc.data_dir):
        assert time.monotonic() < deadline, "serve started no worker"
        time.sleep(0.1)
    svc.proc.kill()  # SIGKILL: no cleanup code runs in serve
    svc.proc.wait(10)
    deadline = time.monotonic() + 60
    while worker_pids(svc.data_dir) and time.monotonic() < deadline:
        time.sleep(0.1)
    logs = {p.name: p.read_text(errors="replace")[-1500:] for p in svc.data_dir.glob("worker-*.log")}
    assert worker_pids(svc.data_dir) == [], logs


def test_real_tensorlake_sdk_extract_and_classify(service: Service, tmp_path: Path) -> None:
    from pydantic import BaseModel
    from tensorlake.documentai import DocumentAI
    from tensorlake.documentai.models import PageClassConfig, StructuredExtractionOptions

    from tests.support import formgen

    class Invoice(BaseModel):  # the SDK turns the class into its JSON schema
        invoice_number: str
        total: float | None = None
        due_date: str | None = None

    sample = formgen.invoice_pdf(41, 0)
    doc = tmp_path / "invoice.pdf"
    doc.write_bytes(sample.data)
    ai = DocumentAI(api_key=first_key(service), server_url=service.base)
    file_id = ai.upload(doc)
    extract_id = ai.extract(StructuredExtractionOptions(schema_name="invoice", json_schema=Invoice,
                                                        provide_citations=True), file_id=file_id)
    classes = [PageClassConfig(name=c["name"], description=c["description"]) for c in formgen.CLASSES]
    classify_id = ai.classify(classes, file_id=file_id)
    both_id = ai.parse(file_id=file_id, page_classifications=classes, structured_extraction_options=[
        StructuredExtractionOptions(schema_name="per_page", json_schema=formgen.INVOICE_SCHEMA,
                                    partition_strategy="page", page_classes=["invoice"])])

    extracted = ai.wait_for_completion(extract_id)  # SSE
    assert extracted.status.value == "successful", extracted.error
    (sd,) = extracted.structured_data
    assert sd.schema_name == "invoice" and sd.page_numbers == [1]
    assert sd.data == {"invoice_number": sample.truth["invoice_number"], "total": sample.truth["total"],
                       "due_date": sample.truth["due_date"]}
    assert ai.get_parsed_result(extract_id).structured_data == extracted.structured_data  # plain JSON

    classified = ai.wait_for_completion(classify_id)
    assert classified.structured_data is None
    assert {c.page_class: c.page_numbers for c in classified.page_classes} == \
        {"invoice": [1], "letter": [], "table_report": [], "form": []}
    assert classified.page_classes[0].classification_reasons[1].startswith("similarity")

    both = ai.wait_for_completion(both_id)
    assert both.page_classes[0].page_numbers == [1] and both.chunks
    assert [(s.schema_name, s.page_numbers, s.data["total"]) for s in both.structured_data] == \
        [("per_page", [1], sample.truth["total"])]
