"""How claimed jobs are grouped into chunks (one Prefect task run each): by expected work."""

from __future__ import annotations

import pytest

from pipelines.core.records import Job, JobKind, JobSource, JobStatus
from pipelines.usecases import chunking
from pipelines.usecases.chunking import CHUNK_S, MAX_DOCUMENTS, chunk_name, chunks, expected_s


def job(i: int, size: int | None, *, kind: JobKind = JobKind.parse, attempts: int = 1,
        name: str | None = None) -> Job:
    return Job(id=f"parse_{i}", organization_id="o", project_id="p", kind=kind, status=JobStatus.processing,
               created_us=i, file_name=name or f"doc-{i}.pdf", attempts=attempts,
               source=JobSource.file(f"file_{i}", size))


@pytest.fixture(autouse=True)
def fresh_rate() -> None:
    chunking.rate = chunking._Rate()  # the scans' rate, as a process starts


def test_small_documents_share_a_chunk_and_a_big_one_runs_alone() -> None:
    small = [job(i, 8_000) for i in range(40)]  # about 37 ms each
    big = job(99, 400_000)  # a scan: more than a chunk's worth on its own
    parts = chunks([*small[:20], big, *small[20:]])
    assert [len(p) for p in parts] == [14, 7, 14, 6]  # the big one closes the chunk it joins
    assert big in parts[1] and sum(expected_s(j) for j in parts[0]) >= CHUNK_S
    assert [j for p in parts for j in p] == [*small[:20], big, *small[20:]]  # order kept, nothing lost


def test_a_chunk_is_never_longer_than_its_limit_and_unknown_sizes_run_alone() -> None:
    tiny = [job(i, 10) for i in range(100)]
    assert max(len(p) for p in chunks(tiny)) == MAX_DOCUMENTS
    fetched = job(7, None)  # a URL: its size is known only once fetched
    assert chunks([tiny[0], fetched, tiny[1]]) == [[tiny[0], fetched], [tiny[1]]]


def test_a_job_claimed_again_after_its_worker_died_is_a_chunk_of_its_own() -> None:
    a, again, b = job(1, 100), job(2, 100, attempts=2), job(3, 100)
    assert chunks([a, again, b]) == [[again], [a, b]]


def test_a_chunk_is_named_after_its_documents() -> None:
    assert chunk_name([job(1, 5, name="memo.pdf")]) == "parse memo.pdf"
    assert chunk_name([job(i, 5, name=f"d{i}.pdf") for i in range(12)]) == "parse 12 documents (d0.pdf, d1.pdf, d2.pdf, …)"
    mixed = [job(1, 5, name="a.pdf"), job(2, 5, kind=JobKind.extract, name="b.pdf")]
    assert chunk_name(mixed) == "extract/parse 2 documents (a.pdf, b.pdf)"


def test_the_guess_follows_what_conversions_really_took() -> None:
    docs = [job(i, 30_000) for i in range(64)]  # digital PDFs of a few pages
    assert max(len(p) for p in chunks(docs)) == 4  # at the scans' rate: 0.125 s each
    for d in docs + docs:
        chunking.learn(d, 0.015)  # each took 15 ms
    assert max(len(p) for p in chunks(docs)) == MAX_DOCUMENTS
    for d in docs[:60]:
        chunking.learn(d, 1.2)  # then scans came: the chunks shrink again
    assert max(len(p) for p in chunks(docs)) <= 2
