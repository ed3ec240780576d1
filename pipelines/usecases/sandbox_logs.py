"""A sandbox's logs: what its processes wrote, line by line, for the lifecycle API's ``logs`` and
``processes`` (the SDK's ``get_logs`` and ``list_log_processes``).

The runtime daemon keeps each process's recent output with the time of each line; while the
sandbox runs, its logs are read from there. They outlive the container: before a suspend or a
termination removes it, what the daemon holds is added to the sandbox's log file under the data
directory (one JSON line per output line, deduplicated by generation, process and sequence), and
kept as long as the sandbox's record. A line written to stdout is at level info, one written to
stderr at level error.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import structlog

from pipelines.core.errors import SandboxInvalid
from pipelines.core.sandbox_backend import ContainerError, SandboxBackend
from pipelines.core.sandbox_records import Sandbox, SandboxStatus

log = structlog.get_logger("docklake.sandboxes")

LEVELS = {"trace": 1, "debug": 2, "info": 3, "warn": 4, "error": 5, "fatal": 6}
STREAM_LEVEL = {"stdout": LEVELS["info"], "stderr": LEVELS["error"]}
PAGE = 1000


@dataclass(frozen=True)
class LogLine:
    generation: int  # which of the sandbox's containers ran the process
    pid: int
    name: str | None
    command: str
    stream: str
    seq: int
    timestamp_ms: int
    text: str

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.generation, self.pid, self.seq)

    @property
    def process_id(self) -> str:
        """Unique in the sandbox: a pid is only unique within one container."""
        return f"{self.generation}-{self.pid}"

    @property
    def level(self) -> int:
        return STREAM_LEVEL.get(self.stream, LEVELS["info"])


@dataclass(frozen=True)
class LogQuery:
    levels: tuple[int, ...] = ()
    process_ids: tuple[str, ...] = ()  # process_id, pid or managed name
    body: str | None = None
    head: int | None = None
    tail: int | None = None
    next_token: str | None = None


def lines_of(processes: list[dict[str, Any]], generation: int) -> list[LogLine]:
    """The daemon's ``/api/v1/logs`` answer as log lines."""
    return [LogLine(generation, int(p["pid"]), p.get("name"), str(p.get("command", "")), str(stream), int(seq),
                    int(ts), str(text))
            for p in processes for seq, ts, stream, text in p.get("lines", [])]


class SandboxLogs:
    def __init__(self, folder: Path, backend: SandboxBackend) -> None:
        self.folder = folder
        self.backend = backend
        self._guard = threading.Lock()

    def _file(self, sandbox_id: str) -> Path:
        return self.folder / f"{sandbox_id}.jsonl"

    def _stored(self, sandbox_id: str) -> list[LogLine]:
        try:
            text = self._file(sandbox_id).read_text()
        except FileNotFoundError:
            return []
        return [LogLine(**json.loads(row)) for row in text.splitlines() if row.strip()]

    def _live(self, sb: Sandbox, after_ms: int = 0) -> list[LogLine]:
        if sb.status != SandboxStatus.running or not sb.address or not sb.token:
            return []
        try:
            return lines_of(self.backend.process_logs(sb.address, sb.token, after_ms), sb.generation)
        except ContainerError as exc:
            log.warning("sandbox_logs_unreadable", sandbox_id=sb.id, error=str(exc))
            return []

    def all(self, sb: Sandbox) -> list[LogLine]:
        """Kept and live lines, in time order."""
        seen: dict[tuple[int, int, int], LogLine] = {ln.key: ln for ln in self._stored(sb.id)}
        seen.update({ln.key: ln for ln in self._live(sb)})
        return sorted(seen.values(), key=lambda ln: (ln.timestamp_ms, ln.key))

    def keep(self, sb: Sandbox) -> None:
        """Add what the running daemon holds to the sandbox's log file (before its container goes)."""
        live = self._live(sb)
        if not live:
            return
        with self._guard:
            known = {ln.key for ln in self._stored(sb.id)}
            new = [ln for ln in live if ln.key not in known]
            self.folder.mkdir(parents=True, exist_ok=True)
            with self._file(sb.id).open("a") as f:
                f.writelines(json.dumps(asdict(ln)) + "\n" for ln in new)

    def since(self, sb: Sandbox, q: LogQuery, after_ms: int) -> list[LogLine]:
        """The running sandbox's lines ``q`` keeps, written at ``after_ms`` or later (to follow)."""
        return sorted((ln for ln in self._live(sb, after_ms) if self._matches(ln, q)),
                      key=lambda ln: (ln.timestamp_ms, ln.key))

    def forget(self, sandbox_id: str) -> None:
        self._file(sandbox_id).unlink(missing_ok=True)

    # -- what the API asks -------------------------------------------------------------------------

    def read(self, sb: Sandbox, q: LogQuery) -> tuple[list[LogLine], str | None]:
        """The page of the sandbox's lines ``q`` asks for, and the token of the next page."""
        lines = [ln for ln in self.all(sb) if self._matches(ln, q)]
        if q.tail is not None:
            return lines[max(0, len(lines) - q.tail):], None
        try:
            start = int(q.next_token) if q.next_token else 0
        except ValueError:
            raise SandboxInvalid(f"nextToken {q.next_token!r} is not one this service handed out") from None
        end = start + (q.head if q.head is not None else PAGE)
        more = q.head is None and end < len(lines)
        return lines[start:end], str(end) if more else None

    @staticmethod
    def _matches(ln: LogLine, q: LogQuery) -> bool:
        if q.levels and ln.level not in q.levels:
            return False
        if q.process_ids and not {ln.process_id, str(ln.pid), ln.name} & set(q.process_ids):
            return False
        return not q.body or q.body.lower() in ln.text.lower()

    def processes(self, sb: Sandbox) -> list[dict[str, Any]]:
        """Each process that wrote a line: its ids, command, first and last line's time, count."""
        by_id: dict[str, dict[str, Any]] = {}
        for ln in self.all(sb):
            seen = by_id.setdefault(ln.process_id, {"process_id": ln.process_id, "pid": ln.pid, "name": ln.name,
                                                    "command": ln.command, "first_ms": ln.timestamp_ms,
                                                    "last_ms": ln.timestamp_ms, "count": 0})
            seen["last_ms"] = max(seen["last_ms"], ln.timestamp_ms)
            seen["count"] += 1
        return list(by_id.values())
