"""The catalog's sandboxes and snapshots: the record of truth the Docker engine is reconciled to.

State changes are compare-and-set on the status (``transition``), so two requests racing on one
sandbox (a suspend and a delete, say) cannot both win.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from sqlalchemy import Engine, and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from assets.catalog.db import now_us, sandbox_snapshots, sandboxes, write_txn
from assets.catalog.pagination import paginate
from pipelines.core.errors import SandboxConflict
from pipelines.core.records import Page, Principal
from pipelines.core.sandbox_records import (
    LIVE,
    Mount,
    Resize,
    Sandbox,
    SandboxSpec,
    SandboxStatus,
    Snapshot,
    SnapshotReason,
    SnapshotStatus,
    SnapshotType,
    mounts_json,
)

LIVE_VALUES = [s.value for s in LIVE]


def _scoped(p: Principal) -> Any:
    return and_(sandboxes.c.organization_id == p.organization_id, sandboxes.c.project_id == p.project_id)


def _sandbox(row: Any) -> Sandbox:
    return Sandbox(
        id=row["id"], organization_id=row["organization_id"], project_id=row["project_id"],
        namespace=row["namespace"], name=row["name"], status=SandboxStatus(row["status"]),
        spec=SandboxSpec.from_json(row["spec"]), created_us=row["created_us"], updated_us=row["updated_us"],
        mounts=tuple(Mount(**m) for m in row["mounts"] or ()), container_id=row["container_id"],
        address=row["address"], token=row["token"], generation=row["generation"] or 0,
        terminated_us=row["terminated_us"], termination_reason=row["termination_reason"],
        error_details=row["error_details"], restore_snapshot_id=row["restore_snapshot_id"],
        last_active_us=row["last_active_us"], resize=Resize.from_json(row["resource_resize"]),
    )


def name_taken(name: str) -> SandboxConflict:
    return SandboxConflict(f"a sandbox named {name!r} already exists in this namespace")


def insert_sandbox(engine: Engine, sb: Sandbox) -> None:
    try:
        with write_txn(engine) as conn:
            conn.execute(insert(sandboxes).values(
                id=sb.id, organization_id=sb.organization_id, project_id=sb.project_id, namespace=sb.namespace,
                name=sb.name, live_name=sb.name if sb.live else None, status=sb.status.value,
                spec=sb.spec.to_json(), mounts=mounts_json(sb.mounts), container_id=sb.container_id,
                address=sb.address, token=sb.token, generation=sb.generation, created_us=sb.created_us,
                updated_us=sb.updated_us, restore_snapshot_id=sb.restore_snapshot_id,
                last_active_us=sb.last_active_us))
    except IntegrityError:
        raise name_taken(sb.name or "") from None


def get(engine: Engine, sandbox_id: str) -> Sandbox | None:
    """Any tenant's sandbox by id (for the proxy and background steps; callers check scope)."""
    with engine.connect() as conn:
        row = conn.execute(select(sandboxes).where(sandboxes.c.id == sandbox_id)).mappings().first()
    return _sandbox(row) if row else None


def find(engine: Engine, p: Principal, namespace: str, id_or_name: str) -> Sandbox | None:
    """The caller's sandbox by id, else by name in ``namespace``: the live one, else the one that
    held the name most recently."""
    with engine.connect() as conn:
        row = conn.execute(select(sandboxes).where(_scoped(p), sandboxes.c.id == id_or_name)).mappings().first()
        if row is None:
            row = conn.execute(
                select(sandboxes).where(_scoped(p), sandboxes.c.namespace == namespace,
                                        sandboxes.c.name == id_or_name)
                .order_by((sandboxes.c.live_name.is_(None)).asc(), sandboxes.c.created_us.desc())
            ).mappings().first()
    return _sandbox(row) if row else None


def transition(engine: Engine, sandbox_id: str, expect: Iterable[SandboxStatus] | None,
               **values: Any) -> bool:
    """Set ``values`` on the sandbox if its status is one of ``expect`` (any when None); a new
    ``status`` also moves ``live_name`` (a terminated sandbox frees its name). False when the
    sandbox was not in an expected state. Raises SandboxConflict if reviving it needs a name a
    live sandbox holds."""
    if "status" in values:
        status = SandboxStatus(values["status"])
        values["status"] = status.value
        if status == SandboxStatus.terminated:
            values["live_name"] = None
        else:
            values["live_name"] = sandboxes.c.name
    if "mounts" in values:
        values["mounts"] = mounts_json(values["mounts"])
    if isinstance(values.get("resource_resize"), Resize):
        values["resource_resize"] = values["resource_resize"].to_json()
    if "spec" in values and isinstance(values["spec"], SandboxSpec):
        values["spec"] = values["spec"].to_json()
    values["updated_us"] = now_us()
    query = update(sandboxes).where(sandboxes.c.id == sandbox_id)
    if expect is not None:
        query = query.where(sandboxes.c.status.in_([s.value for s in expect]))
    try:
        with write_txn(engine) as conn:
            return conn.execute(query.values(**values)).rowcount == 1
    except IntegrityError:
        raise SandboxConflict("the sandbox's name is held by another live sandbox") from None


def live_name_holder(engine: Engine, p: Principal, namespace: str, names: Iterable[str]) -> str | None:
    """The first of ``names`` a live sandbox of the namespace holds."""
    names = list(names)
    with engine.connect() as conn:
        return conn.execute(select(sandboxes.c.live_name).where(
            _scoped(p), sandboxes.c.namespace == namespace, sandboxes.c.live_name.in_(names)).limit(1)).scalar()


def count_live(engine: Engine, p: Principal) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(sandboxes).where(
            _scoped(p), sandboxes.c.status.in_(LIVE_VALUES))).scalar_one()


def list_live(engine: Engine, p: Principal, namespace: str, status: SandboxStatus | None, *,
              cursor: str | None, direction: Literal["next", "prev"], limit: int) -> Page:
    query = select(sandboxes).where(_scoped(p), sandboxes.c.namespace == namespace)
    if status is None:
        query = query.where(sandboxes.c.status.in_(LIVE_VALUES))
    else:
        query = query.where(sandboxes.c.status == status.value)
    with engine.connect() as conn:
        page = paginate(conn, query, sandboxes.c.created_us, sandboxes.c.id, cursor=cursor, direction=direction,
                        limit=limit)
    page.rows = [_sandbox(r) for r in page.rows]
    return page


def list_archived(engine: Engine, p: Principal, namespace: str, since_us: int, *, cursor: str | None,
                  direction: Literal["next", "prev"], limit: int) -> Page:
    query = select(sandboxes).where(_scoped(p), sandboxes.c.namespace == namespace,
                                    sandboxes.c.status == SandboxStatus.terminated.value,
                                    sandboxes.c.terminated_us >= since_us)
    with engine.connect() as conn:
        page = paginate(conn, query, sandboxes.c.created_us, sandboxes.c.id, cursor=cursor, direction=direction,
                        limit=limit)
    page.rows = [_sandbox(r) for r in page.rows]
    return page


def all_with_status(engine: Engine, statuses: Iterable[SandboxStatus]) -> list[Sandbox]:
    with engine.connect() as conn:
        rows = conn.execute(select(sandboxes).where(sandboxes.c.status.in_([s.value for s in statuses])))
        return [_sandbox(r) for r in rows.mappings()]


def expired(engine: Engine, before_us: int) -> list[Sandbox]:
    """Terminated sandboxes past the retention window."""
    with engine.connect() as conn:
        rows = conn.execute(select(sandboxes).where(sandboxes.c.status == SandboxStatus.terminated.value,
                                                    sandboxes.c.terminated_us < before_us))
        return [_sandbox(r) for r in rows.mappings()]


def forget(engine: Engine, sandbox_id: str) -> None:
    with write_txn(engine) as conn:
        conn.execute(delete(sandbox_snapshots).where(sandbox_snapshots.c.sandbox_id == sandbox_id))
        conn.execute(delete(sandboxes).where(sandboxes.c.id == sandbox_id))


# -- snapshots ------------------------------------------------------------------------------------

def _snapshot(row: Any) -> Snapshot:
    return Snapshot(
        id=row["id"], organization_id=row["organization_id"], project_id=row["project_id"],
        namespace=row["namespace"], sandbox_id=row["sandbox_id"], snapshot_type=SnapshotType(row["snapshot_type"]),
        reason=SnapshotReason(row["reason"]), status=SnapshotStatus(row["status"]),
        spec=SandboxSpec.from_json(row["spec"]), created_us=row["created_us"], image=row["image"],
        size_bytes=row["size_bytes"], error=row["error"],
    )


def insert_snapshot(engine: Engine, snap: Snapshot) -> None:
    with write_txn(engine) as conn:
        conn.execute(insert(sandbox_snapshots).values(
            id=snap.id, organization_id=snap.organization_id, project_id=snap.project_id,
            namespace=snap.namespace, sandbox_id=snap.sandbox_id, snapshot_type=snap.snapshot_type.value,
            reason=snap.reason.value, status=snap.status.value, spec=snap.spec.to_json(), image=snap.image,
            size_bytes=snap.size_bytes, error=snap.error, created_us=snap.created_us))


def update_snapshot(engine: Engine, snapshot_id: str, **values: Any) -> None:
    if isinstance(values.get("status"), SnapshotStatus):
        values["status"] = values["status"].value
    with write_txn(engine) as conn:
        conn.execute(update(sandbox_snapshots).where(sandbox_snapshots.c.id == snapshot_id).values(**values))


def get_snapshot(engine: Engine, snapshot_id: str, p: Principal | None = None) -> Snapshot | None:
    query = select(sandbox_snapshots).where(sandbox_snapshots.c.id == snapshot_id)
    if p is not None:
        query = query.where(sandbox_snapshots.c.organization_id == p.organization_id,
                            sandbox_snapshots.c.project_id == p.project_id)
    with engine.connect() as conn:
        row = conn.execute(query).mappings().first()
    return _snapshot(row) if row else None


def list_snapshots(engine: Engine, p: Principal, namespace: str, sandbox_id: str | None = None) -> list[Snapshot]:
    """The caller's snapshots (asked for, or kept by a suspend or a termination), newest first."""
    query = select(sandbox_snapshots).where(
        sandbox_snapshots.c.organization_id == p.organization_id, sandbox_snapshots.c.project_id == p.project_id,
        sandbox_snapshots.c.namespace == namespace, sandbox_snapshots.c.reason != SnapshotReason.copy.value)
    if sandbox_id is not None:
        query = query.where(sandbox_snapshots.c.sandbox_id == sandbox_id)
    with engine.connect() as conn:
        rows = conn.execute(query.order_by(sandbox_snapshots.c.created_us.desc()).limit(1000))
        return [_snapshot(r) for r in rows.mappings()]


def latest_usable(engine: Engine, sandbox_id: str) -> Snapshot | None:
    """The sandbox's newest completed snapshot that is not being deleted."""
    with engine.connect() as conn:
        row = conn.execute(select(sandbox_snapshots).where(
            sandbox_snapshots.c.sandbox_id == sandbox_id,
            sandbox_snapshots.c.status == SnapshotStatus.completed.value,
        ).order_by(sandbox_snapshots.c.created_us.desc()).limit(1)).mappings().first()
    return _snapshot(row) if row else None


def snapshots_of(engine: Engine, sandbox_ids: Iterable[str] | None = None,
                 statuses: Iterable[SnapshotStatus] | None = None) -> list[Snapshot]:
    query = select(sandbox_snapshots)
    if sandbox_ids is not None:
        query = query.where(sandbox_snapshots.c.sandbox_id.in_(list(sandbox_ids)))
    if statuses is not None:
        query = query.where(sandbox_snapshots.c.status.in_([s.value for s in statuses]))
    with engine.connect() as conn:
        return [_snapshot(r) for r in conn.execute(query).mappings()]


def remove_snapshot(engine: Engine, snapshot_id: str) -> None:
    with write_txn(engine) as conn:
        conn.execute(delete(sandbox_snapshots).where(sandbox_snapshots.c.id == snapshot_id))


def images_in_use(engine: Engine) -> set[str]:
    """Images that snapshots refer to (anything else the service committed is an orphan)."""
    with engine.connect() as conn:
        rows = conn.execute(select(sandbox_snapshots.c.image).where(
            sandbox_snapshots.c.image.is_not(None),
            or_(sandbox_snapshots.c.status != SnapshotStatus.failed.value)))
        return {r[0] for r in rows}
