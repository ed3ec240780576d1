"""Constants and small helpers shared by tests (import these, never ``tests.conftest``)."""

import functools
import socket
from types import MappingProxyType

KEY_A, KEY_B, KEY_A2 = "key-a", "key-b", "key-a2"
API_KEYS = f"{KEY_A}=org-a/proj-a,{KEY_B}=org-b/proj-b,{KEY_A2}=org-a/proj-other"
# read-only: shared by the whole suite, so a client that adds its defaults to the headers it is
# given (schemathesis, Starlette's TestClient) must be handed a copy (dict(A))
A = MappingProxyType({"Authorization": f"Bearer {KEY_A}"})  # organization a, project a
B = MappingProxyType({"Authorization": f"Bearer {KEY_B}"})  # another organization
A2 = MappingProxyType({"Authorization": f"Bearer {KEY_A2}"})  # same organization, another project


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sse_events(text: str) -> list[tuple[str, str]]:
    """``(event, data)`` pairs of a ``text/event-stream`` body, as a browser's EventSource reads
    it: comment lines ignored, several ``data:`` lines of one event joined with newlines."""
    events, name, data = [], "message", []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line == "":
            if data:
                events.append((name, "\n".join(data)))
            name, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
    return events


def remove_sandboxes_of(owner: str) -> None:
    """Remove every container and snapshot image one installation (its catalog) left on the
    Docker engine."""
    import docker

    from pipelines.docker.names import LABEL_OWNER

    engine = docker.from_env()
    for c in engine.containers.list(all=True, filters={"label": f"{LABEL_OWNER}={owner}"}):
        c.remove(force=True)
    # by tag, newest first: a snapshot of a sandbox made from a snapshot is a child image, and an
    # image with children can only be untagged (it goes with its last child)
    images = engine.images.list(filters={"label": f"{LABEL_OWNER}={owner}"})
    for image in sorted(images, key=lambda i: i.attrs["Created"], reverse=True):
        for tag in image.tags:
            engine.images.remove(tag, force=True)


@functools.cache
def no_docker_engine() -> str | None:
    """Why the tests marked ``docker`` cannot run here (None: an engine answers); asked once."""
    import docker

    try:
        docker.from_env(timeout=10).ping()
    except Exception as exc:  # the SDK's errors and the transport's (requests) alike
        return f"no Docker engine answers: {exc}"
    return None
