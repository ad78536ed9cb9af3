"""Which local files `file_upload` may hand to a page.

Claude writes upload paths while reading untrusted pages, so a page that talks it into uploading `~/.ssh/id_rsa`
exfiltrates the key. The contract's rule: every path resolved (symlinks and `..` followed), nothing outside one
dedicated upload directory, never the browser's download directory. The SDK's `BetaLocalFilePolicy` already does
the containment (whole-component comparison after resolving symlinks on both sides, `..` refused outright, no
filesystem access for a path that does not even claim to be inside); `UploadPolicy` builds on it with what it
leaves open: the file must exist and be a regular file (a FIFO would block the browser's read forever, a device
never ends), it must fit a size limit, a relative path means one inside the upload directory, and each refusal says
which rule it broke, without showing where a symlink led.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from anthropic.lib.tools import ToolError
from anthropic.tools import ToolsetConfigError
from anthropic.tools.browser import BetaLocalFilePolicy, BetaURLContext
from anthropic.tools.browser import UploadRefusedError as SDKUploadRefused

from ..executor.errors import ActionError
from .sanitize import one_line

__all__ = ["DEFAULT_MAX_BYTES", "MAX_FILES", "UploadPolicy", "UploadRefused"]

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
MAX_FILES = 20
"""Files per call: a page has no business asking for more, and each one is a file leaving the machine."""

SDK_REASONS: tuple[tuple[str, str], ...] = (
    ("empty or contains a NUL", "the path is empty or contains a NUL character"),
    ("too long", "the path is too long"),
    ("'..'", "the path has a '..' component; name the file inside the upload directory without one"),
    ("outside the configured upload roots", "it is outside the upload directory (symbolic links are followed)"),
    ("no configured upload roots", "no upload directory is configured"),
)
"""The SDK's refusals (matched by a phrase of their text), reworded to say what to do instead."""


class UploadRefused(ActionError):
    """A `file_upload` path the upload policy does not admit. The message names the path as Claude wrote it,
    never where it resolved to."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"file_upload refused {one_line(path, 200)!r}: {reason}.")


def _size(count: int) -> str:
    return f"{count / (1024 * 1024):.1f} MiB" if count >= 1024 * 1024 else f"{count:,} bytes"


def _within(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


class UploadPolicy(BetaLocalFilePolicy):
    """The file policy for `file_upload`: regular, readable files inside the one `upload_dir`, at most `max_bytes`
    each, at most `MAX_FILES` per call, never inside `download_dir`. Relative paths are taken inside `upload_dir`.
    `download_dir` (where the browser saves downloads) and the download-path options are the SDK's: it refuses a
    download directory inside the upload directory at construction, and shows download paths to Claude only with
    `expose_download_paths`."""

    def __init__(
        self,
        upload_dir: str | os.PathLike[str],
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        download_dir: str | os.PathLike[str] | None = None,
        expose_download_paths: bool = False,
        upload_document_ids: Iterable[str] = (),
    ) -> None:
        directory = Path(os.path.abspath(os.fspath(upload_dir)))
        if not directory.is_dir():
            raise ToolsetConfigError(f"upload directory {str(directory)!r} does not exist or is not a directory")
        if max_bytes <= 0:
            raise ToolsetConfigError(f"max_bytes must be positive, not {max_bytes}")
        super().__init__(
            upload_roots=[directory],
            upload_document_ids=upload_document_ids,
            download_dir=download_dir,
            expose_download_paths=expose_download_paths,
        )
        self.upload_dir = directory
        self.max_bytes = max_bytes
        self._resolved_download = None if download_dir is None else Path(os.path.realpath(os.fspath(download_dir)))

    def resolve_upload_paths(self, context: BetaURLContext, paths: Sequence[str]) -> list[str]:
        if len(paths) > MAX_FILES:
            raise ActionError(f"file_upload takes at most {MAX_FILES} files per call; {len(paths)} were given.")
        return [self.check(path) for path in paths]

    def check(self, path: str) -> str:
        """The resolved path of `path` when it may be uploaded, else `UploadRefused` saying why."""
        if not isinstance(path, str):
            raise UploadRefused(repr(path), "a path must be a string")
        candidate = path if os.path.isabs(path) or not path.strip() else str(self.upload_dir / path)
        try:
            resolved = Path(super().resolve_upload_paths(BetaURLContext(member="file_upload"), [candidate])[0])
        except SDKUploadRefused as exc:
            text = str(exc)
            reason = next((mine for phrase, mine in SDK_REASONS if phrase in text), text)
            raise UploadRefused(path, reason) from None
        except ToolError as exc:
            raise UploadRefused(path, str(exc)) from None
        if self._resolved_download is not None and _within(resolved, self._resolved_download):
            raise UploadRefused(path, "it is in the browser's download directory, which uploads never read from")
        try:
            info = resolved.stat()
        except FileNotFoundError:
            raise UploadRefused(path, "there is no such file in the upload directory") from None
        except OSError as exc:
            raise UploadRefused(path, f"it cannot be read ({exc.strerror or type(exc).__name__})") from None
        if stat.S_ISDIR(info.st_mode):
            raise UploadRefused(path, "it is a directory; name a file inside it")
        if not stat.S_ISREG(info.st_mode):
            raise UploadRefused(path, "it is not a regular file (a FIFO, socket or device file)")
        if info.st_size > self.max_bytes:
            raise UploadRefused(path, f"it is {_size(info.st_size)}, over the upload limit of {_size(self.max_bytes)}")
        if not os.access(resolved, os.R_OK):
            raise UploadRefused(path, "it cannot be read (permission denied)")
        return str(resolved)
