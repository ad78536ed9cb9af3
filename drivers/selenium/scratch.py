"""Where a local session's temporary folders go: under a base short enough for the sockets the browser makes there.

The browser derives Unix socket paths from the folders it is given: Chromium puts its singleton socket in a folder
it creates under its TMPDIR (`<TMPDIR>/.org.chromium.Chromium.XXXXXX/SingletonSocket`), and the driver gives it the
session's own scratch folder as TMPDIR. A socket's path must fit in `sockaddr_un.sun_path` with its closing NUL
(108 bytes on Linux, 104 on macOS), so nested under a long TMPDIR (macOS's `/var/folders/…/T/` is about 49
characters; CI systems and tools often set a project-local one) Chromium cannot bind it and exits at start. So the
session's folders go under TMPDIR while the deepest such path still fits, else under the first of `SHORT_BASES`
that does and is writable. The reaper is told every folder by its path, so it removes them wherever they are.
"""

from __future__ import annotations

import os
import sys
import tempfile

from browser_toolset.driver_errors import DriverError

__all__ = ["BROWSER_SOCKET_PART", "SHORT_BASES", "SOCKET_PATH_BYTES", "fits", "make_folder", "scratch_base"]

SOCKET_PATH_BYTES = 104 if sys.platform == "darwin" else 108
"""`sizeof(sockaddr_un.sun_path)`: a socket path has at most one byte fewer (the closing NUL)."""

BROWSER_SOCKET_PART = len("/.org.chromium.Chromium.XXXXXX/SingletonSocket")
"""What Chromium appends to its TMPDIR for its singleton socket (Chrome's `.com.google.Chrome.XXXXXX` is shorter)."""

SCRATCH_NAME = len("browser-toolset-tmp-") + 8
"""The length of the scratch folder's name (`tempfile.mkdtemp` adds 8 random characters to the prefix): the folder
the browser gets as its TMPDIR, the only one it makes sockets in."""

SHORT_BASES: tuple[str, ...] = ("/tmp", "/var/tmp")
"""Where the folders go when TMPDIR is too long: short, shared, and writable on every Unix."""


def fits(base: str) -> bool:
    """Whether a socket the browser makes in a session's scratch folder under `base` has a path short enough to bind
    (for Chromium's: at most 32 bytes of `base` on Linux, 28 on macOS)."""
    deepest = len(os.fsencode(base.rstrip(os.sep) or os.sep)) + 1 + SCRATCH_NAME + BROWSER_SOCKET_PART
    return deepest < SOCKET_PATH_BYTES


def _writable(folder: str) -> bool:
    return os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)


def scratch_base(tmpdir: str | None = None) -> str:
    """The folder the session's temporary folders go in: `tmpdir` (default: Python's temporary folder, from
    TMPDIR) when it `fits`, else the first short base that is writable. Raises `DriverError` saying what to set
    when there is none."""
    preferred = tmpdir if tmpdir is not None else tempfile.gettempdir()
    if fits(preferred):
        return preferred
    for base in SHORT_BASES:
        if fits(base) and _writable(base):
            return base
    limit = SOCKET_PATH_BYTES - 1 - 1 - SCRATCH_NAME - BROWSER_SOCKET_PART
    raise DriverError(
        f"the temporary folder {preferred} ({len(preferred)} characters) is too long for the sockets the browser "
        f"makes in it, and none of {', '.join(SHORT_BASES)} is writable: set TMPDIR to a writable folder of at most "
        f"{limit} characters, such as /tmp"
    )


def make_folder(base: str, kind: str) -> str:
    """A new folder `browser-toolset-<kind>-XXXXXXXX` under `base` (kind: tmp, profile or downloads)."""
    return tempfile.mkdtemp(prefix=f"browser-toolset-{kind}-", dir=base)
