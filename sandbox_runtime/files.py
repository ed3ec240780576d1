"""File access for ``/api/v1/files``, confined to a root directory (``--files-root``, default ``/``).

A path must be absolute and is a real path (the one processes see), not one relative to the root.
A ``..`` component is refused outright; so is a path, or a symlink along it, that resolves outside
the root: 403 ``PATH_TRAVERSAL``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import IO, Any

from sandbox_runtime.contract import ErrorCode, RuntimeApiError, invalid, not_found

CHUNK = 1024 * 1024


def _traversal(path: str) -> RuntimeApiError:
    return RuntimeApiError(403, ErrorCode.PATH_TRAVERSAL, f"path {path!r} leaves the allowed root")


class Files:
    def __init__(self, root: str = "/") -> None:
        self.root = os.path.realpath(root)

    def _inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root.rstrip("/") + "/")

    def resolve(self, path: str | None) -> str:
        """The real path ``path`` names, inside the root; 400 when missing or relative, 403 when
        it climbs with ``..`` or resolves (through symlinks) outside the root."""
        if not path:
            raise invalid("the 'path' query parameter is required")
        if "\0" in path:
            raise invalid("'path' may not contain NUL")
        if not path.startswith("/"):
            raise invalid(f"path {path!r} must be absolute")
        if ".." in path.split("/"):
            raise _traversal(path)
        real = os.path.realpath(path)
        if not self._inside(real):
            raise _traversal(path)
        return real

    def open_read(self, path: str | None) -> IO[bytes]:
        real = self.resolve(path)
        if os.path.isdir(real):
            raise RuntimeApiError(400, ErrorCode.IS_DIRECTORY, f"{path} is a directory")
        return open(real, "rb")  # OSErrors become answers in the daemon (os_error)

    def write(self, path: str | None, body: IO[bytes]) -> None:
        """Write what ``body`` reads (until it gives ``b""``) to ``path``, creating parent
        directories; the file is replaced atomically, only once the whole body has arrived."""
        real = self.resolve(path)
        if os.path.isdir(real):
            raise RuntimeApiError(400, ErrorCode.IS_DIRECTORY, f"{path} is a directory")
        parent = os.path.dirname(real)
        os.makedirs(parent, exist_ok=True)
        if not self._inside(os.path.realpath(parent)):
            raise _traversal(path or "")
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=".upload-")
        try:
            with os.fdopen(fd, "wb") as out:
                for chunk in iter(lambda: body.read(CHUNK), b""):
                    out.write(chunk)
            if os.path.exists(real):
                shutil.copymode(real, tmp)
            else:
                os.chmod(tmp, 0o644)
            os.replace(tmp, real)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def delete(self, path: str | None) -> None:
        """Delete a file (a symlink itself, not its target); 400 ``IS_DIRECTORY`` for a directory."""
        real = self.resolve(path)
        assert path is not None
        lexical = os.path.normpath(path)
        target = lexical if os.path.islink(lexical) else real
        if real == self.root or not self._inside(os.path.realpath(os.path.dirname(target))):
            raise _traversal(path)
        if os.path.isdir(target) and not os.path.islink(target):
            raise RuntimeApiError(400, ErrorCode.IS_DIRECTORY, f"{path} is a directory")
        os.unlink(target)

    def list_dir(self, path: str | None) -> dict[str, Any]:
        real = self.resolve(path)
        if not os.path.exists(real):
            raise not_found(f"no such directory: {path}")
        if not os.path.isdir(real):
            raise RuntimeApiError(400, ErrorCode.NOT_A_DIRECTORY, f"{path} is not a directory")
        entries: list[dict[str, Any]] = []
        with os.scandir(real) as it:
            for e in it:
                try:
                    st = e.stat()
                except OSError:  # a dangling symlink
                    st = e.stat(follow_symlinks=False)
                is_dir = e.is_dir()
                entries.append({"name": e.name, "is_dir": is_dir, "size": 0 if is_dir else st.st_size,
                                "modified_at": int(st.st_mtime * 1000)})
        entries.sort(key=lambda d: d["name"])
        return {"path": path, "entries": entries}
