"""The one settings object for every docklake process (environment prefix ``DOCKLAKE_``).

Built once at the entry point (CLI, app factory, worker) and passed down; nothing deeper reads the
environment.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def parse_api_keys(value: str) -> list[tuple[str, str, str]]:
    """Parse ``"token1=org/project,token2=org2/project2"``."""
    keys: list[tuple[str, str, str]] = []
    for item in (value or "").split(","):
        item = item.strip()
        if not item:
            continue
        token, sep, scope = item.partition("=")
        org, slash, project = scope.partition("/")
        if not sep or not slash or not token.strip() or not org.strip() or not project.strip():
            raise ValueError(f"invalid API key entry {item!r}; expected token=organization/project")
        keys.append((token.strip(), org.strip(), project.strip()))
    return keys


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DOCKLAKE_", extra="ignore")

    data_dir: Path = Field(default=Path(".docklake"), description="Where embedded state lives.")
    storage_url: str = Field(default="", description="fsspec URL: file://…, memory://…, s3://…")
    catalog_url: str = Field(default="", description="SQLAlchemy URL; SQLite under data_dir by default.")
    prefect_api_url: str = Field(default="", description="External Prefect API; empty = managed local server.")
    prefect_port: int = 4200
    host: str = "127.0.0.1"
    port: int = 8900
    api_keys: str = Field(default="", description="token=org/project,… ; empty = generate one on first start.")

    max_upload_bytes: int = 100 * 1024 * 1024
    job_timeout_s: float = 600.0
    job_memory_mb: int = 4096
    split_pages: int = 20  # a PDF with more selected pages is converted in parallel parts
    max_children: int = 0  # conversion child processes at once per worker (0: one per CPU)
    lease_s: float = 30.0
    dispatch_batch_size: int = 8
    dispatch_poll_s: float = 0.2
    workers: int = 1
    allow_private_urls: bool = False
    fetch_timeout_s: float = 30.0
    log_level: str = "INFO"
    log_json: bool = True

    @field_validator("api_keys")
    @classmethod
    def _check_keys(cls, v: str) -> str:
        parse_api_keys(v)
        return v

    @model_validator(mode="after")
    def _defaults_under_data_dir(self) -> Settings:
        self.data_dir = Path(self.data_dir).expanduser().resolve()
        if not self.storage_url:
            self.storage_url = f"file://{self.data_dir / 'storage'}"
        if not self.catalog_url:
            self.catalog_url = f"sqlite:///{self.data_dir / 'catalog.db'}"
        return self

    @property
    def configured_keys(self) -> list[tuple[str, str, str]]:
        return parse_api_keys(self.api_keys)

    @property
    def managed_prefect(self) -> bool:
        return not self.prefect_api_url

    @property
    def effective_prefect_api_url(self) -> str:
        return self.prefect_api_url or f"http://127.0.0.1:{self.prefect_port}/api"
