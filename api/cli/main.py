"""The ``docklake`` command: ``serve``, ``worker`` and ``keys …`` on the server's machine; the
client commands ``submit``, ``query``, ``datasets …`` and ``jobs …`` (``api.cli.client``) over HTTP."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from api.cli import client as client_cli
from pipelines.core.setting_names import UnknownSettingName, refuse_unknown_names
from pipelines.core.settings import Settings

if TYPE_CHECKING:
    from pipelines.flows.delivery import TaskWorkerNode
    from pipelines.flows.dispatcher import Dispatcher
    from pipelines.usecases.runtime import Runtime

app = typer.Typer(help="docklake: self-hosted document ingestion and sandboxes.", no_args_is_help=True)
keys_app = typer.Typer(help="Manage API keys.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")
app.command("submit")(client_cli.submit)
app.command("query")(client_cli.query)
app.add_typer(client_cli.datasets_app, name="datasets")
app.add_typer(client_cli.jobs_app, name="jobs")
console = Console(stderr=True)

DataDir = Annotated[Path | None, typer.Option("--data-dir", help="State directory (DOCKLAKE_DATA_DIR).")]


def _refuse(exc: ValueError) -> typer.Exit:
    console.print(f"docklake: {exc}", style="red", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(2)


@app.callback()
def _environment() -> None:
    """Every command, the client ones too (which build no settings), stops on a ``DOCKLAKE_*``
    variable that is not a setting before it does anything."""
    try:
        refuse_unknown_names(os.environ)
    except UnknownSettingName as exc:
        raise _refuse(exc) from None


def _settings(data_dir: Path | None, *, host: str | None = None, port: int | None = None,
              workers: int | None = None) -> Settings:
    """The settings from the environment, with what the command line says on top. Every server-side
    command starts here: a variable that is not a setting (``UnknownSettingName``) or a value that
    does not parse ends the command with the message, before anything starts."""
    try:
        settings = Settings(**({"data_dir": data_dir} if data_dir is not None else {}))
    except ValueError as exc:
        raise _refuse(exc) from None
    if host is not None:
        settings.api.host = host
    if port is not None:
        settings.api.port = port
    if workers is not None:
        settings.worker.count = workers
    return settings


def _child_env(settings: Settings) -> dict[str, str]:
    """A child's environment: this one, with every setting spelled out (so the child's settings
    equal the parent's, command-line overrides included) and Prefect's variables."""
    from pipelines.flows.prefect_server import prefect_env

    inherited = {k: v for k, v in os.environ.items() if not k.startswith("DOCKLAKE_")}
    return {**inherited, **prefect_env(settings), **settings.environment()}


def _ensure_first_key(settings: Settings) -> None:
    from assets.catalog import keys as keys_repo
    from assets.catalog.db import open_catalog

    engine = open_catalog(settings.storage)
    keys_repo.sync_configured(engine, settings.configured_keys)
    if keys_repo.count_keys(engine) == 0:
        token = keys_repo.create_key(engine, "default", "default")
        console.print(f"[bold green]API key[/] (organization 'default', project 'default'; shown once, "
                      f"only its hash is stored):\n{token}")
        (settings.data_dir / "FIRST_API_KEY_SHOWN").touch()
    engine.dispose()


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (DOCKLAKE_API__HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="API port (DOCKLAKE_API__PORT).")] = None,
    data_dir: DataDir = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes (DOCKLAKE_WORKER__COUNT).")] = None,
) -> None:
    """Run the API, the job workers and (unless DOCKLAKE_PREFECT__API_URL is set) a Prefect server."""
    import uvicorn

    from api.app import create_app
    from pipelines.core.children import Supervised
    from pipelines.core.logs import configure_logging
    from pipelines.flows.prefect_server import ManagedPrefectServer, prefect_env

    settings = _settings(data_dir, host=host, port=port, workers=workers)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    configure_logging(settings.log_level, settings.log_json)
    _ensure_first_key(settings)

    prefect = None
    if settings.managed_prefect:
        console.print(f"starting the Prefect server on {settings.effective_prefect_api_url} …")
        prefect = ManagedPrefectServer(settings)
        prefect.start()
    env = _child_env(settings)
    children = [  # DOCKLAKE_WORKER__COUNT=0: an API-only node
        Supervised(f"worker-{i}", [sys.executable, "-m", "api.cli.main", "worker"], env,
                   settings.data_dir / f"worker-{i}.log")
        for i in range(max(0, settings.worker.count))
    ]
    if settings.worker.delivery == "prefect":  # the API node hands the jobs to Prefect
        children.append(Supervised("feeder", [sys.executable, "-m", "api.cli.main", "deliver"], env,
                                   settings.data_dir / "feeder.log"))
    for c in children:
        c.start()

    stop = threading.Event()

    def supervise() -> None:
        while not stop.wait(2.0):
            for c in children:
                code = c.exited()
                if code is not None:
                    console.print(f"[yellow]{c.name} exited ({code}); restarting[/]")
                    c.start()
            if prefect is not None and not prefect.alive():
                console.print("[yellow]the Prefect server exited; restarting[/]")
                prefect.start()

    threading.Thread(target=supervise, daemon=True).start()
    def on_term(signum: int, _frame: object) -> None:
        # uvicorn re-raises the signal it caught once it has shut down; ending here (instead of
        # dying by the signal) lets the finally below stop the workers and the Prefect server.
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    base = f"http://{settings.api.host}:{settings.api.port}"
    console.print(f"[bold]docklake[/] API on {base}  (docs {base}/docs)")
    if settings.managed_prefect:
        console.print(f"Prefect UI on {settings.prefect_ui_url}")
    os.environ.update(prefect_env(settings))  # the sandboxes' steps are task runs of this server
    from pipelines.flows.sandboxes import prefect_runner

    try:
        # no per-message deflate on WebSockets: what passes them (PTY bytes, tunnelled streams) is
        # relayed, and compressing it cost a tunnel nine tenths of its throughput
        uvicorn.run(create_app(settings, sandbox_runner=prefect_runner()), host=settings.api.host, port=settings.api.port, log_config=None,
                    access_log=False, ws_per_message_deflate=False)
    finally:
        stop.set()
        for c in children:
            c.stop()
        if prefect is not None:
            prefect.stop()


def _prefect_process(settings: Settings) -> Runtime:
    """Prefect's environment (it reads its settings when first imported: this is the composition
    root), logging, and the runtime, installed for the flows and tasks."""
    from pipelines.flows.prefect_server import prefect_env

    for k, v in prefect_env(settings).items():
        os.environ.setdefault(k, v)
    from assets.catalog.db import waits_out_outages
    from pipelines.core.logs import configure_logging
    from pipelines.usecases.runtime import Runtime, install

    configure_logging(settings.log_level, settings.log_json)
    # a worker or feeder started while the catalog restarts waits for it instead of exiting
    rt = waits_out_outages(Runtime.build)(settings, worker=True)
    install(rt)
    return rt


@app.command(hidden=True)
def deliver(data_dir: DataDir = None) -> None:
    """Hand pending jobs to Prefect as task runs (DOCKLAKE_WORKER__DELIVERY=prefect; `serve` runs it)."""
    settings = _settings(data_dir)
    rt = _prefect_process(settings)
    from pipelines.flows.delivery import Feeder

    feeder = Feeder(rt)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, feeder.stop)
        await feeder.run_forever()

    asyncio.run(main())


PARENT_GONE_GRACE_S = 20.0


def _exit_after_parent(parent: int) -> None:
    """The last resort of ``follow_parent``: once the process that started this one is gone,
    the worker has ``PARENT_GONE_GRACE_S`` to stop by itself (the asyncio watcher, or the death
    signal) and is then ended, wherever it is (still starting, or stuck in a call): a worker
    must not outlive ``docklake serve``. Jobs it held are taken up again once their leases end."""
    import time

    while os.getppid() == parent:
        time.sleep(1.0)
    time.sleep(PARENT_GONE_GRACE_S)
    print("worker: the process that started it is gone and it did not stop; ending it", file=sys.stderr,
          flush=True)
    os._exit(1)


@app.command()
def worker(data_dir: DataDir = None) -> None:
    """Run jobs: claim them from the catalog and run them as Prefect flow runs, or, with
    DOCKLAKE_WORKER__DELIVERY=prefect, serve them as a Prefect task worker (DOCKLAKE_PREFECT__API_URL)."""
    # a stop asked for while starting (serve killed at once: its death signal comes now) must not
    # be lost to a library's handler installed meanwhile; it is kept and honoured once running
    # (a plain flag: the handler runs again for each signal, even inside its own last run, and
    # threading.Event.set takes a lock it would then wait for forever, as a worker once did)
    asked_to_stop: list[bool] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: asked_to_stop.append(True))
    parent = os.getppid()
    if parent != 1:
        threading.Thread(target=_exit_after_parent, args=(parent,), name="parent-guard", daemon=True).start()
    settings = _settings(data_dir)
    from pipelines.engine import isolation

    isolation.configure(settings.worker.max_children, settings.worker.child_reuse)
    # the fork server for document children, before any thread exists; the children write
    # their results through assets.results
    isolation.start(preload=["assets.results", "pipelines.engine.fetch"])

    rt = _prefect_process(settings)
    if settings.worker.delivery == "prefect":
        from pipelines.flows.delivery import TaskWorkerNode

        dispatcher: Dispatcher | TaskWorkerNode = TaskWorkerNode(rt)
    else:
        from pipelines.flows.dispatcher import Dispatcher

        dispatcher = Dispatcher(rt)

    async def follow_parent() -> None:
        """Stop when the process that started this one is gone (reparented), in case its death
        signal was lost: a worker must not outlive ``docklake serve``."""
        while os.getppid() == parent:
            await asyncio.sleep(1.0)
        dispatcher.stop()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, dispatcher.stop)
        if asked_to_stop:
            dispatcher.stop()
        watcher = asyncio.create_task(follow_parent()) if parent != 1 else None
        try:
            await dispatcher.run_forever()
        finally:
            if watcher is not None:
                watcher.cancel()

    asyncio.run(main())


@keys_app.command("create")
def keys_create(
    org: Annotated[str, typer.Option("--org", help="Organization id.")],
    project: Annotated[str, typer.Option("--project", help="Project id.")],
    data_dir: DataDir = None,
) -> None:
    """Create an API key for ORG/PROJECT and print it (only its hash is stored)."""
    from assets.catalog import keys as keys_repo
    from assets.catalog.db import open_catalog

    engine = open_catalog(_settings(data_dir).storage)
    print(keys_repo.create_key(engine, org, project))


@keys_app.command("revoke")
def keys_revoke(
    token: Annotated[str, typer.Argument(help="The API key to revoke.")],
    data_dir: DataDir = None,
) -> None:
    """Revoke an API key (a running service stops accepting it within DOCKLAKE_API__AUTH_CACHE_S)."""
    from assets.catalog import keys as keys_repo
    from assets.catalog.db import open_catalog

    engine = open_catalog(_settings(data_dir).storage)
    if not keys_repo.revoke(engine, token):
        console.print("[red]no such key[/]")
        raise typer.Exit(1)
    console.print("revoked")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
