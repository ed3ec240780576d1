"""The SQL catalog on both backends (SQLite WAL and PostgreSQL): migrations, files and API keys.
The job lease protocol is in test_catalog_leases.py, job listings and tenant scoping in
test_catalog_listing.py.

Every test gets its own empty database: a new SQLite file, or a new PostgreSQL database on the
session's cluster (``tests/support/postgres.py``; the fixtures are in ``conftest.py`` here).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, inspect, select, text

from assets.catalog import files as files_repo
from assets.catalog import keys as keys_repo
from assets.catalog.db import api_keys, migrate
from pipelines.core.records import FileRecord, Page, Principal
from tests.support.catalog_rows import (
    OTHER_ORG_SAME_PROJECT,
    SAME_ORG_OTHER_PROJECT,
    T0,
    P,
    check_walk,
    make_job,
    newest_first,
    row,
)

ROOT = Path(__file__).resolve().parents[2]


def run_concurrently(n: int, fn: Callable[[int], Any]) -> list[Any]:
    """Run ``fn(i)`` for i in range(n) on n threads released together; re-raise any error."""
    results: list[Any] = [None] * n
    errors: list[BaseException] = []
    start = threading.Barrier(n)

    def target(i: int) -> None:
        try:
            start.wait()
            results[i] = fn(i)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    return results


def test_migrations_create_the_schema_on_an_empty_database_and_are_idempotent(
        empty_engine: Engine) -> None:
    assert inspect(empty_engine).get_table_names() == []
    migrate(empty_engine)
    insp = inspect(empty_engine)
    assert {"api_keys", "files", "jobs", "alembic_version"} <= set(insp.get_table_names())
    assert {"ix_jobs_claim", "ix_jobs_scope_created", "ix_jobs_scope_status_created",
            "ix_jobs_scope_dataset_created"} <= {i["name"] for i in insp.get_indexes("jobs")}
    assert "ix_files_scope_created" in {i["name"] for i in insp.get_indexes("files")}

    job = make_job(empty_engine)
    migrate(empty_engine)  # a second run changes nothing and keeps the data
    assert row(empty_engine, job.id).status == "pending"
    with empty_engine.connect() as conn:
        versions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    from alembic.script import ScriptDirectory

    from assets.catalog.db import alembic_config

    head = ScriptDirectory.from_config(alembic_config(str(empty_engine.url))).get_current_head()
    assert versions == [head]


def test_processes_starting_together_can_all_migrate_an_empty_database(
        empty_engine: Engine) -> None:
    # API, dispatcher and workers each migrate at start-up, possibly at the same moment. Real
    # processes: alembic keeps per-run state in module globals, so threads would not be faithful.
    url = empty_engine.url.render_as_string(hide_password=False)
    code = ("import sys; from assets.catalog.db import make_engine, migrate; "
            "e = make_engine(sys.argv[1]); print('ready', flush=True); sys.stdin.read(); migrate(e)")
    procs = [subprocess.Popen([sys.executable, "-c", code, url], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
             for _ in range(4)]
    for pr in procs:
        assert pr.stdout.readline().strip() == "ready", pr.stderr.read()  # type: ignore[union-attr]
    for pr in procs:  # all imported and waiting: release them together
        pr.stdin.close()  # type: ignore[union-attr]
    failures = []
    for pr in procs:
        try:
            pr.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pr.kill()
            pr.wait()
        if pr.returncode != 0:
            failures.append(pr.stderr.read()[-3000:])  # type: ignore[union-attr]
    assert not failures, failures[0]
    assert {"api_keys", "files", "jobs"} <= set(inspect(empty_engine).get_table_names())
    make_job(empty_engine)


def make_file(engine: Engine, p: Principal = P, *, name: str | None = "doc.pdf",
              created_us: int = 0, labels: dict[str, Any] | None = None) -> FileRecord:
    fid = files_repo.new_file_id()
    rec = FileRecord(fid, name, "application/pdf", 1234, "ab" * 32, created_us,
                     files_repo.storage_key(p, fid), labels or {})
    files_repo.insert_file(engine, p, rec)
    return rec


def test_files_insert_get_delete_scoped(catalog_engine: Engine) -> None:
    rec = make_file(catalog_engine, labels={"team": "ops", "n": 1})
    got = files_repo.get_file(catalog_engine, P, rec.id)
    assert got is not None
    assert (got.file_name, got.mime_type, got.file_size, got.checksum_sha256, got.labels,
            got.storage_key) == ("doc.pdf", "application/pdf", 1234, "ab" * 32,
                                 {"team": "ops", "n": 1}, f"files/org-a/proj-a/{rec.id}")
    assert got.created_us > 0  # stamped at insert when not given
    for other in (SAME_ORG_OTHER_PROJECT, OTHER_ORG_SAME_PROJECT):
        assert files_repo.get_file(catalog_engine, other, rec.id) is None
        assert files_repo.delete_file(catalog_engine, other, rec.id) is None
        assert files_repo.list_files(catalog_engine, other, cursor=None, direction="next",
                                     limit=10, file_name=None, created_after=None,
                                     created_before=None).rows == []
    assert files_repo.get_file(catalog_engine, P, rec.id) is not None
    deleted = files_repo.delete_file(catalog_engine, P, rec.id)
    assert deleted is not None and deleted.id == rec.id
    assert files_repo.get_file(catalog_engine, P, rec.id) is None
    assert files_repo.delete_file(catalog_engine, P, rec.id) is None


@pytest.mark.parametrize("limit", [1, 2, 5, 7])
def test_list_files_pages_and_filters(catalog_engine: Engine, limit: int) -> None:
    names = ["report.pdf", "Report-Q1.pdf", "notes.txt", "REPORT.md", "a_b.txt", "x.bin", None]
    made = [make_file(catalog_engine, name=n, created_us=T0 + (i // 2) * 10)
            for i, n in enumerate(names)]
    for other in (SAME_ORG_OTHER_PROJECT, OTHER_ORG_SAME_PROJECT):
        make_file(catalog_engine, other, name="report.pdf", created_us=T0 + 5)

    def list_page(file_name: str | None = None, created_after: int | None = None,
                  created_before: int | None = None, **kw: Any) -> Page:
        return files_repo.list_files(catalog_engine, P, file_name=file_name,
                                     created_after=created_after, created_before=created_before,
                                     **kw)

    check_walk(list_page, newest_first(made), limit)

    def names_of(**kw: Any) -> set[str | None]:
        page = list_page(cursor=None, direction="next", limit=100, **kw)
        assert all(isinstance(r, FileRecord) for r in page.rows)
        return {r.file_name for r in page.rows}

    assert names_of(file_name="Report") == {"Report-Q1.pdf"}
    assert names_of(file_name="report") == {"report.pdf"}
    assert names_of(file_name="REPORT") == {"REPORT.md"}
    assert names_of(file_name="_") == {"a_b.txt"}
    assert names_of(created_after=T0 + 10, created_before=T0 + 30) == {"a_b.txt", "x.bin"}
    zero = list_page(cursor=None, direction="next", limit=0)
    assert zero.rows == [] and not zero.has_more


def test_api_keys_are_idempotent_hashed_and_looked_up(catalog_engine: Engine) -> None:
    token = keys_repo.new_token()
    key_id = keys_repo.add_key(catalog_engine, token, "org-a", "proj-a")
    assert keys_repo.add_key(catalog_engine, token, "org-a", "proj-a") == key_id
    assert keys_repo.count_keys(catalog_engine) == 1
    assert keys_repo.lookup(catalog_engine, token) == Principal("org-a", "proj-a", key_id)
    assert keys_repo.lookup(catalog_engine, "dl_unknown") is None
    assert keys_repo.lookup(catalog_engine, "") is None

    other = keys_repo.create_key(catalog_engine, "org-b", "proj-b")
    assert other != token and keys_repo.count_keys(catalog_engine) == 2
    found = keys_repo.lookup(catalog_engine, other)
    assert found is not None and (found.organization_id, found.project_id) == ("org-b", "proj-b")

    with catalog_engine.connect() as conn:
        stored = [dict(r) for r in conn.execute(select(api_keys)).mappings()]
    for r in stored:
        for value in r.values():
            assert token not in str(value) and other not in str(value)
    assert {r["key_hash"] for r in stored} == {keys_repo.hash_key(token), keys_repo.hash_key(other)}


def test_add_key_is_idempotent_under_concurrent_start_up(catalog_engine: Engine) -> None:
    # Every process registers the configured keys at start-up, possibly at the same moment.
    for n in range(1, 6):
        token = keys_repo.new_token()
        got = run_concurrently(
            6, lambda _i: keys_repo.add_key(catalog_engine, token, "org-a", "proj-a"))  # noqa: B023
        assert len(set(got)) == 1
        assert keys_repo.count_keys(catalog_engine) == n
        assert keys_repo.lookup(catalog_engine, token) == Principal("org-a", "proj-a", got[0])


def test_configured_keys_follow_the_configuration_and_keys_can_be_revoked(catalog_engine: Engine) -> None:
    keys_repo.sync_configured(catalog_engine, [("tok1", "org-a", "p"), ("tok2", "org-b", "p")])
    made = keys_repo.create_key(catalog_engine, "org-c", "p")
    assert keys_repo.lookup(catalog_engine, "tok1").organization_id == "org-a"
    # the configuration moves tok1 to org-b and drops tok2; a key made with the CLI stays
    keys_repo.sync_configured(catalog_engine, [("tok1", "org-b", "p2")])
    moved = keys_repo.lookup(catalog_engine, "tok1")
    assert (moved.organization_id, moved.project_id) == ("org-b", "p2")
    assert keys_repo.lookup(catalog_engine, "tok2") is None
    assert keys_repo.lookup(catalog_engine, made).organization_id == "org-c"
    assert keys_repo.revoke(catalog_engine, made) and keys_repo.lookup(catalog_engine, made) is None
    assert not keys_repo.revoke(catalog_engine, made)
