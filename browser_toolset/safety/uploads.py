"""Which local files `file_upload` may hand to a page.

Claude writes upload paths while reading untrusted pages, so a page that talks it into uploading `~/.ssh/id_rsa`
exfiltrates the key. The contract's rule: every path resolved (symlinks and `..` followed), nothing outside one
dedicated upload directory, never the browser's download directory. The SDK's `BetaLocalFilePolicy` already does
the containment (whole-component comparison after resolving symlinks on both sides, `..` refused outright, no
filesystem access for a path that does not even claim to be inside); `UploadPolicy` builds on it with what it
leaves open: the file must exist and be a regular file (a FIFO would block the browser's read forever, a device
never ends), it must fit a size limit, a relative path means one inside the upload directory, and each refusal says
which rule it broke, without showing where a symlink led. `document_ids` go through the same file rules (`vet_file`)
once the toolset's document store has said which file an id is (`browser_toolset.executor.document_store`).
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

__all__ = ["DEFAULT_MAX_BYTES", "MAX_FILES", "UploadPolicy", "UploadRefused", "vet_file", "within"]

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
    """A `file_upload` path (or, with `document`, a document id) the upload rules do not admit. The message names
    it as Claude wrote it, never where it resolved to."""

    def __init__(self, path: str, reason: str, *, document: bool = False) -> None:
        self.path = path
        self.reason = reason
        what = "document " if document else ""
        super().__init__(f"file_upload refused {what}{one_line(path, 200)!r}: {reason}.")


def size_text(count: int) -> str:
    return f"{count / (1024 * 1024):.1f} MiB" if count >= 1024 * 1024 else f"{count:,} bytes"


def within(path: Path, directory: Path) -> bool:
    """Whether `path` is `directory` or inside it, comparing whole components (both already resolved)."""
    return path == directory or directory in path.parents


def vet_file(
    resolved: Path,
    shown: str,
    *,
    max_bytes: int,
    download_dirs: Iterable[Path],
    missing: str = "there is no such file in the upload directory",
    document: bool = False,
) -> str:
    """`resolved` (symbolic links already followed) as a string when a page may be given the file, else
    `UploadRefused` naming it as `shown`: never in the browser's download directory (a page-triggered download must
    not be readable back), an existing regular file (a FIFO would block the browser's read forever, a device never
    ends), at most `max_bytes`, readable."""

    def refuse(reason: str) -> UploadRefused:
        return UploadRefused(shown, reason, document=document)

    if any(within(resolved, download) for download in download_dirs):
        raise refuse("it is in the browser's download directory, which uploads never read from")
    try:
        info = resolved.stat()
    except FileNotFoundError:
        raise refuse(missing) from None
    except OSError as exc:
        raise refuse(f"it cannot be read ({exc.strerror or type(exc).__name__})") from None
    if stat.S_ISDIR(info.st_mode):
        raise refuse("it is a directory; name a file inside it")
    if not stat.S_ISREG(info.st_mode):
        raise refuse("it is not a regular file (a FIFO, socket or device file)")
    if info.st_size > max_bytes:
        raise refuse(f"it is {size_text(info.st_size)}, over the upload limit of {size_text(max_bytes)}")
    if not os.access(resolved, os.R_OK):
        raise refuse("it cannot be read (permission denied)")
    return str(resolved)


class UploadPolicy(BetaLocalFilePolicy):
    """The file policy for `file_upload`: regular, readable files inside the one `upload_dir`, at most `max_bytes`
    each, at most `MAX_FILES` per call, never inside `download_dir`. Relative paths are taken inside `upload_dir`;
    with no `upload_dir` every path is refused (a toolset that uploads only documents). `download_dir` (where the
    browser saves downloads) and the download-path options are the SDK's: it refuses a download directory inside
    the upload directory at construction, and shows download paths to Claude only with `expose_download_paths`.

    Document ids are the SDK's allowlist (`upload_document_ids`), or with `documents=True` any id, for a toolset
    whose document store resolves them itself (and names the ids it does not have): the ids Claude may name are
    then exactly the store's, and each document passes the same file rules as a path (`vet_file`)."""

    def __init__(
        self,
        upload_dir: str | os.PathLike[str] | None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        download_dir: str | os.PathLike[str] | None = None,
        expose_download_paths: bool = False,
        upload_document_ids: Iterable[str] = (),
        documents: bool = False,
    ) -> None:
        directory = None if upload_dir is None else Path(os.path.abspath(os.fspath(upload_dir)))
        if directory is not None and not directory.is_dir():
            raise ToolsetConfigError(f"upload directory {str(directory)!r} does not exist or is not a directory")
        if max_bytes <= 0:
            raise ToolsetConfigError(f"max_bytes must be positive, not {max_bytes}")
        super().__init__(
            upload_roots=[] if directory is None else [directory],
            upload_document_ids=upload_document_ids,
            download_dir=download_dir,
            expose_download_paths=expose_download_paths,
        )
        self.upload_dir = directory
        self.max_bytes = max_bytes
        self.documents = documents
        self.resolved_download = None if download_dir is None else Path(os.path.realpath(os.fspath(download_dir)))

    def resolve_upload_paths(self, context: BetaURLContext, paths: Sequence[str]) -> list[str]:
        if len(paths) > MAX_FILES:
            raise ActionError(f"file_upload takes at most {MAX_FILES} files per call; {len(paths)} were given.")
        return [self.check(path) for path in paths]

    def resolve_upload_documents(self, context: BetaURLContext, document_ids: Sequence[str]) -> list[str]:
        if not self.documents:
            return super().resolve_upload_documents(context, document_ids)
        if len(document_ids) > MAX_FILES:
            raise ActionError(
                f"file_upload takes at most {MAX_FILES} documents per call; {len(document_ids)} were given."
            )
        for document_id in document_ids:
            if not isinstance(document_id, str):
                raise UploadRefused(repr(document_id), "a document id must be a string", document=True)
        return list(document_ids)

    def check(self, path: str) -> str:
        """The resolved path of `path` when it may be uploaded, else `UploadRefused` saying why."""
        if not isinstance(path, str):
            raise UploadRefused(repr(path), "a path must be a string")
        inside = path if os.path.isabs(path) or not path.strip() or self.upload_dir is None else self.upload_dir / path
        try:
            resolved = Path(super().resolve_upload_paths(BetaURLContext(member="file_upload"), [str(inside)])[0])
        except SDKUploadRefused as exc:
            text = str(exc)
            reason = next((mine for phrase, mine in SDK_REASONS if phrase in text), text)
            raise UploadRefused(path, reason) from None
        except ToolError as exc:
            raise UploadRefused(path, str(exc)) from None
        downloads = () if self.resolved_download is None else (self.resolved_download,)
        return vet_file(resolved, path, max_bytes=self.max_bytes, download_dirs=downloads)
