"""What a person watching docklake sees in a real browser (headless Chromium from Debian): the
Prefect UI, the Dagster UI and the API's own /docs and /redoc, on a docklake started as a user
starts it (`docklake serve`) with a few real jobs, one of them a damaged PDF.

Screenshots of every page checked are saved under ``test-artifacts/browser/`` (paths printed).
Assertions read the page's visible text, never the API behind it.
"""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.e2e.test_service_e2e import Service, first_key, start_service, stop, wait_terminal
from tests.support import docgen
from tests.support.browser import Browser, Dagster, browser, start_dagster, stop_dagster

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

# The Prefect server is shared by the whole test session: names and tags carry a token of this
# module's own, so nothing another test submitted can satisfy (or spoil) these assertions.
TOKEN = secrets.token_hex(3)
ORG, PROJECT, DATASET = f"ui-{TOKEN}", "reports", "field-reports"
REPORT, NOTES, DAMAGED = f"report-{TOKEN}.pdf", f"notes-{TOKEN}.txt", f"damaged-{TOKEN}.pdf"
OTHER = f"other-{TOKEN}.txt"  # submitted by another organization (the first-start key's)


@dataclass
class World:
    svc: Service
    prefect_ui: str
    dagster: Dagster
    error: str  # the damaged PDF's job error, as the API reports it
    dataset_id: str


def upload_and_parse(base: str, key: str, name: str, data: bytes, dataset_id: str | None = None) -> str:
    h = {"Authorization": f"Bearer {key}"}
    f = httpx.put(f"{base}/documents/v2/files", files={"file": (name, data)}, headers=h, timeout=30)
    assert f.status_code == 200, f.text
    into = f"/documents/v2/datasets/{dataset_id}/parse" if dataset_id else "/documents/v2/parse"
    r = httpx.post(f"{base}{into}", json={"file_id": f.json()["file_id"]}, headers=h, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()["parse_id"]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, prefect_api: str) -> Iterator[World]:
    root = tmp_path_factory.mktemp("browser-ui")
    svc = start_service(root / "svc", prefect_api)
    dagster = None
    try:
        default_key = first_key(svc)
        key = subprocess.run([sys.executable, "-m", "api.cli.main", "keys", "create", "--org", ORG, "--project",
                              PROJECT, "--data-dir", str(svc.data_dir)],
                             capture_output=True, text=True, env=svc.env, check=True).stdout.strip()
        made = httpx.post(f"{svc.base}/documents/v2/datasets", json={"name": DATASET},
                          headers={"Authorization": f"Bearer {key}"}, timeout=30)
        assert made.status_code == 200, made.text
        dataset_id = made.json()["dataset_id"]
        ids = {
            REPORT: upload_and_parse(svc.base, key, REPORT, docgen.text_pdf(pages=3).data, dataset_id),
            NOTES: upload_and_parse(svc.base, key, NOTES, b"Field notes\n\nThe pump was replaced on Monday.\n",
                                    dataset_id),
            DAMAGED: upload_and_parse(svc.base, key, DAMAGED, b"%PDF-1.7\n1 0 obj << /Type /Catalog", dataset_id),
        }
        # The dispatcher claims whatever is queued when it looks: these three may run as one batch
        # (flow run) or as several, so nothing below counts on how they were grouped.
        done = wait_terminal(svc.base, key, list(ids.values()))
        # Another organization's job, once these are done: a worker's batch (one flow run) may mix
        # organizations, and its task runs then carry every organization's tag (see docs/scale-out.md).
        wait_terminal(svc.base, default_key,
                      [upload_and_parse(svc.base, default_key, OTHER, b"another organization's memo")])
        assert {n: done[i]["status"] for n, i in ids.items()} == \
            {REPORT: "successful", NOTES: "successful", DAMAGED: "failure"}
        error = done[ids[DAMAGED]]["error"]
        assert error
        # Dagster as docs/scale-out.md starts it, on the service's catalog and storage: its daemon runs the
        # sensor, which is on by default, so nobody turns anything on here. It starts while the
        # Prefect UI is checked.
        dagster = start_dagster(root / "dagster", {**svc.env, "DOCKLAKE_DATA_DIR": str(svc.data_dir)})
        yield World(svc, prefect_api.removesuffix("/api"), dagster, error, dataset_id)
    finally:
        if dagster is not None:
            stop_dagster(dagster)
        stop(svc)


@pytest.fixture(scope="module")
def page() -> Iterator[Browser]:
    with browser() as b:
        yield b


def task_link(page: Browser, name: str):  # type: ignore[no-untyped-def]
    """The link to the task run whose name holds ``name``: ``parse …``, never the flow run's
    link beside it (a batch's name lists its documents too)."""
    def found():  # type: ignore[no-untyped-def]
        return next((a for a in page.driver.find_elements("css selector", "a")
                     if a.is_displayed() and a.text.startswith("parse ") and name in a.text), None)

    return page.wait_until(f"a task run link showing {name!r}", found, timeout=30)


def row_of(page: Browser, name: str) -> str:
    """The visible text of the task-run list row for the task run whose name holds ``name``."""
    return task_link(page, name).find_element(
        "xpath", "ancestor::*[contains(concat(' ', @class, ' '), ' task-run-list-item ')][1]").text


def task_runs(page: Browser, ui: str, query: str = "") -> None:
    page.open(f"{ui}/runs?tab=task-runs{query}")
    page.wait_text("Task runs", "Search by task run name", timeout=60)


def search(page: Browser, placeholder: str, text: str) -> None:
    box = page.find(f"input[placeholder='{placeholder}']")
    box.clear()
    box.send_keys(text)


def test_prefect_shows_the_damaged_pdf_as_a_failed_task_run_with_its_error(world: World, page: Browser) -> None:
    task_runs(page, world.prefect_ui)
    # small documents run in chunks, a task run each named after its documents ("parse 3
    # documents (report….pdf, …)", or "parse notes….txt" alone); a failed one has a run of its own
    page.wait_text(f"parse {DAMAGED}", REPORT, NOTES, timeout=60)
    page.shot("prefect-task-runs")
    assert "Failed" in row_of(page, f"parse {DAMAGED}").splitlines()
    for name in (REPORT, NOTES):
        assert "Completed" in row_of(page, name).splitlines()

    page.find("a", visible_text=f"parse {DAMAGED}").click()
    # the batch it ran in is named for its organization, dataset and documents; the Logs tab
    # (open first) shows the job's error
    first_line = world.error.splitlines()[0]
    text = page.wait_text("Task configuration", "kind:parse", f"{ORG}/{DATASET}: ", first_line, timeout=30)
    page.shot("prefect-failed-task-run")
    batch = next(ln for ln in text.splitlines() if ln.startswith(f"{ORG}/{DATASET}: "))
    assert re.match(rf"{re.escape(ORG)}/{DATASET}: \d+ documents? \(.*{re.escape(DAMAGED)}.*\) — .*1 failure", batch), \
        batch
    header = text[: text.index("Logs")]
    assert f"parse {DAMAGED}" in header and "Failed" in header.splitlines()
    logs = text[text.index("Logs"):]
    assert "ERROR" in logs.splitlines() and f"parse {DAMAGED}: failure" in logs
    tags = {t for t in text.splitlines() if t.startswith(("org:", "project:", "kind:", "dataset:"))}
    assert tags == {f"org:{ORG}", f"project:{PROJECT}", "kind:parse", f"dataset:{DATASET}"}


def _cells(text: str) -> dict[str, str]:
    """A two-column table's rows ("key<TAB>value"), the first of each key."""
    rows: dict[str, str] = {}
    for ln in text.splitlines():
        if "\t" in ln:
            key, value = (c.strip() for c in ln.split("\t", 1))
            rows.setdefault(key, value)
    return rows


def test_prefect_shows_what_a_troubled_job_found(world: World, page: Browser) -> None:
    """A job that failed or met problems publishes a markdown report on its task run's Artifacts tab."""
    task_runs(page, world.prefect_ui)
    page.find("a", visible_text=f"parse {DAMAGED}").click()
    page.wait_text("Task configuration", timeout=30)
    page.click_text("Artifacts")
    page.click_text(f"parse {DAMAGED}: what the job found")
    text = page.wait_text("outcome", "Problems", timeout=30)
    page.shot("prefect-job-report-artifact")
    rows = _cells(text)  # the job's table comes first
    assert rows["outcome"] == "failure" and rows["dataset"] == DATASET
    assert world.error.splitlines()[0][:60] in text


def test_prefect_shows_what_each_job_of_a_batch_found(world: World, page: Browser) -> None:
    """Each batch (flow run) publishes one markdown table with a row per job, clean ones too."""
    task_runs(page, world.prefect_ui)
    task_link(page, REPORT).click()  # the chunk that parsed it
    text = page.wait_text("Task configuration", f"{ORG}/{DATASET}: ", timeout=30)
    batch = next(ln for ln in text.splitlines() if ln.startswith(f"{ORG}/{DATASET}: "))
    page.find("a", visible_text=batch).click()  # the flow run the job ran in
    page.wait_text("Subflow Runs", "Artifacts", timeout=30)
    page.click_text("Artifacts")
    page.click_text("what each job found", exact=False)
    text = page.wait_text("outcome", f"parse {REPORT}", timeout=30)
    page.shot("prefect-batch-report-artifact")
    row = next(ln for ln in text.splitlines() if ln.startswith(f"parse {REPORT}\t")).split("\t")
    assert [c.strip() for c in row[2:4]] == ["successful", "3 of 3"], row


def test_prefect_finds_a_run_by_file_name(world: World, page: Browser) -> None:
    task_runs(page, world.prefect_ui)
    page.wait_text(f"parse {DAMAGED}", f"parse {OTHER}", timeout=60)
    search(page, "Search by task run name", DAMAGED)
    # its failed run, and the chunk it ran in when it shared one
    page.wait_until("the damaged PDF's runs listed, no other organization's",
                    lambda: (t := page.text()) and f"parse {DAMAGED}" in t and OTHER not in t
                    and {"1 run", "2 runs"} & set(t.splitlines()), timeout=30)
    page.shot("prefect-search-task-run-by-file-name")
    assert "Failed" in row_of(page, f"parse {DAMAGED}").splitlines()
    search(page, "Search by task run name", REPORT)
    page.wait_until("the one task run that parsed the report listed",
                    lambda: (t := page.text()) and REPORT in t and f"parse {DAMAGED}" not in t
                    and OTHER not in t and "1 run" in t.splitlines(), timeout=30)
    assert "Completed" in row_of(page, REPORT).splitlines()

    # the batch (flow run) is found by any of its documents' names too
    page.open(f"{world.prefect_ui}/runs")
    search(page, "Search by flow run name", REPORT)
    def batch_of_report() -> bool:
        lines = page.text().splitlines()
        return "1 run" in lines and not any(OTHER in ln for ln in lines) and any(
            ln.startswith(f"{ORG}/{DATASET}: ") and REPORT in ln for ln in lines)

    page.wait_until("only the batch holding the report listed", batch_of_report, timeout=30)
    page.shot("prefect-search-flow-run-by-file-name")


def test_prefect_finds_runs_by_tag(world: World, page: Browser) -> None:
    from selenium.webdriver.common.by import By

    page.open(f"{world.prefect_ui}/runs")
    page.wait_text(f"{ORG}/{DATASET}", OTHER, timeout=60)
    # the Tags filter offers the organizations' tags; pick this organization's
    page.find(".flow-run-tags-input select").click()
    page.driver.find_element(By.CSS_SELECTOR, f".flow-run-tags-input option[value='org:{ORG}']").click()
    page.wait_until("the other organization's batch filtered out",
                    lambda: (t := page.text()) and f"{ORG}/{DATASET}" in t and OTHER not in t, timeout=30)
    page.shot("prefect-flow-runs-by-org-tag")
    page.find("button", visible_text="Task runs").click()
    page.wait_until("this organization's task runs and no other's",
                    lambda: (t := page.text()) and all(n in t for n in (REPORT, NOTES, f"parse {DAMAGED}"))
                    and OTHER not in t, timeout=30)
    page.shot("prefect-task-runs-by-org-tag")

    # task runs carry their kind and dataset: a link filtered on them lists these, kind:read none
    task_runs(page, world.prefect_ui, f"&tag=org:{ORG}&tag=kind:parse&tag=dataset:{DATASET}")
    page.wait_text(f"parse {DAMAGED}", REPORT, NOTES, timeout=30)
    task_runs(page, world.prefect_ui, f"&tag=org:{ORG}&tag=kind:read")
    page.wait_text("No task runs", timeout=30)
    assert f"parse {DAMAGED}" not in page.text()
    page.shot("prefect-task-runs-kind-read-none")


def metadata_value(text: str, key: str) -> str:
    """The value shown beside ``key`` in a Dagster metadata table (skipping a timestamp column)."""
    import re

    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    after = lines[lines.index(key) + 1:]
    return next(v for v in after if not re.fullmatch(r"[A-Z][a-z]{2} \d+, \d+:\d\d [AP]M", v))


def dismiss_dagster_welcome(page: Browser, loaded: str) -> None:
    """Dagster's first visit opens a "Join the Dagster community" dialog over the page, a moment
    after the page itself (``loaded`` is text of the page): Skip it."""
    seen = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        t = page.text()
        if "Join the Dagster community" in t:
            page.click_text("Skip")
            page.wait_until("the welcome dialog gone", lambda: "Join the Dagster community" not in page.text())
            return
        if loaded in t:
            seen = seen or time.monotonic()
            if time.monotonic() - seen > 1.5:
                return
        time.sleep(0.25)


def test_dagster_sensor_materialises_the_datasets_partition(world: World, page: Browser) -> None:
    ui, mine, theirs = world.dagster.url, f"{ORG}/{PROJECT}/{world.dataset_id}", "default/default/_"
    world.dagster.wait_ready()
    # the sensor's switch on the Automation page is on, without anyone having touched it
    page.open(f"{ui}/automation")
    dismiss_dagster_welcome(page, "finished_jobs_sensor")
    page.wait_text("finished_jobs_sensor", "Standard sensor", timeout=30)
    def switch() -> list[bool] | None:
        return page.driver.execute_script("""
            const name = [...document.querySelectorAll('*')].find(
                e => e.children.length === 0 && e.textContent.trim() === 'finished_jobs_sensor');
            for (let row = name; row; row = row.parentElement) {
                const boxes = row.querySelectorAll('input[type=checkbox]');
                if (boxes.length >= 2) return [boxes[boxes.length - 1].checked];  // [select, switch]
            }
            return null;""")

    page.wait_until("the sensor's row with its on/off switch", switch, timeout=30)
    # the row shows before the sensor's state has loaded (the switch off until then): wait for it
    deadline = time.monotonic() + 30
    while (switch_on := switch()) != [True] and time.monotonic() < deadline:
        time.sleep(0.5)
    page.shot("dagster-automation")
    assert switch_on == [True]

    page.open(f"{ui}/assets/dataset_tables?view=partitions")
    # the sensor (on by default) adds both datasets' partitions and materialises them; the page
    # refreshes its counts by itself
    deadline, reloaded, seen, undefined_since = time.monotonic() + 120, 0.0, [], None
    while True:
        t = page.text()
        if "Join the Dagster community" in t:  # in case it opened late
            page.click_text("Skip")
            continue
        if "Materialized (2)" in t and "Missing (0)" in t and mine in t and theirs in t:
            break
        if time.monotonic() > deadline:
            page.shot("dagster-partitions-timeout")
            raise AssertionError(f"partitions not materialised; the API said: {seen[-3:]}; page:\n{t[:2000]}\n"
                                 f"dagster dev:\n{world.dagster.output()[-3000:]}")
        # until its definition query answers, the page shows the asset as external, with no
        # partitions tab: a loaded machine can take seconds. Only if it still does after 15 s,
        # ask the API; if the webserver lost the location's definitions (seen once on a loaded
        # machine), Reload, as a person would; then open the page again
        if "Materialized (" in t or "External Asset" not in t:
            undefined_since = None
        elif undefined_since is None:
            undefined_since = time.monotonic()
        elif time.monotonic() - undefined_since > 15:
            world.dagster.wait_ready()
            seen.append(state := world.dagster.asset_state("dataset_tables"))
            if state != "defined" and time.monotonic() - reloaded > 20:
                world.dagster.graphql("mutation { reloadWorkspace { __typename } }")
                reloaded = time.monotonic()
                world.dagster.wait_ready()
            page.open(f"{ui}/assets/dataset_tables?view=partitions")
            undefined_since = None
        time.sleep(2)
    page.shot("dagster-partitions")
    # the list truncates long keys in the middle (`ui-…/reports…78fcb`): click the one of this org
    page.click_text(f"{ORG}/{PROJECT}", exact=False)
    page.wait_text("failed_documents", "pages_parsed", timeout=30)
    page.shot("dagster-partition-materialisation")
    text = page.text()
    assert metadata_value(text, "dataset") == DATASET
    assert {k: metadata_value(text, k) for k in ("documents", "successful_jobs", "failed_jobs", "pages_parsed")} \
        == {"documents": "3", "successful_jobs": "2", "failed_jobs": "1", "pages_parsed": "4"}
    failed_cell = text.split("failed_documents", 1)[1].split("path", 1)[0]
    assert DAMAGED in failed_cell and world.error[:40] in " ".join(failed_cell.split())
    assert REPORT not in failed_cell and NOTES not in failed_cell

    page.open(f"{ui}/assets/dataset_stats")
    # the overview shows the figures of the partition materialised last, and names it
    text = str(page.wait_until("dataset_stats' latest materialisation and its partition", lambda: (
        t := page.text()) and "failed_jobs" in t and "jobs_by_kind" in t and "Description" in t
        and (mine in (head := t.split("Description", 1)[0]) or theirs in head) and t, timeout=30))
    page.shot("dagster-dataset-stats")
    assert "figures computed by DuckDB" in text
    latest = mine if mine in text.split("Description", 1)[0] else theirs
    expected = {"failed_jobs": "1", "successful_jobs": "2", "pages": "4"} if latest == mine else \
        {"failed_jobs": "0", "successful_jobs": "1", "pages": "1"}
    assert {k: metadata_value(text, k) for k in expected} == expected

    page.open(f"{ui}/assets/dataset_tables?view=checks")
    text = page.wait_text("documents_match_the_catalog", "Passed", timeout=60)
    page.shot("dagster-asset-check")


def fetched_elsewhere(page: Browser, base: str) -> list[tuple[str, str]]:
    """What the page fetched from anywhere but the service: (kind, url)."""
    entries = page.driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => [e.initiatorType, e.name])")
    return [(kind, url) for kind, url in entries if not url.startswith(base + "/")]


def test_docs_and_redoc_render_offline(world: World, page: Browser) -> None:
    base = world.svc.base
    page.open(f"{base}/docs")
    text = page.wait_text("Create Parse", "Upload File", "/documents/v2/parse", timeout=30)
    page.shot("docs-swagger-ui")
    assert {"POST", "PUT", "GET", "DELETE"} <= set(text.split())
    assert fetched_elsewhere(page, base) == []

    page.open(f"{base}/redoc")
    text = page.wait_text("Download OpenAPI specification", "Create Parse", "/documents/v2/parse", timeout=30)
    page.shot("docs-redoc")
    # Redoc's script asks its vendor's CDN for the logo of its footer; the page's policy allows
    # images from docklake only (the browser still lists the refused request). Everything else
    # the page needs is served by docklake.
    assert [(k, u) for k, u in fetched_elsewhere(page, base) if k != "img"] == []
    assert httpx.get(f"{base}/redoc").headers["content-security-policy"] == "img-src 'self' data:"


def test_dagster_graphql_reads_the_assets_and_the_partitions_materialisation(world: World) -> None:
    """What a script watching Dagster reads: the assets and a dataset's latest materialisation,
    through the webserver's GraphQL API (after the sensor test above materialised it)."""
    mine = f"{ORG}/{PROJECT}/{world.dataset_id}"
    query = """
    query ($partition: String!) {
      assetNodes { assetKey { path } description }
      assetOrError(assetKey: {path: ["dataset_tables"]}) {
        ... on Asset {
          assetMaterializations(partitions: [$partition], limit: 1) {
            partition
            metadataEntries {
              label
              ... on IntMetadataEntry { intValue }
              ... on TextMetadataEntry { text }
            }
          }
        }
      }
    }"""
    deadline = time.monotonic() + 120
    while True:
        got = httpx.post(f"{world.dagster.url}/graphql", json={"query": query, "variables": {"partition": mine}},
                         timeout=30).json()["data"]
        done = got["assetOrError"]["assetMaterializations"]
        if done or time.monotonic() > deadline:
            break
        time.sleep(2)
    assets = {"/".join(n["assetKey"]["path"]): n["description"] for n in got["assetNodes"]}
    assert {"dataset_tables", "dataset_stats"} <= set(assets) and "typed Parquet" in assets["dataset_tables"]
    (made,) = done
    meta = {e["label"]: e.get("intValue", e.get("text")) for e in made["metadataEntries"]}
    assert made["partition"] == mine and meta["dataset"] == DATASET
    assert {k: meta[k] for k in ("documents", "failed_jobs", "pages", "pages_parsed")} == \
        {"documents": 3, "failed_jobs": 1, "pages": 4, "pages_parsed": 4}
