"""Where the real-world documents come from: Debian packages, downloaded with ``apt-get download``
at run time (version pinned; the candidate version when the pinned one is gone), unpacked once
into the cache, and the tools the bench needs to build its corpora (``pdftotext``, ``soffice``).

Nothing of this is copied into the repository.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import tempfile
from pathlib import Path

# package -> version (Debian 12 "bookworm"); the PDFs each one ships, by producer
PACKAGES = {
    "groff": "1.22.4-10",                              # gropdf (groff's own PDF writer), Ghostscript
    "python-reportlab-doc": "3.6.12-1+deb12u1",        # ReportLab
    "ruby-prawn-doc": "2.4.0+dfsg-1~",                 # Prawn (Ruby)
    "cups-filters": "1.28.17-3+deb12u2",               # LibreOffice Writer forms
    "fonts-sil-andika": "6.101-2",                     # cairo (the font's HTML documentation printed)
    "texlive-latex-recommended-doc": "2022.20230122-3",  # pdfTeX (LaTeX manuals)
    "debconf-i18n": "1.5.82",                          # Arabic and Hebrew sentences (translations)
    "apt": "2.6.2",                                    # Arabic sentences
    "tasksel-data": "3.73",                            # Arabic and Hebrew task descriptions
}

# Debian packages the corpora need, by tool: {command: (packages, what for)}
TOOLS = {
    "pdftotext": (["poppler-utils"], "the reference words and reading order (required)"),
    "soffice": (["libreoffice-writer-nogui", "fonts-noto-core", "culmus", "fonts-arabeyes"],
                "the Arabic and Hebrew PDFs"),
    "java": (["default-jre-headless"], "tabula-py (tabula-java)"),
    "tesseract": (["tesseract-ocr"], "the plain-tesseract peer on the rotated scans"),
}


def apt_install(packages: list[str]) -> bool:
    """``apt-get install -y --no-install-recommends packages`` (True when it worked)."""
    if not shutil.which("apt-get"):
        return False
    print(f"  installing {' '.join(packages)} with apt-get (Debian)…", flush=True)
    r = subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", *packages],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        print(f"  apt-get install failed: {r.stderr.strip()[-300:]}")
    return r.returncode == 0


def ensure_tools(setup: bool) -> dict[str, bool]:
    """Which tools are here. ``pdftotext`` is installed when missing (the bench cannot run without
    it); the others only with ``setup``, else each one's absence is said once."""
    have = {}
    for cmd, (pkgs, why) in TOOLS.items():
        if not shutil.which(cmd) and (setup or cmd == "pdftotext"):
            print(f"{cmd} is missing ({why}): installing Debian's {', '.join(pkgs)}")
            apt_install(pkgs)
        have[cmd] = bool(shutil.which(cmd))
        if not have[cmd]:
            print(f"{cmd} is missing: {why} will be skipped "
                  f"(apt-get install -y --no-install-recommends {' '.join(pkgs)}, or --setup)")
    if not have["pdftotext"]:
        raise SystemExit("bench realworld needs pdftotext (Debian's poppler-utils) for its reference words")
    return have


def package(name: str, root: Path, version: str | None = None) -> Path | None:
    """The unpacked package under ``root`` (``root/NAME_VERSION``), downloaded once; None when
    apt cannot get it. The pinned version (``version``, else ``PACKAGES``) first, then whatever
    version apt offers."""
    pinned = version or PACKAGES.get(name)
    if pinned and (root / f"{name}_{pinned}" / "usr").is_dir():
        return root / f"{name}_{pinned}"
    have = sorted(root.glob(f"{name}_*/usr"))
    if have:
        return have[-1].parent
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        for spec in ([f"{name}={pinned}"] if pinned else []) + [name]:
            r = subprocess.run(["apt-get", "download", spec], cwd=tmp, capture_output=True, text=True,
                               check=False)
            debs = list(Path(tmp).glob("*.deb"))
            if r.returncode == 0 and debs:
                break
            print(f"  apt-get download {spec}: {r.stderr.strip()[:160]}")
        else:
            return None
        version = subprocess.run(["dpkg-deb", "-f", str(debs[0]), "Version"], capture_output=True,
                                 text=True, check=True).stdout.strip()
        if pinned and version != pinned:
            print(f"  {name}: {pinned} is gone, using {version}")
        dest = root / f"{name}_{version}"
        dest.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(dest)], check=True)
    return dest


def read_pdf(path: Path) -> bytes:
    """A shipped PDF's bytes (Debian gzips many of them)."""
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data
