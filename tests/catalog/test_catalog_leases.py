"""The job lease protocol workers rely on, on both catalog backends: claims hand each job to one
worker, oldest first and organizations in turn; leases are renewed, released, or expire and are
reclaimed, and a job abandoned too often fails. Apart from test_catalog.py because this is the
contract the dispatcher and workers are built on."""

from __future__ import annotations

import threading
import time

from sqlalchemy import Engine

from assets.catalog import jobs as jobs_repo
from assets.catalog import turns
from assets.catalog.db import now_us
from pipelines.core.records import Principal
from tests.support.catalog_rows import T0, make_job, row


def wait_lease_expired(engine: Engine, job_id: str) -> None:
    """Sleep just past the job's lease expiry (the worker 'died' and stopped renewing)."""
    expires = row(engine, job_id).lease_expires_us
    time.sleep(max(0.0, (expires - now_us()) / 1e6) + 0.02)


def test_concurrent_claims_hand_each_job_to_exactly_one_worker(catalog_engine: Engine) -> None:
    n_jobs, n_workers = 60, 6
    all_ids = {make_job(catalog_engine).id for _ in range(n_jobs)}
    got: dict[str, list[str]] = {f"worker-{i}": [] for i in range(n_workers)}
    errors: list[BaseException] = []
    start = threading.Barrier(n_workers)

    def work(owner: str) -> None:
        try:
            start.wait()
            while batch := jobs_repo.claim(catalog_engine, owner, limit=3, lease_s=60):
                got[owner].extend(j.id for j in batch)
                assert all(j.lease_owner == owner and j.status == "processing"
                           for j in batch)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(o,)) for o in got]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    claimed = [i for lst in got.values() for i in lst]
    assert len(claimed) == len(set(claimed)), "a job was handed to two workers"
    assert set(claimed) == all_ids
    for owner, lst in got.items():
        for job_id in lst:
            r = row(catalog_engine, job_id)
            assert (r.lease_owner, r.status, r.attempts) == (owner, "processing", 1)
    assert jobs_repo.claim(catalog_engine, "late", limit=10, lease_s=60) == []


def test_claim_takes_oldest_pending_first_and_respects_limit(catalog_engine: Engine) -> None:
    made = [make_job(catalog_engine, created_us=T0 + i).id for i in range(5)]
    first = jobs_repo.claim(catalog_engine, "w1", limit=2, lease_s=60)
    assert [j.id for j in first] == made[:2]
    assert all(j.attempts == 1 and j.started_us for j in first)
    done = jobs_repo.finish(catalog_engine, "w1", made[0], 1, status="successful", error=None,
                            result_key="results/x", total_pages=3, parsed_pages_count=3)
    assert done
    r = row(catalog_engine, made[0])
    assert (r.status, r.lease_owner, r.result_key, r.total_pages) == (
        "successful", None, "results/x", 3)
    assert r.finished_us >= r.started_us
    # A finished job is never claimed again, nor finished twice.
    rest = jobs_repo.claim(catalog_engine, "w2", limit=10, lease_s=60)
    assert [j.id for j in rest] == made[2:]
    assert not jobs_repo.finish(catalog_engine, "w1", made[0], 1, status="failure", error="x",
                                result_key=None, total_pages=None, parsed_pages_count=0)
    assert row(catalog_engine, made[0]).status == "successful"


def test_expired_lease_is_reclaimed_and_the_old_owner_cannot_finish(catalog_engine: Engine) -> None:
    job = make_job(catalog_engine)
    [a] = jobs_repo.claim(catalog_engine, "worker-a", limit=5, lease_s=0.2)
    assert a.attempts == 1
    # While the lease runs nobody else gets the job.
    assert jobs_repo.claim(catalog_engine, "worker-b", limit=5, lease_s=0.2) == []
    wait_lease_expired(catalog_engine, job.id)  # worker-a died

    [b] = jobs_repo.claim(catalog_engine, "worker-b", limit=5, lease_s=60)
    assert (b.id, b.lease_owner, b.attempts, b.status) == (
        job.id, "worker-b", 2, "processing")

    # worker-a comes back and tries to close the job: refused, the row stays worker-b's.
    assert not jobs_repo.finish(catalog_engine, "worker-a", job.id, 1, status="failure",
                                error="stale", result_key=None, total_pages=None,
                                parsed_pages_count=0)
    r = row(catalog_engine, job.id)
    assert (r.status, r.lease_owner, r.attempts, r.error, r.finished_us) == (
        "processing", "worker-b", 2, None, None)
    assert jobs_repo.finish(catalog_engine, "worker-b", job.id, 2, status="successful",
                            error=None, result_key="results/y", total_pages=1,
                            parsed_pages_count=1)
    assert row(catalog_engine, job.id).status == "successful"


def test_job_abandoned_max_attempts_times_ends_in_failure(catalog_engine: Engine) -> None:
    job = make_job(catalog_engine)
    for attempt in range(1, 3 + 1):
        [c] = jobs_repo.claim(catalog_engine, f"worker-{attempt}", limit=1, lease_s=0.2)
        assert c.attempts == attempt
        wait_lease_expired(catalog_engine, job.id)
    assert jobs_repo.claim(catalog_engine, "worker-last", limit=1, lease_s=0.2) == []
    r = row(catalog_engine, job.id)
    assert r.status == "failure"
    assert r.error and "abandoned" in r.error
    assert r.finished_us is not None and r.lease_owner is None
    # It stays failed.
    time.sleep(0.05)
    assert jobs_repo.claim(catalog_engine, "worker-later", limit=1, lease_s=0.2) == []
    assert row(catalog_engine, job.id).status == "failure"


def test_renew_extends_only_the_callers_leases(catalog_engine: Engine) -> None:
    j1 = make_job(catalog_engine, created_us=T0 + 1).id
    j2 = make_job(catalog_engine, created_us=T0 + 2).id
    assert [j.id for j in jobs_repo.claim(catalog_engine, "a", limit=1, lease_s=0.2)] == [j1]
    assert [j.id for j in jobs_repo.claim(catalog_engine, "b", limit=1, lease_s=0.2)] == [j2]
    b_expiry = row(catalog_engine, j2).lease_expires_us

    assert jobs_repo.renew(catalog_engine, "a", [j1, j2], lease_s=60) == 1
    assert row(catalog_engine, j1).lease_expires_us > now_us() + 50e6
    assert row(catalog_engine, j2).lease_expires_us == b_expiry
    assert jobs_repo.renew(catalog_engine, "a", [], lease_s=60) == 0

    # After both old leases would have expired, only b's job can be taken over.
    wait_lease_expired(catalog_engine, j2)
    taken = jobs_repo.claim(catalog_engine, "c", limit=5, lease_s=60)
    assert [j.id for j in taken] == [j2]
    assert row(catalog_engine, j1).lease_owner == "a"
    # b lost its job: renewing it no longer works.
    assert jobs_repo.renew(catalog_engine, "b", [j2], lease_s=60) == 0
    assert row(catalog_engine, j2).lease_owner == "c"


def test_release_returns_only_the_owners_jobs_to_pending(catalog_engine: Engine) -> None:
    made = [make_job(catalog_engine, created_us=T0 + i).id for i in range(4)]
    a = [j.id for j in jobs_repo.claim(catalog_engine, "a", limit=2, lease_s=60)]
    b = [j.id for j in jobs_repo.claim(catalog_engine, "b", limit=1, lease_s=60)]
    assert a == made[:2] and b == made[2:3]

    assert jobs_repo.release(catalog_engine, "a") == 2
    for job_id in a:
        r = row(catalog_engine, job_id)
        assert (r.status, r.lease_owner, r.lease_expires_us, r.attempts) == (
            "pending", None, None, 0)
    r = row(catalog_engine, b[0])
    assert (r.status, r.lease_owner) == ("processing", "b")
    assert jobs_repo.release(catalog_engine, "a") == 0
    # Released jobs are claimable again at once.
    again = {j.id for j in jobs_repo.claim(catalog_engine, "c", limit=10, lease_s=60)}
    assert again == set(a) | {made[3]}


def test_claims_take_organizations_in_turn(catalog_engine: Engine) -> None:
    """One tenant's backlog does not hold another tenant's jobs back: each claim takes the oldest
    job of each organization in turn, and an organization gets at most ``per_org`` in flight."""
    big, small, third = Principal("org-big", "p", ""), Principal("org-small", "p", ""), Principal("org-z", "p", "")
    backlog = [make_job(catalog_engine, big, created_us=T0 + i).id for i in range(10)]
    late = [make_job(catalog_engine, small, created_us=T0 + 100 + i).id for i in range(2)]
    z = make_job(catalog_engine, third, created_us=T0 + 200).id
    first = jobs_repo.claim(catalog_engine, "w", limit=4, lease_s=60)
    assert [j.id for j in first] == [backlog[0], late[0], z, backlog[1]]
    # the next claim starts after the organization served last, and skips one that is full
    nxt = jobs_repo.claim(catalog_engine, "w", limit=4, lease_s=60, after_org="org-big",
                          busy={"org-big": 2, "org-small": 1, "org-z": 1}, per_org=2)
    assert [j.id for j in nxt] == [late[1]]
    rest = jobs_repo.claim(catalog_engine, "w", limit=20, lease_s=60)
    assert [j.id for j in rest] == backlog[2:]


def test_a_claim_shares_its_room_equally_and_takes_each_share_oldest_first(catalog_engine: Engine) -> None:
    """A claim for many jobs gives each organization with work an equal share (at least one),
    each share its oldest jobs, then the room left in further rounds."""
    a, b, c = Principal("org-a", "p", ""), Principal("org-b", "p", ""), Principal("org-c", "p", "")
    made = {p.organization_id: [make_job(catalog_engine, p, created_us=T0 + 10 * i + k).id for i in range(n)]
            for k, (p, n) in enumerate(((a, 10), (b, 2), (c, 10)))}
    got = jobs_repo.claim(catalog_engine, "w", limit=7, lease_s=60)
    by_org: dict[str, list[str]] = {}
    for j in got:
        by_org.setdefault(j.organization_id, []).append(j.id)
    assert by_org == {"org-a": made["org-a"][:3], "org-b": made["org-b"], "org-c": made["org-c"][:2]}
    assert all((j.status, j.lease_owner, j.attempts) == ("processing", "w", 1) for j in got)
    capped = jobs_repo.claim(catalog_engine, "w", limit=10, lease_s=60, busy={"org-a": 3, "org-c": 2}, per_org=4)
    assert sorted(j.id for j in capped) == sorted([made["org-a"][3], *made["org-c"][2:4]])
    rest = jobs_repo.claim(catalog_engine, "w2", limit=20, lease_s=60)
    assert [j.id for j in rest] == [*made["org-a"][4:], *made["org-c"][4:]]  # a share each, oldest first


def test_pending_organizations_are_found_by_index_probes(catalog_engine: Engine) -> None:
    for org in ("b", "a", "d", "c"):
        make_job(catalog_engine, Principal(org, "p", ""))
    with catalog_engine.connect() as conn:
        assert turns.pending_orgs(conn, "", 10) == ["a", "b", "c", "d"]
        assert turns.pending_orgs(conn, "b", 10) == ["c", "d", "a", "b"]
        assert turns.pending_orgs(conn, "b", 2) == ["c", "d"]


def test_a_close_retried_after_its_commit_went_through_is_still_this_worker_s(catalog_engine: Engine) -> None:
    """An outage may lose the answer of a commit that went through; the retry finds the job
    closed as it asked and says so, where it used to report the job lost (and the worker then
    deleted the result the row points to). Another close under the same attempt is refused."""
    job = make_job(catalog_engine)
    jobs_repo.claim(catalog_engine, "w1", limit=1, lease_s=60)
    close = dict(status="successful", error=None, result_key="results/z", total_pages=2, parsed_pages_count=2)
    assert jobs_repo.finish(catalog_engine, "w1", job.id, 1, **close)
    finished = row(catalog_engine, job.id).finished_us
    assert jobs_repo.finish(catalog_engine, "w1", job.id, 1, **close)  # the retry
    r = row(catalog_engine, job.id)
    assert (r.status, r.result_key, r.finished_us) == ("successful", "results/z", finished)
    assert not jobs_repo.finish(catalog_engine, "w1", job.id, 1, **(close | {"result_key": "results/other"}))
    assert not jobs_repo.finish(catalog_engine, "w1", job.id, 2, **close)
