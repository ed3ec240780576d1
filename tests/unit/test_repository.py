"""What a fresh clone needs: no tracked links, no dependency pinned to a file on one machine.

A ``.venv`` committed as a link into the temp folder, and ``rapidocr`` pinned to a local wheel,
once passed CI on the machine that had both paths and broke ``make test`` everywhere else.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tracked() -> list[tuple[str, str]]:
    """(mode, path) of every file git tracks."""
    try:
        out = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.fail(f"cannot list the tracked files with git: {exc}")
    entries = []
    for item in out.decode().split("\0"):
        if item:
            meta, path = item.split("\t", 1)
            entries.append((meta.split()[0], path))
    return entries


def test_no_tracked_symbolic_links() -> None:
    links = [path for mode, path in _tracked() if mode == "120000"]
    assert links == [], f"the repository tracks symbolic links (they point into one machine): {links}"


# A requirement that names a file rather than a package on the index: `name @ file:…`, a bare
# `file:` URL, an absolute or home path, or pip options that point at local directories.
LOCAL = re.compile(r"(?:^|[\s@=\"'])(?:file:|/|~/|\.\.?/)|--(?:find-links|index-url|extra-index-url)\b|^-[ef]\s")


def _requirements() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for dep in project["project"].get("dependencies", []):
        found.append(("pyproject.toml dependencies", dep))
    for extra, deps in project["project"].get("optional-dependencies", {}).items():
        found += [(f"pyproject.toml [{extra}]", d) for d in deps]
    for req in project["build-system"].get("requires", []):
        found.append(("pyproject.toml build-system", req))
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("--hash") else line.strip()
        if line:
            found.append(("constraints.txt", line))
    return found


def test_requirements_come_from_the_package_index() -> None:
    reqs = _requirements()
    assert len(reqs) > 20, "expected to read the project's requirements"
    local = [f"{where}: {req}" for where, req in reqs if LOCAL.search(req)]
    assert local == [], "requirements must name packages on the index, not local files:\n" + "\n".join(local)


def test_constraints_pin_exact_versions() -> None:
    loose = [req for where, req in _requirements() if where == "constraints.txt" and "==" not in req]
    assert loose == [], f"constraints.txt entries must be exact pins: {loose}"


@pytest.mark.parametrize("bad", [
    "rapidocr @ file:///tmp/pe_dl/rapidocr-3.10.0-py3-none-any.whl",
    "rapidocr @ /tmp/rapidocr-3.10.0-py3-none-any.whl",
    "./wheels/rapidocr-3.10.0-py3-none-any.whl",
    "--find-links /opt/wheels",
    "-e ../sibling",
])
def test_local_requirement_forms_are_recognised(bad: str) -> None:
    assert LOCAL.search(bad)


@pytest.mark.parametrize("good", ["rapidocr==3.10.0", "psycopg[binary]==3.3.9", "markitdown[pdf]==0.1.8"])
def test_index_requirements_pass(good: str) -> None:
    assert not LOCAL.search(good)
