"""A real headless browser for the UI tests: Debian's ``chromium`` driven by its own
``chromium-driver`` through selenium (``scripts/bootstrap.sh test`` installs both), and a
``dagster dev`` started the way docs/scale-out.md says, on a free port.

Screenshots go to ``test-artifacts/browser/`` at the top of the checkout (ignored by git); every
saved path is printed so ``pytest -s`` (or the failure output) shows where to look.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support.helpers import free_port

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


class Browser:
    """One headless Chromium window with waits that read what a person reads: the page's text."""

    def __init__(self, width: int = 1600, height: int = 1000) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        for path in (CHROMIUM, CHROMEDRIVER):
            assert os.path.exists(path), f"{path} is missing: run `bash scripts/bootstrap.sh test`"
        opts = Options()
        opts.binary_location = CHROMIUM
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  f"--window-size={width},{height}", "--lang=en-US"):
            opts.add_argument(a)
        # The driver is named, so Selenium Manager never tries to download one.
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
        self.driver.set_page_load_timeout(60)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def open(self, url: str) -> None:
        """Go to ``url``; on a loaded machine chromedriver sometimes gives up waiting for the
        renderer ("Timed out receiving message from renderer"): try again, as a person would
        reload, twice at most."""
        from selenium.common.exceptions import TimeoutException

        for attempt in range(3):
            try:
                self.driver.get(url)
                return
            except TimeoutException as e:
                if attempt == 2:
                    raise
                print(f"opening {url} timed out ({(e.msg or '').strip()}): again")

    def text(self) -> str:
        """The visible text of the page (``innerText``: what a person could read, not hidden markup)."""
        try:
            return self.driver.execute_script("return document.body ? document.body.innerText : ''") or ""
        except Exception:  # noqa: BLE001 - the page is being replaced
            return ""

    def wait_until(self, what: str, ok: Callable[[], object], timeout: float = 30.0,
                   shot: str | None = None) -> object:
        """Poll ``ok()`` until it is truthy; on time-out save a screenshot and fail saying what
        was awaited and what the page showed."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                got = ok()
            except Exception:  # noqa: BLE001 - element not there yet / went stale
                got = None
            if got:
                return got
            if time.monotonic() > deadline:
                path = self.shot(shot or "timeout")
                raise AssertionError(f"waited {timeout:.0f}s for {what}; screenshot {path}; page text:\n"
                                     f"{self.text()[:3000]}")
            time.sleep(0.25)

    def wait_text(self, *needles: str, timeout: float = 30.0, shot: str | None = None) -> str:
        """Wait until every one of ``needles`` is visible text on the page; returns the text."""
        return str(self.wait_until(" and ".join(repr(n) for n in needles),
                                   lambda: (t := self.text()) and all(n in t for n in needles) and t,
                                   timeout, shot))

    def find(self, css: str, timeout: float = 30.0, visible_text: str | None = None):  # type: ignore[no-untyped-def]
        """The first displayed element matching ``css`` (and containing ``visible_text``)."""
        from selenium.webdriver.common.by import By

        def first():  # type: ignore[no-untyped-def]
            for el in self.driver.find_elements(By.CSS_SELECTOR, css):
                if el.is_displayed() and (visible_text is None or visible_text in el.text):
                    return el
            return None

        return self.wait_until(f"element {css!r}" + (f" showing {visible_text!r}" if visible_text else ""),
                               first, timeout)

    def click_text(self, text: str, timeout: float = 30.0, exact: bool = True) -> None:
        """Click what a person would click to follow ``text``: the innermost visible element whose
        own visible text is ``text`` (or contains it, when not ``exact``)."""
        js = """
            const [want, exact] = arguments;
            let best = null;
            for (const el of document.body.querySelectorAll('*')) {
                const t = (el.innerText || '').trim();
                if (!(exact ? t === want : t.includes(want))) continue;
                const r = el.getBoundingClientRect();
                if (r.width === 0 || r.height === 0) continue;
                if (!best || best.contains(el)) best = el;
            }
            if (best) { best.scrollIntoView({block: 'center'}); best.click(); return true; }
            return false;
        """
        self.wait_until(f"something to click showing {text!r}",
                        lambda: self.driver.execute_script(js, text, exact), timeout)

    def shot(self, name: str) -> Path:
        """Save a screenshot (an artifact for people to look at, never what a test asserts: if the
        driver times out taking it, the test goes on)."""
        from selenium.common.exceptions import TimeoutException

        path = ARTIFACTS / f"{name}.png"
        try:
            self.driver.save_screenshot(str(path))
        except TimeoutException as e:
            print(f"screenshot {name} not taken: {(e.msg or '').strip()}")
            return path
        print(f"screenshot: {path}")
        return path

    def quit(self) -> None:
        self.driver.quit()


@contextmanager
def browser() -> Iterator[Browser]:
    b = Browser()
    try:
        yield b
    finally:
        b.quit()


@dataclass
class Dagster:
    url: str
    proc: subprocess.Popen
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_ready(self, timeout: float = 180.0) -> None:
        """Until the webserver answers and has the code location loaded. A location whose load
        failed (a slow start on a busy machine can time out) is reloaded, as a person would press
        "Reload" on the Deployment page; the webserver otherwise shows its assets as external."""
        deadline = time.monotonic() + timeout
        errors: list[str] = []
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"dagster dev exited:\n{self.output()}")
            try:
                state = self.location_state()
            except (httpx.HTTPError, ValueError, KeyError, TypeError):
                state = None
            if state == "loaded":
                return
            if state and state != "loading":
                errors.append(state)
                self.graphql("mutation { reloadWorkspace { __typename } }")
                time.sleep(2)
            time.sleep(0.3)
        raise RuntimeError(f"dagster dev did not load the code location in {timeout:.0f}s "
                           f"(load errors: {errors}):\n{self.output()[-5000:]}")

    def graphql(self, query: str, variables: dict | None = None) -> dict:
        got = httpx.post(f"{self.url}/graphql", json={"query": query, "variables": variables or {}}, timeout=30)
        got.raise_for_status()
        return got.json()

    def asset_state(self, name: str) -> str:
        """What the webserver's API says of asset ``name``, as the asset page asks it: ``defined``,
        or why the page would show it as an external asset (no definition, an error)."""
        try:
            got = self.graphql("""query($key: AssetKeyInput!) { assetOrError(assetKey: $key) {
                __typename ... on Asset { definition { id isMaterializable } } } }""",
                               {"key": {"path": [name]}})
        except (httpx.HTTPError, ValueError) as e:
            return f"request failed: {e!r}"
        asset = (got.get("data") or {}).get("assetOrError") or {}
        if (asset.get("definition") or {}).get("isMaterializable"):
            return "defined"
        return f"not defined: {got}"

    def location_state(self) -> str:
        """``loaded``, ``loading``, or the load error's message."""
        data = self.graphql("""{ workspaceOrError { __typename ... on Workspace { locationEntries {
            loadStatus locationOrLoadError { __typename ... on PythonError { message } } } } } }""")
        entries = data["data"]["workspaceOrError"]["locationEntries"]
        if not entries or any(e["loadStatus"] != "LOADED" for e in entries):
            return "loading"
        for e in entries:
            loaded = e["locationOrLoadError"] or {}
            if loaded.get("__typename") != "RepositoryLocation":
                return loaded.get("message") or f"location not loaded: {loaded}"
        return "loaded"


def start_dagster(home: Path, env: dict[str, str]) -> Dagster:
    """``dagster dev -w workspace.yaml`` (webserver + daemon, so the sensor ticks) on a free port,
    with ``env``'s ``DOCKLAKE_*`` settings: the same catalog and storage as the service. Returns at
    once (it takes a while to start, time other checks can use): call ``wait_ready`` before use."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    port = free_port()
    log = home / "dagster-dev.log"
    full = {k: v for k, v in env.items() if not k.startswith("DAGSTER_")}
    full.update({"DAGSTER_HOME": str(home), "DAGSTER_DISABLE_TELEMETRY": "1"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "dagster", "dev", "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port)],
        cwd=ROOT, stdout=open(log, "wb"), stderr=subprocess.STDOUT, env=full, start_new_session=True,
    )
    return Dagster(f"http://127.0.0.1:{port}", proc, log)


def stop_dagster(d: Dagster) -> None:
    """``dagster dev`` and its children (webserver, daemon, code server, runs) share its session:
    SIGTERM the group, then SIGKILL whatever is left (it may ignore SIGTERM)."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(d.proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            d.proc.wait(wait)
        except subprocess.TimeoutExpired:
            continue
        # the leader is gone; give the rest of the group the same signal once more
        try:
            os.killpg(d.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return
