"""Which ``DOCKLAKE_*`` names are settings: the documented variables, the names renamed since,
and the check that stops a process on a name that is not a setting (``UnknownSettingName``).

pydantic-settings would silently ignore a misspelt or renamed variable and leave its setting at
the default; ``refuse_unknown_names`` names the variable and what it should be instead. Kept
apart from ``settings`` (the model itself) so each stays small; ``Settings`` calls it before
reading the environment.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from typing import get_args, get_origin

from pydantic import BaseModel

from pipelines.core.settings import NESTED, PREFIX, Settings

# The flat names of before the settings were grouped (commit b45dd95), and DOCKLAKE_TESSDATA
# (read by the OCR stage itself until 8080066) -> the names that set the same thing now.
RENAMED = {
    "DOCKLAKE_HOST": "DOCKLAKE_API__HOST",
    "DOCKLAKE_STORAGE_URL": "DOCKLAKE_STORAGE__URL",
    "DOCKLAKE_CATALOG_URL": "DOCKLAKE_STORAGE__CATALOG_URL",
    "DOCKLAKE_PREFECT_API_URL": "DOCKLAKE_PREFECT__API_URL",
    "DOCKLAKE_PREFECT_PORT": "DOCKLAKE_PREFECT__PORT",
    "DOCKLAKE_LEASE_S": "DOCKLAKE_WORKER__LEASE_S",
    "DOCKLAKE_DISPATCH_BATCH_SIZE": "DOCKLAKE_WORKER__BATCH_SIZE",
    "DOCKLAKE_DISPATCH_POLL_S": "DOCKLAKE_WORKER__POLL_S",
    "DOCKLAKE_MAX_CHILDREN": "DOCKLAKE_WORKER__MAX_CHILDREN",
    "DOCKLAKE_SPLIT_PAGES": "DOCKLAKE_WORKER__SPLIT_PAGES",
    "DOCKLAKE_MAX_UPLOAD_BYTES": "DOCKLAKE_LIMITS__MAX_UPLOAD_BYTES",
    "DOCKLAKE_JOB_TIMEOUT_S": "DOCKLAKE_LIMITS__JOB_TIMEOUT_S",
    "DOCKLAKE_JOB_MEMORY_MB": "DOCKLAKE_LIMITS__JOB_MEMORY_MB",
    "DOCKLAKE_ALLOW_PRIVATE_URLS": "DOCKLAKE_LIMITS__ALLOW_PRIVATE_URLS",
    "DOCKLAKE_FETCH_TIMEOUT_S": "DOCKLAKE_LIMITS__FETCH_TIMEOUT_S",
    "DOCKLAKE_TESSDATA": "DOCKLAKE_OCR__TESSDATA_DIR",
}

# DOCKLAKE_* variables that are not settings and must not stop a process: they are read by
# other tools, and may well be exported in the same shell that runs `docklake`.
NOT_SETTINGS = frozenset({
    # compose.yaml's and deploy/offline/compose.yaml's own variables, read by `docker compose`
    # from the shell or .env (documented in docs/scale-out.md). DOCKLAKE_PORT and DOCKLAKE_WORKERS were
    # also the flat names of api.port and worker.count before b45dd95; that they now mean the
    # published port and the worker replicas to compose wins, so they are not in RENAMED.
    "DOCKLAKE_IMAGE", "DOCKLAKE_BASE_IMAGE", "DOCKLAKE_BUCKET", "DOCKLAKE_DELIVERY", "DOCKLAKE_MAX_IN_FLIGHT",
    "DOCKLAKE_PORT", "DOCKLAKE_WORKERS", "DOCKLAKE_WORKER_MEMORY",
    # the sandbox runtime daemon's token (sandbox_runtime.contract.TOKEN_ENV), given to it by
    # docklake inside a sandbox and read by the daemon alone
    "DOCKLAKE_RUNTIME_TOKEN",
})


class UnknownSettingName(ValueError):
    """``DOCKLAKE_*`` variables in the environment that no setting reads."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join([
            "these environment variables are not settings (stopping rather than ignoring them):",
            *(f"  {p}" for p in problems),
            "(every setting is listed in docs/configuration.md)"]))


def documented_variables() -> dict[str, tuple[object, str]]:
    """Every ``DOCKLAKE_*`` variable: its default and description (what docs/configuration.md lists)."""
    out: dict[str, tuple[object, str]] = {}
    for name, field in Settings.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            for sub, sf in ann.model_fields.items():
                default = sf.default_factory() if sf.default_factory is not None else sf.default  # type: ignore[call-arg]
                out[f"DOCKLAKE_{name.upper()}__{sub.upper()}"] = (default, sf.description or "")
        else:
            out[f"DOCKLAKE_{name.upper()}"] = (field.default, field.description or "")
    return out


def _model(annotation: object) -> type[BaseModel] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _read_by(model: type[BaseModel], parts: list[str]) -> bool:
    """Whether pydantic-settings reads a name (after the prefix, split at ``__``, upper case) into
    ``model``: a field (a group's name alone too: it takes JSON), a group's field, or any key
    under a mapping field."""
    field = model.model_fields.get(parts[0].lower())
    if field is None or len(parts) == 1:
        return field is not None
    for t in (field.annotation, *get_args(field.annotation)):
        if sub := _model(t):
            return _read_by(sub, parts[1:])
        if t is dict or get_origin(t) is dict:
            return True
    return False


def setting_names(model: type[BaseModel] = Settings, prefix: str = PREFIX) -> Iterator[str]:
    """Every setting's variable, nested ones included (a group's own name aside)."""
    for name, field in model.model_fields.items():
        if sub := _model(field.annotation):
            yield from setting_names(sub, f"{prefix}{name.upper()}{NESTED}")
        else:
            yield f"{prefix}{name.upper()}"


def unknown_names(names: Iterable[str]) -> list[str]:
    """What is wrong with each ``DOCKLAKE_*`` name (in any case, as pydantic-settings reads them)
    that no setting reads: its new name, or else the closest setting's."""
    known = list(setting_names())
    problems = []
    for name in sorted(names):
        upper = name.upper()
        if not upper.startswith(PREFIX) or upper in NOT_SETTINGS:
            continue
        if upper in RENAMED:
            problems.append(f"{name}: renamed {RENAMED[upper]}; set that instead")
            continue
        parts = upper.removeprefix(PREFIX).split(NESTED)
        if _read_by(Settings, parts):
            continue
        group = Settings.model_fields.get(parts[0].lower())
        why = (f"the {parts[0].lower()} group has no setting {NESTED.join(parts[1:]).lower()!r}"
               if len(parts) > 1 and group and _model(group.annotation) else "no such setting")
        close = difflib.get_close_matches(upper, known, n=1, cutoff=0.6)
        problems.append(f"{name}: {why}" + (f"; did you mean {close[0]}?" if close else ""))
    return problems


def refuse_unknown_names(environ: Iterable[str]) -> None:
    """Raise ``UnknownSettingName`` if any ``DOCKLAKE_*`` variable is not read by a setting."""
    problems = unknown_names(environ)
    if problems:
        raise UnknownSettingName(problems)
