"""Health and readiness on the wire: ``/healthz``, and ``/readyz`` with each check and what this
host's sandboxes can do."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Health(BaseModel):
    status: str


class SandboxCapabilities(BaseModel):
    engine: bool = Field(description="A Docker engine answers (sandboxes can run).")
    image: bool = Field(description="The default sandbox image is on the engine.")
    memory_snapshots: bool = Field(description="`snapshot_type: memory` is served (CRIU under an "
                                               "experimental engine); else it is refused with 400.")
    file_systems: bool = Field(description="File systems can be attached to sandboxes.")
    warm: int = Field(description="Pool containers ready to be handed out.")


class Ready(BaseModel):
    ready: bool
    checks: dict[str, str]
    sandboxes: SandboxCapabilities | None = Field(None, description="What this host's sandboxes can do "
                                                  "(informational: it does not make the service unready).")
