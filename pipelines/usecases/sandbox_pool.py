"""The warm pool: containers started ahead of time for unnamed sandboxes of the default image,
resources and network, so creating one is a claim rather than a boot. It fills after the first
sandbox is asked for (processes that never run sandboxes start no containers) and refills in
the background as containers are handed out."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

import structlog

from pipelines.core.sandbox_backend import ContainerError, Launch, SandboxBackend, Started
from pipelines.core.sandbox_records import NetworkPolicy, Resources, Sandbox, Snapshot
from pipelines.core.settings import SandboxSettings

log = structlog.get_logger("docklake.sandboxes")
Runner = Callable[[str, Callable[[], None]], Future]


@dataclass(frozen=True)
class Warm:
    started: Started
    token: str
    pool_id: str


class WarmPool:
    def __init__(self, cfg: SandboxSettings, containers: SandboxBackend, runner: Runner) -> None:
        self.cfg = cfg
        self.containers = containers
        self._runner = runner
        self._warm: list[Warm] = []
        self._warming = 0
        self._lock = threading.Lock()
        self._closed = False

    def fits(self, sb: Sandbox, source: Snapshot | None) -> bool:
        """Pool containers run the default image, resources and network (internet as
        DOCKLAKE_SANDBOX__INTERNET_BY_DEFAULT says) with no entrypoint and no mounts; the host name
        of a named sandbox is its name, so named ones boot their own."""
        return (self.cfg.pool_size > 0 and source is None and sb.name is None and not sb.mounts
                and sb.spec.image == self.cfg.image and sb.spec.resources == Resources()
                and sb.spec.entrypoint is None
                and sb.spec.network == NetworkPolicy(allow_internet_access=self.cfg.internet_by_default))

    def count(self) -> int:
        """Pool containers ready to be handed out."""
        with self._lock:
            return len(self._warm)

    def claim(self) -> Warm | None:
        """A healthy pool container, taken out of the pool (None when it is empty)."""
        while True:
            with self._lock:
                if not self._warm:
                    return None
                warm = self._warm.pop(0)
            if self.containers.healthy(warm.started.address, warm.token):
                return warm
            self.containers.remove(warm.started.container_id)

    def refill(self) -> None:
        """Start as many containers as the pool lacks, in the background."""
        with self._lock:
            missing = max(0, self.cfg.pool_size - len(self._warm) - self._warming)
            self._warming += missing
        for _ in range(missing):
            self._runner("pool-refill", self._warm_one)

    def _warm_one(self) -> None:
        token = secrets.token_hex(24)
        pool_id = "pool" + secrets.token_hex(8)
        try:
            started = self.containers.launch(
                Launch(sandbox_id=pool_id, namespace="", generation=1, image=self.cfg.image, entrypoint=None,
                       resources=Resources(), internet=self.cfg.internet_by_default, token=token, hostname="sandbox",
                       pids_limit=self.cfg.pids_limit), self.cfg.start_timeout_s)
        except ContainerError as exc:
            log.warning("sandbox_pool_refill_failed", error=str(exc))
            with self._lock:
                self._warming -= 1
            return
        with self._lock:
            self._warming -= 1
            keep = not self._closed
            if keep:
                self._warm.append(Warm(started, token, pool_id))
        if not keep:
            self.containers.remove(started.container_id)

    def close(self) -> None:
        """Remove the containers waiting in the pool (and any still starting, once started)."""
        with self._lock:
            self._closed = True
            warm, self._warm = self._warm, []
        for w in warm:
            self.containers.remove(w.started.container_id)
