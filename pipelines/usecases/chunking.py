"""Claimed jobs grouped into chunks: one Prefect task run per chunk, not per document.

Why: an empty task run costs about 18 ms of CPU (the client and the Prefect server), more than
the engine spends on a small document (about 10 ms). Run one per document and a batch of small
documents spends most of its time being orchestrated. A chunk holds about ``CHUNK_S`` seconds of
expected engine work, so the orchestrator's cost is spread over many documents, while a big
document (or one whose size is unknown, fetched from a URL) is a chunk of its own, and a job
claimed again after its worker died runs alone, where it can be seen.

The expected work is guessed from the bytes submitted: a page of a scan is a few hundred KB and
about a second of OCR, a page of a digital PDF a few KB and a few milliseconds. The guess starts
at the scans' rate (the cautious one: smaller chunks) and then follows what this process's
conversions really took (``learn``), so a collection of small digital documents soon runs 20 or
30 to a chunk. The guess only groups: every document of a chunk still runs at once
(``flows.chunks``), so a wrong guess costs a little waiting, never a wrong result.
"""

from __future__ import annotations

from pipelines.core.records import Job

CHUNK_S = 0.5  # expected engine seconds a chunk should hold
MAX_DOCUMENTS = 32  # in one chunk, whatever their size: a chunk's logs stay readable
BYTES_PER_S = 250_000  # what the engine reads per second of CPU at first (a scan, the slowest)
PER_DOCUMENT_S = 0.005  # opening a document, however small
WEIGHT = 0.05  # of each conversion seen, in the running estimate


class _Rate:
    """Seconds of conversion per byte, as this process has seen them (a running average)."""

    def __init__(self) -> None:
        self.s_per_byte = 1 / BYTES_PER_S

    def learn(self, size: int | None, seconds: float) -> None:
        if size and size > 0 and seconds >= 0:
            seen = max(0.0, seconds - PER_DOCUMENT_S) / size
            self.s_per_byte += WEIGHT * (seen - self.s_per_byte)


rate = _Rate()


def learn(job: Job, seconds: float) -> None:
    """What converting ``job`` took: the estimate follows it."""
    rate.learn(job.source.size, seconds)


def expected_s(job: Job) -> float:
    """Engine seconds ``job`` may take, from its size; ``CHUNK_S`` when nobody knows it."""
    size = job.source.size
    if size is None:
        return CHUNK_S
    return PER_DOCUMENT_S + size * rate.s_per_byte


def chunks(jobs: list[Job], target_s: float = CHUNK_S, most: int = MAX_DOCUMENTS) -> list[list[Job]]:
    """``jobs`` in chunks of about ``target_s`` expected seconds (at most ``most`` documents), in
    their order; a job claimed again (its worker died) is a chunk of its own."""
    out: list[list[Job]] = []
    current: list[Job] = []
    work = 0.0
    for job in jobs:
        if job.attempts > 1 or job.reclaimed_from:
            out.append([job])
            continue
        current.append(job)
        work += expected_s(job)
        if work >= target_s or len(current) >= most:
            out.append(current)
            current, work = [], 0.0
    if current:
        out.append(current)
    return out


def chunk_name(jobs: list[Job]) -> str:
    """``parse memo.pdf`` for one document; ``parse 12 documents (memo.pdf, a.docx, …)``."""
    def name(j: Job) -> str:
        return j.file_name or j.id

    kinds = sorted({j.kind.value for j in jobs})
    if len(jobs) == 1:
        return f"{kinds[0]} {name(jobs[0])}"
    names = ", ".join(name(j) for j in jobs[:3]) + (", …" if len(jobs) > 3 else "")
    return f"{'/'.join(kinds)} {len(jobs)} documents ({names})"
