"""The runtime API's contract, defined once: the daemon, the host-side client and the tests import
it. Shapes follow what the Tensorlake SDK sends and parses (project note tensorlake-wire.md §4).

Standard library only, Python 3.9+: this package is bind-mounted read-only into arbitrary images.
"""

from __future__ import annotations

import errno
import json
import re
import signal as _signal
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

PORT = 9501
API_PREFIX = "/api/v1"
VERSION = "0.1.0"

TOKEN_ENV = "DOCKLAKE_RUNTIME_TOKEN"
"""Environment variable holding the bearer token; the daemon removes it from its own environment so
that no process it starts can read it."""

OUTPUT_LINES_KEPT = 10_000
OUTPUT_CHARS_KEPT = 16 * 1024 * 1024
"""Each process keeps its last 10,000 output lines (stdout and stderr together), and of them at
most 16 Mi characters; older lines drop."""


class ErrorCode:
    NOT_FOUND = "NOT_FOUND"
    STDIN_NOT_WRITABLE = "STDIN_NOT_WRITABLE"
    PATH_TRAVERSAL = "PATH_TRAVERSAL"
    IS_DIRECTORY = "IS_DIRECTORY"
    NOT_A_DIRECTORY = "NOT_A_DIRECTORY"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    INVALID_TOKEN = "INVALID_TOKEN"
    INVALID_REQUEST = "INVALID_REQUEST"
    INVALID_SIGNAL = "INVALID_SIGNAL"
    NOT_RUNNING = "NOT_RUNNING"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    NAME_TAKEN = "NAME_TAKEN"
    RESTARTING = "RESTARTING"
    UNSUPPORTED = "UNSUPPORTED"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"


class RuntimeApiError(Exception):
    """An error the runtime API answers with (daemon side) or answered with (client side): HTTP
    status, one of ``ErrorCode``, and a message for people."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message

    def body(self) -> dict[str, str]:
        return {"error": self.message, "code": self.code}

    @classmethod
    def from_body(cls, status: int, raw: bytes) -> RuntimeApiError:
        """The error a response carries; a body that is not ``{"error","code"}`` JSON is kept as text."""
        try:
            doc = json.loads(raw)
            return cls(status, str(doc.get("code") or ""), str(doc["error"]))
        except (ValueError, KeyError, TypeError, AttributeError):
            return cls(status, "", raw.decode("utf-8", "replace")[:500])


def invalid(message: str) -> RuntimeApiError:
    return RuntimeApiError(400, ErrorCode.INVALID_REQUEST, message)


def not_found(message: str) -> RuntimeApiError:
    return RuntimeApiError(404, ErrorCode.NOT_FOUND, message)


def os_error(e: OSError, what: str) -> RuntimeApiError:
    """The answer for an ``OSError`` met while working on ``what`` (a path, usually)."""
    reason = e.strerror or str(e)
    if isinstance(e, FileNotFoundError):
        return not_found(f"{what}: {reason}")
    if isinstance(e, PermissionError) or e.errno == errno.EROFS:
        return RuntimeApiError(403, ErrorCode.PERMISSION_DENIED, f"{what}: {reason}")
    if e.errno == errno.ENAMETOOLONG:
        return invalid(f"{what}: {reason}")
    if isinstance(e, IsADirectoryError):
        return RuntimeApiError(400, ErrorCode.IS_DIRECTORY, f"{what}: {reason}")
    if isinstance(e, NotADirectoryError):
        return RuntimeApiError(400, ErrorCode.NOT_A_DIRECTORY, f"{what}: {reason}")
    return RuntimeApiError(500, ErrorCode.INTERNAL_ERROR, f"{what}: {reason}")


# --- auth -----------------------------------------------------------------------------------------

def bearer(token: str) -> str:
    """The ``Authorization`` header value carrying ``token``."""
    return f"Bearer {token}"


def presented_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (scheme case-insensitive), else None."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


# --- request validation ---------------------------------------------------------------------------

STDIN_MODES = ("closed", "pipe")
OUTPUT_MODES = ("capture", "discard")
NAME_RULE = "a process name may not be empty, may not be all digits and may not contain '/'"


def _get(doc: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str,
         default: Any = None) -> Any:
    value = doc.get(key)
    if value is None:
        return default
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise invalid(f"'{key}' must be {what}")
    return value


def _str_list(doc: dict[str, Any], key: str) -> list[str]:
    value = _get(doc, key, list, "a list of strings", [])
    if not all(isinstance(v, str) for v in value):
        raise invalid(f"'{key}' must be a list of strings")
    return list(value)


def _str_map(doc: dict[str, Any], key: str) -> dict[str, str]:
    value = _get(doc, key, dict, "an object of strings", {})
    if not all(isinstance(v, str) for v in value.values()):
        raise invalid(f"'{key}' must be an object whose values are strings")
    if any("=" in k or not k or "\0" in k for k in value):
        raise invalid(f"'{key}' has an invalid variable name (empty, or containing '=')")
    return dict(value)


def _choice(doc: dict[str, Any], key: str, choices: tuple[str, ...]) -> str:
    value = _get(doc, key, str, "a string", choices[0])
    if value not in choices:
        raise invalid(f"'{key}' must be one of {', '.join(choices)}, not {value!r}")
    return value


@dataclass
class UserSpec:
    """Who a process runs as: a user (name or uid) and optionally a group (gid or group name).
    Given as ``"name"``, Docker-style ``"user:group"`` / ``"1000:1000"``, or ``{name?, uid?, gid?}``."""

    name: str | None = None
    uid: int | None = None
    gid: int | None = None
    group: str | None = None

    @classmethod
    def parse(cls, value: Any) -> UserSpec | None:
        if value is None:
            return None
        if isinstance(value, str):
            user, _, group = value.strip().partition(":")
            if not user:
                raise invalid("'user' needs a user name or uid, as in \"name\", \"1000\" or \"1000:1000\"")
            spec = cls(name=None if user.isdigit() else user, uid=int(user) if user.isdigit() else None,
                       gid=int(group) if group.isdigit() else None,
                       group=group if group and not group.isdigit() else None)
            return spec
        if isinstance(value, dict):
            spec = cls(name=_get(value, "name", str, "a string"),
                       uid=_get(value, "uid", int, "an integer"),
                       gid=_get(value, "gid", int, "an integer"))
            if spec.name is None and spec.uid is None:
                raise invalid("'user' needs a name or a uid")
            if spec.name is not None and spec.uid is not None:
                raise invalid("'user' takes a name or a uid, not both")
            if any(v is not None and v < 0 for v in (spec.uid, spec.gid)):
                raise invalid("'user' uid and gid may not be negative")
            return spec
        raise invalid("'user' must be a user name, \"uid:gid\", or an object {name?, uid?, gid?}")

    def __str__(self) -> str:
        who = self.name if self.name is not None else str(self.uid)
        group = self.group if self.group is not None else self.gid
        return who if group is None else f"{who}:{group}"


@dataclass
class CommandSpec:
    """What both ``POST /processes`` and ``POST /processes/run`` start."""

    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    working_dir: str | None = None
    user: UserSpec | None = None

    @staticmethod
    def fields(doc: Any) -> dict[str, Any]:
        if not isinstance(doc, dict):
            raise invalid("the request body must be a JSON object")
        command = doc.get("command")
        if not isinstance(command, str) or not command:
            raise invalid("'command' is required and must be a non-empty string")
        if "\0" in command:
            raise invalid("'command' may not contain NUL")
        return {"command": command, "args": _str_list(doc, "args"), "env": _str_map(doc, "env"),
                "working_dir": _get(doc, "working_dir", str, "a string"),
                "user": UserSpec.parse(doc.get("user"))}


@dataclass
class StartRequest(CommandSpec):
    """``POST /api/v1/processes``."""

    stdin_mode: str = "closed"
    stdout_mode: str = "capture"
    stderr_mode: str = "capture"
    name: str | None = None
    restart: Any = None  # a managed process's options, as sent (``supervisor`` reads them)
    health_check: Any = None

    @classmethod
    def parse(cls, doc: Any) -> StartRequest:
        base = cls.fields(doc)
        name = _get(doc, "name", str, "a string")
        if name is not None and not valid_name(name):
            raise invalid(NAME_RULE)
        return cls(**base, stdin_mode=_choice(doc, "stdin_mode", STDIN_MODES),
                   stdout_mode=_choice(doc, "stdout_mode", OUTPUT_MODES),
                   stderr_mode=_choice(doc, "stderr_mode", OUTPUT_MODES), name=name, restart=doc.get("restart"),
                   health_check=doc.get("health_check"))


@dataclass
class RunRequest(CommandSpec):
    """``POST /api/v1/processes/run``: stdin closed, output captured and streamed, optional
    ``timeout`` in seconds after which the whole process group is killed."""

    timeout: float | None = None

    @classmethod
    def parse(cls, doc: Any) -> RunRequest:
        base = cls.fields(doc)
        timeout = _get(doc, "timeout", (int, float), "a number of seconds")
        if timeout is not None and timeout < 0:
            raise invalid("'timeout' may not be negative")
        return cls(**base, timeout=timeout or None)  # 0 means no limit


def valid_name(name: str) -> bool:
    return bool(name) and not name.isdigit() and "/" not in name


def parse_signal(value: Any) -> int:
    """A signal number from ``15``, ``"15"``, ``"SIGTERM"`` or ``"TERM"`` (case-insensitive);
    400 INVALID_SIGNAL for anything else."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str):
        text = value.strip().upper()
        if text.isdigit():
            number = int(text)
        else:
            name = text if text.startswith("SIG") else "SIG" + text
            member = getattr(_signal.Signals, name, None) if re.fullmatch(r"SIG[A-Z0-9]+", name) else None
            number = int(member) if member is not None else None
    if number is None or number not in SIGNAL_NUMBERS:
        raise RuntimeApiError(400, ErrorCode.INVALID_SIGNAL,
                              f"invalid signal {value!r}: give a number (e.g. 15) or a name (e.g. SIGTERM)")
    return number


SIGNAL_NUMBERS = frozenset(int(s) for s in _signal.Signals)


def signal_body(value: Any) -> int:
    """The signal of a ``{"signal": 15 | "SIGTERM"}`` body."""
    if not isinstance(value, dict) or "signal" not in value:
        raise invalid("the body must be a JSON object {\"signal\": number or name}")
    return parse_signal(value["signal"])


# --- records --------------------------------------------------------------------------------------

RUNNING, EXITED, SIGNALED = "running", "exited", "signaled"
TIMED_OUT = "timed_out"
STREAMS = ("stdout", "stderr")


@dataclass
class ProcessInfo:
    """A process as the API shows it. ``exit_code`` is ``-signal`` for a process a signal ended."""

    pid: int
    status: str
    command: str
    args: list[str]
    started_at: int
    handle: int
    stdin_writable: bool = False
    exit_code: int | None = None
    signal: int | None = None
    ended_at: int | None = None
    name: str | None = None
    oom_killed: bool = False
    managed: dict[str, Any] | None = None  # a managed process's supervision (``supervisor``)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ProcessInfo:
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in doc.items() if k in known})


# --- server-sent events ---------------------------------------------------------------------------

STARTED, OUTPUT, EXIT, EOF = "started", "output", "exit", "eof"


def started_event(handle: int, pid: int, started_at: int) -> dict[str, Any]:
    return {"handle": handle, "pid": pid, "started_at": started_at}


def output_event(line: str, timestamp: int, stream: str) -> dict[str, Any]:
    return {"line": line, "timestamp": timestamp, "stream": stream}


def exit_event(exit_code: int | None, signal: int | None, reason: str) -> dict[str, Any]:
    return {"exit_code": exit_code, "signal": signal, "reason": reason}


def encode_sse(event: str, data: dict[str, Any]) -> bytes:
    """One ``event:``/``data:`` frame; the JSON has no newline, so one ``data:`` line suffices."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


KEEPALIVE = b": keepalive\n\n"


def iter_sse(lines: Iterable[bytes]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(event, data)`` pairs from the lines of a ``text/event-stream`` body (comments skipped,
    several ``data:`` lines joined with newlines, data parsed as JSON)."""
    name, data = "message", []  # type: str, List[str]
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "message", []
        elif not line.startswith(":"):
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "event":
                name = value
            elif key == "data":
                data.append(value)
    if data:
        yield name, json.loads("\n".join(data))
