"""What a person sees in the Prefect UI: failed jobs as Failed task runs, runs named and tagged
for people, and the runs of dead workers marked Crashed."""

from __future__ import annotations

import asyncio
import time

from fastapi.testclient import TestClient
from prefect.client.orchestration import get_client

from api.services import Services
from assets.catalog import jobs as jobs_repo
from tests.support.helpers import A


def submit(client: TestClient, body: dict):  # type: ignore[no-untyped-def]
    return client.post("/documents/v2/parse", json=body, headers=A)


def flow_run_state(run_id: str) -> str:
    async def read() -> str:
        async with get_client() as c:
            return (await c.read_flow_run(run_id)).state.type.value

    return asyncio.run(read())


def test_flow_run_of_a_dead_worker_is_marked_crashed(client: TestClient, run_jobs,
                                                     services: Services) -> None:
    import asyncio

    from prefect import flow
    from prefect.client.orchestration import get_client

    @flow(name="docklake-jobs-dead")
    def started_and_abandoned() -> str:
        from prefect.runtime import flow_run

        return str(flow_run.get_id())

    # a flow run left "Running" by a worker that died
    run_id = started_and_abandoned()

    async def force_running() -> None:
        from prefect.states import Running

        async with get_client() as c:
            await c.set_flow_run_state(run_id, Running(), force=True)

    asyncio.run(force_running())
    pid = submit(client, {"raw_text": "again", "mime_type": "text/plain"}).json()["parse_id"]
    jobs_repo.claim(services.engine, "dead-worker", 10, lease_s=0.1)
    jobs_repo.set_flow_run(services.engine, "dead-worker", [pid], run_id)
    time.sleep(0.2)
    assert run_jobs() == 1

    assert flow_run_state(run_id) == "CRASHED"
    assert client.get(f"/documents/v2/parse/{pid}", headers=A).json()["status"] == "successful"


def test_a_pending_flow_run_of_a_killed_worker_is_marked_crashed(client: TestClient, run_jobs,
                                                                 services: Services) -> None:
    """A worker killed between Prefect creating its flow run and the run starting leaves a run
    PENDING that the catalog never learnt the id of: it is found by the worker's tag."""
    import asyncio

    from prefect import flow
    from prefect.client.orchestration import get_client
    from prefect.states import Pending

    from pipelines.flows.documents import worker_tag

    @flow(name="docklake-jobs")
    def never_started() -> None:
        return None

    async def make_pending() -> str:
        async with get_client() as c:
            run = await c.create_flow_run(never_started, tags=[worker_tag("killed-worker")], state=Pending())
            return str(run.id)

    run_id = asyncio.run(make_pending())
    pid = submit(client, {"raw_text": "again", "mime_type": "text/plain"}).json()["parse_id"]
    jobs_repo.claim(services.engine, "killed-worker", 10, lease_s=0.1)
    time.sleep(0.2)
    assert run_jobs() == 1

    assert flow_run_state(run_id) == "CRASHED"
    assert client.get(f"/documents/v2/parse/{pid}", headers=A).json()["status"] == "successful"


def test_prefect_shows_failed_jobs_as_failed_and_names_runs_for_people(client: TestClient, run_jobs,
                                                                       services: Services) -> None:
    import asyncio

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    good_f = client.put("/documents/v2/files", files={"file": ("memo.md", b"# Memo\n\nfine")}, headers=A).json()
    bad_f = client.put("/documents/v2/files", files={"file": ("broken.pdf", b"%PDF-1.7\n garbage")},
                       headers=A).json()
    good = submit(client, {"file_id": good_f["file_id"]}).json()["parse_id"]
    bad = submit(client, {"file_id": bad_f["file_id"]}).json()["parse_id"]
    assert run_jobs() == 2
    error = client.get(f"/documents/v2/parse/{bad}", headers=A).json()["error"]
    assert error and client.get(f"/documents/v2/parse/{good}", headers=A).json()["status"] == "successful"
    flow_run_id = jobs_repo.get_job_by_id(services.engine, bad).flow_run_id

    chunk_name = "parse 2 documents (memo.md, broken.pdf)"

    async def look() -> tuple[dict[str, tuple[str, str | None, set[str]]], tuple[str, str | None, str]]:
        async with get_client() as c:
            runs = await c.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id])))
            by_name = {r.name: r for r in runs}
            tasks = {}
            for name in (chunk_name, "parse broken.pdf"):
                run = by_name[name]
                tasks[name] = (run.state.type.value, run.state.message, set(run.tags))
            fr = await c.read_flow_run(flow_run_id)
            return tasks, (fr.state.type.value, fr.state.message, fr.name)

    # Prefect records task-run events in batches, once a second: a run may show up still
    # running, its end recorded a moment later
    deadline = time.monotonic() + 30
    while True:
        try:
            tasks, (flow_state, flow_message, flow_name) = asyncio.run(look())
            if all(t[0] in ("COMPLETED", "FAILED") for t in tasks.values()) or time.monotonic() > deadline:
                break
        except KeyError:
            assert time.monotonic() < deadline, "the task runs never showed up"
        time.sleep(0.5)
    # both small documents ran in one chunk, named after them, its message counting outcomes
    assert tasks[chunk_name][:2] == ("COMPLETED", "1 successful, 1 failure")
    # the failed one also has a Failed run of its own, named after it, with the API's error
    assert tasks["parse broken.pdf"][:2] == ("FAILED", error)
    for name in tasks:
        assert {"org:org-a", "project:proj-a", "kind:parse"} <= tasks[name][2]
    assert flow_state == "COMPLETED" and flow_message == "1 successful, 1 failure"
    assert "org-a/no dataset: 2 documents" in flow_name and "memo.md" in flow_name
    assert flow_name.endswith("— 1 successful, 1 failure")  # the runs list shows the failure


def test_each_job_logs_to_prefect_and_each_batch_publishes_a_markdown_report(client: TestClient, run_jobs,
                                                                            services: Services) -> None:
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterFlowRunId,
        ArtifactFilterTaskRunId,
        FlowRunFilter,
        FlowRunFilterId,
        LogFilter,
        LogFilterTaskRunId,
    )
    from prefect.logging.handlers import APILogWorker

    from tests.support import docgen

    pdf = client.put("/documents/v2/files", files={"file": ("report.pdf", docgen.text_pdf(pages=3).data)},
                     headers=A).json()
    broken = client.put("/documents/v2/files", files={"file": ("broken.pdf", b"%PDF-1.7\n garbage")},
                        headers=A).json()
    good = submit(client, {"file_id": pdf["file_id"]}).json()["parse_id"]
    bad = submit(client, {"file_id": broken["file_id"]}).json()["parse_id"]
    assert run_jobs() == 2
    APILogWorker.drain_all(timeout=10)  # the logs go to the API in batches
    error = client.get(f"/documents/v2/parse/{bad}", headers=A).json()["error"]
    flow_run_id = jobs_repo.get_job_by_id(services.engine, good).flow_run_id

    async def look() -> dict[str, tuple[list[tuple[int, str]], list[str]]]:
        async with get_client() as c:
            runs = await c.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id])))
            seen = {}
            for run in runs:
                logs = await c.read_logs(log_filter=LogFilter(task_run_id=LogFilterTaskRunId(any_=[run.id])))
                arts = await c.read_artifacts(artifact_filter=ArtifactFilter(
                    task_run_id=ArtifactFilterTaskRunId(any_=[run.id])))
                seen[run.name] = ([(x.level, x.message) for x in logs], [str(a.data) for a in arts])
                seen[run.name + " keys"] = ([], [a.key for a in arts])
            batch = await c.read_artifacts(artifact_filter=ArtifactFilter(
                flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id]), key={"like_": "batch-"}))
            seen["batch"] = ([], [f"{a.key}\n{a.data}" for a in batch])
            return seen

    chunk = "parse 2 documents (report.pdf, broken.pdf)"
    deadline = time.monotonic() + 30  # Prefect records task runs in batches, once a second
    while len((seen := asyncio.run(look())).get("parse broken.pdf", ((), ()))[1]) < 1 \
            or chunk not in seen:
        assert time.monotonic() < deadline, seen
        time.sleep(0.5)
    logs, arts = seen[chunk]
    messages = [m for _, m in logs]
    # the chunk's logs have a line for each document: what it found and where its time went
    [found] = [m for m in messages if m.startswith("parse report.pdf: successful, 3 of 3 pages")]
    assert "; time per stage: " in found, messages
    assert any(m.startswith("parse broken.pdf: failure") for m in messages), messages
    assert arts == []  # a clean job has its row in the batch's report, no report of its own
    logs, arts = seen["parse broken.pdf"]
    assert (40, error) in logs, logs  # the failed job's own run: its error, at ERROR level
    assert len(arts) == 1 and "**failure**" in arts[0] and error[:60] in arts[0]
    assert seen["parse broken.pdf keys"][1] == [f"report-{bad.replace('_', '-')}"]
    # the batch's report: a row per job, the failed one first
    [batch] = seen["batch"][1]
    assert batch.startswith(f"batch-{flow_run_id}\n### 2 documents: 1 failure, 1 successful"), batch
    rows = [ln for ln in batch.splitlines() if ln.startswith("| parse ")]
    assert rows[0].startswith("| parse `broken.pdf` |") and "**failure**" in rows[0] and error[:40] in rows[0]
    assert rows[1].startswith(f"| parse `report.pdf` | `{good}` | **successful** | 3 of 3 |"), rows


def test_each_flow_run_holds_one_organizations_jobs(client: TestClient, run_jobs, services: Services) -> None:
    """A flow run's tags reach its task runs: a run shared by two organizations would show one's
    documents under the other's tag."""
    from tests.support.helpers import B

    ids = {submit(client, {"raw_text": "a", "mime_type": "text/plain"}).json()["parse_id"]: "org-a",
           client.post("/documents/v2/parse", json={"raw_text": "b", "mime_type": "text/plain"},
                       headers=B).json()["parse_id"]: "org-b"}
    assert run_jobs() == 2
    runs = {jobs_repo.get_job_by_id(services.engine, pid).flow_run_id: org for pid, org in ids.items()}
    assert len(runs) == 2  # one flow run each

    async def tags_of(run_id: str) -> set[str]:
        async with get_client() as c:
            return set((await c.read_flow_run(run_id)).tags)

    for run_id, org in runs.items():
        orgs = {t for t in asyncio.run(tags_of(run_id)) if t.startswith("org:")}
        assert orgs == {f"org:{org}"}


def test_the_managed_prefect_server_records_task_runs_in_batches(prefect_api: str) -> None:
    """One write per task-run event was two thirds of the server's CPU (``bench batch``)."""
    import httpx

    recorder = httpx.get(f"{prefect_api}/admin/settings", timeout=30).json()["server"]["services"]["task_run_recorder"]
    assert (recorder["batch_size"], recorder["flush_interval"]) == (100, 1)
