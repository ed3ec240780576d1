"""The sandbox lifecycle rules through the use cases, on an in-memory backend
(tests/support/fake_sandbox_backend.py) and a real SQLite catalog: no Docker engine needed.

The spec's state table (``../shared/spec/interface.md``, "States and transitions"): which moves are
legal, and the status the API answers for the others (``api.errors.status_for``); names (unique
in a namespace among live sandboxes, malformed ones refused); the idle timeout and the expiry of
archived sandboxes, driven by one round of the upkeep with its clock moved on rather than by
waiting; copies (rule 1's names, rule 2's refusals, what they boot from). The background steps
are held by the test's runner and run when the test says, so every test is deterministic.

What needs a real engine (processes, files, the proxy, hardening) is tests/sandbox/test_sandboxes*.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, replace

import pytest

from api.errors import status_for
from assets.catalog import sandboxes as repo
from assets.catalog.db import now_us, open_catalog
from pipelines.core.errors import SandboxError
from pipelines.core.records import Principal
from pipelines.core.sandbox_records import (
    Mount,
    NetworkPolicy,
    Sandbox,
    SandboxSpec,
    SandboxStatus,
    SnapshotReason,
    SnapshotStatus,
    SnapshotType,
)
from pipelines.core.settings import Settings
from pipelines.usecases import sandbox_lifecycle, sandbox_upkeep, sandboxes
from pipelines.usecases.sandbox_lifecycle import copy_names
from pipelines.usecases.sandboxes import CreateRequest, PatchRequest, Sandboxes
from tests.support.fake_sandbox_backend import FakeSandboxBackend

ME = Principal("org-a", "proj-a")
NS = "default"
S = SandboxStatus


class Background:
    """The runner the use cases hand their background steps to, holding them until the test
    runs them (in order, including the steps those steps hand in)."""

    def __init__(self) -> None:
        self.held: list[tuple[str, Callable[[], None], Future]] = []

    def __call__(self, name: str, fn: Callable[[], None]) -> Future:
        future: Future = Future()
        self.held.append((name, fn, future))
        return future

    def run(self) -> list[str]:
        ran = []
        while self.held:
            name, fn, future = self.held.pop(0)
            fn()
            future.set_result(None)
            ran.append(name.split("-", 1)[0])
        return ran


@dataclass
class Rig:
    sandboxes: Sandboxes
    backend: FakeSandboxBackend
    background: Background

    def create(self, ns: str = NS, p: Principal = ME, **request: object) -> Sandbox:
        return self.sandboxes.create(p, ns, CreateRequest(**request))  # type: ignore[arg-type]

    def now(self, sb: Sandbox) -> Sandbox:
        return self.sandboxes.reload(sb)

    def refused(self, call: Callable[[], object]) -> int:
        """The status the API answers for ``call``'s error (it must fail)."""
        with pytest.raises(SandboxError) as caught:
            call()
        return status_for(caught.value)


@pytest.fixture
def rig(tmp_path) -> Iterator[Rig]:
    settings = Settings(data_dir=tmp_path / "docklake", sandbox={"pool_size": 0, "memory_snapshots": False})
    engine = open_catalog(settings.storage)
    backend = FakeSandboxBackend(images=(settings.sandbox.image,))
    background = Background()
    sandboxes = Sandboxes(settings, engine, backend, background)
    yield Rig(sandboxes, backend, background)
    sandboxes.close()
    engine.dispose()


def later(monkeypatch: pytest.MonkeyPatch, module: object, seconds: float) -> None:
    """Move ``module``'s clock ``seconds`` ahead (instead of waiting that long)."""
    monkeypatch.setattr(module, "now_us", lambda: now_us() + int(seconds * 1_000_000))


# -- the state table ------------------------------------------------------------------------------


def test_a_created_sandbox_runs_and_delete_terminates_it_idempotently(rig: Rig) -> None:
    sb = rig.create()
    assert sb.status == S.running and sb.name is None and sb.generation == 1
    [container] = rig.backend.running_for(sb.id)
    assert (sb.container_id, sb.address) == (container.container_id, container.address)
    assert container.launch.hostname == sb.id and container.launch.image == "docklake/sandbox-base:2"

    gone = rig.sandboxes.terminate(ME, NS, sb.id)
    assert gone.status == S.terminated and gone.termination_reason == "terminated"
    assert rig.sandboxes.terminate(ME, NS, sb.id).status == S.terminated  # again: 200, unchanged
    assert rig.background.run() == ["terminate"]
    assert rig.backend.running_for(sb.id) == [] and rig.now(sb).container_id is None
    # a filesystem snapshot kept at termination, which a restart comes back from
    [kept] = repo.snapshots_of(rig.sandboxes.engine, [sb.id])
    assert (kept.reason, kept.status) == (SnapshotReason.terminate, SnapshotStatus.completed)


def test_a_named_sandbox_suspends_and_resumes(rig: Rig) -> None:
    sb = rig.create(name="box")
    first = sb.container_id

    suspending, already = rig.sandboxes.suspend(ME, NS, "box")
    assert (suspending.status, already) == (S.suspending, False)  # 202
    assert rig.sandboxes.suspend(ME, NS, "box")[0].status == S.suspending  # in progress: 202, unchanged
    assert rig.background.run() == ["suspend"]
    suspended, already = rig.sandboxes.suspend(ME, NS, "box")
    assert (suspended.status, already) == (S.suspended, True)  # 200
    assert suspended.container_id is None and first in rig.backend.removed
    snap = repo.get_snapshot(rig.sandboxes.engine, suspended.restore_snapshot_id or "")
    assert snap is not None and (snap.reason, snap.status) == (SnapshotReason.suspend, SnapshotStatus.completed)

    resuming, already = rig.sandboxes.resume(ME, NS, "box")
    assert (resuming.status, already) == (S.pending, False)  # 202
    assert rig.sandboxes.resume(ME, NS, "box") == (resuming, False)  # resuming: unchanged
    assert rig.background.run() == ["resume"]
    running, already = rig.sandboxes.resume(ME, NS, "box")
    assert (running.status, already) == (S.running, True)  # 200
    assert running.id == sb.id and running.generation == 2 and running.container_id != first
    assert rig.backend.workspaces[sb.id] is None  # its own workspace kept, not the snapshot's copy


def test_unsuitable_suspends_and_resumes_are_400_and_change_nothing(rig: Rig) -> None:
    unnamed = rig.create()
    assert rig.refused(lambda: rig.sandboxes.suspend(ME, NS, unnamed.id)) == 400  # only named ones
    assert rig.refused(lambda: rig.sandboxes.resume(ME, NS, unnamed.id + "x")) == 404
    named = rig.create(name="box")
    rig.sandboxes.terminate(ME, NS, "box")
    assert rig.refused(lambda: rig.sandboxes.suspend(ME, NS, named.id)) == 400
    assert rig.refused(lambda: rig.sandboxes.resume(ME, NS, named.id)) == 400
    assert rig.now(unnamed).status == S.running and rig.now(named).status == S.terminated
    assert rig.background.run() == ["terminate"]


def test_a_suspend_whose_snapshot_fails_leaves_the_sandbox_running(rig: Rig) -> None:
    sb = rig.create(name="box")
    rig.backend.fail_snapshot = "disk full"
    rig.sandboxes.suspend(ME, NS, "box")
    rig.background.run()
    assert rig.now(sb).status == S.running and rig.now(sb).container_id == sb.container_id
    [snap] = repo.snapshots_of(rig.sandboxes.engine, [sb.id])
    assert snap.status == SnapshotStatus.failed and snap.error == "disk full"


def test_restart_brings_back_a_terminated_sandbox_only(rig: Rig) -> None:
    sb = rig.create(name="keep")
    assert rig.refused(lambda: rig.sandboxes.restart(ME, NS, "keep")) == 400  # not terminated
    rig.sandboxes.terminate(ME, NS, "keep")
    rig.background.run()

    pending = rig.sandboxes.restart(ME, NS, sb.id)
    assert (pending.status, pending.id, pending.name) == (S.pending, sb.id, "keep")  # 202
    assert rig.background.run() == ["restart"]
    back = rig.now(sb)
    assert back.status == S.running and back.generation == 2 and back.termination_reason is None
    assert rig.backend.running_for(sb.id)[0].container_id == back.container_id


def test_restart_is_refused_when_the_name_was_claimed_or_the_window_has_passed(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    old = rig.create(name="keep")
    rig.sandboxes.terminate(ME, NS, "keep")
    rig.background.run()
    newer = rig.create(name="keep")  # a terminated sandbox frees its name
    assert rig.refused(lambda: rig.sandboxes.restart(ME, NS, old.id)) == 409
    rig.sandboxes.terminate(ME, NS, newer.id)
    rig.background.run()

    later(monkeypatch, sandbox_lifecycle, rig.sandboxes.cfg.retention_s + 1)
    assert rig.refused(lambda: rig.sandboxes.restart(ME, NS, old.id)) == 400  # over 48 hours ago
    assert rig.now(old).status == S.terminated


def test_restart_from_a_snapshot_being_deleted_is_409(rig: Rig) -> None:
    sb = rig.create(name="box")
    rig.sandboxes.suspend(ME, NS, "box")
    rig.background.run()
    held = rig.now(sb).restore_snapshot_id or ""
    assert rig.refused(lambda: rig.sandboxes.delete_snapshot(ME, held)) == 409  # it holds a suspended sandbox
    rig.sandboxes.terminate(ME, NS, "box")
    assert rig.sandboxes.delete_snapshot(ME, held).status == SnapshotStatus.deleting
    assert rig.refused(lambda: rig.sandboxes.restart(ME, NS, "box")) == 409
    rig.background.run()
    assert held in rig.backend.dropped and repo.get_snapshot(rig.sandboxes.engine, held) is None


def test_patch_changes_proxy_settings_but_not_a_terminated_sandbox(rig: Rig) -> None:
    sb = rig.create(name="box")
    patched = rig.sandboxes.patch(ME, NS, "box", PatchRequest(exposed_ports=(8080, 80, 8080),
                                                              allow_unauthenticated_access=True))
    assert patched.spec.exposed_ports == (80, 8080) and patched.spec.allow_unauthenticated_access
    assert rig.refused(lambda: rig.sandboxes.patch(ME, NS, "box", PatchRequest(exposed_ports=(70000,)))) == 400
    rig.sandboxes.terminate(ME, NS, sb.id)
    assert rig.refused(lambda: rig.sandboxes.patch(ME, NS, sb.id, PatchRequest(exposed_ports=(81,)))) == 409
    rig.background.run()


def test_an_attach_naming_a_missing_file_system_is_refused_and_the_sandbox_keeps_running(rig: Rig) -> None:
    sb = rig.create(name="box")
    assert rig.refused(lambda: rig.sandboxes.attach(ME, NS, "box", Mount("nowhere", "/mnt/data"))) == 400
    assert rig.background.run() == []
    kept = rig.now(sb)
    assert kept.status == S.running and kept.mounts == () and kept.termination_reason is None


def test_a_mount_that_fails_once_attached_is_marked_failed_and_the_sandbox_runs_on(rig: Rig) -> None:
    from assets.catalog import file_systems as fs_repo
    from pipelines.core.sandbox_records import MountStatus

    sb = rig.create(name="box")
    rig.sandboxes.file_systems.create(ME, "data")
    assert rig.refused(lambda: rig.sandboxes.attach(ME, NS, "box", Mount("data", "/etc/data"))) == 400  # read-only root
    rig.sandboxes.attach(ME, NS, "box", Mount("data", "/mnt/data"))  # persisted, applied in the background
    assert rig.now(sb).mounts == (Mount("data", "/mnt/data", status=MountStatus.pending),)
    fs_repo.delete_fs(rig.sandboxes.engine, ME, "data")  # lost before the mount is applied
    assert rig.background.run() == ["mount"]
    kept = rig.now(sb)
    assert kept.status == S.running and kept.termination_reason is None
    [failed] = kept.mounts
    assert failed.status == MountStatus.failed and "data" in (failed.error or "")

    # the engine refusing is the same; a good one mounts; a failed one is detached like any other
    rig.sandboxes.file_systems.create(ME, "other")
    rig.backend.fail_mount = "mount: permission denied"
    rig.sandboxes.attach(ME, NS, "box", Mount("other", "/mnt/other"))
    rig.background.run()
    rig.backend.fail_mount = None
    rig.sandboxes.attach(ME, NS, "box", Mount("other", "/mnt/fine"))
    rig.background.run()
    assert [(m.mount_path, m.status, m.error) for m in rig.now(sb).mounts] == [
        ("/mnt/data", "failed", failed.error), ("/mnt/other", "failed", "mount: permission denied"),
        ("/mnt/fine", "mounted", None)]
    rig.sandboxes.detach(ME, NS, "box", "/mnt/data")
    rig.background.run()
    assert [m.mount_path for m in rig.now(sb).mounts] == ["/mnt/other", "/mnt/fine"]
    assert rig.refused(lambda: rig.sandboxes.detach(ME, NS, "box", "/mnt/else")) == 404

    # a resume starts with what is mounted, not with what failed
    rig.sandboxes.suspend(ME, NS, "box")
    rig.background.run()
    rig.sandboxes.resume(ME, NS, "box")
    rig.background.run()
    [container] = rig.backend.running_for(sb.id)
    assert [b.target for b in container.launch.binds] == ["/mnt/fine"]


def test_no_engine_is_500_and_nothing_is_created(rig: Rig) -> None:
    rig.backend.engine_up = False
    assert rig.refused(lambda: rig.create(name="box")) == 500
    assert repo.find(rig.sandboxes.engine, ME, NS, "box") is None


def test_a_sandbox_that_fails_to_start_ends_terminated_with_the_reason(rig: Rig) -> None:
    rig.backend.fail_launch = "no more memory"
    assert rig.refused(lambda: rig.create(name="box")) == 500
    failed = rig.sandboxes.find(ME, NS, "box")
    assert (failed.status, failed.termination_reason) == (S.terminated, "start_failed")
    assert failed.error_details == {"message": "no more memory"} and failed.container_id is None


# -- names ----------------------------------------------------------------------------------------


def test_names_are_unique_among_the_live_sandboxes_of_a_namespace(rig: Rig) -> None:
    first = rig.create(name="box")
    assert rig.refused(lambda: rig.create(name="box")) == 409
    assert rig.create(name="box", ns="other").namespace == "other"  # another namespace
    assert rig.create(name="box", p=Principal("org-b", "proj-b")).name == "box"  # another project
    other = rig.create(name="crate")
    assert rig.refused(lambda: rig.sandboxes.patch(ME, NS, other.id, PatchRequest(name="box"))) == 409
    assert rig.sandboxes.find(ME, NS, "box").id == first.id
    rig.sandboxes.terminate(ME, NS, "box")
    assert rig.create(name="box").id != first.id  # a terminated sandbox frees its name
    assert rig.sandboxes.patch(ME, NS, other.id, PatchRequest(name="renamed")).name == "renamed"
    rig.background.run()


@pytest.mark.parametrize("name", ["Box", "-box", "box-", "b_x", "b.x", "", "x" * 64])
def test_malformed_names_are_400_and_start_nothing(rig: Rig, name: str) -> None:
    assert rig.refused(lambda: rig.create(name=name)) == 400
    sb = rig.create(name="fine")
    assert rig.refused(lambda: rig.sandboxes.patch(ME, NS, sb.id, PatchRequest(name=name))) == 400
    assert [launch.sandbox_id for launch in rig.backend.launches] == [sb.id]


@pytest.mark.parametrize("name", ["a", "0", "a-b-1", "x" * 63])
def test_well_formed_names_are_taken(rig: Rig, name: str) -> None:
    assert rig.create(name=name).name == name


# -- the idle timeout and expiry ------------------------------------------------------------------


def test_idle_sandboxes_are_terminated_when_unnamed_and_suspended_when_named(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    unnamed = rig.create(timeout_secs=5)
    named = rig.create(name="sleepy", timeout_secs=5)
    busy = rig.create(timeout_secs=5)
    lasting = rig.create()  # the default timeout (DOCKLAKE_SANDBOX__TIMEOUT_S, 600 s)
    rig.sandboxes.reap()
    assert {rig.now(sb).status for sb in (unnamed, named, busy, lasting)} == {S.running}

    later(monkeypatch, sandbox_upkeep, 6)
    later(monkeypatch, sandboxes, 6)
    rig.sandboxes.touch(busy.id)  # traffic through the proxy, a moment ago
    rig.sandboxes.reap()
    gone = rig.now(unnamed)
    assert (gone.status, gone.termination_reason) == (S.terminated, "idle_timeout")
    assert rig.now(named).status == S.suspending
    assert rig.now(busy).status == S.running and rig.now(lasting).status == S.running
    assert sorted(rig.background.run()) == ["suspend", "terminate"]
    assert rig.now(named).status == S.suspended and rig.backend.running_for(unnamed.id) == []


def test_archived_sandboxes_are_forgotten_after_the_retention_window(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    sb = rig.create(name="box")
    asked = rig.sandboxes.request_snapshot(ME, NS, "box", SnapshotType.filesystem)
    rig.sandboxes.terminate(ME, NS, "box")
    rig.background.run()
    [kept] = [s for s in repo.snapshots_of(rig.sandboxes.engine, [sb.id]) if s.reason == SnapshotReason.terminate]
    rig.sandboxes.reap()
    assert rig.now(sb).status == S.terminated  # still within the window

    later(monkeypatch, sandbox_upkeep, rig.sandboxes.cfg.retention_s + 1)
    rig.sandboxes.reap()
    assert repo.get(rig.sandboxes.engine, sb.id) is None and sb.id in rig.backend.forgotten
    assert kept.id in rig.backend.dropped and asked.id not in rig.backend.dropped  # a user's snapshot stays


def test_reconciling_ends_sandboxes_whose_container_was_lost_and_removes_orphans(rig: Rig) -> None:
    kept = rig.create()
    lost = rig.create()
    rig.backend.stop(lost.container_id or "")
    orphan = rig.backend.launch(rig.backend.launches[0], 1).container_id  # a container nobody knows of
    rig.sandboxes.reconcile()
    assert rig.now(kept).status == S.running
    after = rig.now(lost)
    assert (after.status, after.termination_reason) == (S.terminated, "lost")
    assert orphan in rig.backend.removed and lost.container_id in rig.backend.removed


# -- copies ---------------------------------------------------------------------------------------


def test_copy_names_follow_rule_1() -> None:
    named = Sandbox("sb1", "o", "p", NS, "src", S.running, SandboxSpec("image"), 0, 0)
    unnamed = replace(named, id="sb2", name=None)
    assert copy_names(named, 1, None) == ["src-copy"]
    assert copy_names(named, 3, None) == ["src-copy-1", "src-copy-2", "src-copy-3"]
    assert copy_names(named, 1, "mine") == ["mine"] and copy_names(unnamed, 2, "mine") == ["mine-1", "mine-2"]
    assert copy_names(unnamed, 2, None) == [None, None]


def test_copies_of_a_running_sandbox_boot_from_its_snapshot_and_inherit_its_spec(rig: Rig) -> None:
    src = rig.create(name="src", exposed_ports=(8080,), timeout_secs=900)
    outcome = rig.sandboxes.copy(ME, NS, "src", 2, None)
    assert not outcome.failed and not outcome.timed_out
    assert [c.name for c in outcome.copies] == ["src-copy-1", "src-copy-2"]
    assert {c.status for c in outcome.copies} == {S.running} and rig.now(src).status == S.running
    assert all(c.spec == src.spec for c in outcome.copies)
    [snap] = rig.backend.snapshots.values()  # memory snapshots are off here: the filesystem
    assert snap.sandbox_id == src.id and not snap.memory
    assert {rig.backend.workspaces[c.id] for c in outcome.copies} == {snap.snapshot_id}
    assert rig.sandboxes.snapshots(ME, NS, "src") == []  # a copy's snapshot is not the user's


def test_copies_carry_memory_where_the_backend_can_checkpoint(rig: Rig) -> None:
    rig.backend.memory_reason = None
    rig.create(name="src")
    [copy] = rig.sandboxes.copy(ME, NS, "src", 1, "twin").copies
    [snap] = rig.backend.snapshots.values()
    assert copy.name == "twin" and copy.status == S.running and snap.memory
    assert rig.backend.running_for(copy.id)[0].restored_from == rig.backend.checkpoint_path(snap.snapshot_id)


def test_copies_of_a_suspended_sandbox_boot_from_its_suspend_snapshot(rig: Rig) -> None:
    src = rig.create(name="src")
    rig.sandboxes.suspend(ME, NS, "src")
    rig.background.run()
    held = rig.now(src).restore_snapshot_id
    [copy] = rig.sandboxes.copy(ME, NS, "src", 1, None).copies
    assert (copy.name, copy.status, copy.restore_snapshot_id) == ("src-copy", S.running, held)
    assert rig.now(src).status == S.suspended


def test_copies_are_refused_before_any_is_made(rig: Rig) -> None:
    rig.create(name="src")
    rig.create(name="src-copy-2")
    assert rig.refused(lambda: rig.sandboxes.copy(ME, NS, "src", 2, None)) == 409  # a derived name is held
    assert rig.refused(lambda: rig.sandboxes.copy(ME, NS, "src", 0, None)) == 400
    assert rig.refused(lambda: rig.sandboxes.copy(ME, NS, "src", 1, "x" * 64)) == 400
    assert rig.refused(lambda: rig.sandboxes.copy(ME, NS, "src", 2, "Bad")) == 400
    long_name = rig.create(name="y" * 60)
    assert rig.refused(lambda: rig.sandboxes.copy(ME, NS, long_name.id, 1, None)) == 400  # y…y-copy: 65
    gone = rig.create()
    rig.sandboxes.terminate(ME, NS, gone.id)
    assert rig.refused(lambda: rig.sandboxes.copy(ME, NS, gone.id, 1, None)) == 400
    assert len(rig.backend.launches) == 4 and rig.backend.snapshots == {}
    rig.background.run()


def test_copies_that_fail_to_boot_are_terminated_and_reported(rig: Rig) -> None:
    rig.create(name="src")
    rig.backend.fail_launch = "the engine is out of memory"
    outcome = rig.sandboxes.copy(ME, NS, "src", 2, None)
    assert outcome.failed and not outcome.timed_out  # 422
    assert {(c.status, c.termination_reason) for c in outcome.copies} == {(S.terminated, "copy_failed")}


@pytest.mark.parametrize("by_default", [False, True])
def test_a_request_without_network_follows_the_internet_setting(tmp_path, by_default: bool) -> None:
    """The SDK sends no ``network`` when ``allow_internet_access`` is left at its default; the
    operator's DOCKLAKE_SANDBOX__INTERNET_BY_DEFAULT decides, pooled containers included, and a
    request's own ``network`` always wins."""
    settings = Settings(data_dir=tmp_path / "docklake", sandbox={"pool_size": 1, "memory_snapshots": False,
                                                                 "internet_by_default": by_default})
    engine = open_catalog(settings.storage)
    backend = FakeSandboxBackend(images=(settings.sandbox.image,))
    background = Background()
    boxes = Sandboxes(settings, engine, backend, background)
    try:
        plain = boxes.create(ME, NS, CreateRequest())
        background.run()  # the pool fills after the first sandbox is asked for
        pooled = boxes.create(ME, NS, CreateRequest())
        offline = boxes.create(ME, NS, CreateRequest(network=NetworkPolicy(allow_internet_access=False)))
        background.run()
        assert plain.spec.network.allow_internet_access is by_default
        assert pooled.spec.network.allow_internet_access is by_default
        assert offline.spec.network.allow_internet_access is False
        launched = {req.sandbox_id: req.internet for req in backend.launches}
        assert all(internet is by_default for sid, internet in launched.items() if sid.startswith("pool"))
        assert launched.get(offline.id) is False
    finally:
        boxes.close()
        engine.dispose()


# -- live resize ----------------------------------------------------------------------------------


def test_a_live_resize_changes_the_running_container_and_stays_with_the_sandbox(rig: Rig) -> None:
    sb = rig.create(name="grow")
    grown = rig.sandboxes.patch(ME, NS, "grow", PatchRequest(resources={"cpus": 2, "memory_mb": 2048}))
    assert grown.resize is not None and (grown.resize.generation, grown.resize.status) == (1, "succeeded")
    assert (grown.spec.resources.cpus, grown.spec.resources.memory_mb) == (2.0, 2048)
    assert grown.spec.resources.disk_mb == sb.spec.resources.disk_mb  # not asked for: kept
    assert rig.backend.limits(sb.container_id or "") == (2.0, 2048)
    assert grown.container_id == sb.container_id  # in place: the same container

    # the same again changes nothing and keeps the last generation
    same = rig.sandboxes.patch(ME, NS, "grow", PatchRequest(resources={"memory_mb": 2048}))
    assert same.resize == grown.resize
    shrunk = rig.sandboxes.patch(ME, NS, "grow", PatchRequest(resources={"memory_mb": 512}))
    assert shrunk.resize is not None and (shrunk.resize.generation, shrunk.resize.status) == (2, "succeeded")

    # a suspend and a resume start the sandbox with what it was resized to
    rig.sandboxes.suspend(ME, NS, "grow")
    rig.background.run()
    rig.sandboxes.resume(ME, NS, "grow")
    rig.background.run()
    [container] = rig.backend.running_for(sb.id)
    assert (container.launch.resources.cpus, container.launch.resources.memory_mb) == (2.0, 512)


def test_a_resize_the_host_cannot_give_is_refused_and_changes_nothing(rig: Rig) -> None:
    sb = rig.create()
    rig.backend.memory_in_use_mb = 700
    for wanted in ({"cpus": 3}, {"memory_mb": 8192}, {"memory_mb": 600}, {"disk_mb": 1024}, {"cpus": 1.5}):
        assert rig.refused(lambda w=wanted: rig.sandboxes.patch(ME, NS, sb.id, PatchRequest(resources=w))) == 400
    assert rig.refused(lambda: rig.sandboxes.patch(
        ME, NS, sb.id, PatchRequest(resources={"cpus": 2}, auto_resume=False))) == 400
    after = rig.now(sb)
    assert after.resize is None and after.spec.resources == sb.spec.resources
    assert rig.backend.limits(sb.container_id or "") == (1.0, 1024)


def test_a_resize_the_engine_refuses_fails_its_generation_and_the_sandbox_runs_on(rig: Rig) -> None:
    sb = rig.create(name="keep")
    rig.backend.fail_resize = "cannot update memory: device busy"
    failed = rig.sandboxes.patch(ME, NS, "keep", PatchRequest(resources={"memory_mb": 2048}))
    assert failed.status == S.running and failed.spec.resources == sb.spec.resources
    assert failed.resize is not None and failed.resize.status == "failed"
    assert "device busy" in (failed.resize.error_message or "")
    assert failed.resize.requested.memory_mb == 2048

    rig.backend.fail_resize = None
    ok = rig.sandboxes.patch(ME, NS, "keep", PatchRequest(resources={"memory_mb": 2048}))
    assert ok.resize is not None and (ok.resize.generation, ok.resize.status) == (2, "succeeded")


def test_only_a_running_sandbox_is_resized(rig: Rig) -> None:
    sb = rig.create(name="nap")
    rig.sandboxes.suspend(ME, NS, "nap")
    rig.background.run()
    assert rig.refused(lambda: rig.sandboxes.patch(ME, NS, "nap", PatchRequest(resources={"cpus": 2}))) == 409
    rig.sandboxes.terminate(ME, NS, "nap")
    assert rig.refused(lambda: rig.sandboxes.patch(ME, NS, sb.id, PatchRequest(resources={"cpus": 2}))) == 409


def test_a_resize_left_pending_by_a_restart_is_settled_by_the_container(rig: Rig) -> None:
    from pipelines.core.sandbox_records import Resize, ResizeStatus, Resources

    applied, lost = rig.create(), rig.create()
    for sb in (applied, lost):
        repo.transition(rig.sandboxes.engine, sb.id, None, resource_resize=Resize(
            1, replace(sb.spec.resources, memory_mb=3000), ResizeStatus.pending))
    rig.backend.resize(applied.container_id or "", 1.0, 3000)  # applied just before the service stopped
    rig.sandboxes.reconcile()
    a, b = rig.now(applied), rig.now(lost)
    assert a.resize is not None and a.resize.status == "succeeded" and a.spec.resources.memory_mb == 3000
    assert b.resize is not None and b.resize.status == "failed" and b.spec.resources == Resources()
    assert "restart" in (b.resize.error_message or "")


# -- logs -----------------------------------------------------------------------------------------


def _output(rig: Rig, sb: Sandbox, pid: int, name: str | None, *lines: tuple[str, str], at: int = 0) -> None:
    """Process ``pid`` of the sandbox's container wrote ``lines`` ((stream, text), a ms apart from
    ``at`` + pid seconds)."""
    [container] = rig.backend.running_for(sb.id)
    container.processes.append({"pid": pid, "name": name, "command": f"cmd{pid}", "started_at": 1, "lines": [
        [seq, at + 1_000 * pid + seq, stream, text] for seq, (stream, text) in enumerate(lines)]})


def test_logs_are_read_filtered_and_paged_and_outlive_the_container(rig: Rig) -> None:
    from pipelines.usecases.sandbox_logs import LogQuery

    sb = rig.create(name="talk")
    _output(rig, sb, 7, None, ("stdout", "hello"), ("stderr", "oops"), ("stdout", "bye"))
    _output(rig, sb, 9, "web", ("stdout", "GET /"))
    read = lambda **q: rig.sandboxes.logs(ME, NS, "talk", LogQuery(**q))  # noqa: E731

    _, lines, token = read()
    assert [ln.text for ln in lines] == ["hello", "oops", "bye", "GET /"] and token is None
    assert [ln.text for ln in read(tail=2)[1]] == ["bye", "GET /"]
    assert [ln.text for ln in read(levels=(5,))[1]] == ["oops"]
    assert [ln.text for ln in read(process_ids=("web",))[1]] == ["GET /"]
    assert [ln.text for ln in read(body="BY")[1]] == ["bye"]
    _, first, token = read(head=3)
    assert len(first) == 3 and token is None
    assert rig.refused(lambda: read(next_token="not-a-token")) == 400

    # suspended: the container is gone, the lines are kept; after the resume new ones join them
    rig.sandboxes.suspend(ME, NS, "talk")
    rig.background.run()
    assert [ln.text for ln in read()[1]] == ["hello", "oops", "bye", "GET /"]
    rig.sandboxes.resume(ME, NS, "talk")
    rig.background.run()
    _output(rig, rig.now(sb), 7, None, ("stdout", "again"), at=60_000)
    _, lines, _ = read()
    assert [ln.text for ln in lines] == ["hello", "oops", "bye", "GET /", "again"]
    assert {ln.process_id for ln in lines if ln.pid == 7} == {"1-7", "2-7"}  # pid 7 of each container

    _, procs = rig.sandboxes.log_processes(ME, NS, "talk")
    assert sorted((p["process_id"], p["name"], p["count"]) for p in procs) == [
        ("1-7", None, 3), ("1-9", "web", 1), ("2-7", None, 1)]
    rig.sandboxes.terminate(ME, NS, "talk")
    rig.background.run()
    assert len(read()[1]) == 5  # an archived sandbox's logs stay readable
    assert rig.refused(lambda: rig.sandboxes.logs(Principal("org-b", "p"), NS, sb.id, LogQuery())) == 404
