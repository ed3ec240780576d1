"""The client commands as a user runs them against a running docklake: ``docklake submit`` a
folder into a dataset (one bad document does not stop the rest; a re-run skips what is done),
then ``datasets`` and ``jobs`` to look at it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.e2e.test_service_e2e import first_key, start_service, stop
from tests.support import docgen

pytestmark = pytest.mark.e2e


def docklake(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "api.cli.main", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def outcomes(summary: str) -> dict[str, int]:
    """The rows of the summary table: outcome → documents."""
    return {m[1]: int(m[2]) for m in re.finditer(r"│ (\w+)\s*│\s*(\d+) │", summary)}


def test_submit_a_folder_then_look_at_it(tmp_path: Path, prefect_api: str) -> None:
    svc = start_service(tmp_path / "svc", prefect_api)
    try:
        key = first_key(svc)
        env = {**svc.env, "TENSORLAKE_API_URL": svc.base, "TENSORLAKE_API_KEY": key, "COLUMNS": "200"}
        docs = tmp_path / "inbox"
        (docs / "2026" / "march").mkdir(parents=True)
        (docs / "memo.md").write_text("# Memo\n\nShip on Friday.\n")
        (docs / "notes.txt").write_text("plain notes\n")
        (docs / "2026" / "march" / "report.pdf").write_bytes(docgen.text_pdf(pages=2).data)
        (docs / "2026" / "broken.pdf").write_bytes(b"%PDF-1.7\n this is not a PDF")
        (docs / "same-as-memo.md").write_text("# Memo\n\nShip on Friday.\n")  # same bytes: one upload

        first = docklake(env, "submit", str(docs), "--dataset", "inbox", "--wait", "--concurrency", "3")
        assert first.returncode == 1, first.stdout + first.stderr  # one document failed
        assert outcomes(first.stdout) == {"successful": 4, "failure": 1}, first.stdout
        assert "upload" in first.stderr and "processing" in first.stderr  # the progress bars
        assert "2026/broken.pdf" in first.stdout and "damaged" in first.stdout
        h = {"Authorization": f"Bearer {key}"}
        files = httpx.get(svc.base + "/documents/v2/files", headers=h).json()["items"]
        assert len(files) == 4  # the two identical memos were uploaded once

        # a re-run skips the four done, retries the failed one, and uploads nothing again
        again = docklake(env, "submit", str(docs), "--dataset", "inbox", "--wait")
        assert again.returncode == 1
        assert outcomes(again.stdout) == {"skipped": 4, "failure": 1}, again.stdout
        assert len(httpx.get(svc.base + "/documents/v2/files", headers=h).json()["items"]) == 4

        shown = json.loads(docklake(env, "datasets", "show", "inbox").stdout)
        assert shown["status"] == "idle"
        assert shown["analytics"]["total_successful_parse_jobs"] == 4
        assert shown["analytics"]["total_error_parse_jobs"] == 2  # the broken PDF, twice
        jobs = json.loads(docklake(env, "jobs", "list", "--dataset", "inbox", "--json").stdout)
        paths = sorted({j["labels"]["path"] for j in jobs})
        assert paths == ["2026/broken.pdf", "2026/march/report.pdf", "memo.md", "notes.txt", "same-as-memo.md"]
        report = next(j for j in jobs if j["labels"]["path"] == "2026/march/report.pdf")
        watched = docklake(env, "jobs", "watch", report["parse_id"])
        assert watched.returncode == 0 and "parse_done: successful" in watched.stderr
        broken = next(j for j in jobs if j["labels"]["path"] == "2026/broken.pdf")
        assert docklake(env, "jobs", "watch", broken["parse_id"]).returncode == 1

        # SQL over the results, from the command line
        counted = json.loads(docklake(env, "query", "select status, count(*) as n from jobs group by 1 order by 1",
                                      "--dataset", "inbox", "--json").stdout)
        assert counted == [{"status": "failure", "n": 2}, {"status": "successful", "n": 4}]
        as_csv = docklake(env, "query", "select count(*) as pages from pages", "--csv").stdout.split()
        assert as_csv == ["pages", "5"]  # 2 + 1 + 1 + 1
        table = docklake(env, "query", "select parse_id from documents limit 2")
        assert table.returncode == 0 and "2 rows" in table.stdout

        wrong_key = docklake({**env, "TENSORLAKE_API_KEY": "dl_not_a_key"}, "datasets", "list")
        assert wrong_key.returncode == 1 and "401" in wrong_key.stderr
        deleted = docklake(env, "datasets", "delete", "inbox")
        assert deleted.returncode == 0 and "deleted inbox (6 jobs)" in deleted.stdout
        assert "inbox" not in docklake(env, "datasets", "list").stdout
    finally:
        stop(svc)


def test_submit_by_reference_takes_a_folder_without_uploads(tmp_path: Path, prefect_api: str) -> None:
    """``docklake submit FOLDER --by-reference``: the server lists the folder it was allowed and
    reads the documents there; nothing is uploaded, and a re-run takes only what is new."""
    docs = tmp_path / "shared-inbox"
    (docs / "2026").mkdir(parents=True)
    (docs / "memo.md").write_text("# Memo\n\nShip on Friday.\n")
    (docs / "2026" / "report.pdf").write_bytes(docgen.text_pdf(pages=2).data)
    (docs / "2026" / "broken.pdf").write_bytes(b"%PDF-1.7\n this is not a PDF")
    svc = start_service(tmp_path / "svc", prefect_api, DOCKLAKE_INGEST__ROOTS=json.dumps([str(docs)]))
    try:
        key = first_key(svc)
        env = {**svc.env, "TENSORLAKE_API_URL": svc.base, "TENSORLAKE_API_KEY": key, "COLUMNS": "200"}
        first = docklake(env, "submit", str(docs), "--dataset", "shared", "--by-reference", "--wait")
        assert first.returncode == 1, first.stdout + first.stderr  # the broken PDF failed
        assert "listed" in first.stderr and "parsed" in first.stderr  # the progress bars
        rows = {m[1].strip(): int(m[2]) for m in re.finditer(r"│ ([\w ]+?)\s*│\s*(\d+) │", first.stdout)}
        assert rows == {"jobs made": 3, "already in the dataset": 0, "successful": 2, "failure": 1}, first.stdout
        assert "2026/broken.pdf" in first.stdout
        h = {"Authorization": f"Bearer {key}"}
        assert httpx.get(svc.base + "/documents/v2/files", headers=h).json()["items"] == []  # nothing uploaded

        (docs / "new.md").write_text("# New\n\nA late note.\n")
        again = docklake(env, "submit", str(docs), "--dataset", "shared", "--by-reference", "--wait")
        assert again.returncode == 0, again.stdout + again.stderr
        rows = {m[1].strip(): int(m[2]) for m in re.finditer(r"│ ([\w ]+?)\s*│\s*(\d+) │", again.stdout)}
        assert rows == {"jobs made": 1, "already in the dataset": 3, "successful": 1}, again.stdout

        refused = docklake(env, "submit", str(tmp_path), "--dataset", "shared", "--by-reference")
        assert refused.returncode == 1 and "DOCKLAKE_INGEST__ROOTS" in refused.stderr
    finally:
        stop(svc)
