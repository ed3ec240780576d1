"""The wire shapes of a sandbox's logs (``GET /sandboxes/{id}/logs``) and of the processes that
wrote them (``GET /sandboxes/{id}/processes``), as the Tensorlake SDK reads them: camelCase
names, the level as a number (1 trace … 6 fatal), attributes as pairs and a JSON string."""

from __future__ import annotations

import json
import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipelines.core.sandbox_records import Sandbox
from pipelines.usecases.sandbox_logs import LogLine


class _Camel(BaseModel):
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


class LogRecord(_Camel):
    timestamp: int = Field(description="Milliseconds since the epoch.")
    uuid: str = Field(description="The line's own id (a UUID, the same at every read).")
    namespace: str
    application: str = ""
    sandbox_id: str = Field(alias="sandboxId")
    resource_attributes: list[tuple[str, str]] = Field(alias="resourceAttributes")
    body: str
    log_attributes: str = Field(alias="logAttributes", description="A JSON object, as a string.")
    allocations: list[str] = Field(default_factory=list)
    function_runs: list[str] = Field(default_factory=list, alias="functionRuns")
    level: int
    retention: int | None = None

    @classmethod
    def of(cls, sb: Sandbox, ln: LogLine) -> LogRecord:
        resource = [("process.id", ln.process_id), ("process.pid", str(ln.pid)), ("process.command", ln.command)]
        if ln.name:
            resource.append(("process.managed_name", ln.name))
        return cls(timestamp=ln.timestamp_ms, uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, f"docklake:{sb.id}/{ln.generation}/{ln.pid}/{ln.seq}")), namespace=sb.namespace,
                   sandbox_id=sb.id, resource_attributes=resource, body=ln.text, level=ln.level,
                   log_attributes=json.dumps({"stream": ln.stream, "process_id": ln.process_id, "seq": ln.seq}))


class LogsPage(_Camel):
    logs: list[LogRecord]
    next_token: str | None = Field(None, alias="nextToken")


class ProcessLogs(_Camel):
    process_id: str = Field(alias="processId")
    process_pid: str = Field(alias="processPid")
    process_command: str = Field(alias="processCommand")
    process_managed_id: str = Field(alias="processManagedId")
    process_managed_name: str = Field(alias="processManagedName")
    first_seen: int = Field(alias="firstSeen", description="Milliseconds since the epoch.")
    last_seen: int = Field(alias="lastSeen")
    log_count: int = Field(alias="logCount")


class ProcessLogsList(_Camel):
    processes: list[ProcessLogs]

    @classmethod
    def of(cls, rows: list[dict]) -> ProcessLogsList:
        return cls(processes=[ProcessLogs(
            process_id=r["process_id"], process_pid=str(r["pid"]), process_command=r["command"],
            process_managed_id=r["name"] or "", process_managed_name=r["name"] or "", first_seen=r["first_ms"],
            last_seen=r["last_ms"], log_count=r["count"]) for r in rows])


# the logs route's 200 as its OpenAPI document declares it: JSON (``LogsPage``), or with ``follow``
# server-sent events
FOLLOW_200: dict[int | str, dict[str, Any]] = {200: {
    "description": "A page of log lines (JSON), or with `follow=true` server-sent events: a `log` event per "
                   "line (the `tail` first), new ones as they are written, then `end` when the sandbox stops.",
    "content": {"text/event-stream": {"schema": {"type": "string"}}}}}
