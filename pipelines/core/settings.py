"""The one settings object for every docklake process (environment prefix ``DOCKLAKE_``).

Built once at the entry point (CLI, app factory, worker) and passed down; nothing deeper reads the
environment. Settings are grouped by concern; a nested value is set with a double underscore,
for example ``DOCKLAKE_WORKER__LEASE_S=10`` or ``DOCKLAKE_LIMITS__JOB_TIMEOUT_S=120``. Every
variable is listed in the docs' configuration page (docs/configuration.md) (a test keeps the two in step).

A ``DOCKLAKE_*`` variable that is not a setting stops the process that builds the settings
(``UnknownSettingName``): pydantic-settings would otherwise ignore it, and a name renamed since
(``DOCKLAKE_PREFECT_PORT``, now ``DOCKLAKE_PREFECT__PORT``) or misspelt would silently leave its
setting at the default. ``setting_names`` holds that check, the names renamed since and the
``DOCKLAKE_*`` variables other tools read. Only the environment is checked; keyword arguments are
the model's to validate.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from pipelines.core.provider import ProviderConfig

PREFIX = "DOCKLAKE_"
NESTED = "__"

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


class _Group(BaseModel):
    model_config = {"extra": "forbid"}


class ApiSettings(_Group):
    """The REST facade."""

    host: str = Field("127.0.0.1", description="Bind address (also `docklake serve --host`).")
    port: int = Field(8900, description="API port (also `docklake serve --port`).")
    auth_cache_s: float = Field(30.0, description="How long a checked API key is trusted before it is looked "
                                "up again (a revoked key stops working within this).")
    sse_poll_s: float = Field(0.25, description="How often a progress stream (SSE) looks at its job.")
    max_response_bytes: int = Field(512 * 1024 * 1024, description="A stored result larger than this is not "
                                    "sent whole: `GET …/parse/{id}?pages=1-100` asks for part of it. Results "
                                    "are streamed a page at a time either way.")
    query_max_rows: int = Field(10_000, description="Rows one SQL query (`docklake query`, `POST "
                                "/documents/v2/query`) returns at most; the answer says when there were more.")
    query_timeout_s: float = Field(30.0, description="A SQL query running longer is stopped.")


class WorkerSettings(_Group):
    """Job workers and their dispatcher."""

    count: int = Field(1, description="Worker processes started by `docklake serve` (also `--workers`).")
    lease_s: float = Field(30.0, description="A dead worker's jobs are claimed again after this long.")
    max_attempts: int = Field(3, description="A job that killed its worker this many times ends `failure`.")
    batch_size: int = Field(32, description="Jobs claimed at once at most; those of one organization and "
                            "dataset start one Prefect flow run, or join the one already running for them.")
    max_in_flight: int = Field(32, description="Jobs a worker holds at once (their conversions still run "
                               "`DOCKLAKE_WORKER__MAX_CHILDREN` at a time); more are claimed as soon as one ends. "
                               "One organization gets at most half of them while others wait.")
    poll_s: float = Field(0.2, description="How often an idle dispatcher looks for pending jobs.")
    max_children: int = Field(0, description="Document conversions running at once per worker (0: one per CPU).")
    child_reuse: int = Field(50, ge=1, description="Documents one conversion process converts in turn, all of one "
                             "organization, before a fresh one replaces it (1: a fresh process for every document). "
                             "A process is also replaced after any failure and once it has grown by 256 MiB.")
    split_pages: int = Field(20, description="A PDF with more selected pages is converted in parallel parts "
                             "of this many pages (0: never split).")
    delivery: Literal["catalog", "prefect"] = Field(
        "catalog", description="How jobs reach workers. `catalog`: each worker claims pending jobs from the "
        "catalog and runs them as Prefect flow runs (one machine, or a few sharing the catalog). `prefect`: the "
        "API node hands each job to Prefect as a task run and `docklake worker` processes are Prefect task "
        "workers (many machines; Prefect's tag concurrency limits apply).")
    delivery_window: int = Field(128, description="`prefect` delivery: jobs handed to Prefect and not yet taken "
                                 "by a worker, at most (one organization gets at most half while others wait).")
    redeliver_s: float = Field(120.0, description="`prefect` delivery: a job handed to Prefect and not taken "
                               "by any worker for this long is handed over again.")


class LimitSettings(_Group):
    """What one request or one document may cost."""

    max_upload_bytes: int = Field(100 * 1024 * 1024, description="Larger uploads, `raw_text` and "
                                  "`file_url` downloads are refused (413).")
    job_timeout_s: float = Field(600.0, description="Time limit of one document's conversion.")
    job_memory_mb: int = Field(4096, description="Memory limit of the process converting one document.")
    max_page_pixels: int = Field(100_000_000, description="An image page over this many pixels is refused "
                                 "(decompression bombs).")
    max_pages: int = Field(5_000, description="A document with more pages to read (after `page_range`) "
                           "ends `failure` before any is read.")
    max_table_columns: int = Field(1_000, description="A table with more columns ends its document `failure`.")
    max_result_bytes: int = Field(256 * 1024 * 1024, description="A document whose result (text, tables, "
                                  "images) would be larger ends `failure`; checked in the converting process.")
    fetch_timeout_s: float = Field(30.0, description="Time limit of a whole `file_url` download.")
    allow_private_urls: bool = Field(False, description="Let `file_url` reach loopback and private addresses.")


class OcrSettings(_Group):
    """Optical character recognition."""

    tessdata_dir: Path | None = Field(None, description="Tesseract's language data (default: where Debian's "
                                      "`tesseract-ocr-*` packages put it).")


class StorageSettings(_Group):
    """Where state lives: the object store and the SQL catalog."""

    url: str = Field("", description="fsspec URL for files and results: `file://…`, `memory://` (one "
                     "process only), `s3://bucket/prefix` (default: `file://<data dir>/storage`).")
    catalog_url: str = Field("", description="SQLAlchemy URL of the catalog, e.g. "
                             "`postgresql+psycopg://user:pw@host/db` (default: SQLite under the data dir).")
    catalog_pool_size: int = Field(10, description="Connections kept open to a PostgreSQL catalog.")
    catalog_max_overflow: int = Field(20, description="Extra connections allowed beyond the pool at peaks.")
    outage_wait_s: float = Field(120.0, description="How long a worker retries an object store it cannot reach "
                                 "(backing off) before handing its job back, unspent, to run once the store answers.")


class PrefectSettings(_Group):
    """The orchestrator."""

    api_url: str = Field("", description="An external Prefect API, e.g. `http://prefect:4200/api` "
                         "(default: run a managed local server).")
    port: int = Field(4200, description="Port of the managed local Prefect server.")
    host: str = Field("127.0.0.1", description="Address the managed Prefect server listens on.")
    public_url: str = Field("", description="Where a browser reaches the managed Prefect server, when not at "
                            "its host and port (a proxy), e.g. `https://ops.example.org/prefect`.")
    database_url: str = Field("", description="The managed Prefect server's database, e.g. "
                              "`postgresql+asyncpg://prefect@db/prefect` (default: SQLite under the data dir; "
                              "PostgreSQL carries several times the task runs per second).")


class WebhookSettings(_Group):
    """Signed job events sent to the URLs a project registers."""

    max_attempts: int = Field(8, description="Attempts per event before it is marked failed.")
    backoff_s: float = Field(2.0, description="Wait before the second attempt; it doubles each time (with "
                             "jitter) up to `DOCKLAKE_WEBHOOKS__MAX_BACKOFF_S`.")
    max_backoff_s: float = Field(600.0, description="Longest wait between two attempts.")
    timeout_s: float = Field(10.0, description="How long one attempt waits for the receiver.")


class SandboxSettings(_Group):
    """Sandboxes: containers on a Docker engine, each running the runtime daemon."""

    docker_url: str = Field("", description="Docker engine to run sandboxes on (default: `DOCKER_HOST`, else "
                            "the local socket).")
    image: str = Field("docklake/sandbox-base:2", description="Image of a sandbox whose request names none "
                       "(built offline by `scripts/build-sandbox-image.sh`).")
    public_url: str = Field("", description="Base address clients reach the API at, for `sandbox_url` and "
                            "`ingress_endpoint` (default: `http://<api host>:<api port>`).")
    proxy_domain: str = Field("", description="Host names `<id>.<domain>` and `<port>-<id>.<domain>` reach a "
                              "sandbox through the proxy (besides `<id>.local` and the `sandbox_url` path).")
    timeout_s: int = Field(600, description="Idle time after which an unnamed sandbox is terminated and a named "
                           "one suspended, when the request gives no `timeout_secs`.")
    read_only_root: bool = Field(True, description="Run sandboxes with a read-only root filesystem: their "
                                 "writable state is /workspace (kept by snapshots, suspend, restart and copy) "
                                 "and a tmpfs /tmp (scratch, lost on suspend). Off: the whole root is writable "
                                 "and snapshots commit it (for images that must write elsewhere).")
    tmp_mb: int = Field(512, description="Size of a sandbox's /tmp (tmpfs, counted in its memory) with a "
                        "read-only root.")
    pool_size: int = Field(2, description="Containers kept started and idle for unnamed sandboxes of the default "
                           "image and resources (filled after the first sandbox is asked for; 0: none).")
    internet_by_default: bool = Field(False, description="Whether a sandbox created without a `network` field "
                                      "may reach the internet. The SDK sends no `network` field when "
                                      "`allow_internet_access` is left at its default (true), so off (the "
                                      "default) such sandboxes are offline until the operator turns this on; a "
                                      "request's own `network` always wins.")
    max_mounts: int = Field(8, description="File systems one sandbox may have mounted at once.")
    max_per_project: int = Field(50, description="Sandboxes that may run at once in one organization/project.")
    pids_limit: int = Field(512, description="Processes one sandbox may hold at once.")
    start_timeout_s: float = Field(30.0, description="How long a sandbox may take to answer health checks "
                                   "after its container starts.")
    copy_timeout_s: float = Field(60.0, description="How long copies may take to be ready (then 504).")
    retention_s: int = Field(48 * 3600, description="How long a terminated sandbox can be restarted and is "
                             "listed as archived; its snapshots are removed after this.")
    snapshot_on_terminate: bool = Field(True, description="Keep a filesystem snapshot of a sandbox when it is "
                                        "terminated, so a restart restores its files.")
    reaper_s: float = Field(5.0, description="How often idle sandboxes and expired archives are looked for.")
    memory_snapshots: bool = Field(True, description="Offer memory snapshots (`snapshot_type: memory`: processes "
                                   "keep running state; copies carry them) where the engine's checkpoint "
                                   "self-test passes. Off, or where it fails: they answer 400 with the reason.")


class LlmSettings(_Group):
    """Bring-your-own LLM: an OpenAI-compatible chat-completions endpoint (docs/llm-provider.md)."""

    base_url: str = Field("", description="Base URL of an OpenAI-compatible chat-completions endpoint, e.g. "
                          "`http://localhost:11434/v1` (Ollama); `/chat/completions` is appended. Empty: no LLM, "
                          "and a `model_provider` other than `tensorlake` is refused (400).")
    api_key: str = Field("", repr=False, description="Sent as `Authorization: Bearer …` (empty: no header); "
                         "never logged.")
    model: str = Field("", description="The model the endpoint serves, e.g. `qwen2.5:7b-instruct` (Ollama) or "
                       "the name vLLM was started with; needed once `DOCKLAKE_LLM__BASE_URL` is set.")
    timeout_s: float = Field(120.0, gt=0, description="How long one request to the endpoint may take.")
    retries: int = Field(3, ge=0, description="Further attempts after a connection error, a 5xx or a 429, "
                         "waiting 1 s, 2 s, 4 s… between them; then the job ends `failure` naming the endpoint.")
    for_tensorlake: bool = Field(False, description="Use the LLM for `model_provider: tensorlake` (and none "
                                 "given) too, and for every page classification; off: only other providers.")
    json_schema: bool = Field(True, description="Ask for `response_format: json_schema` first (falling back to "
                              "`json_object`, then plain prompting, when the endpoint answers 400); off: start "
                              "with `json_object`.")

    def provider(self) -> ProviderConfig:
        """These settings as the config a job carries to the conversion process."""
        return ProviderConfig(base_url=self.base_url.strip(), api_key=self.api_key, model=self.model.strip(),
                              timeout_s=self.timeout_s, retries=self.retries,
                              use_for_tensorlake=self.for_tensorlake, json_schema=self.json_schema)


class IngestSettings(_Group):
    """Bulk ingestion by reference (``POST /documents/v2/datasets/{id}/ingest``)."""

    roots: list[str] = Field(default_factory=list, description="Where a dataset may take documents from by "
                             "reference: fsspec URL prefixes such as `[\"s3://inbox/\", \"/srv/scans\"]` (JSON). "
                             "Empty: every source is refused (403); local paths only when listed.")
    page_size: int = Field(500, description="Documents listed, checked and made jobs per catalog transaction.")


class Settings(BaseSettings):
    # extra="ignore" is for keyword arguments only: names in the environment are checked by
    # `refuse_unknown_names` before pydantic-settings reads it
    model_config = SettingsConfigDict(env_prefix=PREFIX, env_nested_delimiter=NESTED, extra="ignore")

    data_dir: Path = Field(default=Path(".docklake"), description="Embedded state: catalog, storage, "
                           "Prefect database, logs.")
    api_keys: str = Field(default="", description="`token1=org/project,token2=org2/project2`; with none at "
                          "all, the first start creates one.")
    log_level: str = Field("INFO", description="Log level.")
    log_json: bool = Field(True, description="Structured JSON logs with request and job ids.")
    api: ApiSettings = Field(default_factory=ApiSettings)
    worker: WorkerSettings = Field(default_factory=WorkerSettings)
    limits: LimitSettings = Field(default_factory=LimitSettings)
    ocr: OcrSettings = Field(default_factory=OcrSettings)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    prefect: PrefectSettings = Field(default_factory=PrefectSettings)
    webhooks: WebhookSettings = Field(default_factory=WebhookSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The default sources, once the environment they read is known to hold no stray names."""
        from pipelines.core.setting_names import refuse_unknown_names  # it reads this model

        refuse_unknown_names(os.environ)
        return init_settings, env_settings, dotenv_settings, file_secret_settings

    @field_validator("api_keys")
    @classmethod
    def _check_keys(cls, v: str) -> str:
        parse_api_keys(v)
        return v

    @model_validator(mode="after")
    def _defaults_under_data_dir(self) -> Settings:
        self.data_dir = Path(self.data_dir).expanduser().resolve()
        if not self.storage.url:
            self.storage.url = f"file://{self.data_dir / 'storage'}"
        if not self.storage.catalog_url:
            self.storage.catalog_url = f"sqlite:///{self.data_dir / 'catalog.db'}"
        return self

    @property
    def configured_keys(self) -> list[tuple[str, str, str]]:
        return parse_api_keys(self.api_keys)

    @property
    def managed_prefect(self) -> bool:
        return not self.prefect.api_url

    @property
    def effective_prefect_api_url(self) -> str:
        host = "127.0.0.1" if self.prefect.host in ("0.0.0.0", "::", "") else self.prefect.host
        return self.prefect.api_url or f"http://{host}:{self.prefect.port}/api"

    @property
    def prefect_ui_url(self) -> str:
        """Where a person opens the Prefect UI."""
        if self.prefect.public_url:
            return self.prefect.public_url.rstrip("/")
        return self.effective_prefect_api_url.removesuffix("/api")

    @property
    def sandbox_public_url(self) -> str:
        """Where clients reach the API (and the sandbox proxy in it)."""
        if self.sandbox.public_url:
            return self.sandbox.public_url.rstrip("/")
        host = "127.0.0.1" if self.api.host in ("0.0.0.0", "::", "") else self.api.host
        return f"http://{host}:{self.api.port}"

    def environment(self) -> dict[str, str]:
        """These settings as ``DOCKLAKE_*`` variables, for child processes (every value, so a
        child built from them equals this object)."""
        env = {"DOCKLAKE_DATA_DIR": str(self.data_dir), "DOCKLAKE_API_KEYS": self.api_keys,
               "DOCKLAKE_LOG_LEVEL": self.log_level, "DOCKLAKE_LOG_JSON": str(self.log_json).lower()}
        for group in ("api", "worker", "limits", "ocr", "storage", "prefect", "webhooks", "sandbox", "llm",
                      "ingest"):
            for name, value in getattr(self, group).model_dump().items():
                key = f"DOCKLAKE_{group.upper()}__{name.upper()}"
                if value is None:
                    continue
                env[key] = (str(value).lower() if isinstance(value, bool) else
                            json.dumps(value) if isinstance(value, list) else str(value))
        env["DOCKLAKE_PREFECT__API_URL"] = self.effective_prefect_api_url
        return env
