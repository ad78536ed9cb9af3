"""Files across a Selenium Grid: what `file_upload` sets is sent to the node first, and each finished download is
fetched back into the local download directory.

A remote browser reads upload paths and writes downloads on its own machine, where the executor's paths mean
nothing (or, worse, name some other file of the same name). Selenium Grid 4 carries files both ways for a session,
as Selenium's own clients use it: `POST /session/{id}/se/file` takes a zip of one file and answers the path the node
unpacked it to, and with managed downloads (nodes started with `--enable-managed-downloads true`, a session asking
for `se:downloadsEnabled`) `/session/{id}/se/files` lists, hands over (zipped) and deletes what the session's
browser downloaded. These are the only classic WebDriver HTTP commands the driver sends after the session starts,
and the Grid answers them itself: they never reach the browser, so they cannot wedge it the way a classic command
that navigates can while a BiDi intercept is active.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import logging
import os
import re
import shutil
import threading
import urllib.request
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.remote.command import Command

from browser_toolset.driver_errors import DriverError

__all__ = [
    "MANAGED_DOWNLOADS",
    "FileNotOffered",
    "RemoteFiles",
    "grid_offers_downloads",
    "safe_filename",
    "unused_path",
]

log = logging.getLogger(__name__)

MANAGED_DOWNLOADS = "se:downloadsEnabled"
"""The capability a session asks for managed downloads with, and a Grid node's stereotype offers them with."""

GRID_BROWSER_NAMES = {"chromium": "chrome", "firefox": "firefox"}
"""The `browserName` a session of each browser family asks the Grid for (Chromium is started as `chrome`)."""

_NOT_A_GRID = (
    "Unrecognized command: POST",
    "Command not found: POST ",
    '{"status":405,"value":["GET","HEAD","DELETE"]}',
)
"""How a remote end that has no `/se/file` answers (Selenium's own client recognises the same three)."""


class FileNotOffered(DriverError):
    """The Grid does not list the file (yet) among the session's downloads."""


def _status_request(remote_url: str) -> urllib.request.Request:
    """`GET {remote_url}/status`, with the URL's credentials (if any) as basic authentication, not in the URL."""
    parts = urlsplit(remote_url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc += f":{parts.port}"
    url = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/") + "/status", "", ""))
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if parts.username is not None:
        token = base64.b64encode(f"{parts.username}:{parts.password or ''}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    return request


def offers_downloads(status: object, family: str) -> bool:
    """Whether a Grid `/status` answer has a node slot for `family` (`chromium` or `firefox`) whose stereotype offers
    managed downloads."""
    wanted = GRID_BROWSER_NAMES.get(family, family)
    value = status.get("value") if isinstance(status, dict) else None
    nodes = value.get("nodes") if isinstance(value, dict) else None
    for node in nodes if isinstance(nodes, list) else ():
        slots = node.get("slots") if isinstance(node, dict) else None
        for slot in slots if isinstance(slots, list) else ():
            stereotype = slot.get("stereotype") if isinstance(slot, dict) else None
            if (
                isinstance(stereotype, dict)
                and stereotype.get("browserName") == wanted
                and str(stereotype.get(MANAGED_DOWNLOADS)).lower() == "true"
            ):
                return True
    return False


def grid_offers_downloads(remote_url: str, family: str, timeout: float = 10.0) -> bool:
    """Whether the Grid at `remote_url` can give a `family` session managed downloads, from its `/status`. A session
    asks for them only then: a Grid matches a session asking for them only to nodes offering them, so asking one that
    has none would fail the session. False for a remote WebDriver that is no Grid, or a status that cannot be read."""
    try:
        with urllib.request.urlopen(_status_request(remote_url), timeout=timeout) as response:
            status = json.load(response)
    except (OSError, ValueError) as exc:
        log.info("could not read the status of %s (%s): no managed downloads", remote_url, exc)
        return False
    return offers_downloads(status, family)


_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"|?*]')


def safe_filename(name: str) -> str:
    """The last path segment of `name`, without control or reserved characters, so the remote end cannot pick
    where a file lands here."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = _UNSAFE.sub("_", base).strip(" .")
    return cleaned[:200] or "download"


def unused_path(directory: Path, filename: str) -> Path:
    """`directory/filename`, or `stem (N)suffix` with the first N not taken: how a browser names a download whose
    name is taken, and how the mock driver does."""
    path = directory / filename
    stem, suffix = path.stem, path.suffix
    number = 0
    while path.exists():
        number += 1
        path = directory / f"{stem} ({number}){suffix}"
    return path


def _zipped(path: str) -> str:
    """The file at `path` as the Grid takes an upload: a zip holding it under its own name, in base64."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(path, os.path.basename(path))
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _reason(exc: WebDriverException) -> str:
    text = (exc.msg or str(exc) or type(exc).__name__).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


class RemoteFiles:
    """File transfer for one remote session (`webdriver` is Selenium's `Remote`): uploads sent to the node, and,
    when the session has managed downloads (`managed`), the session's downloads fetched into `download_dir`.
    Called from the driver's calling thread only; `clear` may come from the closing one.

    A session has managed downloads when it `asked` for them and the Grid's answer has them: the answer alone does
    not tell, since the Grid copies the node's stereotype into it, which says `se:downloadsEnabled` for a session
    that did not ask as well."""

    def __init__(self, webdriver: Any, download_dir: str, *, asked: bool) -> None:
        self._webdriver = webdriver
        self.download_dir = Path(download_dir)
        capabilities = getattr(webdriver, "capabilities", None) or {}
        self.managed = asked and str(capabilities.get(MANAGED_DOWNLOADS)).lower() == "true"
        self._warned = False
        self._lock = threading.Lock()

    def _execute(self, command: str, params: dict[str, Any] | None = None) -> Any:
        return self._webdriver.execute(command, params).get("value")

    # --- uploads ----------------------------------------------------------------------------------------------

    def send(self, paths: Sequence[str]) -> list[str]:
        """The node's path of each local file in `paths`, each sent to the node. Raises `DriverError` naming the
        file and the reason; a remote end that takes no uploads (a plain remote WebDriver, no Grid) is given the
        paths as they are, as Selenium's clients do, since it can only read files of its own machine."""
        return [self._send(path) for path in paths]

    def _send(self, path: str) -> str:
        name = os.path.basename(path)
        try:
            payload = _zipped(path)
        except OSError as exc:
            raise DriverError(
                f"could not read {name!r} to send it to the remote browser: {exc.strerror or exc}"
            ) from exc
        try:
            sent = self._execute(Command.UPLOAD_FILE, {"file": payload})
        except WebDriverException as exc:
            if any(answer in str(exc) for answer in _NOT_A_GRID):
                if not self._warned:
                    self._warned = True
                    log.warning("the remote WebDriver takes no file uploads (no Selenium Grid): local paths are used")
                return path
            raise DriverError(f"could not send {name!r} to the remote browser's machine: {_reason(exc)}") from exc
        if not isinstance(sent, str) or not sent:
            raise DriverError(f"could not send {name!r} to the remote browser's machine: the Grid named no file")
        return sent

    # --- managed downloads ------------------------------------------------------------------------------------

    def offered(self) -> list[str]:
        """The file names the Grid holds for the session's downloads."""
        try:
            value = self._execute(Command.GET_DOWNLOADABLE_FILES)
        except WebDriverException as exc:
            raise DriverError(f"the Grid did not list the session's downloads: {_reason(exc)}") from exc
        names = value.get("names") if isinstance(value, dict) else None
        return [str(name) for name in names] if isinstance(names, list) else []

    def fetch(self, name: str) -> tuple[str, int]:
        """Fetch the session's downloaded file `name` into the download directory (under its own name, or
        `stem (N)suffix` when taken); return its local path and size. Raises `FileNotOffered` when the Grid does not
        list it, `DriverError` when the transfer fails."""
        if name not in self.offered():
            raise FileNotOffered(f"the Grid does not offer {name!r}")
        try:
            value = self._execute(Command.DOWNLOAD_FILE, {"name": name})
        except WebDriverException as exc:
            raise DriverError(f"could not fetch {name!r} from the Grid: {_reason(exc)}") from exc
        contents = value.get("contents") if isinstance(value, dict) else None
        try:
            archive = zipfile.ZipFile(io.BytesIO(base64.b64decode(str(contents or ""), validate=False)))
        except (binascii.Error, zipfile.BadZipFile, ValueError) as exc:
            raise DriverError(f"could not fetch {name!r} from the Grid: it sent no readable zip") from exc
        with archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            chosen = next((info for info in members if safe_filename(info.filename) == safe_filename(name)), None)
            if chosen is None and len(members) == 1:
                chosen = members[0]
            if chosen is None:
                raise DriverError(f"could not fetch {name!r} from the Grid: the zip it sent does not hold it")
            return self._save(archive, chosen, safe_filename(name))

    def _save(self, archive: zipfile.ZipFile, member: zipfile.ZipInfo, filename: str) -> tuple[str, int]:
        self.download_dir.mkdir(parents=True, exist_ok=True)
        with self._lock:
            while True:
                target = unused_path(self.download_dir, filename)
                try:
                    out = open(target, "xb")  # noqa: SIM115 - closed below; exclusive, so no file is overwritten
                except FileExistsError:
                    continue
                break
        try:
            with out, archive.open(member) as source:
                shutil.copyfileobj(source, out, 1024 * 1024)
        except (OSError, zipfile.BadZipFile) as exc:
            target.unlink(missing_ok=True)
            raise DriverError(f"could not save {filename!r} here: {exc}") from exc
        return str(target), target.stat().st_size

    def clear(self, timeout: float = 10.0) -> None:
        """Delete the session's downloads on the node (when the session ends), giving up after `timeout` seconds: an
        unresponsive Grid must not hold up closing."""
        if not self.managed:
            return
        worker = threading.Thread(target=self._clear, name="grid-downloads-clear", daemon=True)
        worker.start()
        worker.join(timeout)

    def _clear(self) -> None:
        try:
            self._execute(Command.DELETE_DOWNLOADABLE_FILES)
        except Exception as exc:  # the Grid may be gone already; closing must not fail
            log.info("could not delete the session's downloads on the Grid: %s", exc)
